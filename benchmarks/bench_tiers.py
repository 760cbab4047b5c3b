"""The tier runner (issue 21): each engine's own cost per batch, and American Yahtzee on
every engine beside the solve as it was before the runner.

* **Overhead per batch.** One tier of ``ITEMS`` items of CPU work (``BUSY`` CPU-seconds
  an item, :class:`perfectplay.tiers.synthetic.SyntheticJob`, about a Yahtzee scorecard
  state's cost on these cores) cut into one batch a worker, then into batches of 100 to
  10,000 items, on the ``processes`` and ``dask`` engines with two workers (a
  ``LocalCluster``). What the extra batches add to the wall time, times the workers, per
  extra batch, is the engine's cost per batch (a difference of two runs, so that other
  load on the machine, which slows work and overhead alike, cancels as far as it can).
  The start-up (the pool, the cluster) is timed apart. Then the runner's own choice
  (``batch_bounds``) on a plan of four such tiers against one batch a worker (target: under
  5%).
* **Batch sizes on American Yahtzee.** The tiers of American Yahtzee on the ``processes``
  and ``dask`` engines (two workers) cut three ways: tiny batches (512 scorecards), one
  batch a worker, and the runner's pick. For each: the wall time after the engine started,
  the batches, and the overhead: the wall time beyond the batches' own work spread evenly
  over the workers (``wall / (work / workers) - 1``: the engine's cost per batch, the
  driver's merging, and workers idle at the end of a tier). Target: the runner's pick
  under 5% more than one batch a worker. (The compiled models' layers are one batch each,
  their sweeps needing the whole layer, so no batch size applies to them.)
* **The first tiers of ``maxi`` on every engine.** The full solve takes 46 minutes on
  two cores; its first ``MAXI_TIERS`` tiers (``solve_all(..., tiers=)``) on ``threads``,
  ``processes`` and ``dask``: their times and whether the bytes are equal.
* **American Yahtzee on each engine.** ``solve_all`` on ``threads`` (no work directory,
  the default), ``threads`` with a work directory, ``processes`` and ``dask``, each
  beside the loop that ``solve_all`` ran before the runner (one ``solve_states`` call a
  tier, the same kernels), alternating, in one process; the ratio to that loop (target
  for the default: at most 1.10) and whether the bytes are equal.

    python benchmarks/run.py tiers            # every row
    python benchmarks/run.py tiers --quick    # once each, no maxi
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from typing import Any

import numpy as np
from common import ROOT, Row

sys.path.insert(0, str(ROOT / "src"))

ITEMS = 100_000
BUSY = 1e-5  # seconds of CPU an item: about a Yahtzee scorecard state's on these cores
WORKERS = 2


def _tier_wall(engine: str, batch: int, items: int, tiers: int = 1) -> tuple[float, int]:
    """Wall seconds of the tiers after the engine started, and the batches run."""
    from perfectplay.tiers import run
    from perfectplay.tiers.synthetic import SyntheticJob

    job = SyntheticJob(tiers=tiers, items=items, busy=BUSY)
    seen: list[tuple[float, int]] = []
    with tempfile.TemporaryDirectory() as work:
        run(
            job.plan(),
            job,
            engine,
            workdir=None if engine == "threads" else work,
            workers=WORKERS,
            batch=batch or None,
            on_tier=lambda d: seen.append((d.seconds, d.batches)),
        )
    return seen[-1][0], sum(b for _, b in seen)


def _start_up(engine: str) -> float:
    from perfectplay.tiers import run
    from perfectplay.tiers.synthetic import SyntheticJob

    job = SyntheticJob(tiers=1, items=1)
    with tempfile.TemporaryDirectory() as work:
        t0 = time.perf_counter()
        run(job.plan(), job, engine, workdir=work, workers=WORKERS)
        return time.perf_counter() - t0


def _overhead_rows(quick: bool) -> list[Row]:
    rows = []
    engines = ["processes"]
    if _has_dask():
        engines.append("dask")
    else:
        rows.append(Row("tiers", "dask", "not installed (pip install 'perfectplay[dask]')"))
    inproc, _ = _tier_wall("threads", 0, ITEMS)
    rows.append(
        Row("tiers", f"threads, 1 batch of {ITEMS:,} items", f"{inproc:.3f} s for "
            f"{ITEMS * BUSY:.2f} CPU-s of work")
    )  # fmt: skip
    sizes = [100, 1_000, 10_000]
    if quick:
        sizes = [100, 1_000]
    large = ITEMS // WORKERS
    repeats = 1 if quick else 3
    for engine in engines:
        rows.append(Row("tiers", f"{engine}, start-up", f"{_start_up(engine):.2f} s"))
        # The baseline: one batch a worker. A batch's cost is what more batches add to
        # it, per batch and worker (the machine's load slows work and overhead alike).
        base = statistics.median(_tier_wall(engine, large, ITEMS)[0] for _ in range(repeats))
        rows.append(Row("tiers", f"{engine}, {WORKERS} batches of {large:,}", f"{base:.3f} s"))
        for size in sizes:
            walls = [_tier_wall(engine, size, ITEMS) for _ in range(repeats)]
            wall = statistics.median(w for w, _ in walls)
            batches = walls[0][1]
            per_batch = max(0.0, wall - base) * WORKERS / (batches - WORKERS)
            share = per_batch / (size * BUSY)
            rows.append(
                Row(
                    "tiers",
                    f"{engine}, {batches:,} batches of {size:,}",
                    f"{wall:.3f} s: {per_batch * 1e3:.2f} ms a batch, {share * 100:.0f}% of "
                    "its work",
                )
            )
        tiers = 4
        wall, batches = _tier_wall(engine, 0, ITEMS, tiers)
        share = wall / (tiers * base) - 1
        rows.append(
            Row(
                "tiers",
                f"{engine}, the runner's batches, {tiers} tiers",
                f"{wall:.3f} s in {batches} batches: {share * 100:+.1f}% against one batch "
                "a worker",
                target="< 5% after the first tier",
            )
        )
    return rows


def _before(game):  # the loop solve_all ran before the tier runner
    import numpy as np

    from perfectplay.yahtzee.kernels import solve_states

    values = np.full(game.n_states, np.nan)
    values[game.tier_states(game.n_categories)] = 0.0
    for filled in range(game.n_categories - 1, -1, -1):
        solve_states(values, game.tier_states(filled), game.arrays, game.lattice.arrays)
    return values


def _yahtzee_rows(quick: bool) -> list[Row]:
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import rules
    from perfectplay.yahtzee.solver import solve_all

    game = ScorecardGame(rules("american"))
    expected = _before(game).tobytes()  # compiles or loads the kernels
    solve_all(game)
    rows = []
    cases = [("threads", False), ("threads", True), ("processes", True)]
    if _has_dask():
        cases.append(("dask", True))
    repeats = 3 if quick else 7
    for engine, with_dir in cases:
        ours, base, same = [], [], True
        for _ in range(repeats if engine == "threads" else max(1, repeats // 3)):
            t0 = time.perf_counter()
            _before(game)
            base.append(time.perf_counter() - t0)
            with tempfile.TemporaryDirectory() as work:
                t0 = time.perf_counter()
                got = solve_all(game, engine, workdir=work if with_dir else None, workers=2)
                ours.append(time.perf_counter() - t0)
            same = same and got.tobytes() == expected
        ratio = statistics.median(o / b for o, b in zip(ours, base, strict=True))
        what = f"{engine}{', work directory' if with_dir else ''}"
        rows.append(
            Row(
                "tiers",
                f"american via {what}",
                f"{statistics.median(ours):.3f} s (bytes {'equal' if same else 'DIFFER'})",
                reference=f"{statistics.median(base):.3f} s before the runner",
                ratio=f"{ratio:.2f}x",
                target="<= 1.10x" if (engine, with_dir) == ("threads", False) else "",
            )
        )
    return rows


TINY = 512  # scorecards a batch: far below what the rule allows
MAXI_TIERS = 4  # the full card and three more: 112,940 scorecards


def _american_cut(engine: str, batch: Any) -> tuple[float, float, int, bytes]:
    """American Yahtzee's tiers on ``engine`` cut by ``batch`` (as ``run`` takes it):
    the wall time after the engine started, the batches' own seconds, the batches and
    the bytes of the last tier."""
    from perfectplay.tiers import run
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import rules
    from perfectplay.yahtzee.solver import ScorecardJob, tier_plan

    game = ScorecardGame(rules("american"))
    seen = []
    with tempfile.TemporaryDirectory() as work:
        store = run(
            tier_plan(game),
            ScorecardJob(game.rules, game),
            engine,
            workdir=work,
            workers=WORKERS,
            batch=batch,
            on_tier=seen.append,
        )
        last = store.read(0).tobytes()
    return seen[-1].seconds, sum(d.work for d in seen), sum(d.batches for d in seen), last


def _batch_rows(quick: bool) -> list[Row]:
    engines = ["processes"] + (["dask"] if _has_dask() else [])
    cases = {
        f"tiny batches ({TINY} scorecards)": TINY,
        "one batch a worker": lambda items: -(-items // WORKERS),
        "the runner's pick": None,
    }
    repeats = 1 if quick else 3
    rows = []
    for engine in engines:
        got: dict[str, list[tuple[float, float, int, bytes]]] = {c: [] for c in cases}
        for _ in range(repeats):  # alternating, so that drift in the load hits all alike
            for case, batch in cases.items():
                got[case].append(_american_cut(engine, batch))
        base = statistics.median(w for w, _, _, _ in got["one batch a worker"])
        same = len({r[3] for runs in got.values() for r in runs}) == 1
        for case, runs in got.items():
            wall = statistics.median(w for w, _, _, _ in runs)
            over = statistics.median(w / (work / WORKERS) - 1 for w, work, _, _ in runs)
            rows.append(
                Row(
                    "tiers",
                    f"american on {engine}, {case}",
                    f"{wall:.2f} s in {runs[0][2]:,} batches, overhead {over * 100:.1f}%"
                    f"{'' if same else ' (bytes DIFFER)'}",
                    reference=f"{base:.2f} s one batch a worker",
                    ratio=f"{wall / base:.3f}x",
                    target="< 1.05x" if cases[case] is None else "",
                )
            )
    return rows


def _maxi_rows() -> list[Row]:
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import rules
    from perfectplay.yahtzee.solver import solve_all, tier_plan

    game = ScorecardGame(rules("maxi"))
    plan = tier_plan(game).first(MAXI_TIERS)
    states = np.concatenate([game.tier_states(t.id) for t in plan.tiers])
    rows, first = [], None
    for engine in ["threads", "processes"] + (["dask"] if _has_dask() else []):
        with tempfile.TemporaryDirectory() as work:
            t0 = time.perf_counter()
            values = solve_all(
                game,
                engine,
                workdir=None if engine == "threads" else work,
                workers=WORKERS,
                tiers=MAXI_TIERS,
            )
            wall = time.perf_counter() - t0
        got = values[states].tobytes()
        first = first or got
        rows.append(
            Row(
                "tiers",
                f"maxi, tiers {plan.tiers[0].id} to {plan.tiers[-1].id}, {engine}",
                f"{wall:.1f} s for {len(states):,} scorecards, start-up included "
                f"(bytes {'equal to threads' if got == first else 'DIFFER'})",
                target="bytes equal",
            )
        )
    return rows


def _has_dask() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


def run(quick: bool) -> list[Row]:
    rows = _yahtzee_rows(quick) + _overhead_rows(quick) + _batch_rows(quick)
    return rows if quick else rows + _maxi_rows()


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(row)
