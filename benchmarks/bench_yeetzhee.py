"""Yeetzhee: the official test set 2 and the hardest N = M = 50 case.

Figures:

* ``perfectplay yeetzhee`` on the official test set 2 file (100 cases, N, M <= 50): CLI
  wall time with warm caches (numba's, and the ahead-of-time twin of label-setting that
  the first run builds, :mod:`perfectplay._util.ahead`: later runs import no numba), the
  whole process a user runs (target at most 0.5 s),
  beside a plain memoised Python version of the analysis (below, :func:`plain_expected`:
  sorted group-size tuples, a dictionary cache, sort the outcomes and take the best
  prefix) and the ratio; then the same 100 cases in-process with the kernels loaded
  (build and solve only), beside that whole process: the difference is the start-up;
* the hardest case for N = M = 50, the target whose live groupings are the most: 58,927
  groupings for the sizes ``1 1 1 1 2 2 2 3 4 5 6 9 13`` (found by counting the groupings of
  all 204,226 partitions of 50, ``python benchmarks/bench_yeetzhee.py hardest``): states,
  CLI wall time, in-process build and solve times, and ``--exact`` time.

    python benchmarks/run.py yeetzhee                  # the table
    python benchmarks/bench_yeetzhee.py plain FILE     # the plain Python version on FILE
    python benchmarks/bench_yeetzhee.py hardest        # search the hardest N = 50 target
"""

from __future__ import annotations

import math
import sys
import time
from functools import cache
from pathlib import Path

import common
from common import Row

HERE = Path(__file__).resolve().parent
TEST_SET_2 = common.ROOT / "tests" / "data" / "yeetzhee" / "data" / "secret" / "subtask2" / "1.in"
HARDEST = (1, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 9, 13)


def plain_expected(n: int, m: int, groups: tuple[int, ...]) -> float:
    """The analysis in plain Python: memoised recursion over sorted group-size tuples."""
    target = tuple(sorted(groups))
    k = len(target)

    @cache
    def expected(state: tuple[int, ...]) -> float:
        if state == target:
            return 0.0
        used = sum(1 for s in state if s)
        options = []
        i = 0
        while i < k:
            j = i
            while j + 1 < k and state[j + 1] == state[i]:
                j += 1
            faces = j - i + 1 if state[i] else m - used
            grown = state[:j] + (state[j] + 1,) + state[j + 1 :]
            if faces > 0 and grown[j] <= target[j]:
                options.append((expected(grown), faces))
            i = j + 1
        options.sort()
        best, p, s = math.inf, 0, 0.0
        for value, faces in options:
            p += faces
            s += faces * value
            best = min(best, (m + s) / p)
        return best

    sys.setrecursionlimit(max(1000, 4 * n + 100))
    return expected((0,) * k)


def plain_main(path: str) -> int:
    tokens = [int(t) for t in Path(path).read_text().split()]
    t, pos, out = tokens[0], 1, []
    for case in range(1, t + 1):
        n, m, k = tokens[pos : pos + 3]
        groups = tuple(tokens[pos + 3 : pos + 3 + k])
        pos += 3 + k
        out.append(f"Case #{case}: {plain_expected(n, m, groups):.9f}")
    print("\n".join(out))
    return 0


def _partitions(n: int, smallest: int = 1):
    if n == 0:
        yield ()
        return
    for first in range(smallest, n + 1):
        for rest in _partitions(n - first, first):
            yield (first, *rest)


def hardest(n: int = 50) -> tuple[int, tuple[int, ...], int]:
    """(most groupings, its target, partitions tried) over all partitions of ``n``."""
    sys.path.insert(0, str(common.ROOT / "src"))
    from perfectplay.graphs.canonical import SortedTupleSpace

    best, best_p, tried = 0, (), 0
    for p in _partitions(n):
        tried += 1
        size = SortedTupleSpace(p).size
        if size > best:
            best, best_p = size, p
    return best, best_p, tried


