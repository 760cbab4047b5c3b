"""Run a plan: release each tier when the tiers it reads are finished, in batches.

The driver keeps Kahn's count of unfinished tiers each tier reads; a tier whose count
reaches zero is released: cut into batches (:func:`batch_bounds`), minus the slices
already on disk (a resumed solve), and sent to the engine by ids, with the ranges of the
slices that make up each tier it reads. When its last batch is done the tier is
finished: the driver reports it and releases the tiers that waited on it. Nothing is
merged between two tiers (a tier is its slices, :mod:`.store`), and on Dask a tier's
batches are sent before the tier they read is finished, to start on the workers as soon
as it is (:class:`_Run`). A tier whose work is too small to be worth a hand-off between
workers (the engine's :attr:`~perfectplay.tiers.engines.Engine.handoff`) is *fused*:
it runs whole, on one worker, in one task with the small tiers that follow it (a chain;
each tier is still written as its own slice, so resuming and the bytes are unchanged).
A task whose worker died is sent again (the pool engine; Dask's scheduler does this
itself); any other error stops the solve, and what is on disk stays whole for the next
run.

>>> from perfectplay.tiers.synthetic import SyntheticJob
>>> job = SyntheticJob(tiers=4, items=6)
>>> seen = []
>>> store = run(job.plan(), job, on_tier=lambda d: seen.append((d.tier, d.batches)))
>>> seen
[(3, 1), (2, 1), (1, 1), (0, 1)]
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfectplay._util.memory import format_bytes
from perfectplay._util.progress import notice
from perfectplay.errors import PerfectplayError
from perfectplay.tiers.engines import Engine, make_engine
from perfectplay.tiers.job import Job, Step
from perfectplay.tiers.plan import Plan
from perfectplay.tiers.store import Ranges, Store, gaps

__all__ = ["CHAIN_EDGES", "SHARE", "TierDone", "batch_bounds", "batch_count", "run"]

#: The share of a batch's work the engine's own cost per batch may take.
SHARE = 0.05

#: The most dependencies (a tier's batches times the batches of the tiers it reads
#: still running) with which a tier is sent early to an engine that chains batches:
#: the runner's own cuts on 16 workers (64 by 64). Every batch of a tier waits for
#: every batch of the tier it reads, and the engine pays for each such edge (on Dask,
#: a wait on a slice's event; when they were Dask dependencies, a tier of hundreds of
#: tiny batches chained that way ran twice as slowly as sent when the tier above
#: finished).
CHAIN_EDGES = 4096

#: A task: batches ``(tier, start, stop)`` that run in turn on one worker (one batch,
#: or a chain of fused tiers, each whole).
Task = tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class TierDone:
    """A tier just finished: what it held and what is left (for progress reports)."""

    tier: int
    finished: int  # tiers finished, this one included
    tiers: int
    items: int
    batches: int  # batches run now (0: every slice was on disk)
    nbytes: int  # its disk
    seconds: float  # wall time since the solve started
    left_seconds: float | None  # the estimate for the rest (None before any measure)
    left_bytes: int
    work: float = 0.0  # the seconds its batches ran on their workers, all together


def batch_count(items: int, workers: int, per_item: float | None, overhead: float) -> int:
    """How many batches a tier of ``items`` is cut into on ``workers``.

    One batch when there is one worker. Otherwise a multiple of ``workers`` (equal
    batches then end together): four batches a worker, so that uneven batches even out,
    but fewer where a batch's work would be under ``overhead / SHARE`` (the engine's cost
    per batch, ``overhead`` seconds, would then pass :data:`SHARE` of it: ``per_item``
    seconds an item, measured on finished tiers), and never fewer than one a worker (a
    tier too small for that rule still finishes sooner spread). Before anything is
    measured (``per_item`` ``None``): one batch a worker, the fewest batches that keep
    every worker busy, so the first tier costs the engine as little as it can.

    >>> batch_count(1000, 1, None, 0.0)
    1
    >>> batch_count(1000, 2, None, 0.05)         # nothing measured yet: one a worker
    2
    >>> batch_count(10**5, 2, 1e-3, 0.05)        # 100 s of work: four a worker
    8
    >>> batch_count(10**5, 2, 4e-5, 0.05)        # 4 s: 4 batches of 1 s (5% is 50 ms)
    4
    >>> batch_count(10**5, 2, 1e-6, 0.05)        # 0.1 s: one a worker, the least
    2
    """
    if workers <= 1 or items <= 1:
        return 1
    if per_item is None or per_item <= 0.0:
        return workers
    most = 4 * workers
    if overhead > 0.0:
        most = min(most, math.floor(SHARE * items * per_item / overhead))
    return max(workers, most // workers * workers)


def batch_bounds(
    items: int, workers: int, per_item: float | None, overhead: float, align: int = 1
) -> list[tuple[int, int]]:
    """A tier of ``items`` cut into :func:`batch_count` batches ``[start, stop)`` of
    nearly equal size, each bound a multiple of ``align`` (items computed together stay
    in one batch; the last bound is ``items``).

    >>> batch_bounds(10, 2, None, 0.05)
    [(0, 5), (5, 10)]
    >>> batch_bounds(10**5, 2, 4e-5, 0.05)
    [(0, 25000), (25000, 50000), (50000, 75000), (75000, 100000)]
    >>> batch_bounds(20, 4, None, 0.05, align=3)  # 7 blocks of 3 (the last one short)
    [(0, 3), (3, 9), (9, 15), (15, 20)]
    """
    align = max(1, align)
    blocks = max(1, math.ceil(items / align))
    count = min(batch_count(items, workers, per_item, overhead), blocks)
    cuts = [min(items, blocks * k // count * align) for k in range(count + 1)]
    return [(a, b) for a, b in zip(cuts, cuts[1:], strict=False) if b > a]


def run(
    plan: Plan,
    job: Job,
    engine: str | Engine = "threads",
    *,
    workdir: str | Path | None = None,
    scheduler: str | None = None,
    workers: int | None = None,
    on_tier: Callable[[TierDone], None] | None = None,
    batch: int | Callable[[int], int] | None = None,
    tiers: int | None = None,
) -> Store:
    """Run every tier of ``plan`` with ``job`` on ``engine`` (a name of
    :data:`~perfectplay.tiers.engines.ENGINES` or an :class:`Engine`); return the store
    that holds the finished tiers (``workdir``, or memory when it is ``None``, which only
    the in-process engine allows). ``on_tier`` hears of each finished tier (default: a
    line on stderr when progress reports are on); ``batch`` fixes the items per batch, a
    number or a function of a tier's items (default: :func:`batch_bounds` decides, with
    the bounds on multiples of the job's :meth:`~perfectplay.tiers.job.Job.align`, and
    small tiers are fused into chains; a ``batch`` given fuses nothing);
    ``tiers`` runs only the first that many tiers of the plan's order (what they read
    included: :meth:`Plan.first`), to measure the start of a long solve."""
    eng = (
        engine
        if isinstance(engine, Engine)
        else make_engine(engine, workers=workers, scheduler=scheduler)
    )
    if workdir is None and eng.name != "threads":
        raise PerfectplayError(f"the {eng.name} engine needs a work directory (--workdir)")
    if tiers is not None:
        plan = plan.first(tiers)
    store = Store(workdir).open(job.identity(), job.same_identity)
    report = on_tier or _report
    return _Run(plan, job, eng, store, report, batch).go()


class _Run:
    """One solve's driver. Per tier: ``unfinished`` counts the tiers it reads that are
    not finished (Kahn's count); a tier is *released* (its batches sent) when that count
    is zero, or, on an engine that :attr:`~perfectplay.tiers.engines.Engine.chains`, one
    step earlier: once every tier it reads is finished or released with its own reads
    finished, its batches are sent to wait for theirs on the engine's side, so that no
    round trip through the driver separates two tiers (one tier ahead only: a tier's
    batch sizes still come from tiers measured before it). A small tier is released
    with the chain of small tiers that follow it (:meth:`_fuse`), as one task; the
    chain's other tiers count as released with their reads finished once its first tier
    is. A tier *finishes* when its batches are done and the tiers it reads are
    finished: reported, and counted down in its readers."""

    def __init__(
        self,
        plan: Plan,
        job: Job,
        eng: Engine,
        store: Store,
        report: Callable[[TierDone], None],
        batch: int | Callable[[int], int] | None,
    ) -> None:
        self.plan, self.job, self.eng, self.store, self.report = plan, job, eng, store, report
        self.batch = batch
        self.unfinished = {t.id: len(set(t.reads)) for t in plan.tiers}
        self.readers = plan.readers()
        # Totals of the tiers not finished, kept as they finish: a report never rescans
        # the plan (which made a solve of many tiers quadratic).
        self.left_items = plan.items
        self.left_bytes = sum(t.items * t.item_bytes for t in plan.tiers)
        self.released: set[int] = set()
        self.finished: set[int] = set()
        # The slices each released tier is made of (None: the job keeps the tier its
        # own way), sent with every batch that reads it.
        self.layout: dict[int, Ranges | None] = {}
        self.open: dict[int, int] = {}  # tier -> batches not done yet
        self.sent: dict[int, int] = {}  # tier -> batches sent
        self.flying: dict[Any, Task] = {}  # future -> the batches of its task
        self.inflight: dict[int, set[Any]] = {}  # tier -> its futures not collected yet
        self.tries: dict[tuple[int, int, int], int] = {}  # a task's first batch -> its tries
        # Each released tier's chain: the tiers that run as one task with it, in order
        # (itself alone when it is not fused).
        self.chain: dict[int, tuple[int, ...]] = {}
        self.todo: list[int] = []  # released tiers that may have finished
        self.done_tiers = 0
        # Per tier: the batches' own seconds and items, and its wall time from the moment
        # the tiers it reads were finished to its own finish. Rates come from the largest
        # tier finished so far: small tiers carry the workers' start-up, and their
        # per-item cost misleads. The time left is never estimated from the first tier
        # computed (``timed``: the largest of the others): its batches compiled or
        # loaded the kernels (Ur's first, of 217 positions, took 8 s, which promised
        # 1,361 hours for the rest).
        self.work: dict[int, tuple[float, int]] = {}
        self.wall: dict[int, float] = {}
        self.largest: int | None = None
        self.first: int | None = None
        self.timed: int | None = None
        # The engine's cost per batch as measured: a tier's worker-seconds beyond its
        # batches' own work, per batch (idle tails included, so it errs high).
        self.overhead = eng.overhead
        self.rank = _critical(plan)
        self.t0 = time.perf_counter()

    def go(self) -> Store:
        self.plan.order()  # refuses a cycle before any work
        self.eng.start(self.job, self.store)
        self.t0 = time.perf_counter()  # the estimates leave the engine's start-up out
        try:
            for t in self.plan.tiers:
                if self.unfinished[t.id] == 0:
                    self._ready(t.id)
            self._settle()
            while self.flying:
                self._collect()
                self._settle()
        finally:
            self.eng.close()
        return self.store

    def _ready(self, tid: int) -> None:
        """Every tier ``tid`` reads is finished: its wall time starts."""
        self.wall[tid] = time.perf_counter()
        if tid in self.released:  # released early: its readers may now be
            self.todo.append(tid)
            self._release_readers(tid)
        else:
            chain = self._fuse(tid)
            self._release(tid, None if chain else self._batches(tid), chain)

    def _small(self, tid: int) -> bool:
        """Whether ``tid`` costs less run whole on one worker, as part of a chain of
        fused tiers, than spread over every worker: its work, ``w`` seconds (its items
        at the cost per item measured, or before any is the job's estimate), leaves
        the other ``W - 1`` workers idle ``(W - 1) w``, while a tier of its own costs
        every worker the engine's hand-off between two tiers, and, where the tier is
        shorter than the engine's :attr:`~perfectplay.tiers.engines.Engine.latency`,
        the rest of that round trip: its readers' tasks, sent when the tier before it
        finishes, reach the workers only that long after (``W x (handoff +
        max(0, latency - w / W))``). Only the runner's own cuts fuse (a ``batch`` given
        is kept), and only a tier that has nothing on disk yet."""
        workers, tier, eng = self.eng.workers, self.plan.tier(tid), self.eng
        if self.batch is not None or workers < 2 or eng.handoff <= 0 or tier.items < 1:
            return False
        per = self._per_item()
        per = self.job.cost(tid) if per is None else per
        if per is None:
            return False
        work = tier.items * per
        spread = workers * (eng.handoff + max(0.0, eng.latency - work / workers))
        if (workers - 1) * work >= spread:
            return False
        return not self.job.tier_done(tid, self.store) and not self.store.slices(tid)

    def _fuse(self, tid: int) -> tuple[int, ...]:
        """The chain that starts at ``tid`` (empty when ``tid`` is not :meth:`_small`):
        ``tid``, then, while the tier last added has a small reader that reads nothing
        unfinished outside the chain, that reader."""
        if not self._small(tid):
            return ()
        chain = [tid]
        while True:
            nxt = [
                r
                for r in self.readers[chain[-1]]
                if r not in self.released
                and all(y in self.finished or y in chain for y in self.plan.tier(r).reads)
                and self._small(r)
            ]
            if not nxt:
                return tuple(chain)
            chain.append(nxt[0])

    def _batches(self, tid: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]] | None:
        """The slices of ``tid`` on disk and the batches to send for what they miss
        (``None``: the job has the tier finished its own way)."""
        tier = self.plan.tier(tid)
        if self.job.tier_done(tid, self.store):
            return None
        if not tier.split:
            return [], [(0, tier.items)]
        have = self.store.slices(tid)
        cut = [(a + s, a + e) for a, b in gaps(have, tier.items) for s, e in self._cut(tid, b - a)]
        return have, cut

    def _release(
        self,
        tid: int,
        found: tuple[list[tuple[int, int]], list[tuple[int, int]]] | None,
        chain: tuple[int, ...] = (),
    ) -> None:
        """Send ``tid``'s batches (``found``: :meth:`_batches`), or, given a ``chain``
        (:meth:`_fuse`, which starts at ``tid``), one task of each of its tiers whole."""
        for t in chain or (tid,):
            self.released.add(t)
            self.open[t] = self.sent[t] = 0
            self.inflight[t] = set()
            self.todo.append(t)
            self.chain[t] = chain or (tid,)
        if chain:
            for t in chain:
                self._know(t, [(0, self.plan.tier(t).items)])
            self._send(tuple((t, 0, self.plan.tier(t).items) for t in chain))
        elif found is None:
            self.layout[tid] = None
        else:
            have, new = found
            self._know(tid, have + new)
            for start, stop in new:
                self._send(((tid, start, stop),))
        if self.unfinished[tid] == 0:
            self._release_readers(tid)

    def _know(self, tid: int, ranges: list[tuple[int, int]]) -> None:
        """``tid`` is made of the slices ``ranges`` (told to its readers' batches)."""
        self.layout[tid] = layout = tuple(sorted(ranges))
        self.store.know(tid, layout)  # for the driver's own reads

    def _release_readers(self, tid: int) -> None:
        """``tid`` is released and the tiers it reads are finished (those outside its
        chain): on an engine that chains batches, release each reader of its chain's
        tiers whose reads are all that far, unless its batches times the tasks they
        would wait for pass :data:`CHAIN_EDGES` (it then waits for the tiers it reads to
        finish, as on other engines)."""
        if not self.eng.chains:
            return
        for r in (r for t in self.chain[tid] for r in self.readers[t]):
            reads = set(self.plan.tier(r).reads)
            if r in self.released or not all(self._out(y) for y in reads):
                continue
            chain = self._fuse(r)
            found = None if chain else self._batches(r)
            count = 1 if chain else 0 if found is None else len(found[1])
            waits = {f for y in reads if y not in self.finished for f in self.inflight[y]}
            if count * len(waits) <= CHAIN_EDGES:
                self._release(r, found, chain)

    def _out(self, tid: int) -> bool:
        """Whether ``tid`` is finished, or released with the tiers its chain reads
        finished (its tasks wait for nothing the driver has not sent)."""
        return tid in self.finished or (
            tid in self.released and self.unfinished[self.chain[tid][0]] == 0
        )

    def _cut(self, tid: int, items: int) -> list[tuple[int, int]]:
        """The batches of ``items`` of tier ``tid`` (all of it, or a part that a killed
        run left to do, which starts on a multiple of the job's alignment)."""
        align = max(1, self.job.align(tid))
        if self.batch is None:
            return batch_bounds(items, self.eng.workers, self._per_item(), self.overhead, align)
        size = self.batch(items) if callable(self.batch) else self.batch
        size = max(align, -(-size // align) * align)  # up to a multiple of the alignment
        return [(a, min(items, a + size)) for a in range(0, max(items, 1), size)]

    def _send(self, task: Task) -> None:
        """Send one task: its batches run in turn on one worker (several: a chain),
        after the tasks of the tiers they read outside it (on an engine that chains)."""
        if all(self.job.batch_done(*b, self.store) for b in task):
            return
        tiers = {b[0] for b in task}
        steps: list[Step] = []
        after: dict[Any, None] = {}  # each future once, in order
        for tid, start, stop in task:
            reads = sorted(set(self.plan.tier(tid).reads))
            steps.append((tid, start, stop, tuple((r, self.layout[r]) for r in reads)))
            for r in reads:
                if r not in self.finished and r not in tiers:
                    after.update(dict.fromkeys(self.inflight[r]))
        fut = self.eng.submit(tuple(steps), list(after), self.rank[task[0][0]])
        self.flying[fut] = task
        for tid, _, _ in task:
            self.inflight[tid].add(fut)
            self.open[tid] += 1
            self.sent[tid] += 1

    def _collect(self) -> None:
        """Wait for some batches and count them done."""
        for fut in self.eng.wait(self.flying):
            task = self.flying.pop(fut)
            for tid, _, _ in task:
                self.inflight[tid].discard(fut)
            try:
                seconds = fut.result()
            except Exception as exc:
                if not self.eng.lost(exc):
                    raise
                self._resend_all(task, exc)
                return
            for (tid, start, stop), took in zip(task, seconds, strict=True):
                self.open[tid] -= 1
                if not self.open[tid]:
                    self.todo.append(tid)
                spent, count = self.work.get(tid, (0.0, 0))
                self.work[tid] = (spent + took, count + stop - start)

    def _resend_all(self, task: Task, exc: BaseException) -> None:
        """A worker died: every task in flight is lost with the pool; start again."""
        lost = [task, *self.flying.values()]
        self.flying.clear()
        for futures in self.inflight.values():
            futures.clear()
        self.eng.restart()
        for t in lost:
            b = t[0]
            self.tries[b] = self.tries.get(b, 0) + 1
            if self.tries[b] > self.eng.retries:
                raise PerfectplayError(
                    f"tier {b[0]} batch {b[1]}-{b[2]}: its worker died {self.tries[b]} times "
                    f"({exc})"
                )
            for tid, _, _ in t:
                self.open[tid] -= 1
                self.sent[tid] -= 1
            self._send(t)

    def _settle(self) -> None:
        """Finish every released tier whose batches are done and whose reads are
        finished, and release what that readies (iterative: a resumed solve of many
        tiers on disk finishes them all here)."""
        while self.todo:
            tid = self.todo.pop()
            if tid in self.finished or self.open[tid] or self.unfinished[tid]:
                continue
            self._finish(tid)

    def _finish(self, tid: int) -> None:
        """Report ``tid`` finished and count it down in its readers."""
        self.finished.add(tid)
        tier = self.plan.tier(tid)
        if not self.job.tier_done(tid, self.store):
            self.job.finish_tier(tid, tier.items, self.store)
        self.done_tiers += 1
        self.left_items -= tier.items
        self.left_bytes -= tier.items * tier.item_bytes
        self.wall[tid] = time.perf_counter() - self.wall[tid]
        self._measure_overhead(tid)
        if tid in self.work:
            if self.largest is None or self.work[tid][1] > self.work[self.largest][1]:
                self.largest = tid
            if self.first is None:
                self.first = tid
            elif self.timed is None or self.work[tid][1] > self.work[self.timed][1]:
                self.timed = tid
        self.report(self._done(tid))
        for r in self.readers[tid]:
            self.unfinished[r] -= 1
            if self.unfinished[r] == 0:
                self._ready(r)

    def _measure_overhead(self, tid: int) -> None:
        batches = self.sent.get(tid, 0)
        if tid not in self.work or batches < 2 * self.eng.workers:
            return
        spent = self.wall[tid] * self.eng.workers - self.work[tid][0]
        self.overhead = max(self.eng.overhead, spent / batches)

    def _per_item(self) -> float | None:
        """A batch's seconds per item (on its worker)."""
        if self.largest is None:
            return None
        spent, count = self.work[self.largest]
        return spent / count if count else None

    def _wall_per_item(self) -> float | None:
        """Wall seconds per item of a whole tier (all workers together)."""
        if self.timed is None:
            return None
        return self.wall[self.timed] / max(1, self.plan.tier(self.timed).items)

    def _done(self, tid: int) -> TierDone:
        tier = self.plan.tier(tid)
        elapsed = time.perf_counter() - self.t0
        per = self._wall_per_item()
        return TierDone(
            tier=tid,
            finished=self.done_tiers,
            tiers=len(self.plan.tiers),
            items=tier.items,
            batches=self.sent.pop(tid, 0),
            nbytes=tier.items * tier.item_bytes,
            seconds=elapsed,
            left_seconds=None if per is None else per * self.left_items,
            left_bytes=self.left_bytes,
            work=self.work.get(tid, (0.0, 0))[0],
        )


def _critical(plan: Plan) -> dict[int, int]:
    """For each tier, the items on the longest path of the tier graph from it to a tier
    that nothing reads, its own included: its task's priority, so that where tasks of
    several tiers wait for a worker, the one on the critical path goes first (and a tier
    always before the tiers that read it).

    >>> from perfectplay.tiers.plan import Tier
    >>> _critical(Plan((Tier(2, 5), Tier(1, 4, reads=(2,)), Tier(3, 1), Tier(0, 1, reads=(1, 3)))))
    {0: 1, 1: 5, 2: 10, 3: 2}
    """
    readers, out = plan.readers(), dict[int, int]()
    for tid in reversed(plan.order()):
        out[tid] = plan.tier(tid).items + max((out[r] for r in readers[tid]), default=0)
    return dict(sorted(out.items()))


def _report(d: TierDone) -> None:
    """One line per finished tier on stderr (when progress reports are on).

    >>> from perfectplay._util.progress import reporting
    >>> import contextlib, io, sys
    >>> with reporting(True), contextlib.redirect_stderr(io.StringIO()) as err:
    ...     _report(TierDone(5, 2, 4, 1000, 3, 8000, 1.25, 30.0, 16000))
    >>> print(err.getvalue().strip().replace("; ", ";\\n"))
    perfectplay: tier 5 done (2 of 4, 1.2 s): 1,000 items, 7.8 KiB, 3 batches;
    left: 2 tiers, about 30 s, 15.6 KiB
    """
    head = f"tier {d.tier} done ({d.finished} of {d.tiers}, {d.seconds:.1f} s)"
    if not d.batches:
        head = f"tier {d.tier} on disk already ({d.finished} of {d.tiers})"
    what = f"{d.items:,} item{'s' * (d.items != 1)}, {format_bytes(d.nbytes)}"
    if d.batches:
        what += f", {d.batches:,} batch{'es' if d.batches > 1 else ''}"
    left = d.tiers - d.finished
    rest = f"{left} tier{'s' if left != 1 else ''}"
    if left and d.left_seconds is not None:
        rest += f", about {_duration(d.left_seconds)}"
    if left:
        rest += f", {format_bytes(d.left_bytes)}"
    notice(f"perfectplay: {head}: {what}; left: {rest}")


def _duration(seconds: float) -> str:
    """
    >>> _duration(42.4), _duration(4000), _duration(9000)
    ('42 s', '67 min', '2.5 h')
    """
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
