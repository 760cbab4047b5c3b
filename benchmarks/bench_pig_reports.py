"""Pig goal 100 beyond its value (issue 12, item 5): what a cost game gets, for a
two-player dice game, through ``perfectplay solve`` and the Python API.

* ``--distribution 200``: the number of moves until the game ends under both optimal
  strategies (the policy chain, its mean and the first mover's results); wall time and
  peak memory of the command beside the plain solve of the same run.
* ``--export``: the same with the table written, and the file's size.
* ``load_solution`` of that table: seconds to load, and queries (``value``, ``options``,
  ``best_move`` of random positions) per second, without solving again.

    python benchmarks/run.py pig_reports
"""

from __future__ import annotations

import json

import common
from common import Row

SOLVE = common.PERFECTPLAY + ["solve", "perfectplay.examples.pig:Pig", "-q"]

QUERIES = """\
import json, random, sys, time
t0 = time.perf_counter()
from perfectplay.models import load_solution
table = load_solution(sys.argv[1])
t1 = time.perf_counter()
keys = list(table.states())
rng = random.Random(1)
picks = [keys[rng.randrange(len(keys))] for _ in range(20000)]
t2 = time.perf_counter()
for k in picks:
    table.value(k), table.options(k), table.best_move(k)
t3 = time.perf_counter()
print(json.dumps({"load": t1 - t0, "per_second": len(picks) / (t3 - t2), "rows": len(table)}))
"""


def run(quick: bool) -> list[Row]:
    repeats = 1 if quick else 3
    rows = []
    plain = common.time_command(SOLVE, repeats=repeats)
    rows.append(Row("pig", "solve Pig goal 100 (no reports)", f"{plain} {plain.peak_mib:.0f} MiB"))
    dist = common.time_command(SOLVE + ["--distribution", "200", "--json"], repeats=repeats)
    d = json.loads(dist.outputs[-1])["distribution"]
    rows.append(
        Row(
            "pig",
            "--distribution 200 (moves until the end)",
            f"{dist} {dist.peak_mib:.0f} MiB; +{dist.median - plain.median:.2f} s; "
            f"mean {d['mean']:.4f} moves, median {d['median']}, "
            f"first mover wins {d['results']['win']:.10f}",
        )
    )
    path = common.CACHE / "pig100.npz"
    path.parent.mkdir(parents=True, exist_ok=True)
    exp = common.time_command(SOLVE + ["--export", str(path)], repeats=repeats)
    rows.append(
        Row(
            "pig",
            "--export (every position and move)",
            f"{exp} {exp.peak_mib:.0f} MiB; +{exp.median - plain.median:.2f} s; "
            f"{path.stat().st_size / 2**20:.1f} MiB on disk",
        )
    )
    whole = common.python_child(["-c", QUERIES, str(path)], repeats=repeats)
    q, peak = json.loads(whole.outputs[-1]), whole.peak_mib
    rows.append(
        Row(
            "pig",
            "load_solution + queries (no solve)",
            f"load {q['load']:.2f} s ({q['rows']:,} rows), "
            f"{q['per_second']:,.0f} queries/s (value, options, best_move); {peak:.0f} MiB",
            process=f"{whole} (load, 20,000 queries)",
        )
    )
    return rows
