"""What a new user met building their own archive from the docs alone
(docs/own-archive.md): each test is one of their reports, in the starter archive of
``perfectplay site new`` changed as they changed it."""

from __future__ import annotations

import hashlib
import html
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

from perfectplay.site import SiteError  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402
from perfectplay.site.sandbox import unavailable  # noqa: E402
from perfectplay.site.starter import ENTRY, create  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

sandboxed = pytest.mark.skipif(unavailable() is not None, reason="no sandbox here")


def starter(tmp_path: Path, solution: str) -> Path:
    """``perfectplay site new`` with ``solution`` as its (Python) solution."""
    root = tmp_path / "archive"
    create(root)
    for old in (root / ENTRY).glob("solution.*"):
        if old.suffix != ".tex":
            old.unlink()
    (root / ENTRY / "solution.py").write_text(solution)
    return root


def build(root: Path, tmp_path: Path, *more: str) -> int:
    return site_main(
        ["build", "--root", str(root), "--cache", str(tmp_path / "cache"), "--quiet", *more]
    )


def _running(path: Path) -> bool:
    """Whether a Python process runs the program at ``path`` (in its sandbox or not)."""
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if os.path.basename(argv[0]).startswith(b"python") and str(path).encode() in argv:
            return True
    return False


@sandboxed
def test_an_interrupted_build_saves_no_verdict(tmp_path, capsys):
    # Report 1: the runs a TERM killed were saved as "was killed by SIGKILL", and every
    # later build failed on them until --force.
    slow = "import time\ntime.sleep(1.5)\nprint(sum(map(int, input().split())))\n"
    root = starter(tmp_path, slow)
    shutil.rmtree(root / ENTRY / "tests")  # as theirs: only samples, every one of them running
    import perfectplay

    env = {**os.environ, "PYTHONPATH": str(Path(perfectplay.__file__).parents[1])}
    argv = [sys.executable, "-m", "perfectplay", "site", "build", "--root", str(root)]
    proc = subprocess.Popen(
        [*argv, "--cache", str(tmp_path / "cache"), "--quiet"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not _running(root / ENTRY / "solution.py"):
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the solution never started"
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 130
    assert build(root, tmp_path) == 0, capsys.readouterr().err
    assert "failed" not in capsys.readouterr().err


def test_a_python_solutions_own_modules_rerun_it_and_are_shown(tmp_path, capsys):
    # Report 2: a change to helper.py left the entry "unchanged", its old verdict kept.
    root = starter(tmp_path, "from helper import add\nprint(add(*map(int, input().split())))\n")
    helper = root / ENTRY / "helper.py"
    helper.write_text("def add(a, b):\n    return a + b\n")
    assert build(root, tmp_path) == 0, capsys.readouterr().err
    page = (root / "site-out" / "archive" / ENTRY.split("/", 1)[1] / "index.html").read_text()
    assert f'data-file="{ENTRY}/helper.py"' in page  # shown beside the solution
    helper.write_text("def add(a, b):\n    return a - b\n")
    assert build(root, tmp_path) == 1
    assert "sample 1: " in capsys.readouterr().err
    helper.write_text("def add(a, b):\n    return a + b\n")
    assert build(root, tmp_path) == 0
    assert "failed" not in capsys.readouterr().err


EXAMPLES = Path(__file__).resolve().parents[2] / "docs" / "examples"
VALIDATOR = """\
import sys
import threading
inp, ans, feedback = sys.argv[1:4]
got, want = float(sys.stdin.read()), float(open(ans).read())
if abs(got - want) > 1e-3 * max(1.0, abs(want)):
    open(f"{feedback}/judgemessage.txt", "w").write(f"{got} is not {want}\\n")
    sys.exit(43)
sys.exit(42)
"""


@sandboxed
def test_a_kattis_validator_folder_is_its_one_program(tmp_path, capsys):
    # Report 3: "'checker' 'avg/output_validators/val' is not a regular file".
    root = tmp_path / "kat"
    shutil.copytree(EXAMPLES / "kattis-problems" / "echo", root / "avg")
    (root / "site.toml").write_text('layout = "kattis"\n')
    (root / "avg" / "problem.yaml").write_text("name: Average\nvalidation: custom\n")
    validator = root / "avg" / "output_validators" / "val" / "validate.py"
    validator.parent.mkdir(parents=True)
    validator.write_text(VALIDATOR)
    (root / "avg" / "output_validators" / "val" / "README").write_text("not a program\n")
    solution = root / "avg" / "submissions" / "accepted" / "average.py"
    solution.write_text(solution.read_text().replace(":.9f", ":.4f"))  # within 1e-3
    assert build(root, tmp_path) == 0, capsys.readouterr().err
    page = (root / "site-out" / "archive" / "avg" / "index.html").read_text()
    assert "passed 2 of 2 tests" in page
    solution.write_text("print(7)\n")
    assert build(root, tmp_path) == 1
    err = capsys.readouterr().err
    assert "failed: avg: sample 1: " in err and "7.0 is not 1.5" in err, err


EVIL = "<html><body><script>window.top.__pwned = 1</script></body></html>\n"
EVIL_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4">'
    "<script>window.top.__pwned = 1</script></svg>\n"
)


def test_linked_html_and_svg_are_copied_inert_and_served_sandboxed(tmp_path, capsys):
    # Report 4: raw/.../evil.html, opened from the site, ran its script as the site.
    import urllib.request

    from perfectplay.site.serve import make_server

    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    folder = root / ENTRY
    (folder / "evil.html").write_text(EVIL)
    (folder / "evil.svg").write_text(EVIL_SVG)
    statement = folder / "statement.md"
    statement.write_text(statement.read_text() + "\n[notes](evil.html) and ![pic](evil.svg)\n")
    assert build(root, tmp_path, "--trust") == 0, capsys.readouterr().err
    out = root / "site-out"
    copies = [p.relative_to(out) for p in out.rglob("*") if p.suffix in (".svg", ".html")]
    assert not [p for p in copies if p.parts[0].startswith("raw")], copies
    page = (out / "archive" / ENTRY.split("/", 1)[1] / "index.html").read_text()
    assert f'href="../../../../raw-text/{ENTRY}/evil.html.txt"' in page
    assert 'src="data:image/svg+xml;base64,' in page  # an image: its scripts never run
    assert (out / "raw-text" / ENTRY / "evil.html.txt").read_text() == EVIL
    server = make_server(out)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        port = server.server_address[1]
        spelled = f"%72aw-text/{ENTRY}/evil.html.txt"  # a quoted letter is the same file
        for path, sandbox in ((spelled, True), ("index.html", False)):
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/{path}") as reply:
                policy = reply.headers["Content-Security-Policy"]
                assert "script-src 'self'" in policy and policy.endswith("; sandbox") == sandbox
                assert reply.headers["X-Content-Type-Options"] == "nosniff"
                if sandbox:
                    assert reply.headers["Content-Type"].startswith("text/plain")
    finally:
        server.shutdown()
        server.server_close()


STATEMENT_FAULTS = {
    "an image of no file": ('<img src="x">', "link 'x': no such file or folder"),
    "an external image": ("![](http://1.1.1.1/r.png)", "external resource"),
    "a top-level heading": ("# Title", "a top-level heading"),
    "a link to no file": ("[missing](nofile.txt)", "link 'nofile.txt': no such file"),
    "a link out of the tree": ("[p](../../../../../etc/passwd)", "points outside the repository"),
}


@pytest.mark.parametrize("fault", sorted(STATEMENT_FAULTS))
def test_a_statement_fault_is_its_entrys_failure(fault, tmp_path, capsys):
    # Report 6: each of these stopped the whole build (exit 2, no site written).
    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    bad = ENTRY.replace("A-sum-of-two", "B-bad")
    shutil.copytree(root / ENTRY, root / bad)
    text, message = STATEMENT_FAULTS[fault]
    (root / bad / "statement.md").write_text(f"## Task\n\n{text}\n")
    assert build(root, tmp_path, "--trust") == 1
    failed = [line for line in capsys.readouterr().err.splitlines() if "failed:" in line]
    assert len(failed) == 1 and "example/2024/B-bad: " in failed[0], failed
    assert message in failed[0]
    pages = root / "site-out" / "archive"
    assert "passed 3 of 3 tests" in (pages / ENTRY.split("/", 1)[1] / "index.html").read_text()
    assert message in html.unescape((pages / bad.split("/", 1)[1] / "index.html").read_text())
    assert build(root, tmp_path, "--fail-fast") == 2


PLANT = """\
import os
planted = []
for folder in [os.environ.get("NUMBA_CACHE_DIR", "")] + [p for p, _, _ in os.walk({cache!r})]:
    try:
        with open(os.path.join(folder, "PWNED"), "w") as f:
            f.write("x")
        planted.append(folder)
    except OSError:
        pass
for folder, _, files in os.walk(os.environ.get("NUMBA_CACHE_DIR", "")):
    for name in files:  # the kernels it was given: links to files it cannot write
        try:
            with open(os.path.join(folder, name), "w") as f:
                f.write("planted")
        except OSError:
            pass
print(sum(map(int, input().split())))
"""


@sandboxed
def test_a_run_writes_nothing_that_outlives_it(tmp_path, capsys, monkeypatch):
    # Report 5: a program wrote $NUMBA_CACHE_DIR, a host folder kept between builds.
    cache = tmp_path / "cache"
    # The builder's own compiled kernels, which seed every run's numba cache.
    own = tmp_path / "own-numba"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(own))
    root = starter(tmp_path, PLANT.format(cache=str(cache)))
    (root / "src" / "pkg").mkdir(parents=True)
    kernels = own / f"pkg_{hashlib.sha1(str(root / 'src' / 'pkg').encode()).hexdigest()}"
    kernels.mkdir(parents=True)
    (kernels / "k.nbi").write_bytes(b"index")
    assert build(root, tmp_path) == 0, capsys.readouterr().err
    assert cache.is_dir() and not [p for p in cache.rglob("PWNED")]
    assert not [p for p in own.rglob("PWNED")]
    seeded = [p for p in cache.rglob("k.nbi")]
    assert seeded and all(p.read_bytes() == b"index" for p in [*seeded, kernels / "k.nbi"])


