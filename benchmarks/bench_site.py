"""The site builder: this repository's site, and a generated archive of 200 C++ entries.

* ``full build`` of this repository (``--force``: every sample run, no remembered result).
  Target: under 30 s for the five gallery entries on the project's 2-core machines. The
  first run warms the caches (numba's compiled kernels, the page cache) and is not timed;
  if it fails, the row shows the build's one-line error instead of a time.
* ``200 C++ entries``: an archive in the seed's layout (``competitive_programming/*/*/*``,
  a ``site.toml``), generated at run time from a fixed seed; each entry has its own
  ``solution.cpp`` (so 200 compilations), 5 samples and 20 judge tests. Three builds with
  one cache: a full build from an empty cache (target 60 s), a rebuild with nothing
  changed (target 2 s), and a rebuild after one solution changed (target 3 s), whose
  output is then compared with a ``--force`` build of the same tree (must be identical).
* ``240-entry library``: an oj-verify style library repository (``layout = "oj-verify"``,
  issue 25), generated at run time and committed in git in 24 commits: 240
  ``*.test.cpp`` files naming their Library Checker problem, each including its own header
  and a shared one, test data in a local Library Checker folder (2 samples and 5 tests a
  problem), documentation for every fourth header. Three builds with one cache, each with
  its time and peak memory: a cold build, a rebuild with nothing changed (target 2 s: it
  runs nothing, and asks git once), and a rebuild after one header changed (one test runs
  again).

    python benchmarks/run.py site
    python benchmarks/bench_site.py write DIR     # write the generated archive into DIR
    python benchmarks/bench_site.py write-library DIR   # the generated library, committed
"""

from __future__ import annotations

import json
import os
import random
import re
import resource
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from common import PERFECTPLAY, ROOT, Row, run_once, time_command

ENTRIES, SAMPLES, TESTS = 200, 5, 20

SOLUTION = """\
// Entry {i}: print a*x + b for every x of the input ({a}, {b} are this entry's constants).
#include <cstdio>

int main() {{
    long long x;
    while (std::scanf("%lld", &x) == 1) std::printf("%lld\\n", {a}LL * x + {b}LL);
    return 0;
}}
"""

TEX = """\
\\documentclass{{article}}
\\usepackage{{amsmath}}
\\begin{{document}}
\\section*{{Observation}}
Each answer is $f(x) = {a}x + {b}$, computed in $O(1)$ per number.
\\end{{document}}
"""


def write(root: Path, entries: int = ENTRIES) -> list[Path]:
    """Write the generated archive into ``root``; return the entries' solution files."""
    rng = random.Random("bench-site")
    (root / "site.toml").write_text(
        'title = "Generated archive"\nentries = ["competitive_programming/*/*/*"]\n'
        "time_limit = 10\n"
    )
    solutions = []
    for i in range(entries):
        a, b = rng.randint(1, 99), rng.randint(-999, 999)
        folder = root / "competitive_programming" / f"contest{i // 20}" / "2024" / f"P{i:03d}"
        (folder / "samples").mkdir(parents=True)
        (folder / "tests").mkdir()
        (folder / "meta.toml").write_text(
            f'title = "Line {i}"\ncontest = "Contest {i // 20}"\nyear = 2024\n'
            f'problem = "P{i:03d}"\nlink = "https://example.org/{i}"\n'
            'techniques = ["arithmetic"]\ncompare = "exact"\n'
        )
        (folder / "statement.md").write_text(
            f"## Task\n\nFor every $x$ of the input print ${a}x + {b}$.\n\n"
            f"*Credit: generated entry {i} ([link](https://example.org/{i})).*\n"
        )
        (folder / "solution.tex").write_text(TEX.format(a=a, b=b))
        (folder / "solution.cpp").write_text(SOLUTION.format(i=i, a=a, b=b))
        solutions.append(folder / "solution.cpp")
        for kind, count in (("samples", SAMPLES), ("tests", TESTS)):
            for k in range(1, count + 1):
                xs = [rng.randint(-(10**6), 10**6) for _ in range(rng.randint(1, 50))]
                (folder / kind / f"{k}.in").write_text(" ".join(map(str, xs)) + "\n")
                (folder / kind / f"{k}.ans").write_text("".join(f"{a * x + b}\n" for x in xs))
    return solutions


