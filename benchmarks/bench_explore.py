"""The explorer: states per second through Python callbacks, and the explore/solve split.

Each case explores a model from :mod:`perfectplay.examples` in this process (median of a
few runs, after one warm-up run that also loads the compiled kernels), then solves the
graph; the table shows both phases separately, the explorer's rate in nodes (states +
rolls, or positions) and edges per second, and the wall time of the whole CLI run
(``python -m perfectplay solve ... -q``), which adds interpreter start-up and, for chance
models, loading numba's cached kernels. There is no reference program for a model
explorer, so the reference column stays empty.
"""

from __future__ import annotations

import statistics
import time

from common import PERFECTPLAY, Row, time_command

CASES = [
    # (label, spec, params, quick)
    ("five dice, all same (5d6)", "perfectplay.examples.five_dice:FiveDice", {}, True),
    ("eight dice, all same (8d6)", "perfectplay.examples.five_dice:FiveDice", {"dice": 8}, False),
    ("Chutes and Ladders", "perfectplay.examples.chutes_ladders:ChutesAndLadders", {}, True),
    ("Threes, 5 dice (min score)", "perfectplay.examples.threes:Threes", {}, True),
    ("one Yahtzee turn (max probability)", "perfectplay.examples.yahtzee_turn:YahtzeeTurn", {},
     True),  # fmt: skip
    ("tic-tac-toe", "perfectplay.examples.tictactoe:TicTacToe", {}, True),
    ("tic-tac-toe, symmetry", "perfectplay.examples.tictactoe:TicTacToe", {"symmetry": True}, True),
    ("Dodgem 3x3", "perfectplay.examples.dodgem:Dodgem", {"n": 3}, True),
    ("Dodgem 4x4 (loopy, draw)", "perfectplay.examples.dodgem:Dodgem", {"n": 4}, False),
]


def _measure(spec: str, params: dict, repeats: int) -> tuple[float, float, object]:
    from perfectplay.cli.solve import load_model
    from perfectplay.models.base import model_kind
    from perfectplay.models.explore import explore_chance, explore_game

    model = load_model(spec, params)
    chance = model_kind(model) == "chance"
    explores, solves = [], []
    for _ in range(repeats + 1):  # the first run warms caches and compiled kernels
        t0 = time.perf_counter()
        if chance:
            from perfectplay.models.chance import solve_chance_graph

            ex = explore_chance(model, progress=False)
            t1 = time.perf_counter()
            solve_chance_graph(ex.graph, False)
        else:
            from perfectplay.solvers.retrograde import solve_retrograde

            ex = explore_game(model, progress=False)
            t1 = time.perf_counter()
            solve_retrograde(ex.graph)
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
        if hasattr(g, "n_chance"):
            nodes, edges = g.n_decision + g.n_chance, g.n_edges
            size = f"{g.n_decision:,} states + {g.n_chance:,} rolls, {edges:,} edges"
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