@pytest.mark.parametrize(
    ("patterns", "named"),
    [
        ('["nothing/*"]', "'entries' pattern 'nothing/*' matches no entry folder"),
        (
            '["competitive_programming/*/*/*", "nothing/*", "no/**"]',
            "'entries' patterns 'nothing/*', 'no/**' match no entry folder",
        ),
    ],
)
def test_entries_patterns_that_find_nothing_are_refused(patterns, named, tmp_path, capsys):
    # Report 7: a pattern matching nothing published an empty site, exit 0.
    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    assert build(root, tmp_path, "--trust") == 0
    before = (root / "site-out" / "index.html").read_bytes()
    capsys.readouterr()
    toml = root / "site.toml"
    toml.write_text(toml.read_text().replace('["competitive_programming/*/*/*"]', patterns))
    assert build(root, tmp_path, "--trust") == 2
    assert capsys.readouterr().err.splitlines() == [f"perfectplay: site: site.toml: {named}"]
    assert (root / "site-out" / "index.html").read_bytes() == before


HOGS = {
    "python": ("solution.py", "data = bytearray(4 << 30)\nprint(len(data))\n"),
    "cpp": (
        "solution.cpp",
        "#include <vector>\n#include <cstdio>\n"
        'int main() { std::vector<char> v(size_t(4) << 30, 1); std::printf("%d\\n", v[7]); }\n',
    ),
}


