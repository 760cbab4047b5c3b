"""Compiled models and the layered solver (issue 20).

* Pig to 100, the whole command: the compiled model (``perfectplay.examples.pig_compiled``)
  against the Python-object model (``perfectplay.examples.pig``), alternated run by run
  (target: at most 5 s with a warm kernel cache); the value must be 0.5305927253.
* Where each command's time goes, both ways, in one child each: Python's start and the
  imports up to the model, the first solve of the process (loading the kernels from the
  caches) split into exploring and solving, and the same solve again in that process;
  the first minus the second is what loading the kernels and their first calls cost.
* Pig to 100 solved in a warm process (kernels loaded), both ways in the same process,
  alternated run by run (medians of 3): the whole solve, and its exploring and solving
  apart. This is where the issue's "at least 20x faster than the Python-object model" is
  judged: the same game's work from its rules to its certified values, without Python's
  start-up and imports, which are a third to a half of either command and the same
  both ways. Beside it the position updates of the certified sweeps (a layer's strongly
  connected components one at a time, with the certified extrapolation).
* Positions explored per second, compiled and Python-object, on Pig 100 (in a child), and
  compiled on Ur Finkel with 4 pieces (3 with ``--quick``).
* Sweeps: positions updated per second by the certified sweeps (values, box checks and
  bounds) on Pig 100 and on Ur.
* Ur: Finkel with 2..4 pieces (2..3 with ``--quick``), Blitz and Masters with 2: wall
  time, CPU time and peak memory of one solve in a child process, with the Rust
  re-solve's figures for the full games beside them (JeroenOlieslagers/game_of_ur, 16
  cores of a Xeon 8592+: Finkel 200.5 s, Blitz 31.5 s, Masters 884.1 s), and the full
  Finkel game extrapolated from the largest measured one by positions (say so: it is
  an extrapolation). ``PERFECTPLAY_BENCH_UR=finkel,blitz`` (or ``masters``) adds the
  whole games, measured (Finkel: about 17 minutes on the 2-core development machine;
  Blitz longer; Masters needs more memory than it has).

    python benchmarks/run.py compiled
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import common
from common import Row

PIG_100 = 0.5305927252737
FINKEL_POSITIONS = 137_892_016
RUST = {
    "finkel": "Rust, 16 cores: 200.5 s (7 pieces)",
    "blitz": "Rust: 31.5 s (5 pieces)",
    "masters": "Rust: 884.1 s (7 pieces)",
}

SOLVE_UR = """\
import json, resource, sys, tempfile, time
from perfectplay.compiled import solve_compiled
from perfectplay.examples.ur import Ur
rules, pieces = sys.argv[1], int(sys.argv[2])
t0, c0 = time.perf_counter(), time.process_time()
sol = solve_compiled(Ur(rules, pieces=pieces))
records = [sol.workdir.finished(lid) for lid in sol.layers]
print(json.dumps({
    "value": sol.value(), "bound": sol.bound, "positions": sol.n_positions,
    "wall": time.perf_counter() - t0, "cpu": time.process_time() - c0,
    "explore": sol.explore_seconds, "solve": sol.solve_seconds,
    "peak_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    "updates": sum(r["updates"] for r in records),
    "sweep_seconds": sum(r["seconds"] - r["table_seconds"] for r in records),
}))
"""

EXPLORE_RATE = """\
import time
from perfectplay.compiled import solve_compiled
from perfectplay.compiled.explore import explore
from perfectplay.compiled.kernels import kernels_for
from perfectplay.compiled.workdir import Workdir
from perfectplay.examples.pig import Pig
from perfectplay.examples.pig_compiled import CompiledPig
from perfectplay.models.stochastic import explore_stochastic
import tempfile
model = CompiledPig()
k = kernels_for(model)
explore(CompiledPig(goal=10), k, Workdir(tempfile.mkdtemp()).create())  # load the kernels
t0 = time.perf_counter()
head = explore(model, k, Workdir(tempfile.mkdtemp()).create())
t1 = time.perf_counter()
ex = explore_stochastic(Pig())
t2 = time.perf_counter()
print(sum(head["sizes"]), t1 - t0, ex.graph.n_positions, t2 - t1)
"""

PIG_WARM = """\
import json, statistics, time
import perfectplay
from perfectplay.compiled import solve_compiled
from perfectplay.examples.pig import Pig
from perfectplay.examples.pig_compiled import CompiledPig
solve_compiled(CompiledPig(goal=10))  # load the kernels of both
perfectplay.solve(Pig(goal=10))
walls, cpus, explores, objects, object_cpus, object_explores = [], [], [], [], [], []
for _ in range(3):  # alternated: the machine's drift falls on both
    t0, c0 = time.perf_counter(), time.process_time()
    sol = solve_compiled(CompiledPig())
    walls.append(time.perf_counter() - t0)
    cpus.append(time.process_time() - c0)
    explores.append(sol.explore_seconds)
    t0, c0 = time.perf_counter(), time.process_time()
    ref = perfectplay.solve(Pig())
    objects.append(time.perf_counter() - t0)
    object_cpus.append(time.process_time() - c0)
    object_explores.append(ref.explore_seconds)
