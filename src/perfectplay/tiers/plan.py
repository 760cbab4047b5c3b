"""A game's tiers and the order they may run in.

A :class:`Tier` is a number of *items* (states, positions) that one batch or several
compute, and the ids of the tiers its items read; those must be finished first. A
:class:`Plan` checks that the graph is whole and acyclic; :meth:`Plan.order` is one
order Kahn's algorithm allows (the runner releases tiers as they become ready, which may
run several at once).

>>> plan = Plan((Tier(2, 5), Tier(1, 4, reads=(2,)), Tier(0, 1, reads=(1, 2))))
>>> plan.order()
[2, 1, 0]
>>> Plan((Tier(0, 1, reads=(1,)), Tier(1, 1, reads=(0,)))).order()
Traceback (most recent call last):
...
perfectplay.errors.ModelError: the tiers 0, 1 read each other (a cycle): no order solves them
"""

from __future__ import annotations

import functools
from collections import deque
from dataclasses import dataclass

from perfectplay.errors import ModelError

__all__ = ["Plan", "Tier"]


@dataclass(frozen=True)
class Tier:
    """One tier: ``items`` to compute, the tiers it ``reads``; ``split`` says whether its
    items may be cut into several batches (a layer swept as a whole may not), and
    ``item_bytes`` is the disk a finished item takes (for the estimates)."""

    id: int
    items: int
    reads: tuple[int, ...] = ()
    split: bool = True
    item_bytes: int = 8


@dataclass(frozen=True)
class Plan:
    """The tiers of one solve."""

    tiers: tuple[Tier, ...]

    def __post_init__(self) -> None:
        ids = [t.id for t in self.tiers]
        if len(set(ids)) != len(ids):
            raise ModelError("a plan names a tier twice")
        known = set(ids)
        for t in self.tiers:
            missing = [r for r in t.reads if r not in known]
            if missing:
                raise ModelError(f"tier {t.id} reads tier {missing[0]}, which the plan lacks")

    def tier(self, tid: int) -> Tier:
        """The tier with id ``tid``."""
        return self._by_id[tid]

    @functools.cached_property
    def _by_id(self) -> dict[int, Tier]:
        # Built once: the runner looks tiers up by id for every report (quadratic in the
        # number of tiers otherwise, which a 200-layer game felt).
        return {t.id: t for t in self.tiers}

    def readers(self) -> dict[int, list[int]]:
        """For each tier, the tiers that read it."""
        out: dict[int, list[int]] = {t.id: [] for t in self.tiers}
        for t in self.tiers:
            for r in set(t.reads):
                out[r].append(t.id)
        return out

    def order(self) -> list[int]:
        """The tiers in one order that runs each after every tier it reads (Kahn)."""
        waiting = {t.id: len(set(t.reads)) for t in self.tiers}
        readers = self.readers()
        ready = deque(t.id for t in self.tiers if waiting[t.id] == 0)
        out: list[int] = []
        while ready:
            tid = ready.popleft()
            out.append(tid)
            for r in readers[tid]:
                waiting[r] -= 1
                if waiting[r] == 0:
                    ready.append(r)
        if len(out) != len(self.tiers):
            stuck = sorted(set(waiting) - set(out))
            raise ModelError(
                f"the tiers {', '.join(map(str, stuck))} read each other (a cycle): "
                "no order solves them"
            )
        return out

    def first(self, count: int) -> Plan:
        """The plan of the first ``count`` tiers of :meth:`order` (which holds every tier
        they read): the start of a long solve, to measure it.

        >>> Plan((Tier(2, 5), Tier(1, 4, reads=(2,)), Tier(0, 1, reads=(1,)))).first(2).items
        9
        """
        keep = set(self.order()[: max(0, count)])
        return Plan(tuple(t for t in self.tiers if t.id in keep))

    @property
    def items(self) -> int:
        """Items in all tiers."""
        return sum(t.items for t in self.tiers)
