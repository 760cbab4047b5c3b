"""Yahtzee's exact final-score distribution and seeded simulation (issue 13).

* ``score_distribution`` of the American rules: wall time of the distribution alone
  (the table solved first in the same process), median of separate processes, and the
  process's peak memory beside its peak after the solve (target at most 60 s). The
  statistics are printed beside Glenn's (2006) published standard deviation, 59.61.
* ``simulate``: games per second of the optimal policy, 10,000 American games (warm).

    python benchmarks/run.py yahtzee_distribution
"""

from __future__ import annotations

import sys

import common
from common import Row

DISTRIBUTION = """\
import resource, time
from perfectplay.yahtzee.solution import solve
from perfectplay.yahtzee.distribution import score_distribution
sol = solve("american")
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t0 = time.perf_counter()
d = score_distribution(sol)
wall = time.perf_counter() - t0
p10, p50, p90 = d.percentiles([10, 50, 90])
print(wall, base, d.mean - sol.value(), d.std, d.median, p10, p50, p90)
"""

SIMULATE = """\
import time
from perfectplay.yahtzee.solution import solve
from perfectplay.yahtzee.simulate import simulate
sol = solve("american")
simulate(sol, 100, seed=1)
t0 = time.perf_counter()
run = simulate(sol, 10_000, seed=0)
wall = time.perf_counter() - t0
print(wall, run.mean, run.standard_error)
"""


def run(quick: bool) -> list[Row]:
    rows = []
    common.run_once([sys.executable, "-c", DISTRIBUTION])  # compile cache
    walls, peaks, bases = [], [], []
    whole = common.python_child(["-c", DISTRIBUTION], repeats=1 if quick else 3)
    for peak, out in zip(whole.peaks_mib, whole.outputs, strict=True):
        wall, base, err, std, median, p10, p50, p90 = map(float, out.split())
        walls.append(wall)
        peaks.append(peak)
        bases.append(base)
    walls.sort()
    rows.append(
        Row(
            "yahtzee",
            "exact final-score distribution, american",
            f"{walls[len(walls) // 2]:.2f} s (min {walls[0]:.2f}, max {walls[-1]:.2f}); peak "
            f"{max(peaks):.0f} MiB ({max(bases):.0f} MiB after the solve); std {std:.4f}, "
            f"median {median:.0f}, p10/p50/p90 {p10:.0f}/{p50:.0f}/{p90:.0f}, "
            f"mean - value {err:.1e}",
            "Glenn 2006: std 59.61, about 24 h",
            "",
            "<= 60 s",
            process=f"{whole} (solve, distribution)",
        )
    )
    common.run_once([sys.executable, "-c", SIMULATE])
    sim = common.python_child(["-c", SIMULATE], repeats=1)
    wall, mean, se = map(float, sim.outputs[-1].split())
    rows.append(
        Row(
            "yahtzee",
            "simulate 10,000 american games (warm)",
            f"{wall:.2f} s, {10_000 / wall:,.0f} games/s; mean {mean:.2f} +- {se:.2f}",
            "",
            "",
            "a few seconds",
            process=f"{sim.median:.2f} s (solve, 10,100 games)",
        )
    )
    return rows