LIBRARY_ENTRIES, LIBRARY_COMMITS = 240, 24
HEADER = """\
#pragma once
#include "../common.hpp"

// Header {i}: the line a*x + b of problem {i}.
inline Int line{i}(Int x) {{ return {a}LL * x + {b}LL; }}
"""
TEST = """\
#define PROBLEM "https://judge.yosupo.jp/problem/line{i}"

#include <cstdio>

#include "../../lib/{group}/line{i}.hpp"

int main() {{
    long long x;
    while (std::scanf("%lld", &x) == 1) std::printf("%lld\\n", line{i}(x));
}}
"""


def write_library(root: Path, entries: int = LIBRARY_ENTRIES) -> list[Path]:
    """Write the generated oj-verify library into ``root`` and commit it in
    :data:`LIBRARY_COMMITS` commits (git is run here); return its headers."""
    rng = random.Random("bench-library")
    (root / "site.toml").write_text(
        'title = "Generated library"\nlayout = "oj-verify"\ndata = "lc"\ntime_limit = 10\n'
    )
    (root / "lib").mkdir()
    (root / "lib" / "common.hpp").write_text("#pragma once\n\nusing Int = long long;\n")
    headers = []
    for i in range(entries):
        a, b = rng.randint(1, 99), rng.randint(-999, 999)
        group = f"group{i // 20}"
        header = root / "lib" / group / f"line{i}.hpp"
        header.parent.mkdir(exist_ok=True)
        header.write_text(HEADER.format(i=i, a=a, b=b))
        headers.append(header)
        if i % 4 == 0:
            (header.parent / f"line{i}.md").write_text(
                f"---\ndocumentation_of: ./line{i}.hpp\n---\n\n${a}x + {b}$ for every $x$.\n"
            )
        test = root / "test" / group / f"line{i}.test.cpp"
        test.parent.mkdir(parents=True, exist_ok=True)
        test.write_text(TEST.format(i=i, group=group))
        problem = root / "lc" / group / f"line{i}"
        (problem / "in").mkdir(parents=True)
        (problem / "out").mkdir()
        (problem / "info.toml").write_text(f'title = "Line {i}"\n')
        names = [f"example_{k:02d}" for k in range(2)] + [f"random_{k:02d}" for k in range(5)]
        for name in names:
            xs = [rng.randint(-(10**6), 10**6) for _ in range(rng.randint(1, 50))]
            (problem / "in" / f"{name}.in").write_text(" ".join(map(str, xs)) + "\n")
            (problem / "out" / f"{name}.out").write_text("".join(f"{a * x + b}\n" for x in xs))
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "bench",
        "GIT_AUTHOR_EMAIL": "bench@example.org",
        "GIT_COMMITTER_NAME": "bench",
        "GIT_COMMITTER_EMAIL": "bench@example.org",
    }

    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)

    git("init", "-q")
    git("add", "site.toml", "lib/common.hpp", "lc")
    per = max(1, entries // LIBRARY_COMMITS)
    for start in range(0, entries, per):
        groups = sorted({f"group{i // 20}" for i in range(start, min(entries, start + per))})
        for group in groups:
            git("add", f"lib/{group}", f"test/{group}")
        git("commit", "-q", "--allow-empty", "-m", f"lines {start} to {start + per - 1}")
    return headers


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _agreement(incremental: dict[str, bytes], forced: dict[str, bytes]) -> str:
    """How an incremental build's output compares with a --force build of the same tree.
    The one thing a rerun may change is a measured time (a test's slowest time is shown in
    steps); any other difference is a bug."""
    if incremental == forced:
        return "identical to a --force build"
    changed = sorted(
        k for k in incremental.keys() | forced.keys() if incremental.get(k) != forced.get(k)
    )
    times = re.compile(rb"(slowest |\"time\": \")(under|over) [0-9.]+ s")
    if all(
        k in incremental
        and k in forced
        and times.sub(b"", incremental[k]) == times.sub(b"", forced[k])
        for k in changed
    ):
        return f"identical to a --force build but for measured times ({len(changed)} files)"
    return f"DIFFERS from a --force build ({len(changed)} files, e.g. {changed[0]})"


def _own_site(quick: bool) -> Row:
    with tempfile.TemporaryDirectory(prefix="perfectplay-bench-site-") as tmp:
        out = Path(tmp) / "site"
        cmd = [
            *PERFECTPLAY,
            "site",
            "build",
            "--quiet",
            "--root",
            str(ROOT),
            "--out",
            str(out),
            "--cache",
            str(Path(tmp) / "cache"),
            "--force",
        ]
        warm = subprocess.run(cmd, capture_output=True, text=True)
        if warm.returncode != 0:
            error = (warm.stderr.strip().splitlines() or ["no message"])[-1]
            return Row("site", "full build", f"build failed: {error}", target="< 30 s")
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        entries = len(manifest["entries"])
        samples = sum(len(e["samples"]) for e in manifest["entries"])
        pages = len(list(out.rglob("*.html")))
        first = _snapshot(out)
        timing = time_command(cmd, repeats=1 if quick else 3)
        same = "identical bytes" if _snapshot(out) == first else "OUTPUT DIFFERS between builds"
    case = f"full build: {entries} entries, {samples} samples run, {pages} pages"
    return Row("site", case, f"{timing} · {same}", target="< 30 s")


def _generated(quick: bool) -> list[Row]:
    n = 20 if quick else ENTRIES
    what = f"{n} C++ entries, {SAMPLES} samples + {TESTS} tests each"
    if shutil.which("g++") is None:
        return [Row("site", what, "g++ is not installed")]
    with tempfile.TemporaryDirectory(prefix="perfectplay-bench-archive-") as tmp:
        root = Path(tmp) / "archive"
        root.mkdir()
        solutions = write(root, n)
        out, cache = Path(tmp) / "out", Path(tmp) / "cache"
        cmd = [
            *PERFECTPLAY,
            "site",
            "build",
            "--quiet",
            "--root",
            str(root),
            "--out",
            str(out),
            "--cache",
            str(cache),
        ]
        full, _, _ = run_once(cmd)
        same, _, _ = run_once(cmd)
        changed = solutions[n // 2]
        changed.write_text(changed.read_text().replace("return 0;", "return 0; // edited"))
        one, _, _ = run_once(cmd)
        incremental = _snapshot(out)
        run_once([*cmd[:-4], "--out", str(Path(tmp) / "forced"), "--cache", str(cache), "--force"])
        agree = _agreement(incremental, _snapshot(Path(tmp) / "forced"))
    return [
        Row("site", f"{what}: full build, empty cache", f"{full:.1f} s", target="< 60 s"),
        Row("site", f"{what}: rebuild, nothing changed", f"{same:.2f} s", target="< 2 s"),
        Row(
            "site",
            f"{what}: rebuild, one solution changed",
            f"{one:.2f} s · {agree}",
            target="< 3 s",
        ),
    ]


def _library(quick: bool) -> list[Row]:
    n = 24 if quick else LIBRARY_ENTRIES
    what = f"{n}-entry oj-verify library, 7 runs each"
    if shutil.which("g++") is None or shutil.which("git") is None:
        return [Row("site", what, "g++ or git is not installed")]
    with tempfile.TemporaryDirectory(prefix="perfectplay-bench-library-") as tmp:
        root = Path(tmp) / "library"
        root.mkdir()
        headers = write_library(root, n)
        cmd = [*PERFECTPLAY, "site", "build", "--quiet", "--root", str(root)]
        cmd += ["--out", str(Path(tmp) / "out"), "--cache", str(Path(tmp) / "cache")]
        cold = _measured(cmd)
        same = _measured(cmd)
        changed = headers[n // 2]
        changed.write_text(changed.read_text() + "// edited\n")
        one = _measured(cmd)
    return [
        Row("site", f"{what}: cold build", cold),
        Row("site", f"{what}: rebuild, nothing changed", same, target="< 2 s"),
        Row("site", f"{what}: rebuild, one header changed", one),
    ]


def _measured(cmd: list[str]) -> str:
    """One run's wall time, CPU time (the build's and its programs', which a busy machine
    does not inflate as it does the wall time) and peak memory."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, mib, _ = run_once(cmd)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return f"{wall:.2f} s wall, {cpu:.2f} s CPU, {mib:.0f} MiB peak"


def run(quick: bool) -> list[Row]:
    return [_own_site(quick), *_generated(quick), *_library(quick)]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        target = Path(sys.argv[2])
        target.mkdir(parents=True, exist_ok=False)
        print(f"{len(write(target))} entries written into {target}")
    elif len(sys.argv) == 3 and sys.argv[1] == "write-library":
        target = Path(sys.argv[2])
        target.mkdir(parents=True, exist_ok=False)
        print(f"{len(write_library(target))} library tests written into {target}")
    else:
        sys.exit(
            "usage: bench_site.py write DIR | write-library DIR"
            "   (the table: python benchmarks/run.py site)"
        )