@sandboxed
@pytest.mark.parametrize("language", sorted(HOGS))
def test_out_of_memory_is_named_with_its_limit(language, tmp_path, capsys):
    # Report 8: "was killed by SIGABRT", no message; the failed samples drawn in green.
    if language == "cpp" and shutil.which("g++") is None:
        pytest.skip("g++ is not installed")
    root = starter(tmp_path, "")
    (root / ENTRY / "solution.py").unlink()
    name, source = HOGS[language]
    (root / ENTRY / name).write_text(source)
    meta = root / ENTRY / "meta.toml"
    meta.write_text(meta.read_text() + "memory_limit = 256\n")
    assert build(root, tmp_path) == 1
    err = capsys.readouterr().err
    assert "sample 1: ran out of memory (memory_limit 256 MB): " in err, err
    assert ("bad_alloc" if language == "cpp" else "MemoryError") in err
    index = (root / "site-out" / "index.html").read_text()
    assert '<td class="num fail">2 ✗</td>' in index


def test_a_contest_named_with_its_year_shows_it_once(tmp_path, capsys):
    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    meta = root / ENTRY / "meta.toml"
    meta.write_text(meta.read_text().replace('"Example Contest"', '"NWERC 2024"'))
    assert build(root, tmp_path, "--trust") == 0, capsys.readouterr().err
    page = (root / "site-out" / "archive" / ENTRY.split("/", 1)[1] / "index.html").read_text()
    assert "NWERC 2024, problem A" in page and "2024 2024" not in page
    assert '<td class="num">2 ✓</td>' in (root / "site-out" / "index.html").read_text()


