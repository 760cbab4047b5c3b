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

    python benchmarks/run.py site
    python benchmarks/bench_site.py write DIR     # write the generated archive into DIR
"""

from __future__ import annotations

import json
import random
import re
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


def run(quick: bool) -> list[Row]:
    return [_own_site(quick), *_generated(quick)]


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        target = Path(sys.argv[2])
        target.mkdir(parents=True, exist_ok=False)
        print(f"{len(write(target))} entries written into {target}")
    else:
        sys.exit("usage: bench_site.py write DIR   (the table: python benchmarks/run.py site)")
