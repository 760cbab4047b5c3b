"""A hostile archive: the builder runs its code and publishes its files, and must leak
nothing, keep nothing running and change nothing (issue 24).

The fixture is written into a temporary folder by :func:`hostile_repo`: symbolic links
to files outside the repository, a solution that reads ``/etc/passwd``, a secret file and
the builder's environment and prints what it found, writes into its own statement and
leaves a ``setsid`` double-forked sleeper behind, a statement full of script, handlers,
``javascript:``/``file:`` links and a ``<style>`` that loads from the network, and a C++
solution whose includes a regular expression misses (macro, comment, line continuation,
``%:include``) or that reaches outside (an absolute path).
"""

from __future__ import annotations

import html
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")
pytest.importorskip("nh3")

from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.cli import main as site_main  # noqa: E402
from perfectplay.site.sandbox import unavailable  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

if unavailable() is not None:  # pragma: no cover
    pytest.skip(f"no sandbox here: {unavailable()}", allow_module_level=True)

SECRET = "the-secret-file-says-7f3a"
TOKEN = "token-value-9c1e"
SLEEPER = "4321.125"  # how long the left-behind process sleeps: its mark in /proc
READER = "problems/reader"
PAGE = "problems/page"
INCLUDES = "problems/includes"

SOLUTION = f"""\
import os
import sys
found = []
for path in ("/etc/passwd", {{secret!r}}, os.path.expanduser("~/.profile")):
    try:
        with open(path) as f:
            found.append(path + ": " + f.readline().strip())
    except OSError:
        pass
for name in ("SECRET_TOKEN", "HOME", "USER"):
    if name in os.environ:
        found.append(name + "=" + os.environ[name])
try:
    with open({{statement!r}}, "a") as f:
        f.write("PW" + "NED by the solution\\n")
    found.append("wrote its statement")
except OSError:
    pass
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", ["sleep", "{SLEEPER}"])
    os._exit(0)
sys.stdin.read()
print("\\n".join(found) if found else "ok")
"""

STATEMENT = """\
## Task

Print ok. <script>alert("statement")</script>
<img src="pixel.png" alt="pixel" onerror="alert('img')">
<span onclick="alert('span')" style="background: url(http://evil.example/bg.png)">x</span>

[run me](javascript:alert(1)) and [read me](file:///etc/passwd) and
[fine](https://example.org/fine) and [here](#task).

<style>@import url(http://evil.example/x.css);</style>
<iframe src="http://evil.example/frame"></iframe>
<link rel="stylesheet" href="http://evil.example/y.css">
<form action="http://evil.example/post"><input type="text" name="q"></form>
<div style="POSITION : Fixed; top: 0; left: 0; width: 100%; height: 100%">a fake page</div>
"""

CPP = """\
#include <cstdio>
#define STR(x) #x
#define HEADER(x) STR(x.h)
#include HEADER(by_macro)
/* #include "nowhere.h" */ # /* a comment */ include "after_comment.h"
#\\
include "continued.h"
%:include "digraph.h"
int main() { std::printf("%d\\n", A + B + C + D); return 0; }
"""

TEX = "\\section*{Idea}\nPrint it.\n"


def _entry(folder: Path, title: str, statement: str = "## Task\n\nPrint ok.\n") -> None:
    folder.mkdir(parents=True)
    (folder / "meta.toml").write_text(
        f'title = "{title}"\nlink = "https://example.org/{title}"\n'
        'techniques = ["none"]\ncompare = "exact"\n'
    )
    (folder / "statement.md").write_text(statement)
    (folder / "solution.tex").write_text(TEX)
    (folder / "samples").mkdir()
    (folder / "samples" / "1.in").write_text("x\n")
    (folder / "samples" / "1.ans").write_text("ok\n")


def hostile_repo(tmp_path: Path) -> Path:
    """The hostile archive at ``tmp_path/repo`` (and a secret file beside it)."""
    secret = tmp_path / "secret.txt"
    secret.write_text(SECRET + "\n")
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "site.toml").write_text(
        'title = "Hostile"\nentries = ["problems/*"]\ntime_limit = 20\n'
    )
    reader = repo / READER
    _entry(reader, "Reader")
    code = SOLUTION.format(secret=str(secret), statement=str(reader / "statement.md"))
    (reader / "solution.py").write_text(code)
    (reader / "tests").mkdir()  # judge data: a failed test shows what the solution printed
    (reader / "tests" / "1.in").write_text("x\n")
    (reader / "tests" / "1.ans").write_text("ok\n")
    page = repo / PAGE
    _entry(page, "Page", STATEMENT)
    (page / "pixel.png").write_bytes(b"\x89PNG\r\n\x1a\n")
    (page / "solution.py").write_text("import sys\nsys.stdin.read()\nprint('ok')\n")
    inc = repo / INCLUDES
    _entry(inc, "Includes")
    (inc / "samples" / "1.ans").write_text("10\n")
    (inc / "solution.cpp").write_text(CPP)
    for name, value in (("by_macro", 1), ("after_comment", 2), ("continued", 3), ("digraph", 4)):
        letter = "ABCD"[value - 1]
        (inc / f"{name}.h").write_text(f"#pragma once\nconstexpr int {letter} = {value};\n")
    return repo


