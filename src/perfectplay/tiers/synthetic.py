"""A job with no game behind it: for measuring the engines and testing faults.

Tier ``tiers - 1`` holds ``0, 1, ...``; each lower tier ``T`` holds, for item ``i``, the
sum of items ``i`` and ``i + 1`` (wrapping) of tier ``T + 1``, so every tier reads the
one above, and a wrong or missing slice shows in every tier below it. ``busy`` seconds
of CPU are spent per item (the work a benchmark times the engines' overhead against).
``die_once``, a file name, makes the worker of tier ``die_tier``'s first batch kill its
own process the first time (the file marks that it did): the fault tests' dying worker.

>>> job = SyntheticJob(tiers=2, items=4)
>>> from perfectplay.tiers import run
>>> run(job.plan(), job).read(0).tolist()
[1.0, 3.0, 5.0, 3.0]
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from perfectplay.tiers.job import Job
from perfectplay.tiers.plan import Plan, Tier

if TYPE_CHECKING:
    from perfectplay.tiers.store import Store

__all__ = ["SyntheticJob"]


class SyntheticJob(Job):
    """See the module docstring."""

    def __init__(
        self,
        tiers: int,
        items: int,
        busy: float = 0.0,
        die_once: str | None = None,
        die_tier: int = 0,
    ) -> None:
        super().__init__()
        self.tiers, self.items, self.busy = tiers, items, busy
        self.die_once, self.die_tier = die_once, die_tier

    def identity(self) -> str:
        return f"synthetic {self.tiers} tiers of {self.items}"

    def plan(self) -> Plan:
        top = self.tiers - 1
        return Plan(
            tuple(
                Tier(t, self.items, reads=() if t == top else (t + 1,)) for t in range(top, -1, -1)
            )
        )

    def cost(self, tier: int) -> float | None:
        return self.busy

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        if self.die_once and tier == self.die_tier and start == 0:
            marker = Path(self.die_once)
            if not marker.exists():
                marker.write_text("died once\n")
                os._exit(17)
        # CPU time, not wall time: on a busy machine the work slows down as the engine's
        # own costs do, so their ratio is what an idle machine would show.
        end = time.thread_time() + self.busy * (stop - start)
        while time.thread_time() < end:
            pass
        index = np.arange(start, stop)
        if tier == self.tiers - 1:
            return index.astype(np.float64)
        with self._lock:  # the tier above, joined from its slices once per worker
            kept = self._above.get(tier + 1)
            if kept is None or kept[0] is not store:
                kept = self._above[tier + 1] = (store, np.asarray(store.read(tier + 1)))
            above = kept[1]
        return np.asarray(above[index] + above[(index + 1) % self.items], np.float64)

    def _reset(self) -> None:
        super()._reset()
        self._above: dict[int, tuple[Store, np.ndarray]] = {}