RUST = """\
mod helper;
use std::io::Read;
fn main() {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let v: Vec<i64> = text.split_whitespace().map(|w| w.parse().unwrap()).collect();
    println!("{}", helper::add(v[0], v[1]));
}
"""


@sandboxed
@pytest.mark.skipif(shutil.which("rustc") is None, reason="rustc is not installed")
def test_a_module_the_compiler_reads_rebuilds_the_program(tmp_path, capsys):
    # Report 2, compiled: rustc reads helper.rs for `mod helper;`; the program built from
    # the old one was reused while the runs were keyed anew.
    root = starter(tmp_path, "")
    (root / ENTRY / "solution.py").unlink()
    (root / ENTRY / "solution.rs").write_text(RUST)
    helper = root / ENTRY / "helper.rs"
    helper.write_text("pub fn add(a: i64, b: i64) -> i64 { a + b }\n")
    assert build(root, tmp_path) == 0, capsys.readouterr().err
    helper.write_text("pub fn add(a: i64, b: i64) -> i64 { a - b }\n")
    assert build(root, tmp_path) == 1
    assert "sample 1: wrong answer" in capsys.readouterr().err


def test_an_entry_failing_twice_is_one_failure(tmp_path, capsys):
    # Report 7 (site10): an entry whose statement links to no file and which fails a test
    # was printed twice, and "2 entries failed" counted one entry twice.
    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    (root / ENTRY / "statement.md").write_text("## Task\n\n[missing](nofile.txt)\n")
    (root / ENTRY / "tests" / "3.ans").write_text("1\n")
    assert build(root, tmp_path, "--trust") == 1
    err = capsys.readouterr().err.splitlines()
    failed = [line for line in err if "failed:" in line]
    assert len(failed) == 1 and "link 'nofile.txt'" in failed[0], failed
    assert "perfectplay: site: 1 entry failed (shown on their pages and the index)" in err


def test_a_half_written_site_is_not_marked_as_one_and_git_ignores_it(tmp_path):
    # Report 8 (site10): a build killed with -9 while writing left
    # .site-out.building-XXXX/ in the repository, holding the marker of a finished site,
    # and `git status` listed it.
    from perfectplay.site.output import MARKER, write_site

    root = tmp_path / "archive"
    create(root)
    out = root / "site-out"
    seen: list[bool] = []

    def files():
        yield "index.html", b"<p>1</p>"
        seen.extend(p.is_file() for p in root.glob(f".site-out.building-*/{MARKER}"))
        yield "archive/x.html", b"<p>2</p>"

    assert write_site(out, files()) == 3
    assert seen == [] and (out / MARKER).is_file()
    if shutil.which("git") is None:  # pragma: no cover
        return
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / ".site-out.building-x1y2").mkdir()
    (root / ".site-out.building-x1y2" / "index.html").write_text("half")
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain", "--untracked-files=all"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert ".site-out" not in status and "site-out/" not in status, status


