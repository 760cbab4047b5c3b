"""How far an exploration may go: one limits record, and the budget that enforces it.

Exploration is bounded, so a model whose space is infinite cannot hang the program:
``max_states`` caps the number of nodes, ``max_edges`` the number of callback items in
all, ``max_per_call`` the items a single call of ``choices``, ``roll``, ``moves`` or
``chances`` may give (so a generator that never stops is caught after a million items,
not two hundred million), and an estimate of the memory in use is checked against
``max_memory`` (default: :func:`perfectplay._util.memory.available_bytes`) as the space
grows. The three explorers take one :class:`ExploreLimits` and enforce it with one
:class:`Budget`, so every limit trips the same way with the same message.

>>> limits = ExploreLimits(max_states=1000)
>>> limits.max_states, limits.max_per_call == DEFAULT_MAX_PER_CALL
(1000, True)
>>> ExploreLimits.of(limits, max_per_call=10)
ExploreLimits(max_states=1000, max_edges=200000000, max_per_call=10, max_memory=None)
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from perfectplay._util.memory import available_bytes, format_bytes
from perfectplay._util.progress import Progress
from perfectplay.errors import InputError, ModelError, ResourceLimitError, short_repr
from perfectplay.models.explore.callbacks import call_text, describe
from perfectplay.models.explore.collector import settle

__all__ = [
    "CHECK_MASK",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_PER_CALL",
    "DEFAULT_MAX_STATES",
    "Budget",
    "ExploreLimits",
    "SpaceLimitError",
    "per_call_error",
]

DEFAULT_MAX_STATES = 5_000_000
DEFAULT_MAX_EDGES = 200_000_000
DEFAULT_MAX_PER_CALL = 1_000_000

#: How often (in new nodes) the memory estimate is checked; a power of two minus one.
CHECK_MASK = (1 << 14) - 1
#: Most callback items between two checks of the limits and the memory estimate (and two
#: progress reports, which a single long call would otherwise hold up).
EDGE_CHUNK = 1 << 16
# What the items of each method are, for messages.
_ITEMS = {"choices": "choices", "roll": "outcomes", "moves": "moves", "chances": "outcomes"}
# Bytes per edge: the typed buffer (int32 index, int64 weight for outcomes) plus the
# solvers' reverse adjacency built from it; an estimate, on the high side.
_EDGE_BYTES = 24
# Python overhead per state besides the key objects: dict slot, list slots, id ints.
_STATE_OVERHEAD = 120


class SpaceLimitError(ModelError, ResourceLimitError):
    """The model's state space grew past the state, edge or memory limit."""


def per_call_error(call: str, method: str, max_per_call: int) -> SpaceLimitError:
    """The error for ``call`` (a call of ``method``) giving more than ``max_per_call`` items.

    >>> print(per_call_error("M.roll(0)", "roll", 10))  # doctest: +ELLIPSIS
    M.roll(0) gave more than 10 outcomes in one call (the limit per call: ...
    """
    return SpaceLimitError(
        f"{call} gave more than {max_per_call:,} {_ITEMS.get(method, 'items')} in one call "
        "(the limit per call: max_per_call, --max-per-call); a finite model gives a finite "
        "list: does the generator ever stop?"
    )


