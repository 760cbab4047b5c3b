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
  batch a worker, and the runner's pick, each in a process of its own. For each: the
  wall time after the engine started, the batches, and the **overhead**, the share of
  the workers' time that no batch used: ``W x wall / work - 1``, where ``wall`` runs
  from the first tier's release to the last tier's finish (the engine's start-up left
  out), ``W`` is the workers and ``work`` the seconds the batches ran on their workers,
  summed (each batch: reading the tier above, computing, writing its slice). It counts
  the engine's cost per batch and per tier, the driver's work between tiers, and workers
  idle while a tier's last batch runs (and, where the runner fuses small tiers into one
  task, the other workers idle while it runs). Target: the runner's pick under 5%; each
  pick row says whether it is; on Dask the pick's runs also time each batch on its
  worker, and a row splits the overhead: workers idle within a tier (waiting for a
  slice that another worker still computes), hand-offs between tiers, the start and the
  end (``_where``). Then the cost of passing from a tier to the next:
  ``EMPTY_TIERS`` tiers of next to no work, a batch a worker (each tier its own hand-off
  between workers), and the same tiers as the runner picks (fused into one task), their
  wall time per tier. The load average is printed before and after (the machine's other
  work slows the engines' messages more than the batches' work). With ``--vs SRC``
  (another checkout's ``src``) every run is paired with the same run on that checkout's
  runner, alternating: before and after a change, in one run, under the same load.
  (The compiled models' layers are one batch each, their sweeps needing the whole
  layer, so no batch size applies to them; small ones are fused like small tiers.)
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
    python benchmarks/bench_tiers.py --vs ../before/src   # the batch rows, before/after
    python benchmarks/bench_tiers.py --pick 6             # the pick's overhead, 6 runs
    python benchmarks/bench_tiers.py --pick 6 --vs ../before/src  # ... before/after
    python benchmarks/bench_tiers.py --pick 6 --maxi      # ... on maxi's first tiers
"""

from __future__ import annotations

import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import ROOT, Row, run_once

# The tier runner measured: this checkout's, or (in the children of ``--vs``) another's,
# also in the processes they start (which import this module again).
sys.path.insert(0, os.environ.get("PERFECTPLAY_BENCH_SRC", str(ROOT / "src")))

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


SHARE = 0.05  # the target: the runner's pick leaves under 5% of the workers' time unused
TINY = 512  # scorecards a batch: far below what the rule allows
MAXI_TIERS = 4  # the full card and three more: 112,940 scorecards
MAXI_PICK_TIERS = 5  # for the pick's overhead: 508,797 scorecards, ~10 s of work
EMPTY_TIERS = 40  # tiers of next to no work: what passing from one tier to the next costs

#: The cuts of American Yahtzee's tiers the batch rows compare.
CUTS = {
    "tiny": f"tiny batches ({TINY} scorecards)",
    "one": "one batch a worker",
    "pick": "the runner's pick",
}


#: The runner's pick on a game: American Yahtzee (1.5 s of work on two cores: the fixed
#: costs of a tier weigh most), or the first :data:`MAXI_PICK_TIERS` tiers of ``maxi`` (a
#: job nearer the size a cluster is for: seconds a tier).
PICKS = {"pick": "American Yahtzee", "maxi-pick": f"maxi's first {MAXI_PICK_TIERS} tiers"}

#: The tiers of no work, cut two ways.
EMPTY = {"empty": "a batch a worker", "empty-pick": "the runner's pick"}


def _cut_in_child(engine: str, case: str, traced: bool = False) -> dict[str, Any]:
    """In a child process (``--cut``): American Yahtzee's tiers on ``engine`` cut as
    ``case`` says, or (``case`` in :data:`EMPTY`) :data:`EMPTY_TIERS` tiers of two
    items, a batch an item or as the runner picks; the runner's wall time after the
    engine started, the batches' own seconds (reading the tier above, computing, writing
    the slice), the batches and a digest of the last tier; ``traced`` (the dask engine):
    also where the workers' time that no batch used went (:func:`_where`)."""
    from perfectplay.tiers import run
    from perfectplay.tiers.synthetic import SyntheticJob
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import rules
    from perfectplay.yahtzee.solver import ScorecardJob, tier_plan

    if case in EMPTY:
        job: Any = SyntheticJob(tiers=EMPTY_TIERS, items=WORKERS)
        plan, batch = job.plan(), 1 if case == "empty" else None
    elif case == "maxi-pick":
        game = ScorecardGame(rules("maxi"))
        plan, job = tier_plan(game).first(MAXI_PICK_TIERS), ScorecardJob(game.rules, game)
        batch = None
    else:
        game = ScorecardGame(rules("american"))
        plan, job = tier_plan(game), ScorecardJob(game.rules, game)
        batch = {"tiny": TINY, "one": lambda items: -(-items // WORKERS), "pick": None}[case]
    seen: list[Any] = []
    starts: list[float] = []  # the runner's clock's start, as each report gives it
    with tempfile.TemporaryDirectory() as work:
        trace = Path(work) / "trace.jsonl"
        if traced:
            _trace_batches(trace)

        def report(d: Any) -> None:
            seen.append(d)
            starts.append(time.perf_counter() - d.seconds)

        store = run(
            plan, job, engine, workdir=work + "/tiers", workers=WORKERS, batch=batch,
            on_tier=report,
        )  # fmt: skip
        digest = hashlib.sha256()
        for t in plan.tiers if case == "maxi-pick" else plan.tiers[-1:]:  # American: tier 0
            digest.update(np.asarray(store.read(t.id)).tobytes())
        last = digest.hexdigest()
        spans = [json.loads(line) for line in trace.read_text().splitlines()] if traced else []
    out = {
        "wall": seen[-1].seconds,
        "work": sum(d.work for d in seen),
        "batches": sum(d.batches for d in seen),
        "last": last,
    }
    if traced:
        reads = {t.id: t.reads for t in plan.tiers}
        out["where"] = _where(spans, reads, min(starts), seen[-1].seconds)
    return out


def _trace_batches(trace: Path) -> None:
    """Have each Dask worker log its batches' start and end to ``trace`` (the dask
    engine's task, :func:`perfectplay.tiers._dask.run_installed`, sent wrapped)."""
    import functools

    from perfectplay.tiers import _dask

    _dask.run_installed = functools.partial(_traced_task, str(trace))


def _traced_task(trace: str, name: str, steps: Any, waits: Any = ()) -> Any:
    """On a worker: the engine's task, each batch timed (the batch's own run,
    :func:`perfectplay.tiers.job.execute`, wrapped once in this worker)."""
    from perfectplay.tiers import _dask

    names = vars(_dask)  # what the task calls by these names, in this worker
    real = names["execute"]
    if not getattr(real, "traced", False):

        def timed(work: Any, tier: int, start: int, stop: int, layout: Any = ()) -> float:
            t0 = time.perf_counter()
            seconds: float = real(work, tier, start, stop, layout)
            span = [os.getpid(), tier, t0, time.perf_counter(), start]
            with open(trace, "a") as fh:  # one short line: written whole
                fh.write(json.dumps(span) + "\n")
            return seconds

        timed.traced = True  # type: ignore[attr-defined]
        names["execute"] = timed
    return _dask.run_installed(name, steps, waits)


def _where(spans: list[Any], reads: dict[int, tuple[int, ...]], t0: float, wall: float) -> Any:
    """Where the workers' time that no batch used went, in worker-seconds, from each
    batch's ``[pid, tier, start, end]``: ``start`` (the release of the first tier to a
    worker's first batch), ``end`` (its last batch's end to the last tier's finish), and
    between two batches of a worker, ``idle`` (waiting for a slice that another worker
    still computed: a tier's uneven end) and ``handoff`` (the rest: from the last slice
    it reads being written to the batch starting).

    >>> spans = [[1, 1, 0.1, 1.0], [2, 1, 0.1, 1.2], [1, 0, 1.25, 2.0], [2, 0, 1.21, 1.9]]
    >>> {k: round(v, 2) for k, v in _where(spans, {1: (), 0: (1,)}, 0.0, 2.0).items()}
    {'start': 0.2, 'idle': 0.2, 'handoff': 0.06, 'end': 0.1}
    """
    written: dict[int, float] = {}
    for _, tier, _, end, *_ in spans:
        written[tier] = max(written.get(tier, end), end)
    out = {"start": 0.0, "idle": 0.0, "handoff": 0.0, "end": 0.0}
    for pid in {s[0] for s in spans}:
        mine = sorted((s[2], s[3], s[1]) for s in spans if s[0] == pid)
        out["start"] += mine[0][0] - t0
        out["end"] += t0 + wall - mine[-1][1]
        for (_, end, _), (start, _, tier) in zip(mine, mine[1:], strict=False):
            ready = max([end] + [written[r] for r in reads[tier]])
            out["idle"] += ready - end
            out["handoff"] += max(0.0, start - ready)
    return out


def _cut(engine: str, case: str, src: Path) -> dict[str, Any]:
    """:func:`_cut_in_child` in a new process, on the tier runner of the checkout whose
    ``src`` is given (this one, or the one ``--vs`` names)."""
    cmd = [sys.executable, __file__, "--cut", engine, case]
    if engine == "dask" and case in PICKS:  # where its overhead goes, batch by batch
        cmd.append("--trace")
    env = {**os.environ, "PERFECTPLAY_BENCH_SRC": str(src)}
    return dict(json.loads(run_once(cmd, env=env)[2]))


def _overhead(r: dict[str, Any]) -> float:
    """The share of the workers' time that no batch used: ``W x wall / work - 1``."""
    return float(r["wall"] * WORKERS / r["work"] - 1)


def _batch_rows(quick: bool, vs: Path | None = None) -> list[Row]:
    """American Yahtzee's tiers cut three ways, and the cost of a tier of no work, on
    each engine; with ``vs`` (another checkout's ``src``), each run beside the same run
    on that checkout's runner, alternating."""
    engines = ["processes"] + (["dask"] if _has_dask() else [])
    trees = [ROOT / "src"] + ([vs] if vs else [])
    for src in trees:  # untimed: each checkout's kernels compiled or loaded once
        _cut("processes", "one", src)
    repeats = 1 if quick else 3
    rows = [_load("before the batch rows")]
    for engine in engines:
        got: dict[tuple[str, Path], list[dict[str, Any]]] = {}
        for _ in range(repeats):  # alternating, so that drift in the load hits all alike
            for case in [*CUTS, *EMPTY]:
                for src in trees:
                    got.setdefault((case, src), []).append(_cut(engine, case, src))
        for src in trees:
            runs = [r for case in CUTS for r in got[(case, src)]]
            if len({r["last"] for r in runs}) != 1:
                rows.append(Row("tiers", f"american on {engine}", f"bytes DIFFER ({src})"))
        for case in [*CUTS, *EMPTY]:
            mine = got[(case, trees[0])]
            theirs = got[(case, trees[-1])] if vs else None
            rows.append(_cut_row(engine, case, mine, theirs))
            if "where" in mine[0]:
                rows.append(_where_row(engine, mine, theirs))
        rows.append(_load(f"after the {engine} rows"))
    return rows


def _load(when: str) -> Row:
    one, five, _ = os.getloadavg()
    return Row("tiers", f"load average {when}", f"{one:.1f} (1 min), {five:.1f} (5 min)")


def _cut_row(
    engine: str, case: str, mine: list[dict[str, Any]], theirs: list[dict[str, Any]] | None
) -> Row:
    def figure(runs: list[dict[str, Any]]) -> str:
        wall = statistics.median(r["wall"] for r in runs)
        if case in EMPTY:
            return f"{wall / EMPTY_TIERS * 1e3:.1f} ms a tier"
        overs = [_overhead(r) * 100 for r in runs]
        text = f"{wall:.2f} s in {runs[0]['batches']:,} batches, overhead "
        text += f"{statistics.median(overs):.1f}% ({min(overs):.1f} to {max(overs):.1f})"
        return text + (f", {_verdict(overs)}" if case == "pick" else "")

    what = f"{EMPTY_TIERS} tiers of no work, {EMPTY[case]}" if case in EMPTY else CUTS[case]
    ratio = ""
    if theirs:
        pairs = zip(mine, theirs, strict=True)
        ratio = f"{statistics.median(a['wall'] / b['wall'] for a, b in pairs):.3f}x"
    return Row(
        "tiers",
        f"{engine}, {what}" if case in EMPTY else f"american on {engine}, {what}",
        figure(mine),
        reference=f"{figure(theirs)} (--vs)" if theirs else "",
        ratio=ratio,
        target="overhead < 5%" if case == "pick" else "",
    )


def _where_row(engine: str, mine: list[dict[str, Any]], theirs: list[dict[str, Any]] | None) -> Row:
    """The runner's pick's overhead split by :func:`_where`: each part's median share of
    the batches' work, in percent."""

    def figure(runs: list[dict[str, Any]]) -> str:
        parts = []
        for part, what in [("idle", "idle within tiers"), ("handoff", "hand-offs"),
                           ("start", "start"), ("end", "end")]:  # fmt: skip
            share = statistics.median(r["where"][part] / r["work"] * 100 for r in runs)
            parts.append(f"{what} {share:.1f}%")
        return ", ".join(parts)

    return Row(
        "tiers",
        f"american on {engine}, the runner's pick: where the overhead went",
        figure(mine),
        reference=f"{figure(theirs)} (--vs)" if theirs and "where" in theirs[0] else "",
    )


def _verdict(overs: list[float]) -> str:
    """Whether the runs' overheads (percent) are under the target: all of them, none,
    or some (the machine's load then hides the answer).

    >>> _verdict([3.0, 4.9]), _verdict([5.0, 9.0]), _verdict([4.0, 6.0])
    ('under 5%', 'not under 5%', 'cannot tell under this load (runs on both sides of 5%)')
    """
    if max(overs) < SHARE * 100:
        return "under 5%"
    if min(overs) >= SHARE * 100:
        return "not under 5%"
    return "cannot tell under this load (runs on both sides of 5%)"


def _pick_runs(runs: int, vs: Path | None = None, case: str = "pick") -> None:
    """The runner's pick on American Yahtzee (``case`` "maxi-pick": on maxi's first
    tiers, :data:`PICKS`), ``runs`` times on ``dask`` and on
    ``processes``, alternated (with ``vs``, each also on that checkout's runner, next
    to it): each run's overhead, wall and work, the split of Dask's (:func:`_where`)
    and the load average, then each engine's median, lowest and highest, and whether
    they are under the target. What the lead runs on a quiet machine."""
    trees = [ROOT / "src"] + ([vs] if vs else [])
    for src in trees:  # untimed: each checkout's kernels compiled or loaded once
        _cut("processes", "one" if case == "pick" else case, src)
    got: dict[tuple[str, Path], list[float]] = {}
    for k in range(runs):
        for engine in ["dask", "processes"] if _has_dask() else ["processes"]:
            for src in trees:
                r = _cut(engine, case, src)
                over = _overhead(r) * 100
                got.setdefault((engine, src), []).append(over)
                split = " ".join(
                    f"{part} {value / r['work'] * 100:.1f}%"
                    for part, value in r.get("where", {}).items()
                )
                tree = f" [{src}]" if vs else ""
                print(
                    f"{k + 1} {engine}{tree}: overhead {over:.1f}%, wall {r['wall']:.3f} s, "
                    f"work {r['work']:.3f} s, {r['batches']} batches"
                    + (f" ({split})" if split else "")
                    + f", load {os.getloadavg()[0]:.2f}",
                    flush=True,
                )
    for (engine, src), overs in got.items():
        tree = f" [{src}]" if vs else ""
        print(
            f"{PICKS[case]}, {engine}{tree}: median {statistics.median(overs):.1f}% "
            f"({min(overs):.1f} to {max(overs):.1f}), {_verdict(overs)}"
        )
    for src in trees:
        if ("dask", src) not in got:
            continue
        # Dask's own: what it costs beyond the pool running the same tiers in the same
        # round (the tiers' serial ends and the cores the driver shares cost both alike).
        own = [d - p for d, p in zip(got[("dask", src)], got[("processes", src)], strict=True)]
        tree = f" [{src}]" if vs else ""
        print(
            f"{PICKS[case]}, Dask's own (dask - processes, paired by round){tree}: median "
            f"{statistics.median(own):.1f} points ({min(own):.1f} to {max(own):.1f}), "
            f"{_verdict(own)}"
        )


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


def main(argv: list[str]) -> None:
    """``--cut ENGINE CASE``: one run of :func:`_cut_in_child` (JSON on stdout);
    ``--pick N [--vs SRC]``: :func:`_pick_runs`; ``--vs SRC [--quick]``: the batch
    rows, each beside the same run on the runner in ``SRC`` (another checkout's
    ``src``: before and after a change, in one run); else every row."""
    if argv[:1] == ["--cut"]:
        print(json.dumps(_cut_in_child(argv[1], argv[2], "--trace" in argv)))
        return
    if argv[:1] == ["--pick"]:
        vs = Path(argv[argv.index("--vs") + 1]).resolve() if "--vs" in argv else None
        _pick_runs(int(argv[1]), vs, "maxi-pick" if "--maxi" in argv else "pick")
        return
    quick = "--quick" in argv
    if argv[:1] == ["--vs"]:
        rows = _batch_rows(quick, Path(argv[1]).resolve())
    else:
        rows = run(quick)
    for row in rows:
        print(row)


if __name__ == "__main__":
    main(sys.argv[1:])