def _snapshot(folder: Path) -> dict[str, bytes]:
    """Every file and link under ``folder`` with its bytes (a link: its target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = b"link:" + os.readlink(path).encode()
        elif path.is_file():
            found[key] = path.read_bytes()
    return found


def _sleepers() -> list[int]:
    """Processes left behind by the fixture's solutions (found by their sleep's length)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if SLEEPER.encode() in argv:
            found.append(int(pid))
    return found


@pytest.fixture
def leftovers():
    """Fails the test when a sleeper of the fixture outlives it (and kills it then)."""
    yield
    deadline = time.monotonic() + 5  # a PID namespace is torn down asynchronously
    while _sleepers() and time.monotonic() < deadline:
        time.sleep(0.1)
    left = _sleepers()
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert left == [], "processes of the build outlived it"


def test_the_hostile_archive_builds_to_a_site_that_leaks_nothing(tmp_path, monkeypatch, leftovers):
    repo = hostile_repo(tmp_path)
    monkeypatch.setenv("SECRET_TOKEN", TOKEN)
    before = _snapshot(repo)
    out = tmp_path / "out"
    build_site(repo, out, cache=tmp_path / "cache")
    assert _snapshot(repo) == before  # nothing written into the repository

    texts = {
        p.relative_to(out).as_posix(): p.read_text("utf-8", "replace")
        for p in out.rglob("*")
        if p.is_file() and not p.name.endswith((".woff2", ".png"))
    }
    passwd_line = Path("/etc/passwd").read_text().splitlines()[0]
    for name, text in texts.items():
        for leak in (SECRET, TOKEN, passwd_line, os.path.expanduser("~"), "PWNED"):
            assert leak not in text, (name, leak)
    # The solution found nothing to print: its judge test passed with "ok".
    reader = texts[f"archive/{READER.split('/', 1)[1]}/index.html"]
    assert "passed 1 of 1 test" in reader

    for name, text in texts.items():
        if not name.endswith(".html"):
            continue
        assert 'http-equiv="Content-Security-Policy"' in text, name
        policy = html.unescape(text)
        assert "default-src 'none'" in policy and "script-src 'self'" in policy, name
        scripts = re.findall(r"<script\b[^>]*>", text)
        assert all(re.fullmatch(r'<script src="[./]*assets/[\w.-]+\.js">', s) for s in scripts), (
            name,
            scripts,
        )
        visible = re.sub(r"<pre\b.*?</pre>", "", text, flags=re.S)  # code is shown escaped
        assert not re.search(r"<[a-z][^>]*\son[a-z]+\s*=", visible), name
        for bad in (
            "javascript:",
            "file:",
            "evil.example",
            "@import",
            "<iframe",
            'action="http',
            "<style",
            "alert(",
        ):
            assert bad not in visible, (name, bad)
        # a statement's own element over the site's header, title and verdicts (site10)
        assert not re.search(r"position\s*:\s*fixed", visible, flags=re.I), name
    page = texts[f"archive/{PAGE.split('/', 1)[1]}/index.html"]
    assert 'href="https://example.org/fine"' in page and 'href="#statement-task"' in page
    assert '<img src="../../raw/problems/page/pixel.png" alt="pixel">' in page


def test_includes_are_the_compilers_and_the_binary_follows_them(tmp_path, leftovers):
    repo = hostile_repo(tmp_path)
    out, cache = tmp_path / "out", tmp_path / "cache"
    build_site(repo, out, cache=cache)
    page = (out / "archive" / "includes" / "index.html").read_text("utf-8")
    for name in ("by_macro", "after_comment", "continued", "digraph"):
        assert f'data-file="{INCLUDES}/{name}.h"' in page, name
    # A header reached only through the macro changes: the program is compiled again.
    (repo / INCLUDES / "by_macro.h").write_text("#pragma once\nconstexpr int A = 2;\n")
    with pytest.raises(SiteError, match="1.ans: the output of .* got '11', expected '10'"):
        build_site(repo, out, cache=cache)


@pytest.mark.parametrize(
    "target", ["statement.md", "solution.tex", "solution.py", "meta.toml", "docs"]
)
def test_a_shown_file_linked_outside_is_refused(tmp_path, target):
    repo = hostile_repo(tmp_path)
    secret = tmp_path / "secret.txt"
    if target == "meta.toml":  # it must read as TOML to get as far as the page
        secret.write_text((repo / PAGE / "meta.toml").read_text() + f"# {SECRET}\n")
    if target == "docs":
        (repo / "docs").mkdir()
        (repo / "docs" / "index.md").symlink_to(secret)
        path = "docs/index.md"
    else:
        path = f"{PAGE}/{target}"
        (repo / path).unlink()
        (repo / path).symlink_to(secret)
    with pytest.raises(SiteError) as exc:
        build_site(repo, tmp_path / "out", cache=tmp_path / "cache")
    message = str(exc.value)
    assert path in message and "outside the repository" in message, message
    assert SECRET not in message and "\n" not in message