def _max_rel_diff(a: bytes, b: bytes) -> float:
    xs = [float(line.split(b":")[1]) for line in a.splitlines() if line.strip()]
    ys = [float(line.split(b":")[1]) for line in b.splitlines() if line.strip()]
    if len(xs) != len(ys):
        return math.inf
    return max(abs(x - y) / max(1.0, abs(y)) for x, y in zip(xs, ys, strict=True))


def run(quick: bool) -> list[Row]:
    rows: list[Row] = []
    repeats = 3 if quick else 7
    plain = [sys.executable, str(HERE / "bench_yeetzhee.py"), "plain"]
    ours = [*common.PERFECTPLAY, "yeetzhee"]

    a, b, ratio = common.time_pair(
        [*ours, str(TEST_SET_2)], [*plain, str(TEST_SET_2)], repeats=repeats
    )
    agree = _max_rel_diff(a.outputs[-1], b.outputs[-1])
    rows.append(
        Row(
            "yeetzhee",
            "test set 2 (100 cases), CLI, warm",
            f"{a} peak {a.peak_mib:.0f} MiB",
            f"plain Python {b.median:.3f} s",
            common.fmt_ratio(ratio),
            f"<= 0.5 s (max rel diff {agree:.1e})",
        )
    )
    cli = a

    sys.path.insert(0, str(common.ROOT / "src"))
    from perfectplay.problems.yeetzhee import solve
    from perfectplay.problems.yeetzhee.build import build
    from perfectplay.problems.yeetzhee.instance import parse
    from perfectplay.solvers.retry import solve_retry

    cases = parse(TEST_SET_2.read_text())
    solve(50, 50, HARDEST)  # load the kernels
    t0 = time.perf_counter()
    for case in cases:
        solve(case.n, case.m, case.groups)
    rows.append(
        Row(
            "yeetzhee",
            "test set 2 (100 cases), in-process, kernels loaded",
            f"{time.perf_counter() - t0:.3f} s",
            "",
            "",
            "report",
            process=f"{cli} (the CLI)",
        )
    )

    common.CACHE.mkdir(parents=True, exist_ok=True)
    hard = common.CACHE / "yeetzhee-hardest.in"
    hard.write_text(f"1\n50 50 {len(HARDEST)}\n" + "\n".join(map(str, HARDEST)) + "\n")
    a, b, ratio = common.time_pair([*ours, str(hard)], [*plain, str(hard)], repeats=repeats)
    agree = _max_rel_diff(a.outputs[-1], b.outputs[-1])

    t0 = time.perf_counter()
    model = build(50, 50, HARDEST)
    t1 = time.perf_counter()
    solve_retry(model.graph)
    t2 = time.perf_counter()
    g = model.graph
    rows.append(
        Row(
            "yeetzhee",
            f"hardest N=M=50: {len(model.rows):,} groupings, "
            f"{g.outcome_idx.shape[0]:,} outcome edges",
            f"CLI {a}; build {t1 - t0:.3f} s, solve {t2 - t1:.3f} s",
            f"plain Python {b.median:.3f} s",
            common.fmt_ratio(ratio),
            f"report (max rel diff {agree:.1e})",
            process=f"{a} (the CLI)",
        )
    )
    ex = common.time_command([*ours, "--exact", str(hard)], repeats=1 if quick else 3)
    rows.append(
        Row(
            "yeetzhee",
            "hardest N=M=50, --exact (verified)",
            f"{ex} peak {ex.peak_mib:.0f} MiB",
            "",
            "",
            "report",
        )
    )
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "plain":
        sys.exit(plain_main(sys.argv[2]))
    if len(sys.argv) == 2 and sys.argv[1] == "hardest":
        t0 = time.perf_counter()
        size, target, tried = hardest()
        print(
            f"{size:,} groupings for {' '.join(map(str, target))} "
            f"({tried:,} partitions of 50, {time.perf_counter() - t0:.1f} s)"
        )
        sys.exit(0)
    print(__doc__)
    sys.exit(2)
