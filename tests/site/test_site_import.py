"""Repositories read as they are (issue 25, item 2): the ICPC/Kattis problem package
format, an oj-verify library with a local Library Checker data folder, and globs, each
built from the fixtures of docs/examples/ with no file added by hand."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")
pytest.importorskip("yaml")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.config import load_config  # noqa: E402
from perfectplay.site.entries import discover  # noqa: E402
from perfectplay.site.importers import kattis, ojverify  # noqa: E402
from perfectplay.site.importers.found import Found  # noqa: E402
from perfectplay.site.repo import Git  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
needs_gpp = pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(repo: Path, *args: str, date: str = "2021-03-04T12:00:00") -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "Import Test",
        "GIT_AUTHOR_EMAIL": "import@test",
        "GIT_COMMITTER_NAME": "Import Test",
        "GIT_COMMITTER_EMAIL": "import@test",
        "GIT_AUTHOR_DATE": date,
        "GIT_COMMITTER_DATE": date,
    }
    res = subprocess.run(["git", "-C", str(repo), *args], capture_output=True, text=True, env=env)
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


def committed(tmp_path: Path, name: str) -> Path:
    """A copy of docs/examples/NAME as a repository with one commit (of 2021)."""
    repo = tmp_path / name
    shutil.copytree(EXAMPLES / name, repo)
    if shutil.which("git"):
        git(repo, "init", "-q")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "as the judges published it")
    return repo


def read(readers: list[Callable[[], Found | None]]) -> list[Found]:
    """What an importer's readers say (in the build, they run in its thread pool)."""
    return [f for f in (r() for r in readers) if f is not None]


def page(out: Path, entry: str) -> str:
    return (out / "archive" / entry / "index.html").read_text()


# ---- the Kattis problem package format ------------------------------------------------


@needs_gpp
@needs_git
def test_kattis_packages_build_as_they_are(tmp_path, snapshot, grab):
    repo = committed(tmp_path, "kattis-problems")
    before = snapshot(repo)
    result = build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    assert result.entries == 2
    assert snapshot(repo) == before  # nothing written into the repository
    for _ in range(2):  # into the tree itself: site-out/raw/*/problem.yaml is no package
        assert (
            build_site(repo, repo / "site-out", quiet=True, cache=tmp_path / "cache").entries == 2
        )
    hello = page(tmp_path / "out", "hello")
    # The title from \problemname, contest and year from problem.yaml's source, the link
    # from source_url; the statement's TeX converted without \problemname.
    assert "<title>hello. Hello Sum · Kattis-format problems</title>" in hello
    assert "NWERC 2019, problem hello" in hello
    assert 'href="https://example.org/nwerc2019/hello"' in hello
    assert "Given two integers" in hello and "problemname" not in hello
    # The accepted submission keeps its name; the wrong one is not shown.
    files = grab(hello, "data-file")
    assert list(files) == ["hello/submissions/accepted/sum.cpp"]
    assert "overflow" not in hello
    # data/secret's nested groups are the judge data, data/sample the samples.
    assert "passed 2 of 2 tests" in hello and "hello/data/secret" in hello
    assert list(grab(hello, "data-sample")) == ["1"]
    assert "Not in the repository: write-up" in hello
    echo = page(tmp_path / "out", "echo")
    # No source: the year of the folder's first commit; validator_flags' tolerance.
    assert "Kattis 2021, problem echo" in echo and "float 1e-06" in echo
    assert "python3 average.py" in echo
    # Its Markdown statement's "# Input" is kept, one level below the page's title.
    assert '<h2 id="statement-input">Input</h2>' in echo


def test_kattis_output_validator_is_passed_on_as_the_checker(tmp_path):
    folder = tmp_path / "repo" / "prob"
    shutil.copytree(EXAMPLES / "kattis-problems" / "echo", folder)
    (folder / "problem.yaml").write_text("name: Echo\nvalidation: custom\n")
    (folder / "output_validators" / "close").mkdir(parents=True)
    (folder / "output_validators" / "close" / "validate.py").write_text("raise SystemExit(42)\n")
    found = kattis.found_in(tmp_path / "repo", folder, "", load_config(tmp_path / "repo"))
    assert found.meta["checker"] == "kattis:output_validators/close/validate.py"
    assert found.tests == [
        ("prob/data/secret/1.in", "prob/data/secret/1.ans"),
        ("prob/data/secret/2.in", "prob/data/secret/2.ans"),
    ]


