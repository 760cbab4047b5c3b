"""Judges' limits (issue 25, item 4): memory limit, unlimited stack, limits and the
environment in the rebuild hash, languages by command templates, ``.py3``, Java by its
main class, Kotlin and Haskell, and ``-I`` include folders."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("jinja2")
pytest.importorskip("pygments")

import perfectplay.site.checks as site_checks  # noqa: E402
from perfectplay.site import SiteError, build_site  # noqa: E402
from perfectplay.site.sandbox import unavailable  # noqa: E402

try:
    from perfectplay.site.pandoc import pandoc as _find_pandoc

    _find_pandoc()
except SiteError:  # pragma: no cover
    pytest.skip("pandoc is not installed (pip install -e '.[site]')", allow_module_level=True)

# Prints the limits it runs under: the stack's soft limit and the address space's.
LIMITS = """\
import resource
stack = resource.getrlimit(resource.RLIMIT_STACK)[0]
memory = resource.getrlimit(resource.RLIMIT_AS)[0]
input()
print("unlimited" if stack == resource.RLIM_INFINITY else stack, memory >> 20)
"""
# Takes about 200 MB: fails under a memory limit of 64 MB.
GREEDY = "input()\nblock = bytearray(200 << 20)\nprint(len(block) >> 20)\n"


def _entry(folder: Path, solution: str, answer: str, meta: str = "", name: str = "") -> None:
    folder.mkdir(parents=True)
    (folder / "meta.toml").write_text(
        f'title = "{folder.name}"\nlink = "https://example.org/{folder.name}"\n'
        f'techniques = ["none"]\ncompare = "tokens"\n{meta}'
    )
    (folder / "statement.md").write_text("## Task\n\nPrint it.\n")
    (folder / "solution.tex").write_text("\\section*{Idea}\nPrint it.\n")
    (folder / (name or "solution.py")).write_text(solution)
    (folder / "samples").mkdir()
    (folder / "samples" / "1.in").write_text("1\n")
    (folder / "samples" / "1.ans").write_text(answer)


def _repo(tmp_path: Path, site: str = "") -> Path:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "site.toml").write_text(f'title = "Limits"\nentries = ["problems/*"]\n{site}')
    return repo


def _sample_verdict(out: Path, entry: str) -> str:
    page = (out / "archive" / entry / "index.html").read_text()
    found = re.search(r'<h3>Sample 1 <span class="verdict (ok|fail)">(.*?)</span>', page)
    assert found, "no sample"
    return f"{found.group(1)}: {found.group(2)}"


def _count_runs(monkeypatch) -> list[str]:
    ran: list[str] = []
    real = site_checks.run_sample

    def counted(*args, **kwargs):
        ran.append(args[1].id)
        return real(*args, **kwargs)

    monkeypatch.setattr(site_checks, "run_sample", counted)
    return ran


sandboxed = pytest.mark.skipif(
    unavailable() is not None, reason=f"limits are set by the sandbox: {unavailable()}"
)


@sandboxed
def test_memory_limit_and_an_unlimited_stack(tmp_path, monkeypatch):
    repo = _repo(tmp_path, "memory_limit = 512\n")
    _entry(repo / "problems" / "limits", LIMITS, "unlimited 512\n")
    _entry(repo / "problems" / "own-limit", LIMITS, "unlimited 64\n", "memory_limit = 64\n")
    _entry(repo / "problems" / "greedy", GREEDY, "200\n", "memory_limit = 64\n")
    _entry(repo / "problems" / "greedy-allowed", GREEDY, "200\n")
    ran = _count_runs(monkeypatch)
    cache = tmp_path / "cache"
    result = build_site(repo, tmp_path / "out", cache=cache, keep_going=True)
    out = tmp_path / "out"
    assert _sample_verdict(out, "limits") == "ok: matches (tokens)"
    assert _sample_verdict(out, "own-limit") == "ok: matches (tokens)"
    assert _sample_verdict(out, "greedy-allowed") == "ok: matches (tokens)"
    assert _sample_verdict(out, "greedy").startswith(
        "fail: ran out of memory (memory_limit 64 MB): MemoryError"
    )
    assert [f.split(":")[0] for f in result.failed] == ["greedy"]
    assert len(ran) == 4
    # A changed limit runs the entries it applies to again, and only those.
    meta = repo / "problems" / "own-limit" / "meta.toml"
    meta.write_text(meta.read_text().replace("memory_limit = 64", "memory_limit = 128"))
    (repo / "problems" / "own-limit" / "samples" / "1.ans").write_text("unlimited 128\n")
    build_site(repo, tmp_path / "out2", cache=cache, keep_going=True)
    assert ran[4:] == ["own-limit"]
    (repo / "site.toml").write_text((repo / "site.toml").read_text().replace("512", "1024"))
    (repo / "problems" / "limits" / "samples" / "1.ans").write_text("unlimited 1024\n")
    build_site(repo, tmp_path / "out3", cache=cache, keep_going=True)
    assert sorted(ran[5:]) == ["greedy-allowed", "limits"]


def test_time_limit_is_the_entry_key_for_its_timeout(tmp_path):
    repo = _repo(tmp_path)
    _entry(
        repo / "problems" / "slow",
        "import time\ninput()\ntime.sleep(5)\nprint(1)\n",
        "1\n",
        "time_limit = 1\n",
    )
    result = build_site(repo, tmp_path / "out", cache=tmp_path / "cache", keep_going=True)
    assert result.failed == ("slow: sample 1: ran longer than 1 s",)
    meta = repo / "problems" / "slow" / "meta.toml"
    meta.write_text(meta.read_text() + "timeout = 2\n")
    with pytest.raises(SiteError, match="'time_limit' and 'timeout' say the same: give one"):
        build_site(repo, tmp_path / "out", cache=tmp_path / "cache")


def test_languages_by_templates_py3_and_the_environment_in_the_hash(tmp_path, monkeypatch):
    site = (
        '[languages.sh]\nrun = "sh {src}"\n'
        '[languages.c89]\ncompile = "gcc -x c -std=c89 -o {bin} {src}"\nrun = "{bin}"\n'
    )
    repo = _repo(tmp_path, site)
    _entry(repo / "problems" / "shell", "read n\necho $((n + 1))\n", "2\n", name="solution.sh")
    _entry(repo / "problems" / "py3", "print(int(input()) + 2)\n", "3\n", name="solution.py3")
    if shutil.which("gcc"):
        c89 = (
            "#include <stdio.h>\n"
            'int main(void) { int n; scanf("%d", &n); printf("%d\\n", n + 3); return 0; }\n'
        )
        _entry(repo / "problems" / "c89", c89, "4\n", name="solution.c89")
    ran = _count_runs(monkeypatch)
    cache = tmp_path / "cache"
    result = build_site(repo, tmp_path / "out", cache=cache, keep_going=True)
    assert result.failed == ()
    out = tmp_path / "out"
    page = (out / "archive" / "shell" / "index.html").read_text()
    assert "solved by <code>sh solution.sh</code>" in page
    if shutil.which("gcc"):
        page = (out / "archive" / "c89" / "index.html").read_text()
        assert "gcc -x c -std=c89 -o solution solution.c89 &amp;&amp; solution" in page
    first = len(ran)
    # The environment a run gets is part of what its verdict depends on.
    monkeypatch.setenv("PYTHONPATH", f"{tmp_path}/elsewhere")
    build_site(repo, tmp_path / "out2", cache=cache, keep_going=True)
    assert len(ran) == 2 * first
    # A changed template reruns its entries.
    monkeypatch.delenv("PYTHONPATH")
    (repo / "site.toml").write_text(
        'title = "Limits"\nentries = ["problems/*"]\n' + site.replace("sh {src}", "bash {src}")
    )
    build_site(repo, tmp_path / "out3", cache=cache, keep_going=True)
    assert "shell" in ran[2 * first :]


@pytest.mark.skipif(shutil.which("javac") is None, reason="javac is not installed")
def test_java_runs_by_its_main_class(tmp_path):
    repo = _repo(tmp_path)
    java = (
        "import java.util.Scanner;\n"
        "class Helper { static int twice(int n) { return 2 * n; } }\n"
        "public class Main {\n"
        "  // class NotThis { public static void main(String[] a) {} }\n"
        "  public static void main(String[] args) {\n"
        "    System.out.println(Helper.twice(new Scanner(System.in).nextInt()));\n"
        "  }\n"
        "}\n"
    )
    # A memory limit is the virtual machine's heap (-Xmx), not its address space.
    _entry(repo / "problems" / "java", java, "2\n", "memory_limit = 256\n", name="solution.java")
    result = build_site(repo, tmp_path / "out", cache=tmp_path / "cache", keep_going=True)
    assert result.failed == ()
    page = (tmp_path / "out" / "archive" / "java" / "index.html").read_text()
    assert "javac solution.java &amp;&amp; java Main" in page


@pytest.mark.skipif(shutil.which("kotlinc") is None, reason="kotlinc is not installed")
def test_kotlin(tmp_path):  # pragma: no cover - where kotlinc is installed
    repo = _repo(tmp_path)
    _entry(
        repo / "problems" / "kotlin",
        "fun main() { println(readLine()!!.toInt() * 5) }\n",
        "5\n",
        name="solution.kt",
    )
    result = build_site(repo, tmp_path / "out", cache=tmp_path / "cache", keep_going=True)
    assert result.failed == ()


@pytest.mark.skipif(shutil.which("ghc") is None, reason="ghc is not installed")
def test_haskell(tmp_path):  # pragma: no cover - where ghc is installed
    repo = _repo(tmp_path)
    _entry(
        repo / "problems" / "haskell",
        "main = interact $ show . (* 6) . read\n",
        "6\n",
        name="solution.hs",
    )
    result = build_site(repo, tmp_path / "out", cache=tmp_path / "cache", keep_going=True)
    assert result.failed == ()


@pytest.mark.skipif(shutil.which("g++") is None, reason="g++ is not installed")
def test_include_folders_are_found_shown_and_hashed(tmp_path, monkeypatch):
    repo = _repo(tmp_path, '[flags]\ncpp = "-O2 -I lib"\n')
    (repo / "lib").mkdir()
    (repo / "lib" / "seven.hpp").write_text("inline int seven() { return 7; }\n")
    cpp = '#include <cstdio>\n#include <seven.hpp>\nint main() { std::printf("%d\\n", seven()); }\n'
    _entry(repo / "problems" / "cpp", cpp, "7\n", name="solution.cpp")
    ran = _count_runs(monkeypatch)
    cache = tmp_path / "cache"
    result = build_site(repo, tmp_path / "out", cache=cache, keep_going=True)
    assert result.failed == ()
    page = (tmp_path / "out" / "archive" / "cpp" / "index.html").read_text()
    assert 'data-file="lib/seven.hpp"' in page
    assert "g++ -O2 -I lib solution.cpp" in page
    (repo / "lib" / "seven.hpp").write_text("inline int seven() { return 8; }\n")
    result = build_site(repo, tmp_path / "out2", cache=cache, keep_going=True)
    assert len(ran) == 2
    assert [f.split(":")[0] for f in result.failed] == ["cpp"]


# Guess the number: the interactor answers "<", ">" or "=" and allows 10 guesses.
INTERACTOR = """\
import sys
inp, out, ans = sys.argv[1:4]
secret = int(open(inp).read())
for guess_count in range(1, 11):
    guess = int(input())
    reply = "=" if guess == secret else "<" if secret < guess else ">"
    print(reply, flush=True)
    if reply == "=":
        open(out, "w").write(f"found {secret} in {guess_count} guesses\\n")
        sys.exit(0)
