"""What a game hands the runner besides its plan: the work of one batch.

A :class:`Job` is sent to each worker once (pickled), then asked for batches by ids only:
a tier's id and an item range ``[start, stop)``, with the ranges of the slices that make
up each tier the batch reads. By default :meth:`Job.run_batch` writes the array
:meth:`Job.compute` returns as the batch's slice, and a tier is its slices: the batches
that read it open them where they were written
(:class:`~perfectplay.tiers.store.Store`); a game whose solver writes its own files (the
compiled layers) overrides the four methods that say what is done and how.

A job keeps what a worker builds once (a game's arrays, the values read so far) in
attributes that start with ``_``; they are not pickled.

A job may refer to functions of a module that a worker cannot import by its name: a
user's ``file.py:NAME`` (rules written in Python), which the driver loaded from its path
under a name of its own. A pickled job carries such modules (their names, paths and
sources) ahead of itself, and unpickling it loads them first (:mod:`.shipping`), so the
process pool's workers and Dask's, on this machine or another, find them.

>>> import pickle
>>> from perfectplay.tiers.synthetic import SyntheticJob
>>> pickle.loads(pickle.dumps(SyntheticJob(2, 3))).identity()
'synthetic 2 tiers of 3'
"""

from __future__ import annotations

import threading
import time
from typing import TYPE_CHECKING, Any

from perfectplay.tiers.shipping import Modules

if TYPE_CHECKING:
    import numpy as np

    from perfectplay.tiers.store import Ranges, Store

__all__ = ["Job", "Layout", "Step", "execute", "execute_steps"]


class Job:
    """The work of a plan's batches (subclass it; see the module docstring)."""

    def __init__(self) -> None:
        self._reset()

    def _reset(self) -> None:
        """Set the worker's caches up empty (after building the job and after unpickling
        it); a subclass that keeps caches extends this."""
        self._lock = threading.Lock()  # a worker may run batches on several threads

    def identity(self) -> str:
        """What the work directory holds (checked when a solve resumes there)."""
        raise NotImplementedError

    def same_identity(self, found: str) -> bool:
        """Whether a work directory that holds ``found`` is this job's, written under
        another spelling of :meth:`identity` (none, unless a job says so)."""
        return found == self.identity()

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        """The values of items ``start`` to ``stop`` of ``tier``, reading finished tiers
        from ``store``. The same ids give the same bytes."""
        raise NotImplementedError

    def batch_done(self, tier: int, start: int, stop: int, store: Store) -> bool:
        """Whether the batch's slice is on disk already."""
        return store.has_slice(tier, start, stop)

    def run_batch(self, tier: int, start: int, stop: int, store: Store) -> None:
        """Compute the batch and write its slice."""
        store.write_slice(tier, start, stop, self.compute(tier, start, stop, store))

    def tier_done(self, tier: int, store: Store) -> bool:
        """Whether ``tier`` is finished in a form other than its slices (one merged
        file, as an earlier version wrote it); slices on disk are skipped one by one."""
        return store.has_tier(tier)

    def finish_tier(self, tier: int, items: int, store: Store) -> None:
        """On the driver, once every batch of ``tier`` and every tier it reads are done.
        Nothing by default: the slices are the tier, and its readers may be running
        already (on an engine that releases them early)."""

    def prepare(self) -> None:
        """Build what every batch needs, once, when a worker receives the job (so that
        the first batches' times, which price the rest, do not carry it)."""

    def cost(self, tier: int) -> float | None:
        """An estimate of a batch's seconds per item of ``tier``, for the runner's first
        tiers, before it has measured any (``None``, the default: no estimate; the
        runner then cuts the first tier one batch a worker and fuses nothing)."""
        return None

    def align(self, tier: int) -> int:
        """Batch bounds of ``tier`` fall on multiples of this (items that one
        computation gives together stay in one batch); 1 by default."""
        return 1

    def __getstate__(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if not k.startswith("_")}

    def __reduce__(self) -> tuple[Any, ...]:
        # The modules go first: unpickling runs their loading before it meets the
        # class and the state that name them.
        state = self.__getstate__()
        return (_rebuild, (Modules.of((type(self), state)), type(self), state))

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._reset()


def _rebuild(modules: Modules, cls: type[Job], state: dict[str, Any]) -> Job:
    job = cls.__new__(cls)
    job.__setstate__(state)
    return job


#: For each tier a batch reads, the ranges of the slices that make it up (``None``: the
#: job keeps it its own way, :meth:`Job.tier_done`).
Layout = tuple[tuple[int, "Ranges | None"], ...]


def execute(
    work: tuple[Job, Store], tier: int, start: int, stop: int, layout: Layout = ()
) -> float:
    """Run one batch on a worker (skipped when its slice is on disk), reading the tiers
    of ``layout`` from the slices it names; its seconds."""
    job, store = work
    t0 = time.perf_counter()
    for read, ranges in layout:
        if ranges is not None:
            store.know(read, ranges)
    if not job.batch_done(tier, start, stop, store):
        job.run_batch(tier, start, stop, store)
    return time.perf_counter() - t0


#: One batch as a worker receives it: a tier, its items ``[start, stop)`` and the
#: :data:`Layout` of the tiers it reads.
Step = tuple[int, int, int, Layout]


def execute_steps(work: tuple[Job, Store], steps: tuple[Step, ...]) -> tuple[float, ...]:
    """Run batches one after another on one worker (a chain of fused tiers, each
    batch reading the one before it: :mod:`.runner`); the seconds of each.

    >>> from perfectplay.tiers.synthetic import SyntheticJob
    >>> from perfectplay.tiers.store import Store
    >>> work = (SyntheticJob(tiers=2, items=3), Store(None))
    >>> steps = ((1, 0, 3, ()), (0, 0, 3, ((1, ((0, 3),)),)))
    >>> len(execute_steps(work, steps)), work[1].read(0).tolist()
    (2, [1.0, 3.0, 2.0])
    """
    return tuple(execute(work, *step) for step in steps)
