"""What a game hands the runner besides its plan: the work of one batch.

A :class:`Job` is sent to each worker once (pickled), then asked for batches by ids only:
a tier's id and an item range ``[start, stop)``. By default :meth:`Job.run_batch` writes
the array :meth:`Job.compute` returns as the batch's slice, and the driver merges a
finished tier's slices (:class:`~perfectplay.tiers.store.Store`); a game whose solver
writes its own files (the compiled layers) overrides the four methods that say what is
done and how.

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

    from perfectplay.tiers.store import Store

__all__ = ["Job", "execute"]


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
        """Whether ``tier`` is finished (merged)."""
        return store.has_tier(tier)

    def finish_tier(self, tier: int, items: int, store: Store) -> None:
        """On the driver, once every batch of ``tier`` is done: merge its slices."""
        store.merge(tier, items)

    def prepare(self) -> None:
        """Build what every batch needs, once, when a worker receives the job (so that
        the first batches' times, which price the rest, do not carry it)."""

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


def execute(work: tuple[Job, Store], tier: int, start: int, stop: int) -> float:
    """Run one batch on a worker (skipped when its slice is on disk); its seconds."""
    job, store = work
    t0 = time.perf_counter()
    if not job.batch_done(tier, start, stop, store):
        job.run_batch(tier, start, stop, store)
    return time.perf_counter() - t0