sys.stderr.write(f"wrong answer: not found in 10 guesses\\n")
sys.exit(1)
"""
SEARCH = """\
low, high = 1, 1000
while True:
    middle = (low + high) // 2
    print(middle, flush=True)
    reply = input()
    if reply == "=":
        break
    low, high = (middle + 1, high) if reply == ">" else (low, middle - 1)
"""
GUESS_ONE = "while True:\n    print(1, flush=True)\n    if input() == '=':\n        break\n"


def test_an_interactor_talks_with_the_program_and_gives_the_verdict(tmp_path):
    repo = _repo(tmp_path)
    # guess-one passes its sample (the secret is 1), so that its tests run.
    for name, solution, secret in (("search", SEARCH, 777), ("guess-one", GUESS_ONE, 1)):
        folder = repo / "problems" / name
        _entry(folder, solution, "-\n", 'interactor = "interactor.py"\n')
        (folder / "interactor.py").write_text(INTERACTOR)
        (folder / "samples" / "1.in").write_text(f"{secret}\n")
        (folder / "tests").mkdir()
        for i, secret in enumerate((1, 500, 1000), start=1):
            (folder / "tests" / f"{i}.in").write_text(f"{secret}\n")
            (folder / "tests" / f"{i}.ans").write_text("-\n")
    out = tmp_path / "out"
    result = build_site(repo, out, cache=tmp_path / "cache", keep_going=True)
    assert _sample_verdict(out, "search") == (
        "ok: accepted by (the interactor problems/search/interactor.py)"
    )
    page = (out / "archive" / "search" / "index.html").read_text()
    assert "found 777 in " in page  # what the interactor wrote is shown
    assert "passed 3 of 3 tests" in page
    assert result.failed == ("guess-one: test 2: wrong answer: not found in 10 guesses",)
    page = (out / "archive" / "guess-one" / "index.html").read_text()
    assert "passed 1 of 3 tests" in page  # the secret 1 is found
    assert "checked by the interactor problems/guess-one/interactor.py" in " ".join(
        re.sub(r"<[^>]*>", "", page).split()
    )


BAD_SITE = {
    "memory_limit = 0\n": "'memory_limit' must be between 1 and 1048576 MB",
    '[languages.pas]\ncompile = "fpc {src}"\n': "'languages.pas' holds 'run' and optionally",
    '[languages.pas]\nrun = "{bin}"\nflags = "-O2"\n': "(not flags)",
    '[languages.pas]\nrun = ""\n': "'languages.pas' commands must be non-empty strings",
    'checker = "check.py"\n': "'checker' \"check.py\" names no protocol",
}


@pytest.mark.parametrize("text", sorted(BAD_SITE))
def test_bad_judge_settings_in_site_toml(tmp_path, text):
    from perfectplay.site.config import load_config

    (tmp_path / "site.toml").write_text(text)
    if "checker" in text:  # read with the entries, which it applies to
        _entry(tmp_path / "problems" / "one", "print(1)\n", "1\n")
        (tmp_path / "site.toml").write_text(f'entries = ["problems/*"]\n{text}')
        with pytest.raises(SiteError, match=re.escape(BAD_SITE[text])):
            build_site(tmp_path, tmp_path / "out", cache=tmp_path / "cache")
        return
    with pytest.raises(SiteError, match=re.escape(BAD_SITE[text])):
        load_config(tmp_path)