def test_kattis_package_without_a_runnable_submission_says_so(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "kattis-problems", repo)
    shutil.rmtree(repo / "echo" / "submissions" / "accepted")
    with pytest.raises(SiteError) as exc:
        discover(repo, load_config(repo))
    assert "echo/submissions/accepted" in str(exc.value)
    assert "no accepted submission" in str(exc.value)


# ---- oj-verify ------------------------------------------------------------------------


@needs_gpp
@needs_git
def test_oj_verify_library_builds_with_local_library_checker_data(tmp_path, grab):
    repo = committed(tmp_path, "oj-library")
    result = build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    assert result.entries == 2
    uf = page(tmp_path / "out", "test/unionfind")
    # The title from info.toml, the judge's name from the PROBLEM url's host.
    assert "<title>unionfind. Unionfind · My library</title>" in uf
    assert 'href="https://judge.yosupo.jp/problem/unionfind"' in uf
    # example_* are the samples, the rest the judge data; the includes are shown.
    assert list(grab(uf, "data-sample")) == ["example_00"]
    assert "passed 1 of 1 tests" in uf
    assert list(grab(uf, "data-file")) == [
        "test/unionfind.test.cpp",
        "graph/union_find.hpp",
        "common/types.hpp",
    ]
    # Built again into the tree itself, twice: the raw copies in site-out/ are no tests.
    for _ in range(2):
        assert (
            build_site(repo, repo / "site-out", quiet=True, cache=tmp_path / "cache").entries == 2
        )
    aplusb = page(tmp_path / "out", "test/aplusb")
    assert "python3 aplusb.test.py" in aplusb and "passed 1 of 1 tests" in aplusb
    # A page per library file: its includes, includers, tests and documentation.
    library = tmp_path / "out" / "library"
    types = (library / "common/types.hpp.html").read_text()
    assert list(grab(types, "data-required-by")) == ["graph/union_find.hpp", "math/gcd.hpp"]
    assert list(grab(types, "data-verified-with")) == ["test/unionfind.test.cpp"]
    assert 'data-status="verified"' in types
    uf = (library / "graph/union_find.hpp.html").read_text()
    assert list(grab(uf, "data-depends")) == ["common/types.hpp"]
    assert "disjoint sets" in uf and "documentation_of" not in uf
    gcd = (library / "math/gcd.hpp.html").read_text()
    assert 'data-status="unverified"' in gcd and not grab(gcd, "data-verified-with")
    index = (tmp_path / "out" / "index.html").read_text()
    assert list(grab(index, "data-library")) == [
        "common/types.hpp",
        "graph/union_find.hpp",
        "math/gcd.hpp",
    ]


def test_oj_verify_names_the_problem_and_the_checker(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "oj-library", repo)
    checker = repo / "library-checker-problems/datastructure/unionfind/checker.cpp"
    checker.write_text("int main() {}\n")
    found = {f.id: f for f in read(ojverify.find(repo, load_config(repo)))}
    assert sorted(found) == ["test/aplusb", "test/unionfind"]
    uf = found["test/unionfind"]
    assert uf.meta["checker"] == (
        "testlib:../library-checker-problems/datastructure/unionfind/checker.cpp"
    )
    assert uf.solution == "test/unionfind.test.cpp" and uf.meta["contest"] == "Library Checker"
    # A test naming no problem stops the build in one line; IGNORE leaves it out.
    (repo / "test" / "nothing.test.cpp").write_text("int main() {}\n")
    with pytest.raises(SiteError, match="names no problem"):
        read(ojverify.find(repo, load_config(repo)))
    (repo / "test" / "nothing.test.cpp").write_text("#define IGNORE\nint main() {}\n")
    assert len(read(ojverify.find(repo, load_config(repo)))) == 2


