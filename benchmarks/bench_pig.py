"""Pig, two players with dice (issue 12): the shipped example through ``perfectplay solve``.

* Pig goal 100, both optimal, exploring included: wall time and peak memory of the
  command (target at most 5 s and 1 GB); the value must be 0.5305927252737 (Neller and
  Presser 2004).
* The explorer's states per second on Pig 100 (in a child process, model callbacks
  included) and the solver's time alone.
* Hold at 20 against itself (published 0.5347) and the optimal player against it.
* ``--exact`` on Pig goals 50 and 100 (100 not with ``--quick``): time and memory.
* Reference: OpenSpiel's value iteration (``open_spiel.python.algorithms.value_iteration``
  on its ``pig`` game) on goals 30 and 50, installed by this module into a virtual
  environment under the benchmark cache (never a dependency of the project); "reference
  unavailable" when it does not install. The issue's figures: goal 50 takes 118 s, goal
  100 does not finish in 600 s (4.5 GB).

    python benchmarks/run.py pig
"""

from __future__ import annotations

import re
import subprocess
import time

import common
from common import Row

SOLVE = common.PERFECTPLAY + ["solve", "perfectplay.examples.pig:Pig"]
PIG_100 = 0.5305927252737
# --exact before the integer elimination of the pair's chain (round 3): rational Gaussian
# elimination per component in Fractions.
EXACT_BEFORE = {
    50: "before: 9.4 s CPU, 212 MiB",
    100: "before: not done in 1,500 s (1.2 GiB when stopped)",
}
OPENSPIEL_TIMEOUT = 600

STATES_PER_SECOND = """\
import time
from perfectplay.examples.pig import Pig
from perfectplay.models.stochastic import explore_stochastic
from perfectplay.solvers.stochastic import solve_stochastic
t0 = time.perf_counter()
ex = explore_stochastic(Pig())
t1 = time.perf_counter()
solve_stochastic(ex.graph)
t2 = time.perf_counter()
solve_stochastic(ex.graph)
t3 = time.perf_counter()
print(ex.graph.n_positions, t1 - t0, t2 - t1, t3 - t2)
"""

OPENSPIEL = """\
import sys, time, types
# value_iteration imports the LP solver of simultaneous-move games, which needs cvxpy;
# Pig is sequential and never reaches it, so an empty module stands in.
sys.modules.setdefault("cvxpy", types.SimpleNamespace(ECOS="ECOS"))
import pyspiel
from open_spiel.python.algorithms import value_iteration
import threading
goal = int(sys.argv[1])
game = pyspiel.load_game("pig", {"players": 2, "winscore": goal, "diceoutcomes": 6})
# get_all_states recurses once per move of the longest play: a deep stack is needed.
sys.setrecursionlimit(1_000_000)
threading.stack_size(1 << 29)
def main():
    t0 = time.perf_counter()
    values = value_iteration.value_iteration(game, depth_limit=-1, threshold=1e-10)
    start = str(game.new_initial_state())
    print(values[start], time.perf_counter() - t0)
worker = threading.Thread(target=main)
worker.start()
worker.join()
"""


def _value(out: bytes) -> float | None:
    m = re.search(rb"start value: ([0-9.]+)", out)
    return float(m.group(1)) if m else None


def _openspiel_python() -> str | None:
    return common.reference_python("open-spiel", "pyspiel")


def run(quick: bool) -> list[Row]:
    rows = []
    repeats = 2 if quick else 5
    t = common.time_command(SOLVE, repeats=repeats)
    value = _value(t.outputs[-1])
    ok = value is not None and abs(value - PIG_100) < 1e-9
    rows.append(
        Row(
            "pig",
            "solve Pig goal 100 (explore + solve, CLI)",
            f"{t} {t.peak_mib:.0f} MiB; value {value} {'ok' if ok else 'WRONG'}",
            "issue 12: 174 s before",
            "",
            "<= 5 s, 1 GB",
        )
    )
    whole = common.python_child(["-c", STATES_PER_SECOND], repeats=1 if quick else 3)
    out = whole.outputs[-1].decode().split()
    n, explore, first, warm = int(out[0]), *map(float, out[1:])
    process = f"{whole} (explore, 2 solves)"
    rows.append(
        Row(
            "pig",
            "explorer states/s, Pig 100 (Python callbacks)",
            f"{n / explore:,.0f} states/s ({n:,} positions in {explore:.2f} s)",
            "issue 12: 60-90k/s",
            process=process,
        )
    )
    rows.append(
        Row(
            "pig",
            "solver alone, Pig 100",
            f"{first:.2f} s first call, {warm:.2f} s warm",
            process=process,
        )
    )
    for case, flags, published in (
        ("hold-at-20 vs hold-at-20", ["--strategy"], "published 0.5347"),
        ("optimal vs hold-at-20 (second)", ["--second"], ""),
    ):
        t = common.time_command(
            SOLVE + flags + ["perfectplay.examples.pig:hold_at_20"], repeats=1 if quick else 3
        )
        rows.append(
            Row("pig", case, f"{t} {t.peak_mib:.0f} MiB; value {_value(t.outputs[-1])}", published)
        )
    for goal, before in EXACT_BEFORE.items():
        if quick and goal > 50:
            continue
        t = common.time_command(SOLVE + ["-p", f"goal={goal}", "--exact"], repeats=1)
        out = t.outputs[-1]
        exact = re.search(rb"exact: (\S+)", out)
        digits = len(exact.group(1)) if exact else 0
        ok = b"(verified optimal)" in out
        rows.append(
            Row(
                "pig",
                f"--exact, Pig goal {goal}",
                f"{t} {t.peak_mib:.0f} MiB; p/q of {digits:,} characters"
                + ("" if ok else "; NOT VERIFIED"),
                before,
            )
        )
    python = _openspiel_python()
    for goal in (30, 50):
        ours = common.time_command(SOLVE + ["-p", f"goal={goal}"], repeats=repeats)
        ref = "reference unavailable"
        ratio = ""
        if python is not None:
            t0 = time.perf_counter()
            try:
                done = subprocess.run(
                    [python, "-c", OPENSPIEL, str(goal)],
                    capture_output=True,
                    timeout=OPENSPIEL_TIMEOUT,
                )
                wall = time.perf_counter() - t0
                if done.returncode == 0:
                    ref = f"OpenSpiel value iteration {wall:.1f} s"
                    ratio = common.fmt_ratio(ours.median / wall)
                else:
                    ref = "reference failed"
            except subprocess.TimeoutExpired:
                ref = f"OpenSpiel value iteration: not done in {OPENSPIEL_TIMEOUT} s"
        rows.append(
            Row("pig", f"solve Pig goal {goal}", f"{ours} {ours.peak_mib:.0f} MiB", ref, ratio)
        )
    return rows
