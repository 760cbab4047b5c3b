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
  (``batch_size``) on a plan of four such tiers against one batch a worker (target: under
  5%).
* **American Yahtzee on each engine.** ``solve_all`` on ``threads`` (no work directory,
  the default), ``threads`` with a work directory, ``processes`` and ``dask``, each
  beside the loop that ``solve_all`` ran before the runner (one ``solve_states`` call a
  tier, the same kernels), alternating, in one process; the ratio to that loop (target
  for the default: at most 1.10) and whether the bytes are equal.

    python benchmarks/run.py tiers
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time

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
    try:
        import distributed  # noqa: F401

        engines.append("dask")
    except ImportError:
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
    try:
        import distributed  # noqa: F401

        cases.append(("dask", True))
    except ImportError:
        pass
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


def run(quick: bool) -> list[Row]:
    return _yahtzee_rows(quick) + _overhead_rows(quick)


if __name__ == "__main__":
    for row in run("--quick" in sys.argv):
        print(row)
