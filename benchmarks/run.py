"""Run the benchmark suite and print one table.

    python benchmarks/run.py            # everything
    python benchmarks/run.py alea dice  # only modules whose name contains one of the words
    python benchmarks/run.py --quick    # fewer repeats

Each ``benchmarks/bench_*.py`` module defines ``run(quick: bool) -> list[common.Row]``.
Targets are printed beside the figures; nothing here fails a test run. The column "whole
process" is the wall time of the process behind a figure measured inside it (start-up,
imports and kernel loading included, as a user waits for them); rows timed from outside
(a command run as a user runs it) are whole-process figures already and leave it empty.
"""

from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import Row  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("only", nargs="*", help="substrings of module names to run")
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    args = ap.parse_args()
    modules = sorted(p.stem for p in HERE.glob("bench_*.py"))
    if args.only:
        modules = [m for m in modules if any(o in m for o in args.only)]
    rows: list[Row] = []
    for name in modules:
        t0 = time.perf_counter()
        print(f"[bench] {name} ...", file=sys.stderr, flush=True)
        mod = importlib.import_module(name)
        rows.extend(mod.run(args.quick))
        print(
            f"[bench] {name} done in {time.perf_counter() - t0:.1f} s", file=sys.stderr, flush=True
        )
    headers = ("area", "case", "perfectplay", "whole process", "reference", "ratio", "target")
    table = [headers] + [
        (r.area, r.case, r.figure, r.process, r.reference, r.ratio, r.target) for r in rows
    ]
    widths = [max(len(str(row[i])) for row in table) for i in range(len(headers))]
    for k, row in enumerate(table):
        print("  ".join(str(c).ljust(w) for c, w in zip(row, widths, strict=False)).rstrip())
        if k == 0:
            print("  ".join("-" * w for w in widths))
    return 0


if __name__ == "__main__":
    sys.exit(main())
