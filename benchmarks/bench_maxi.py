"""Maxi Yatzy (issue 21): ``maxi`` solved whole, ``maxi-saved`` measured on its first tiers.

* ``maxi`` (6 dice, 20 boxes, 57.5 million reachable scorecards): the full solve
  (``perfectplay.yahtzee.solve("maxi")``) in a child process, its kernels compiled or
  loaded first on a small card: the solve's wall time, the whole process's, its peak
  resident memory and the optimal expected final score. The
  issue's figure: 84 s and 1.8 GB on a 16-core machine (Maxi Yatzy as a user's rule set).
* ``maxi-saved`` (saved throws: up to 41 counts per card, 1.2 billion reachable states):
  too big for this machine's memory as one table, so a child process solves the first
  (most filled) tiers into a sparse memory-mapped file, timing each tier, and the cost of
  the others is extrapolated. A tier's work is its cards times the length of their reroll
  chain (``rolls + most throws carried``: one chain gives every count a card holds, see
  ``perfectplay.yahtzee.kernels``), so the measured seconds per card-step of the last
  tiers run price every tier. Memory: the table (8 bytes per state number, dense as the
  solver numbers states) or, for a tier runner that keeps finished tiers on disk, the
  tier being solved and the one it reads; disk: every reachable state's value.

    python benchmarks/run.py maxi            # maxi-saved tiers until 60 s of solving
    python benchmarks/run.py maxi --quick    # maxi-saved only, until 20 s
"""

from __future__ import annotations

import json
import os
import sys

import common
from common import Row

OURS = """\
import json, sys, time
from dataclasses import replace
t0 = time.perf_counter()
from perfectplay.yahtzee import rules, solve
# compile (or load) the kernels on a small card of the same rules first: the same types
solve(replace(rules("maxi"), categories=rules("maxi").categories[:2], dice=2))
t1 = time.perf_counter()
sol = solve("maxi")
t2 = time.perf_counter()
print(json.dumps({"solve": t2 - t1, "value": sol.value()}))
"""

SAVED = """\
import json, mmap, sys, tempfile, time
from dataclasses import replace
import numpy as np
from perfectplay.yahtzee import rules
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.solver import solve_all, solve_batch, tier_batches

budget = float(sys.argv[1])
game = ScorecardGame(rules("maxi-saved"))
# compile (or load) the kernels on a small card of the same rules first: the same types
warm = ScorecardGame(replace(game.rules, categories=game.rules.categories[:2], dice=2))
solve_all(warm)
with tempfile.TemporaryFile() as fh:   # sparse: only the pages the tiers touch use disk
    fh.truncate(8 * game.n_states)
    V = np.frombuffer(mmap.mmap(fh.fileno(), 8 * game.n_states), dtype=np.float64)
    full = game.tier_states(game.n_categories)
    V[full] = 0.0
    rows = []
    spent = 0.0
    work = lambda t: len(game.tier_cards(t)) * (game.rules.rolls + game.max_saved(t))
    for t in range(game.n_categories - 1, -1, -1):
        t0 = time.perf_counter()
        for batch in tier_batches(game, t):
            solve_batch(game, V, batch)
        dt = time.perf_counter() - t0
        spent += dt
        rows.append([t, len(game.tier_cards(t)), game.tier_size(t), dt])
        # stop before a tier that would take the solve past the budget
        if t == 0 or spent + dt / work(t) * work(t - 1) > budget:
            break
    print(json.dumps({"tiers": rows, "sample": float(V[game.tier_states(t)[0]])}))
"""


def _maxi_row() -> Row:
    wall, peak, out = common.run_once([sys.executable, "-c", OURS])
    res = json.loads(out)
    return Row(
        "maxi",
        "maxi full solve (6 dice, 20 boxes, 57,507,840 scorecards)",
        f"{res['solve']:.1f} s, peak {peak:.0f} MiB; value {res['value']:.7f}",
        "issue: 84 s, 1.8 GB (16 cores)",
        "",
        "report",
        process=f"{wall:.1f} s",
    )


def _saved_rows(budget: float) -> list[Row]:
    from perfectplay.yahtzee import rules
    from perfectplay.yahtzee.game import ScorecardGame

    wall, peak, out = common.run_once([sys.executable, "-c", SAVED, str(budget)])
    res = json.loads(out)
    game = ScorecardGame(rules("maxi-saved"))
    first = game.rules.rolls

    def steps(t: int) -> int:  # the chain's length: first throw, rerolls up to the most carried
        return first + game.max_saved(t)

    rows = []
    measured = 0.0
    work = 0
    for t, cards, states, dt in res["tiers"]:
        rows.append(
            Row(
                "maxi",
                f"maxi-saved tier {t} ({cards:,} cards, {states:,} states)",
                f"{dt:.2f} s ({dt / states * 1e6:.2f} us/state)",
                "",
                "",
                "measured",
            )
        )
        measured += dt
        work += cards * steps(t)
    # price per card-step from the measured tiers with real work (the last ones weigh most)
    per_step = measured / max(work, 1)
    total_s = sum(len(game.tier_cards(t)) * steps(t) * per_step for t in range(game.n_categories))
    sizes = [game.tier_size(t) for t in range(game.n_categories + 1)]
    pair = max(sizes[t] + sizes[t + 1] for t in range(game.n_categories))
    cores = os.cpu_count() or 1
    rows.append(
        Row(
            "maxi",
            "maxi-saved whole card, extrapolated",
            f"{total_s / 3600:.1f} h on {cores} cores ({per_step * 1e6:.1f} us per card-step); "
            f"{game.n_reachable:,} states: table {8 * game.n_states / 2**30:.1f} GiB dense "
            f"({game.n_saved_values} counts x {game.n_cards:,} cards), "
            f"disk {8 * game.n_reachable / 2**30:.1f} GiB reachable; "
            f"two tiers in memory {8 * pair / 2**30:.1f} GiB",
            "",
            "",
            "report",
            process=f"{wall:.1f} s (tiers {res['tiers'][0][0]}..{res['tiers'][-1][0]}), "
            f"{peak:.0f} MiB",
        )
    )
    return rows


def run(quick: bool) -> list[Row]:
    rows = [] if quick else [_maxi_row()]
    return rows + _saved_rows(20.0 if quick else 60.0)
