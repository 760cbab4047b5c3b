"""The explorers: states per second through Python callbacks, and the explore/solve split.

Each case explores a model from :mod:`perfectplay.examples` in this process (median of a
few runs, after one warm-up run that also loads the compiled kernels) with the explorer of
its kind (one player with dice, two players, two players with dice), then solves the
graph; the table shows both phases separately, the explorer's rate in nodes (states +
rolls, positions, or positions + moves) and edges per second, and the wall time of the
whole CLI run
(``python -m perfectplay solve ... -q``), which adds interpreter start-up and, for chance
models, loading numba's cached kernels. There is no reference program for a model
explorer, so the reference column stays empty.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import Any

from common import PERFECTPLAY, Row, time_command

CASES = [
    # (label, spec, params, quick)
    ("five dice, all same (5d6)", "perfectplay.examples.five_dice:FiveDice", {}, True),
    ("eight dice, all same (8d6)", "perfectplay.examples.five_dice:FiveDice", {"dice": 8}, False),
    ("Chutes and Ladders", "perfectplay.examples.chutes_ladders:ChutesAndLadders", {}, True),
    ("Threes, 5 dice (min score)", "perfectplay.examples.threes:Threes", {}, True),
    (
        "one Yahtzee turn (max probability)",
        "perfectplay.examples.yahtzee_turn:YahtzeeTurn",
        {},
        True,
    ),  # fmt: skip
    ("tic-tac-toe", "perfectplay.examples.tictactoe:TicTacToe", {}, True),
    ("tic-tac-toe, symmetry", "perfectplay.examples.tictactoe:TicTacToe", {"symmetry": True}, True),
    ("Dodgem 3x3", "perfectplay.examples.dodgem:Dodgem", {"n": 3}, True),
    ("Dodgem 4x4 (loopy, draw)", "perfectplay.examples.dodgem:Dodgem", {"n": 4}, False),
    ("Pig to 30 (two players, dice)", "perfectplay.examples.pig:Pig", {"goal": 30}, True),
]


def _explorer(kind: str) -> tuple[Callable[..., Any], Callable[[Any], object]]:
    """The explorer of a kind of model and the solve of its graph."""
    from perfectplay.models import explore

    if kind == "chance":
        from perfectplay.models.chance import solve_chance_graph

        return explore.explore_chance, lambda g: solve_chance_graph(g, False)
    if kind == "stochastic":
        from perfectplay.solvers.stochastic import solve_stochastic

        return explore.explore_stochastic, solve_stochastic
    from perfectplay.solvers.retrograde import solve_retrograde

    return explore.explore_game, solve_retrograde


def _measure(spec: str, params: dict, repeats: int) -> tuple[float, float, Any]:
    from perfectplay.cli.solve import load_model
    from perfectplay.models.base import model_kind

    model = load_model(spec, params)
    explore, solve = _explorer(model_kind(model))
    explores, solves = [], []
    for _ in range(repeats + 1):  # the first run warms caches and compiled kernels
        t0 = time.perf_counter()
        ex = explore(model, progress=False)
        t1 = time.perf_counter()
        solve(ex.graph)
        t2 = time.perf_counter()
        explores.append(t1 - t0)
        solves.append(t2 - t1)
    return statistics.median(explores[1:]), statistics.median(solves[1:]), ex


def run(quick: bool) -> list[Row]:
    rows = []
    repeats = 2 if quick else 5
    for label, spec, params, in_quick in CASES:
        if quick and not in_quick:
            continue
        t_explore, t_solve, ex = _measure(spec, params, 1 if not in_quick else repeats)
        g = ex.graph
        if hasattr(g, "n_decision"):
            nodes, edges = g.n_decision + g.n_chance, g.n_edges
            size = f"{g.n_decision:,} states + {g.n_chance:,} rolls, {edges:,} edges"
        elif hasattr(g, "n_outcomes"):
            nodes, edges = g.n_positions + g.n_chance, g.n_outcomes
            size = f"{g.n_positions:,} positions + {g.n_chance:,} moves, {edges:,} outcomes"
        else:
            nodes, edges = g.n_positions, g.n_moves
            size = f"{nodes:,} positions, {edges:,} moves"
        cmd = [*PERFECTPLAY, "solve", spec, "-q"]
        for k, v in params.items():
            cmd += ["-p", f"{k}={v!r}"]
        cli = time_command(cmd, repeats=1 if not in_quick else repeats)
        rows.append(
            Row(
                "explore",
                f"{label}: {size}",
                f"explore {t_explore:.3f} s ({nodes / t_explore:,.0f} nodes/s, "
                f"{edges / t_explore:,.0f} edges/s); solve {t_solve:.4f} s; CLI {cli.median:.2f} s",
                "",
                "",
                "solve in compiled kernels; explore = Python callbacks",
            )
        )
    return rows


if __name__ == "__main__":
    for row in run(quick=True):
        print(row)