def test_a_failing_samples_flood_is_cut_on_its_page(tmp_path, capsys):
    # Report 9 (site10): a sample that printed up to the output limit put all of it
    # (8 MiB) in its page under "Output during this build".
    root = starter(tmp_path, "print('x' * 300000)\n")
    assert build(root, tmp_path, "--trust") == 1
    assert "sample 1: wrong answer" in capsys.readouterr().err
    page = root / "site-out" / "archive" / ENTRY.split("/", 1)[1] / "index.html"
    text = page.read_text()
    assert len(text) < 200_000
    assert "more characters not shown]" in text and "x" * 60000 in text


def test_the_previous_site_is_not_read_as_entries(tmp_path, capsys):
    # Report 10 (site10): with entries = ["**"], the second build also published the first
    # build's raw copies (site-out/raw/.../meta.toml, statement.md, samples/) as entries,
    # and each build one more copy of them.
    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    toml = (root / "site.toml").read_text()
    (root / "site.toml").write_text(toml.replace('["competitive_programming/*/*/*"]', '["**"]'))
    assert (root / "site.toml").read_text() != toml
    (root / ".site-out.building-x1y2" / "e").mkdir(parents=True)  # a killed build's
    shutil.copytree(root / ENTRY / "samples", root / ".site-out.building-x1y2" / "e" / "samples")
    for _ in range(2):
        assert build(root, tmp_path, "--trust") == 0, capsys.readouterr().err
    pages = sorted(
        p.parent.relative_to(root / "site-out" / "archive").as_posix()
        for p in (root / "site-out" / "archive").rglob("index.html")
    )
    assert pages == [ENTRY], pages


def test_one_test_is_not_called_tests(tmp_path, capsys):
    # Report 11 (site10): an entry with one judge test said "(1 tests in ...)".
    root = starter(tmp_path, "print(sum(map(int, input().split())))\n")
    for name in ("2", "3"):
        for ext in (".in", ".ans"):
            (root / ENTRY / "tests" / f"{name}{ext}").unlink()
    assert build(root, tmp_path, "--trust") == 0, capsys.readouterr().err
    page = (root / "site-out" / "archive" / ENTRY.split("/", 1)[1] / "index.html").read_text()
    assert "(1 test in <code>" in page and "(1 tests" not in page


def test_a_killed_builds_folder_is_removed_by_the_next(tmp_path, monkeypatch):
    # Report 8 (site10), continued: each build killed with -9 while writing left one more
    # .site-out.building-XXXX/ that no later build removed; one a build is writing stays.
    import fcntl

    from perfectplay.site import output

    monkeypatch.setattr(output, "ABANDONED_AFTER", 0.0, raising=False)
    out = tmp_path / "site-out"
    abandoned, busy = tmp_path / ".site-out.building-a1", tmp_path / ".site-out.building-b2"
    for folder in (abandoned, busy):
        (folder / "archive").mkdir(parents=True)
        (folder / "archive" / "x.html").write_text("half")
    held = os.open(busy, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert output.write_site(out, [("index.html", b"<p>1</p>")]) == 2
        assert not abandoned.exists() and busy.is_dir() and (out / "index.html").is_file()
    finally:
        os.close(held)
    monkeypatch.setattr(output, "ABANDONED_AFTER", 3600.0)
    (abandoned / "archive").mkdir(parents=True)  # a minute old at most: maybe not locked yet
    output.write_site(out, [("index.html", b"<p>2</p>")])
    assert abandoned.is_dir()