assert abs(sol.value() - ref.value()) < 1e-9
records = [sol.workdir.finished(lid) for lid in sol.layers]
m = statistics.median
print(json.dumps({
    "wall": m(walls), "cpu": m(cpus), "explore": m(explores),
    "objects": m(objects), "object_cpu": m(object_cpus), "object_explore": m(object_explores),
    "positions": sol.n_positions, "object_positions": ref.graph.n_positions,
    "updates": sum(r["updates"] for r in records),
    "sweep_seconds": sum(r["seconds"] - r["table_seconds"] for r in records),
    "table_seconds": sum(r["table_seconds"] for r in records),
}))
"""

# One command's phases in one process (argv: module, class, 1 for a compiled model): the
# imports, a small game solved twice (the first loads the kernels), then Pig to 100.
PHASES = """\
import json, sys, time
t0 = time.perf_counter()
import importlib
cls = getattr(importlib.import_module(sys.argv[1]), sys.argv[2])
t1 = time.perf_counter()
if sys.argv[3] == "1":
    from perfectplay.compiled import solve_compiled as solve
else:
    from perfectplay import solve
figures = {"imports": t1 - t0}
for run, goal in (("small", 10), ("small_again", 10), ("full", 100)):
    t = time.perf_counter()
    sol = solve(cls(goal=goal))
    figures[run] = time.perf_counter() - t
    figures[run + "_explore"] = sol.explore_seconds