@dataclass(frozen=True)
class ExploreLimits:
    """The limits of one exploration (see the module's docstring).

    Attributes:
        max_states: most nodes (states, pending rolls or positions); ids are ``int32``.
        max_edges: most callback items in all (choices, outcomes, moves).
        max_per_call: most items one call of the model may give.
        max_memory: bytes the exploration may fill by its estimate; ``None``: what is
            available when it starts (:func:`~perfectplay._util.memory.available_bytes`).

    >>> ExploreLimits(max_per_call=0)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: max_states must be 1..2**31-1, ... >= 1, not ..., 0
    """

    max_states: int = DEFAULT_MAX_STATES
    max_edges: int = DEFAULT_MAX_EDGES
    max_per_call: int = DEFAULT_MAX_PER_CALL
    max_memory: int | None = None

    def __post_init__(self) -> None:
        given = (self.max_states, self.max_edges, self.max_per_call)
        if not (
            all(isinstance(v, int) and not isinstance(v, bool) for v in given)
            and 1 <= self.max_states < 2**31
            and 1 <= self.max_edges < 2**62
            and 1 <= self.max_per_call
        ):
            raise InputError(
                "max_states must be 1..2**31-1, max_edges 1..2**62-1 and max_per_call >= 1, "
                f"not {', '.join(map(short_repr, given))}"
            )

    @classmethod
    def of(
        cls,
        limits: ExploreLimits | None = None,
        *,
        max_states: int | None = None,
        max_edges: int | None = None,
        max_per_call: int | None = None,
    ) -> ExploreLimits:
        """``limits`` (default: the defaults) with each keyword given replacing its field:
        the explorers' keyword arguments, folded into one record."""
        base = cls() if limits is None else limits
        given = {"max_states": max_states, "max_edges": max_edges, "max_per_call": max_per_call}
        changes = {k: v for k, v in given.items() if v is not None}
        return dataclasses.replace(base, **changes) if changes else base


