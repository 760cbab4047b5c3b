"""The site builder on a small fixture repository (tests/site/fixture).

The fixture's implementation is a trivial Python script, so these tests exercise the
builder alone: what a page shows against the files and the program's real output, the
determinism of the output, and every kind of bad input (one line, exit 2, output untouched).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402
from perfectplay.site.entries import Compare  # noqa: E402
from perfectplay.site.samples import compare  # noqa: E402

FIXTURE = Path(__file__).resolve().parent / "fixture"
ENTRY = "archive/demo/2024/A-sum-of-numbers"
PAGE = f"{ENTRY}/index.html"

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover - the site extra is part of the test extra
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)


# ---- helpers (the HTML text grabber is in conftest.py, shared with test_site_real) -----


def git(repo: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Site Test",
        "GIT_AUTHOR_EMAIL": "site@test",
        "GIT_COMMITTER_NAME": "Site Test",
        "GIT_COMMITTER_EMAIL": "site@test",
        "GIT_AUTHOR_DATE": "2024-05-01T12:00:00",
        "GIT_COMMITTER_DATE": "2024-05-01T12:00:00",
    }
    res = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def make_repo(tmp_path: Path, commit: bool = True) -> Path:
    repo = tmp_path / "repo"
    shutil.copytree(FIXTURE, repo)
    if commit and shutil.which("git"):
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "fixture: first commit")
    return repo


def cli(repo: Path, out: Path, capsys) -> tuple[int, str]:
    # --fail-fast: a failing entry stops the build (without it, it is shown failing).
    code = site_main(["build", "--root", str(repo), "--out", str(out), "--quiet", "--fail-fast"])
    return code, capsys.readouterr().err


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, Path]:
    base = tmp_path_factory.mktemp("site")
    repo = make_repo(base)
    out = base / "out"
    build_site(repo, out)
    return repo, out


# ---- what the pages show ---------------------------------------------------------------


def test_shown_source_is_the_file(built, grab):
    repo, out = built
    page = (out / PAGE).read_text(encoding="utf-8")
    shown = grab(page, "data-file")
    expected = ["src/toy/sum.py", f"{ENTRY}/solution.tex"]
    assert sorted(shown) == sorted(expected)
    for path in expected:
        data = (repo / path).read_bytes()
        assert shown[path] == data.decode("utf-8"), path
        assert (out / "raw" / path).read_bytes() == data  # the raw link's target
    assert 'href="../../../../raw/src/toy/sum.py"' in page
    assert "Edit this file to change this page." in page
    assert "bytes-note" not in page  # nothing hidden to tell about


def test_shown_sample_output_is_the_real_output(built, grab):
    repo, out = built
    page = (out / PAGE).read_text(encoding="utf-8")
    inputs, answers, outputs = (grab(page, f"data-{k}") for k in ("input", "answer", "output"))
    assert sorted(outputs) == ["1", "2"]
    for name in ("1", "2"):
        stdin = (repo / ENTRY / "samples" / f"{name}.in").read_bytes()
        real = subprocess.run(
            [sys.executable, "src/toy/sum.py"],
            input=stdin,
            cwd=repo,
            capture_output=True,
            check=True,
        ).stdout.decode()
        assert outputs[name] == real
        assert inputs[name] == stdin.decode()
        assert answers[name] == (repo / ENTRY / "samples" / f"{name}.ans").read_text()
    assert outputs["2"] == "0.750000000\n" != answers["2"]  # the program's, not the answer
    assert page.count("matches (float 1e-06)") == 2


def test_math_is_mathml_and_no_tex_is_left(built):
    _, out = built
    page = (out / PAGE).read_text(encoding="utf-8")
    statement = page[page.index('<section id="statement"') : page.index('<section id="samples"')]
    solution = page[page.index('<section id="solution"') : page.index('<section id="tex-source"')]
    for part in (statement, solution):
        assert "<math" in part
        # What a reader sees: the TeX annotations inside <math> are not displayed.
        text = re.sub(r"<annotation\b.*?</annotation>", "", part, flags=re.DOTALL)
        text = html.unescape(re.sub(r"<[^>]*>", "", text))
        assert "\\frac" not in text and "\\sum" not in text and "$" not in text
    assert "<mfrac>" in solution and "<mo>∑</mo>" in statement


def test_git_last_change_is_shown(built):
    repo, out = built
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    page = (out / PAGE).read_text(encoding="utf-8")
    commit = git(repo, "log", "-1", "--format=%H", "--", "src/toy/sum.py")
    assert f'<code title="{commit}">{commit[:10]}</code> 2024-05-01 by Site Test' in page
    assert "fixture: first commit" in page


def test_index_search_and_docs(built):
    _, out = built
    index = (out / "index.html").read_text(encoding="utf-8")
    assert 'data-entry="demo/2024/A-sum-of-numbers"' in index
    assert "Demo Contest" in index and "arithmetic" in index
    search = (out / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert "zanzibar" in search
    guide = (out / "docs" / "guide.html").read_text(encoding="utf-8")
    assert 'href="../raw/src/toy/sum.py"' in guide  # a link to a source file: its raw copy
    docs_index = (out / "docs" / "index.html").read_text(encoding="utf-8")
    assert 'href="guide.html"' in docs_index
    assert f'href="../{PAGE}"' in docs_index  # a link to an entry folder: its page
    for asset in ("style.css", "search.js", "fonts/latinmodern-math.woff2", "pygments.css"):
        assert (out / "assets" / asset).is_file()
    for html_file in out.rglob("*.html"):
        text = html_file.read_text(encoding="utf-8")
        assert "http://" not in text.replace("http://www.w3.org/1998/Math/MathML", "")
        assert 'src="https:' not in text and 'href="https://fonts' not in text


def test_build_is_deterministic(built, tmp_path, snapshot):
    repo, out = built
    second = tmp_path / "again"
    build_site(repo, second, jobs=1, force=True)  # run again, not remembered
    assert snapshot(second) == snapshot(out)


def test_rebuild_replaces_the_output_whole(built, tmp_path):
    repo, _ = built
    out = tmp_path / "out"
    build_site(repo, out)
    (out / "stale.html").write_text("left over")
    build_site(repo, out)
    assert not (out / "stale.html").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temporary folders left


# ---- bad input: one line naming entry and file, exit 2, output untouched ---------------


def test_modified_files_are_named_exactly(tmp_path):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    from perfectplay.site.repo import Git

    repo = make_repo(tmp_path)
    assert Git(repo).dirty_paths() == set()
    # The first entry of `git status -z` starts with a space (" M path"): it must survive.
    (repo / "src" / "toy" / "sum.py").write_text("print(0)\n")
    assert Git(repo).dirty_paths() == {"src/toy/sum.py"}
    git(repo, "mv", f"{ENTRY}/statement.md", f"{ENTRY}/moved.md")
    (repo / "new file.txt").write_text("x\n")
    assert Git(repo).dirty_paths() == {
        "src/toy/sum.py",
        f"{ENTRY}/moved.md",
        "new file.txt",
    }
    assert Git(repo).last_change("src/toy/sum.py").dirty


def _filemeta(page: str, path: str) -> list[str]:
    """The text of every "file" line a page shows for repository file ``path``."""
    found = re.findall(r'<p class="filemeta">(.*?)</p>', page, flags=re.DOTALL)
    texts = [" ".join(html.unescape(re.sub(r"<[^>]*>", " ", f)).split()) for f in found]
    return [t for t in texts if t.startswith(path + " ")]


def test_page_says_a_shown_file_was_edited_since_its_commit(tmp_path, grab):
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    repo = make_repo(tmp_path)
    source = repo / "src" / "toy" / "sum.py"
    # A tracked file modified in place: `git status -z` lists it first, as " M src/toy/sum.py".
    source.write_text(source.read_text() + "# edited after the commit\n")
    out = tmp_path / "out"
    build_site(repo, out)
    page = (out / PAGE).read_text(encoding="utf-8")
    (edited,) = _filemeta(page, "src/toy/sum.py")
    assert "fixture: first commit" in edited and "and edited since (not committed yet)" in edited
    clean = _filemeta(page, f"{ENTRY}/solution.tex") + _filemeta(page, f"{ENTRY}/statement.md")
    assert len(clean) == 3  # the write-up twice (rendered, source), the statement once
    for meta in clean:
        assert "fixture: first commit" in meta and "edited since" not in meta
    assert grab(page, "data-file")["src/toy/sum.py"] == source.read_text()


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text, (path, old)
    path.write_text(text.replace(old, new, 1))


BAD = {
    "missing solution.tex": (
        lambda r: (r / ENTRY / "solution.tex").unlink(),
        "solution.tex: required file is missing",
    ),
    "missing sample answer": (
        lambda r: (r / ENTRY / "samples" / "2.ans").unlink(),
        "samples[1].answer",
    ),
    "malformed TOML": (
        lambda r: _edit(r / ENTRY / "meta.toml", "year = 2024", "year = = 2024"),
        "meta.toml:3: malformed TOML",
    ),
    "missing key": (
        lambda r: _edit(r / ENTRY / "meta.toml", 'title = "Sum of Numbers"\n', ""),
        "meta.toml: missing key 'title'",
    ),
    "wrong type": (
        lambda r: _edit(r / ENTRY / "meta.toml", "year = 2024", 'year = "2024"'),
        "meta.toml:3: 'year' must be an integer, not str",
    ),
    "unknown key": (
        lambda r: _edit(r / ENTRY / "meta.toml", "year = 2024", "yaer = 2024"),
        "unknown key 'yaer'",
    ),
    "bad compare": (
        lambda r: _edit(r / ENTRY / "meta.toml", '"float 1e-6"', '"roughly"'),
        "'compare' must be",
    ),
    "unknown TeX command": (
        lambda r: _edit(r / ENTRY / "solution.tex", "Addition is", "\\frobnicate{x} Addition is"),
        "solution.tex:6: pandoc cannot convert '\\\\frobnicate{x}'",
    ),
    "TeX math pandoc rejects": (
        lambda r: _edit(r / ENTRY / "solution.tex", "$O(n)$", "$O(\\badmacro{n})$"),
        "solution.tex:19: pandoc cannot convert the math",
    ),
    "TeX that does not parse": (
        lambda r: _edit(r / ENTRY / "solution.tex", "\\end{proof}", ""),
        "solution.tex:20: pandoc cannot parse it: expecting \\end{proof}",
    ),
    "TeX that reads a file outside the tree": (
        lambda r: (
            (r.parent / "secret.txt").write_text("secret-outside-the-tree\n"),
            _edit(
                r / ENTRY / "solution.tex",
                "Addition is",
                f"\\input{{{(r.parent / 'secret.txt').as_posix()}}} Addition is",
            ),
        ),
        "solution.tex:6: cannot include '/",
    ),
    "TeX that includes a file of the tree": (
        # Without --sandbox pandoc would paste part.tex (found from the working directory,
        # the repository root) into the page; every include is refused, inside or not.
        lambda r: (
            (r / "part.tex").write_text("text from another file\n"),
            _edit(r / ENTRY / "solution.tex", "Addition is", "\\include{part} Addition is"),
        ),
        "solution.tex:6: cannot include 'part.tex': a page is made from this file alone",
    ),
    "TeX listing read from a file": (
        lambda r: _edit(
            r / ENTRY / "solution.tex", "Addition is", "\\lstinputlisting{/etc/hostname} Addition"
        ),
        "solution.tex:6: cannot include '/etc/hostname'",
    ),
    "statement with its own title": (
        lambda r: _edit(r / ENTRY / "statement.md", "## ", "# Sum of Numbers\n\n## "),
        "statement.md:1: a top-level heading ('#', or a line underlined with '=')",
    ),
    "statement with an underlined title": (
        lambda r: _edit(r / ENTRY / "statement.md", "## Input", "Summing\n=====\n\n## Input"),
        "statement.md:6: a top-level heading",
    ),
    "sample that hangs": (
        lambda r: (
            _edit(r / ENTRY / "meta.toml", "year = 2024", "year = 2024\ntimeout = 0.5"),
            (r / "src" / "toy" / "sum.py").write_text("import time\ntime.sleep(30)\n"),
        ),
        "samples/1.in: `python3 src/toy/sum.py` ran longer than 0.5 s",
    ),
    "sample that prints without end": (
        lambda r: (r / "src" / "toy" / "sum.py").write_text(
            "import sys\nwhile True:\n    sys.stdout.write('y' * 65536)\n"
        ),
        "samples/1.in: `python3 src/toy/sum.py` printed more than 8 MiB",
    ),
    "sample that crashes": (
        lambda r: (r / "src" / "toy" / "sum.py").write_text("import os\nos.abort()\n"),
        "samples/1.in: `python3 src/toy/sum.py` was killed by SIGABRT",
    ),
    "sample that writes beside itself": (
        # The working directory is a fresh folder: the repository cannot be written through it.
        lambda r: (r / "src" / "toy" / "sum.py").write_text(
            "import os\nopen('left-over.txt', 'w').write('x')\n"
            "assert os.listdir('.') == ['left-over.txt'], os.listdir('.')\n"
            "raise SystemExit(5)\n"
        ),
        "samples/1.in: `python3 src/toy/sum.py` exited with status 5",
    ),
    "raw TeX left in statement": (
        lambda r: _edit(r / ENTRY / "statement.md", "$n$ numbers", "$n numbers"),
        "statement.md: raw TeX left in the text",
    ),
    "sample mismatch": (
        lambda r: (r / ENTRY / "samples" / "1.ans").write_text("10\n"),
        "samples/1.ans: the output of `python3 src/toy/sum.py` on 1.in differs "
        "from the answer (float 1e-06): token 1: got 9, expected 10",
    ),
    "command fails": (
        lambda r: (r / "src" / "toy" / "sum.py").write_text("raise SystemExit(3)\n"),
        "samples/1.in: `python3 src/toy/sum.py` exited with status 3",
    ),
    "source outside the repository": (
        lambda r: (
            _edit(r / ENTRY / "meta.toml", '"src/toy/sum.py"]', '"../outside.py"]'),
            (r.parent / "outside.py").write_text("x = 1\n"),
        ),
        "sources[0] '../outside.py' is outside the repository",
    ),
    "absolute source path": (
        lambda r: _edit(r / ENTRY / "meta.toml", '"src/toy/sum.py"]', '"/etc/hostname"]'),
        "sources[0] '/etc/hostname' is absolute",
    ),
    "symlink out of the repository": (
        lambda r: (
            (r.parent / "secret.py").write_text("x = 1\n"),
            (r / "src" / "link.py").symlink_to(r.parent / "secret.py"),
            _edit(r / ENTRY / "meta.toml", '"src/toy/sum.py"]', '"src/link.py"]'),
        ),
        "sources[0] 'src/link.py' is outside the repository",
    ),
    "missing source": (
        lambda r: _edit(r / ENTRY / "meta.toml", '"src/toy/sum.py"]', '"src/toy/gone.py"]'),
        "sources[0] 'src/toy/gone.py': no such file",
    ),
    "sample path outside the repository": (
        lambda r: _edit(
            r / ENTRY / "meta.toml", 'input = "samples/1.in"', 'input = "../../../../../x.in"'
        ),
        "is outside the repository",
    ),
    "broken documentation link": (
        lambda r: _edit(r / "docs" / "guide.md", "(../src/toy/sum.py)", "(../src/toy/missing.py)"),
        "site: docs: docs/guide.md: link '../src/toy/missing.py': no such",
    ),
    "image from the network": (
        lambda r: _edit(
            r / "docs" / "guide.md", "# Guide", "# Guide\n\n![x](https://example.org/x.png)"
        ),
        "site: docs: docs/guide.md: external resource 'https://example.org/x.png'",
    ),
    "package and sources both": (
        lambda r: _edit(r / ENTRY / "meta.toml", "year = 2024", 'year = 2024\npackage = "toy"'),
        "'command' comes from 'package'; give one or the other",
    ),
    "package that is not in the gallery": (
        lambda r: (
            _edit(r / ENTRY / "meta.toml", 'command = "python3 src/toy/sum.py"\n', ""),
            _edit(r / ENTRY / "meta.toml", 'sources = ["src/toy/sum.py"]', 'package = "nosuch"'),
        ),
        "'package' 'nosuch' is not a package in src/perfectplay/problems/",
    ),
    "neither package nor sources": (
        lambda r: _edit(r / ENTRY / "meta.toml", 'sources = ["src/toy/sum.py"]\n', ""),
        "missing key 'sources' (or 'package', naming a gallery problem)",
    ),
    "incomplete entry folder": (
        lambda r: (
            (r / "archive/demo/2024/B-empty").mkdir()
            or (r / "archive/demo/2024/B-empty/statement.md").write_text("## Task\n")
        ),
        "site: demo/2024/B-empty: archive/demo/2024/B-empty/meta.toml: required file is missing",
    ),
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_bad_input_stops_the_build(case, tmp_path, capsys, snapshot):
    repo = make_repo(tmp_path, commit=False)
    out = tmp_path / "out"
    assert cli(repo, out, capsys)[0] == 0
    before = snapshot(out)
    breaks, expected = BAD[case]
    breaks(repo)
    code, err = cli(repo, out, capsys)
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("perfectplay: site: "), lines[0]
    assert "site: site:" not in lines[0]  # one prefix
    if "docs" not in expected:
        assert "demo/2024/" in lines[0]  # names the entry
    assert expected in lines[0], lines[0]
    assert snapshot(out) == before  # the previous build is left as it was
    leftovers = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("."))
    assert leftovers == []


def test_bad_input_exit_status_from_the_command_line(tmp_path):
    repo = make_repo(tmp_path, commit=False)
    (repo / ENTRY / "samples" / "2.ans").write_text("0.8\n")
    out = tmp_path / "out"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfectplay",
            "site",
            "build",
            "--root",
            str(repo),
            "--out",
            str(out),
            "--fail-fast",
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 2
    assert res.stderr.count("\n") == 1 and "Traceback" not in res.stderr
    assert "2.ans" in res.stderr and "expected 0.8" in res.stderr
    assert not out.exists()


def test_command_line_build_prints_a_summary(tmp_path):
    repo = make_repo(tmp_path, commit=False)
    out = tmp_path / "out"
    res = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfectplay",
            "site",
            "build",
            "--root",
            str(repo),
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout == ""
    assert "perfectplay: site: 1 entry (2 samples run and checked), 2 documentation pages" in (
        res.stderr
    )
    assert (out / "index.html").is_file() and (out / ".perfectplay-site").is_file()


def test_refuses_to_replace_a_folder_it_did_not_write(tmp_path, capsys):
    repo = make_repo(tmp_path, commit=False)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    code, err = cli(repo, precious, capsys)
    assert code == 2 and "refusing to replace a non-empty folder" in err
    assert (precious / "thesis.tex").read_text() == "years of work"
    code, err = cli(repo, repo, capsys)
    assert code == 2 and "refusing to build into the repository" in err


OUT_REFUSED = {
    # --out (relative to the repository unless absolute): the expected problem
    "archive/x": "refusing to build inside archive/",
    "docs/..": "refusing to build into the repository or above it",
    "..": "refusing to build into the repository or above it",
    "src": "refusing to build inside src/",
    "tests/site-out": "refusing to build inside tests/",
    ".git/x": "refusing to build inside .git/",
    "/dev/null/x": "cannot create folders in /dev/null: Not a directory",
    "/proc/x": "cannot create folders in /proc",
    "a-file": "output exists and is not a folder",
    "a-folder": "refusing to replace a non-empty folder without .perfectplay-site",
}


@pytest.mark.parametrize("where", sorted(OUT_REFUSED))
def test_bad_output_location_is_refused_before_building(where, tmp_path, capsys, snapshot):
    repo = make_repo(tmp_path, commit=False)
    if where.startswith("/") and not Path(where).parent.exists():
        pytest.skip(f"{Path(where).parent} does not exist here")
    (repo / ".git").mkdir()
    (repo / "a-file").write_text("x\n")
    (repo / "a-folder").mkdir()
    (repo / "a-folder" / "notes.txt").write_text("mine\n")
    # An entry that would fail the build: the output must be refused before it is reached.
    (repo / ENTRY / "solution.tex").unlink()
    before = snapshot(repo)
    out = Path(where) if where.startswith("/") else repo / where
    # --fail-fast: a failing entry stops the build (without it, it is shown failing).
    code = site_main(["build", "--root", str(repo), "--out", str(out), "--quiet", "--fail-fast"])
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith(f"perfectplay: site: {out.resolve()}: "), lines[0]
    assert "site: site:" not in lines[0]
    assert OUT_REFUSED[where] in lines[0], lines[0]
    assert snapshot(repo) == before  # nothing written, nothing removed
    assert sorted(p.name for p in tmp_path.iterdir()) == ["repo"]


def test_the_default_output_folder_is_accepted(tmp_path):
    repo = make_repo(tmp_path, commit=False)
    out = repo / "site-out"
    build_site(repo, out)
    assert (out / "index.html").is_file() and (out / ".perfectplay-site").is_file()
    build_site(repo, out)  # its own previous build is replaced
    assert (out / "index.html").is_file()


def test_an_entry_without_a_year_does_not_show_one(tmp_path):
    # A year no source confirms is left out of meta.toml; no page may then state one.
    repo = make_repo(tmp_path, commit=False)
    _edit(repo / ENTRY / "meta.toml", "year = 2024\n", "")
    out = tmp_path / "out"
    build_site(repo, out)
    page = (out / PAGE).read_text(encoding="utf-8")
    meta = re.search(r'<p class="entry-meta">(.*?)</p>', page, re.DOTALL).group(1)
    assert meta.startswith("Demo Contest, problem A")
    crumbs = re.search(r'<p class="crumbs">(.*?)</p>', page, re.DOTALL).group(1)
    assert "› Demo Contest › year unknown › A" in crumbs
    index = (out / "index.html").read_text(encoding="utf-8")
    row = re.search(r'<tr data-entry="demo/2024/A-sum-of-numbers">(.*?)</tr>', index, re.DOTALL)
    assert re.findall(r"<td>(.*?)</td>", row.group(1))[:3] == ["Demo Contest", "unknown", "A"]
    search = (out / "assets" / "search-index.js").read_text(encoding="utf-8")
    assert '"meta":"Demo Contest \\u00b7 arithmetic, reading input"' in search


def test_samples_are_found_when_meta_does_not_list_them(tmp_path, grab):
    repo = make_repo(tmp_path, commit=False)
    meta = repo / ENTRY / "meta.toml"
    meta.write_text(meta.read_text().split("[[samples]]")[0])
    out = tmp_path / "out"
    build_site(repo, out)
    assert sorted(grab((out / PAGE).read_text(), "data-sample")) == ["1", "2"]


def test_site_help_is_light():
    code = (
        "import sys\n"
        "from perfectplay.cli import main\n"
        "try:\n    main(['site', '--help'])\nexcept SystemExit as exc:\n    rc = exc.code\n"
        "heavy = [m for m in ('jinja2', 'pygments', 'numpy', 'numba') if m in sys.modules]\n"
        "print(heavy)\n"
        "sys.exit(rc)\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert "perfectplay site build" in res.stdout
    assert res.stdout.strip().endswith("[]")


# ---- comparing outputs -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("output", "answer", "how", "ok"),
    [
        ("9.677887141\n", "9.677887141\n", "exact", True),
        ("Alice  \n\n\n", "Alice\n", "exact", True),
        ("Alice\nBob\n", "Alice\n", "exact", False),
        ("alice\n", "Alice\n", "exact", False),
        ("10.5554445\n", "10.555444555\n", "float 1e-6", True),
        ("10.556\n", "10.555444555\n", "float 1e-6", False),
        ("1000000.5\n", "1000000.0\n", "float 1e-6", True),  # relative error 5e-7
        ("0.0000005\n", "0\n", "float 1e-6", True),  # absolute error 5e-7
        ("impossible\n", "impossible\n", "float 1e-6", True),
        ("impossible\n", "1.0\n", "float 1e-6", False),
        ("nan\n", "1.0\n", "float 1e-6", False),
        ("1.0 2.0\n", "1.0\n", "float 1e-6", False),
    ],
)
def test_compare(output, answer, how, ok):
    mode, _, tol = how.partition(" ")
    assert (compare(output, answer, Compare(mode, float(tol or 0))) is None) == ok


def test_preview_server_is_local_and_shows_sources_as_text(built):
    import threading
    import urllib.request

    from perfectplay.site.serve import make_server

    _, out = built
    server = make_server(out, 0)
    assert server.server_address[0] == "127.0.0.1"
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        with urllib.request.urlopen(f"{base}/raw/src/toy/sum.py", timeout=10) as res:
            assert res.headers["Content-Type"] == "text/plain; charset=utf-8"
            assert res.read() == (FIXTURE / "src" / "toy" / "sum.py").read_bytes()
        with urllib.request.urlopen(f"{base}/{PAGE}", timeout=10) as res:
            assert res.headers["Content-Type"].startswith("text/html")
    finally:
        server.shutdown()
        server.server_close()


def test_unwritable_output_is_refused_before_building(tmp_path, capsys):
    repo = make_repo(tmp_path, commit=False)
    blocker = tmp_path / "a-file"
    blocker.write_text("x\n")
    code, err = cli(repo, blocker / "site", capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    # One "site:" prefix, then the output path and the problem.
    assert lines[0].startswith(f"perfectplay: site: {blocker / 'site'}: cannot create folders")


def test_port_out_of_range_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exc:
        site_main(["serve", "--no-build", "--port", "99999"])
    assert exc.value.code == 2
    assert "a port is 0 to 65535" in capsys.readouterr().err


def test_source_with_a_byte_order_mark_or_lone_cr_is_shown_exactly(tmp_path, capsys, grab):
    repo = make_repo(tmp_path, commit=False)
    source = repo / "src" / "toy" / "sum.py"
    original = source.read_bytes()
    source.write_bytes(b"\xef\xbb\xbf" + original + b"_unused = 1\r_also = 2\n")
    out = tmp_path / "out"
    code, err = cli(repo, out, capsys)
    assert code == 0, err
    page = (out / PAGE).read_text(encoding="utf-8")
    shown = grab(page, "data-file")["src/toy/sum.py"]
    assert shown == source.read_bytes().decode("utf-8")  # mark and lone CR included
    assert (out / "raw" / "src/toy/sum.py").read_bytes() == source.read_bytes()
    # What a browser does not show, the page says (once: the write-up is plain).
    (note,) = re.findall(r'<p class="note bytes-note">(.*?)</p>', page)
    assert note.startswith("This file starts with a UTF-8 byte-order mark (invisible); has 1 ")
    assert "carriage return not followed by a line feed" in note


def test_a_package_entry_shows_its_files_and_the_core_it_imports(tmp_path):
    from perfectplay.site.entries import package_sources

    src = tmp_path / "src" / "perfectplay"
    files = {
        "problems/demo/__init__.py": "from perfectplay.problems.demo.instance import parse\n",
        "problems/demo/instance.py": "import re\nfrom perfectplay.errors import InputError\n",
        "problems/demo/solution.py": (
            "from . import instance\nfrom perfectplay.solvers.retry import solve_retry\n"
        ),
        "problems/demo/report.py": "",
        "problems/demo/cli.py": "from perfectplay.problems import Problem\n",
        "problems/demo/notes.txt": "kept with the package, so shown\n",
        "problems/__init__.py": "",
        "solvers/__init__.py": "from perfectplay.solvers.lexpath import search\n",
        "solvers/retry.py": (
            "import numpy\nfrom perfectplay._util import jit\n"
            "from perfectplay.graphs import chance\n"
        ),
        "solvers/lexpath.py": "",
        "graphs/__init__.py": "",
        "graphs/chance.py": "from .canonical import StateIndex\n",
        "graphs/canonical.py": "",
        "graphs/game.py": "",
        "_util/jit.py": "from perfectplay.graphs import game\n",
        "errors.py": "",
    }
    for name, text in files.items():
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_text(text)
    shown = [p.removeprefix("src/perfectplay/") for p in package_sources(tmp_path, "demo")]
    assert shown == [
        # the package in reading order, a file the template does not name after the graph
        "problems/demo/__init__.py",
        "problems/demo/instance.py",
        "problems/demo/notes.txt",
        "problems/demo/solution.py",
        "problems/demo/report.py",
        "problems/demo/cli.py",
        # the core, transitively through shown modules (a relative import too), by path;
        # not _util/jit.py (not core) nor what only it imports, nor unimported solvers
        "graphs/canonical.py",
        "graphs/chance.py",
        "solvers/retry.py",
    ]