@pytest.mark.parametrize("include", ["/etc/passwd", "SECRET"])
def test_an_include_outside_the_tree_is_refused(tmp_path, include):
    repo = hostile_repo(tmp_path)
    target = str(tmp_path / "secret.txt") if include == "SECRET" else include
    (repo / INCLUDES / "digraph.h").write_text(f"#include <{target}>\nconstexpr int D = 4;\n")
    with pytest.raises(SiteError) as exc:
        build_site(repo, tmp_path / "out", cache=tmp_path / "cache")
    message = str(exc.value)
    assert f"{INCLUDES}/digraph.h:1: cannot preprocess: {target}: No such file" in message
    assert SECRET not in message


def _start_build(repo: Path, tmp_path: Path, sleep_in_main: bool = True) -> subprocess.Popen:
    """``perfectplay site build`` of the hostile archive in a child process, once its
    sleeper runs; the reader's solution then sleeps in the foreground too."""
    solution = repo / READER / "solution.py"
    if sleep_in_main:
        solution.write_text(
            solution.read_text().replace(
                "sys.stdin.read()\n", f"sys.stdin.read()\nimport time\ntime.sleep({SLEEPER})\n"
            )
        )
    import perfectplay

    env = {**os.environ, "PYTHONPATH": str(Path(perfectplay.__file__).parents[1])}
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perfectplay",
            "site",
            "build",
            "--root",
            str(repo),
            "--out",
            str(tmp_path / "out"),
            "--cache",
            str(tmp_path / "cache"),
            "--quiet",
        ],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 120
    while not _sleepers():
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() < deadline, "the solution never started"
        time.sleep(0.1)
    return proc


@pytest.mark.parametrize("how", ["SIGKILL", "SIGTERM", "SIGINT"])
def test_a_stopped_build_leaves_nothing_running(tmp_path, how, leftovers):
    repo = hostile_repo(tmp_path)
    before = _snapshot(repo)
    proc = _start_build(repo, tmp_path)
    before[f"{READER}/solution.py"] = (repo / READER / "solution.py").read_bytes()
    started = time.monotonic()
    proc.send_signal(getattr(signal, how))
    code = proc.wait(timeout=60)
    if how != "SIGKILL":
        assert code == 130, proc.stderr.read() if proc.stderr else ""
        assert time.monotonic() - started < 10  # at once, not at the time limit
    assert not (tmp_path / "out").exists()
    assert _snapshot(repo) == before


def test_refuses_without_a_sandbox_unless_trusted(tmp_path, monkeypatch, capsys, own_archive):
    import perfectplay.site.sandbox as sandbox

    repo = own_archive(tmp_path)
    monkeypatch.setattr(sandbox, "unavailable", lambda: "bwrap is not installed")
    argv = [
        "build",
        "--root",
        str(repo),
        "--out",
        str(tmp_path / "out"),
        "--cache",
        str(tmp_path / "cache"),
        "--quiet",
    ]
    assert site_main(argv) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert (
        len(lines) == 1
        and "refusing to run the archive's programs without a sandbox" in (lines[0])
        and "--trust" in lines[0]
    ), lines
    assert not (tmp_path / "out").exists()
    assert site_main([*argv, "--trust"]) == 0  # a trusted tree runs without one
    assert (tmp_path / "out" / "index.html").is_file()


def test_a_fork_bomb_is_stopped(tmp_path):
    from perfectplay.site.contained import count_processes, run_contained
    from perfectplay.site.sandbox import Limits, jail_for

    code = (
        "import os, time\n"
        "for _ in range(2000):\n"
        "    if os.fork() == 0:\n"
        "        time.sleep(30)\n"
        "        os._exit(0)\n"
        "print('all started')\n"
    )
    started = time.monotonic()
    run = run_contained(
        [sys.executable, "-c", code],
        b"",
        time_limit=60,
        output_limit=1000,
        jail=jail_for(tmp_path, None, False),
    )
    assert run.forked and b"all started" not in run.stdout
    assert run.problem(60, 1000) == "started more processes than its sandbox allows"
    assert time.monotonic() - started < 30
    assert Limits(1).processes < 2000 and count_processes(os.getpid()) < 100


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_of_the_repository_runs_nothing_of_it(tmp_path, leftovers):
    repo = hostile_repo(tmp_path)
    marker = tmp_path / "fsmonitor-ran"

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True)

    git("init", "-q")
    git("add", "-A")
    git("-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "hostile")
    hook = repo / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch {marker}\n")
    hook.chmod(0o755)
    git("config", "core.fsmonitor", f"touch {marker}; echo")
    before = _snapshot(repo)
    build_site(repo, tmp_path / "out", cache=tmp_path / "cache")
    assert not marker.exists()
    assert _snapshot(repo) == before