class Budget:
    """The limits of one exploration at work, with the memory estimate that grows with it.

    The explorer loops count callback items down in one local counter per item and call
    :meth:`refill` when it runs out, so the limits cost one comparison per item. The
    counter's chunk ends exactly where a limit would be crossed (the per-call limit
    included), so every limit trips on the first item past it. The budget also owns the
    exploration's progress meter (``None`` when ``progress`` is off).

    >>> budget = Budget("M", ExploreLimits(max_per_call=3), "states", progress=False)
    >>> left = budget.begin("moves", (0,), budget.chunk)
    >>> left
    3
    >>> budget.refill(1, [0], [0], left - 4)
    Traceback (most recent call last):
    perfectplay.models.explore.limits.SpaceLimitError: M.moves(0) gave more than 3 moves ...
    """

    def __init__(self, name: str, limits: ExploreLimits, unit: str, progress: bool) -> None:
        self.name = name
        self.unit = unit
        self.max_states = limits.max_states
        self.max_edges = limits.max_edges
        self.max_per_call = limits.max_per_call
        self.meter = Progress(f"exploring {name}") if progress else None
        self.memory = available_bytes() if limits.max_memory is None else limits.max_memory
        self.chunk_size = EDGE_CHUNK
        self.per_state = 0
        self.used = 0  # items of the chunks before the current one
        self.chunk = min(self.chunk_size, self.max_edges)
        # The callback being consumed (for messages) and the items used before it began.
        self.call: tuple[str, tuple[Any, ...]] = ("", ())
        self.mark = 0

    def begin(self, method: str, args: tuple[Any, ...], left: int, used: int | None = None) -> int:
        """A callback's iterator is about to be consumed; ``left`` is the loop's counter.

        ``used``, when given, is the number of items consumed so far (a loop that skips
        the counter for short lists knows it exactly) and ``left`` is ignored.
        Returns the counter to go on with: its chunk ends at the per-call limit.
        """
        self.used = self.used + self.chunk - left if used is None else used
        self.call = (method, args)
        self.mark = self.used
        self.chunk = min(self.chunk_size, self.max_edges - self.used, self.max_per_call)
        return self.chunk

    def counted(
        self,
        method: str,
        args: tuple[Any, ...],
        items: Iterable[Any],
        used: int,
        sample: list[Any],
        keys: list[Any],
    ) -> Iterator[Any]:
        """The items of a callback that may never end (a generator), counted as they are
        read: the first item past a limit raises. ``used``: the items consumed before.

        >>> import itertools
        >>> budget = Budget("M", ExploreLimits(max_per_call=5), "states", progress=False)
        >>> len(list(budget.counted("roll", (0,), range(5), 0, [0], [0])))
        5
        >>> list(budget.counted("roll", (0,), itertools.count(), 5, [0], [0]))
        Traceback (most recent call last):
        perfectplay.models.explore.limits.SpaceLimitError: M.roll(0) gave more than 5 outcomes ...
        """
        left = self.begin(method, args, 0, used)
        for item in items:
            left -= 1
            if left < 0:
                left = self.refill(len(sample), sample, keys)
            yield item

    def take(
        self,
        method: str,
        args: tuple[Any, ...],
        count: int,
        used: int,
        sample: list[Any],
        keys: list[Any],
    ) -> None:
        """A list of ``count`` items from one callback, counted at once: refused when it
        crosses a limit. ``used``: the items consumed before."""
        left = self.begin(method, args, 0, used)
        if count > left:
            self.refill(len(sample), sample, keys, left - count)

    def _call_text(self) -> str:
        return call_text(self.name, *self.call) if self.call[0] else self.name

    def refill(self, n_nodes: int, sample: list[Any], keys: list[Any], left: int = -1) -> int:
        """Account for a finished chunk and the items that overran it (``-left``: one for a
        loop counting item by item, more for a list counted at once); the next chunk."""
        self.used += self.chunk - left
        in_call = self.used - self.mark
        if in_call > self.max_per_call:
            # A generator that never stops would otherwise run until the global limit.
            raise per_call_error(self._call_text(), self.call[0], self.max_per_call)
        self.check(n_nodes, self.used, sample, keys)
        if self.meter is not None:
            self.meter.update(n_nodes, self.unit)
        self.chunk = min(self.chunk_size, self.max_edges - self.used, self.max_per_call - in_call)
        return self.chunk

    def check(self, n_nodes: int, n_edges: int, sample: list[Any], keys: list[Any]) -> None:
        """Refuse ``n_nodes`` and ``n_edges`` past the limits or the memory estimate
        (``sample`` and ``keys``: the states and keys kept, for the estimate)."""
        settle()
        if n_nodes > self.max_states:
            raise SpaceLimitError(
                f"{self.name}: more than {self.max_states:,} {self.unit}; the space may be "
                f"infinite (last state added: {describe(sample[-1])}); raise the limit "
                "(max_states, --max-states) if it is finite"
            )
        if n_edges > self.max_edges:
            raise SpaceLimitError(
                f"{self.name}: more than {self.max_edges:,} moves/outcomes in all (while "
                f"reading {self._call_text()}); raise the limit (max_edges, --max-edges) if "
                "the space is finite"
            )
        # Re-estimated at every check: states often grow as the exploration goes deeper.
        self.per_state = _STATE_OVERHEAD + _size_of_sample(sample, keys)
        need = n_nodes * self.per_state + n_edges * _EDGE_BYTES
        if need > self.memory:
            raise SpaceLimitError(
                f"{self.name}: {n_nodes:,} {self.unit} and {n_edges:,} edges already need about "
                f"{format_bytes(need)}, more than the {format_bytes(self.memory)} available "
                f"(last state added: {describe(sample[-1])})"
            )

    def done(self, summary: str) -> None:
        """The exploration finished: the meter's last line (when it printed any)."""
        if self.meter is not None:
            self.meter.done(summary)


def _deep_size(obj: Any, depth: int = 2) -> int:
    # Numbers are mostly shared (small ints are cached), so only containers and strings
    # count; the pointers to everything else are in the containers' own sizes.
    if isinstance(obj, tuple | list | frozenset | set):
        size = sys.getsizeof(obj)
        if depth:
            size += sum(_deep_size(x, depth - 1) for x in obj)
        return size
    if isinstance(obj, str | bytes):
        return sys.getsizeof(obj)
    return 0 if isinstance(obj, int | float) else sys.getsizeof(obj)


def _size_of_sample(reps: list[Any], keys: list[Any]) -> int:
    n = min(len(reps), 64)
    if n == 0:
        return 0
    total = 0
    for k in range(1, n + 1):
        total += _deep_size(reps[-k])
        if keys[-k] is not reps[-k]:  # a canonical key stored beside the state
            total += _deep_size(keys[-k])
    return total // n