# ---- globs and optional files -----------------------------------------------------------


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_globs_layout_and_what_is_missing(tmp_path, grab):
    repo = tmp_path / "repo"
    write(
        repo / "site.toml",
        'layout = "globs"\nentries = "contests/*/*"\nsolution = "*.py"\n'
        'samples = "examples/*.in"\nstatement = "README.md"\n',
    )
    write(repo / "contests/abc100/A/main.py", "print(int(input()) * 2)\n")
    write(repo / "contests/abc100/A/examples/1.in", "2\n")
    write(repo / "contests/abc100/A/examples/1.out", "4\n")
    write(repo / "contests/abc100/A/README.md", "Print twice the number.\n")
    write(repo / "contests/abc100/B/solve.py", "print(input())\n")  # nothing else at all
    write(repo / "contests/abc100/notes.txt", "not an entry\n")
    result = build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    assert result.entries == 2
    a = page(tmp_path / "out", "abc100/A")
    assert "abc100, problem A" in a and "Print twice the number." in a
    assert list(grab(a, "data-file")) == ["contests/abc100/A/main.py"]
    assert grab(a, "data-output")["1"].strip() == "4"
    b = page(tmp_path / "out", "abc100/B")
    assert list(grab(b, "data-missing")) == ["statement write-up samples"]
    assert "holds no statement" in b and "holds no samples" in b


def test_someone_elses_archive_needs_only_meta_toml(tmp_path, own_archive):
    repo = own_archive(tmp_path)
    entry = repo / "competitive_programming/demo/2024/B-all-heads"
    (entry / "statement.md").unlink()
    (entry / "solution.tex").unlink()
    shutil.rmtree(entry / "samples")
    build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    shown = page(tmp_path / "out", "demo/2024/B-all-heads")
    assert "Not in the repository: statement, write-up, samples." in shown


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('layout = "svn"\n', "'layout' must be one of perfectplay, kattis, oj-verify, globs"),
        ('layout = "globs"\n', "needs 'entries' and 'solution'"),
        ('layout = "kattis"\nsolution = "*.cpp"\n', "'solution' is a key of layout"),
        ('layout = "kattis"\ndata = "lc"\n', "'data' is a key of layout"),
        ('layout = "oj-verify"\ndata = "../lc"\n', "'data' '../lc' must stay inside"),
    ],
)
def test_layout_block_errors_name_site_toml(tmp_path, text, message):
    (tmp_path / "site.toml").write_text(text)
    with pytest.raises(SiteError, match="site.toml") as exc:
        load_config(tmp_path)
    assert message in str(exc.value)


# ---- one history read -------------------------------------------------------------------


@needs_git
def test_one_history_read_gives_what_git_log_gives_per_file(tmp_path):
    repo = committed(tmp_path, "kattis-problems")
    (repo / "echo" / "problem.yaml").write_text("name: Average Echo, again\n")
    git(repo, "commit", "-qam", "rename the echo", date="2023-06-07T08:00:00")
    asked = Git(repo)
    for path in ("echo/problem.yaml", "hello/problem.yaml", "site.toml"):
        fields = git(repo, "log", "-1", "--format=%H%x1f%cs%x1f%an%x1f%s", "--", path)
        change = asked.last_change(path)
        assert [change.commit, change.date, change.author, change.subject] == fields.split("\x1f")
    assert asked.first_year("echo") == 2021 and asked.last_change("nowhere").commit == ""


@needs_gpp
def test_a_failing_test_marks_what_it_verifies(tmp_path, grab):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "oj-library", repo)
    answer = repo / "library-checker-problems/datastructure/unionfind/out/random_00.out"
    answer.write_text("0\n0\n")  # the program prints 1, 0
    build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    types = (tmp_path / "out" / "library/common/types.hpp.html").read_text()
    assert 'data-status="failed"' in types


@needs_gpp
def test_a_test_without_data_verifies_nothing(tmp_path):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "oj-library", repo)
    (repo / "site.toml").write_text('layout = "oj-verify"\n')  # no data folder
    build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    uf = (tmp_path / "out" / "library/graph/union_find.hpp.html").read_text()
    assert 'data-status="unverified"' in uf and 'title="no test data"' in uf
    assert "holds no samples" in page(tmp_path / "out", "test/unionfind")


@pytest.mark.parametrize(
    "link",
    ["hello/problem.yaml", "hello/problem_statement/problem.en.tex", "echo/data/sample/1.in"],
)
def test_a_link_out_of_the_repository_is_refused(tmp_path, link):
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLES / "kattis-problems", repo)
    secret = tmp_path / "secret.txt"
    secret.write_text("name: the secret\n")
    (repo / link).unlink()
    (repo / link).symlink_to(secret)
    with pytest.raises(SiteError) as exc:
        build_site(repo, tmp_path / "out", quiet=True, cache=tmp_path / "cache")
    assert link in str(exc.value) and "secret" not in str(exc.value).replace("secret.txt", "")
    assert not (tmp_path / "out").exists()
