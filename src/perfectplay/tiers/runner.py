"""Run a plan: release each tier when the tiers it reads are finished, in batches.

The driver keeps Kahn's count of unfinished tiers each tier reads; a tier whose count
reaches zero is released: cut into batches (:func:`batch_bounds`), minus the slices
already on disk (a resumed solve), and sent to the engine by ids. When its last batch
is done the driver merges it (:meth:`~perfectplay.tiers.job.Job.finish_tier`), reports it
and releases the tiers that waited on it. A batch whose worker died is sent again (the
pool engine; Dask's scheduler does this itself); any other error stops the solve, and
what is on disk stays whole for the next run.

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
from perfectplay.tiers.job import Job
from perfectplay.tiers.plan import Plan
from perfectplay.tiers.store import Store, gaps

__all__ = ["SHARE", "TierDone", "batch_bounds", "batch_count", "run"]

#: The share of a batch's work the engine's own cost per batch may take.
SHARE = 0.05


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
    the bounds on multiples of the job's :meth:`~perfectplay.tiers.job.Job.align`);
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
    store = Store(workdir).open(job.identity())
    report = on_tier or _report
    return _Run(plan, job, eng, store, report, batch).go()


class _Run:
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
        self.waiting = {t.id: len(set(t.reads)) for t in plan.tiers}
        self.readers = plan.readers()
        self.left_items = {t.id: t.items for t in plan.tiers}
        self.open: dict[int, int] = {}  # tier -> batches still running
        self.sent: dict[int, int] = {}  # tier -> batches sent
        self.flying: dict[Any, tuple[int, int, int]] = {}
        self.tries: dict[tuple[int, int, int], int] = {}
        self.done_tiers = 0
        # Per tier: the batches' own seconds and items, and its wall time from release
        # to merge. Rates come from the largest tier finished so far: small tiers carry
        # the workers' start-up, and their per-item cost misleads.
        self.work: dict[int, tuple[float, int]] = {}
        self.wall: dict[int, float] = {}
        self.largest: int | None = None
        # The engine's cost per batch as measured: a tier's worker-seconds beyond its
        # batches' own work, per batch (idle tails included, so it errs high).
        self.overhead = eng.overhead
        self.t0 = time.perf_counter()

    def go(self) -> Store:
        self.plan.order()  # refuses a cycle before any work
        self.eng.start(self.job, self.store)
        self.t0 = time.perf_counter()  # the estimates leave the engine's start-up out
        try:
            ready = [t.id for t in self.plan.tiers if self.waiting[t.id] == 0]
            while ready or self.flying:
                for tid in ready:
                    self._release(tid)
                if self.flying:
                    self._collect()
                ready = self._finished_now()
        finally:
            self.eng.close()
        return self.store

    def _release(self, tid: int) -> None:
        tier = self.plan.tier(tid)
        self.open[tid] = 0
        self.sent[tid] = 0
        self.wall[tid] = time.perf_counter()
        if self.job.tier_done(tid, self.store):
            return
        if not tier.split:
            self._send(tid, 0, tier.items)
            return
        for a, b in gaps(self.store.slices(tid), tier.items):
            for start, stop in self._cut(tid, b - a):
                self._send(tid, a + start, a + stop)

    def _cut(self, tid: int, items: int) -> list[tuple[int, int]]:
        """The batches of ``items`` of tier ``tid`` (all of it, or a part that a killed
        run left to do, which starts on a multiple of the job's alignment)."""
        align = max(1, self.job.align(tid))
        if self.batch is None:
            return batch_bounds(items, self.eng.workers, self._per_item(), self.overhead, align)
        size = self.batch(items) if callable(self.batch) else self.batch
        size = max(align, -(-size // align) * align)  # up to a multiple of the alignment
        return [(a, min(items, a + size)) for a in range(0, max(items, 1), size)]

    def _send(self, tid: int, start: int, stop: int) -> None:
        if self.job.batch_done(tid, start, stop, self.store):
            return
        self.flying[self.eng.submit(tid, start, stop)] = (tid, start, stop)
        self.open[tid] += 1
        self.sent[tid] += 1

    def _collect(self) -> None:
        """Wait for some batches and count them done."""
        for fut in self.eng.wait(self.flying):
            batch = self.flying.pop(fut)
            tid = batch[0]
            try:
                seconds = fut.result()
            except Exception as exc:
                if not self.eng.lost(exc):
                    raise
                self._resend_all(batch, exc)
                return
            self.open[tid] -= 1
            spent, count = self.work.get(tid, (0.0, 0))
            self.work[tid] = (spent + seconds, count + batch[2] - batch[1])

    def _resend_all(self, batch: tuple[int, int, int], exc: BaseException) -> None:
        """A worker died: every batch in flight is lost with the pool; start again."""
        lost = [batch, *self.flying.values()]
        self.flying.clear()
        self.eng.restart()
        for b in lost:
            self.tries[b] = self.tries.get(b, 0) + 1
            if self.tries[b] > self.eng.retries:
                raise PerfectplayError(
                    f"tier {b[0]} batch {b[1]}-{b[2]}: its worker died {self.tries[b]} times "
                    f"({exc})"
                )
            self.open[b[0]] -= 1
            self.sent[b[0]] -= 1
            self._send(*b)

    def _finished_now(self) -> list[int]:
        """Tiers released whose batches are all done: merge, report, release readers."""
        ready: list[int] = []
        for tid in [t for t, n in self.open.items() if n == 0]:
            del self.open[tid]
            tier = self.plan.tier(tid)
            if not self.job.tier_done(tid, self.store):
                self.job.finish_tier(tid, tier.items, self.store)
            self.done_tiers += 1
            del self.left_items[tid]
            self.wall[tid] = time.perf_counter() - self.wall[tid]
            self._measure_overhead(tid)
            if tid in self.work and (
                self.largest is None or self.work[tid][1] > self.work[self.largest][1]
            ):
                self.largest = tid
            self.report(self._done(tid))
            for r in self.readers[tid]:
                self.waiting[r] -= 1
                if self.waiting[r] == 0:
                    ready.append(r)
        return ready

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
        if self.largest is None:
            return None
        return self.wall[self.largest] / max(1, self.plan.tier(self.largest).items)

    def _done(self, tid: int) -> TierDone:
        tier = self.plan.tier(tid)
        elapsed = time.perf_counter() - self.t0
        per = self._wall_per_item()
        left = sum(self.left_items.values())
        return TierDone(
            tier=tid,
            finished=self.done_tiers,
            tiers=len(self.plan.tiers),
            items=tier.items,
            batches=self.sent.pop(tid, 0),
            nbytes=tier.items * tier.item_bytes,
            seconds=elapsed,
            left_seconds=None if per is None else per * left,
            left_bytes=sum(
                self.plan.tier(t).items * self.plan.tier(t).item_bytes for t in self.left_items
            ),
            work=self.work.get(tid, (0.0, 0))[0],
        )


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
    what = f"{d.items:,} items, {format_bytes(d.nbytes)}"
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