figures["value"] = sol.value()
figures["inside"] = time.perf_counter() - t0
print(json.dumps(figures))
"""


EXPLORE_UR = """\
import sys, tempfile, time
from perfectplay.compiled.explore import explore
from perfectplay.compiled.kernels import kernels_for
from perfectplay.compiled.workdir import Workdir
from perfectplay.examples.ur import Ur
model = Ur("finkel", pieces=int(sys.argv[1]))
k = kernels_for(model)
explore(Ur("finkel", pieces=1), k, Workdir(tempfile.mkdtemp()).create())  # load the kernels
t0 = time.perf_counter()
head = explore(model, k, Workdir(tempfile.mkdtemp()).create())
print(sum(head["sizes"]), time.perf_counter() - t0)
"""


def _child(script: str, *args: str) -> str:
    out = subprocess.run(
        [sys.executable, "-c", script, *args], check=True, capture_output=True, text=True
    )
    return out.stdout.strip().splitlines()[-1]


def _phases() -> list[Row]:
    """Where the Pig 100 command's time goes, compiled and Python-object (one child each,
    timed whole from here)."""
    import time

    rows = []
    for label, module, name, flag in (
        ("compiled", "perfectplay.examples.pig_compiled", "CompiledPig", "1"),
        ("Python-object", "perfectplay.examples.pig", "Pig", "0"),
    ):
        t0 = time.perf_counter()
        got = json.loads(_child(PHASES, module, name, flag))
        whole = time.perf_counter() - t0
        start = whole - got["inside"] + got["imports"]
        # The object model's small game runs interpreted: its kernels load in the big one.
        loads = (
            f"loading the kernels and first calls {got['small'] - got['small_again']:.2f} s; "
            if flag == "1"
            else ""
        )
        rows.append(
            Row(
                "compiled",
                f"Pig 100, where a {label} process's time goes",
                f"start and imports {start:.2f} s; {loads}solving {got['full']:.2f} s "
                f"(exploring {got['full_explore']:.2f})",
                f"{whole:.2f} s in all, a Pig 10 solved twice first",
            )
        )
    return rows


def run(quick: bool) -> list[Row]:
    return pig_rows(quick) + ur_rows(quick)


def pig_rows(quick: bool) -> list[Row]:
    """The rows of Pig to 100, both ways."""
    rows: list[Row] = []
    ours = common.PERFECTPLAY + ["solve", "perfectplay.examples.pig_compiled:CompiledPig", "-q"]
    ref = common.PERFECTPLAY + ["solve", "perfectplay.examples.pig:Pig", "-q"]
    a, b, ratio = common.time_pair(ours, ref, repeats=1 if quick else 3)
    value = float(a.outputs[-1].decode().split("start value: ")[1].split()[0])
    ok = "ok" if abs(value - PIG_100) < 1e-9 else f"WRONG {value}"
    rows.append(
        Row(
            "compiled",
            f"Pig 100 command, compiled ({ok})",
            str(a),
            f"Python-object model: {b}",
            f"{1 / ratio:.1f}x faster" if ratio else "",
            "<= 5 s",
        )
    )
    rows += _phases()
    warm = json.loads(_child(PIG_WARM))
    rows.append(
        Row(
            "compiled",
            "Pig 100 solved in a warm process (kernels loaded; medians of 3, alternated)",
            f"{warm['wall']:.2f} s wall ({warm['explore']:.2f} exploring, "
            f"{warm['wall'] - warm['explore']:.2f} solving), {warm['cpu']:.2f} s CPU",
            f"Python-object model in the same process: {warm['objects']:.2f} s wall "
            f"({warm['object_explore']:.2f} exploring, "
            f"{warm['objects'] - warm['object_explore']:.2f} solving), "
            f"{warm['object_cpu']:.2f} s CPU",
            f"{warm['objects'] / warm['wall']:.1f}x faster, CPU "
            f"{warm['object_cpu'] / warm['cpu']:.1f}x (exploring "
            f"{warm['object_explore'] / warm['explore']:.0f}x)",
            ">= 20x",
        )
    )
    rows.append(
        Row(
            "compiled",
            "sweeps on Pig 100",
            f"{warm['updates'] / warm['sweep_seconds'] / 1e6:.1f} M position updates/s "
            f"(values, checks and bounds; {warm['updates'] / warm['positions']:.1f} a position); "
            f"of the solve, tables {warm['table_seconds']:.2f} s, components and sweeps "
            f"{warm['sweep_seconds']:.2f} s",
        )
    )
    n_c, t_c, n_p, t_p = _child(EXPLORE_RATE).split()
    rows.append(
        Row(
            "compiled",
            "Pig 100: positions explored per second",
            f"compiled {int(n_c) / float(t_c):,.0f}/s ({int(n_c):,} positions)",
            f"Python-object {int(n_p) / float(t_p):,.0f}/s ({int(n_p):,})",
            f"{(int(n_c) / float(t_c)) / (int(n_p) / float(t_p)):.1f}x",
        )
    )
    return rows


def ur_rows(quick: bool) -> list[Row]:
    """The rows of the Royal Game of Ur: exploring, solving, the Rust re-solve beside."""
    rows: list[Row] = []
    pieces = 3 if quick else 4
    n_u, t_u = _child(EXPLORE_UR, str(pieces)).split()
    rows.append(
        Row(
            "compiled",
            f"Ur finkel {pieces} pieces: positions explored per second",
            f"compiled {int(n_u) / float(t_u):,.0f}/s ({int(n_u):,} positions)",
        )
    )
    cases = [("finkel", k) for k in ((2, 3) if quick else (2, 3, 4))]
    cases += [("blitz", 2), ("masters", 2)]
    # The whole games, on request (minutes to an hour each): PERFECTPLAY_BENCH_UR=finkel,blitz
    full = {"finkel": 7, "blitz": 5, "masters": 7}
    for rules in filter(None, os.environ.get("PERFECTPLAY_BENCH_UR", "").split(",")):
        if rules not in full:
            raise SystemExit(f"PERFECTPLAY_BENCH_UR: {rules!r} is not one of {sorted(full)}")
        cases.append((rules, full[rules]))
    largest = None
    for rules, pieces in cases:
        got = json.loads(_child(SOLVE_UR, rules, str(pieces)))
        rows.append(
            Row(
                "compiled",
                f"Ur {rules}, {pieces} pieces: {got['positions']:,} positions, "
                f"value {got['value']:.12f} (bound {got['bound']:.0e})",
                f"{got['wall']:.1f} s wall, {got['cpu']:.1f} s CPU, {got['peak_mib']:.0f} MiB",
                RUST[rules],
                "",
                "Finkel 7: <= 30 min, 8 GB" if rules == "finkel" else "",
            )
        )
        if rules == "finkel" and pieces < 7:
            largest = (pieces, got)
    if largest is not None:
        pieces, got = largest
        rows.append(
            Row(
                "compiled",
                f"sweeps on Ur finkel {pieces}",
                f"{got['updates'] / got['sweep_seconds'] / 1e6:.1f} M position updates/s "
                f"(both bounds; {got['updates'] / got['positions']:.1f} per position)",
            )
        )
        scale = FINKEL_POSITIONS / got["positions"]
        rows.append(
            Row(
                "compiled",
                f"Ur finkel 7 pieces, EXTRAPOLATED from {pieces} by positions (x{scale:.0f})",
                f"~{got['wall'] * scale / 60:.0f} min wall, ~{got['cpu'] * scale / 60:.0f} min CPU",
                RUST["finkel"],
                "",
                "<= 30 min, 8 GB",
            )
        )
    return rows
