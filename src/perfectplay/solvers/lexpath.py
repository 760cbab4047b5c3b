"""The lexicographically first move sequence to a goal, by depth-first search with an oracle.

A *lexicographic model* has a start state, moves named by single characters in
lexicographic order (``"ENSW"``), a successor function, a goal test and a **feasibility
oracle** ``feasible(state)``: "some sequence of moves leads from ``state`` to a goal".
:func:`search` walks depth-first, trying the moves in order and entering a child only when
the oracle accepts it. The first goal it reaches is at the end of the lexicographically
first sequence, because every subtree it skips holds no goal (the oracle said so) and every
subtree it has not yet entered comes later in the order.

**Exact oracles.** An oracle that is necessary *and* sufficient (``model.exact = True``)
makes the walk a greedy descent: every accepted child has a goal below it, so the search
never goes back up; each step costs at most one oracle call per move, and the whole search
is linear in the length of the answer. A dead end under an exact oracle is a bug in the
model and raises :class:`~perfectplay.errors.ModelError`. An oracle that is only necessary
(``exact = False``) is still correct, with real backtracking and a node budget.

**Periodic jumps.** Answers of length ``10^4`` and more are mostly long repetitions
(``EEEE...``, ``SNSN...``). A model may let the search skip them; it supplies

* ``shape(state)``: the finite part of a state (a die's orientation), hashable;
* ``repeat(state, earlier, times)``: ``state`` advanced ``times`` more times by the change
  from ``earlier`` to ``state`` (the two have the same shape);

and promises the **window property**: whenever the search went from ``earlier`` to
``state`` (same shape) by moves ``w``, and ``s_j(k)`` denotes the state ``j`` moves into the
``k``-th further repetition of ``w`` (``k = -1`` being the window itself), then for every
phase ``j`` and move ``m`` the set of ``k >= -1`` for which ``successor(s_j(k), m)`` is
feasible is *downward closed* (a move that ``successor`` rejects with ``None`` counts as
infeasible). Then the window certifies its own repetition: each move that
came before ``w[j]`` in the order was refused in the window (``k = -1``), so it is refused
for every ``k``; and ``w[j]`` is accepted exactly as long as a goal stays reachable, which
by prefix closure (a state on the way to a feasible state is feasible) holds for all of the
first ``r`` repetitions iff the state after ``r`` of them is feasible. So the search appends
``w * r`` for the largest such ``r`` (a galloping search over ``feasible``), exactly as the
step-by-step walk would, and carries on. Jumps need an exact oracle.

Example: the lexicographically first arrangement of ``aabbb`` with no two equal neighbours
(state = last letter and the letters still to place)::

    >>> class Letters:
    ...     moves = "ab"
    ...     exact = True
    ...     def successor(self, state, m):
    ...         last, left = state
    ...         if m == last or left[m] == 0:
    ...             return None
    ...         left = list(left)
    ...         left[m] -= 1
    ...         return m, tuple(left)
    ...     def feasible(self, state):
    ...         last, left = state
    ...         n = sum(left)
    ...         return all(2 * c <= n + (i != last) for i, c in enumerate(left))
    ...     def is_goal(self, state):
    ...         return sum(state[1]) == 0
    >>> path = search(Letters(), (-1, (2, 3)))
    >>> path.text(), isinstance(path.stats, LexStats), path.stats.backtracks
    ('babab', True, 0)

Reference: the write-up ``archive/icpc-japan/2014/F-a-die-maker/solution.tex`` proves the
oracle search and the window property for A Die Maker, the gallery problem that uses it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from perfectplay.errors import ModelError, ResourceLimitError

__all__ = ["LexModel", "LexStats", "LexPath", "search"]

S = TypeVar("S")


class LexModel(Protocol[S]):
    """What :func:`search` needs from a model (see the module docstring).

    ``successor`` may return ``None`` for a move that is not allowed at all in ``state``.
    Optional, for periodic jumps: ``shape(state)`` and ``repeat(state, earlier, times)``.
    """

    moves: str
    exact: bool

    def successor(self, state: S, move: int) -> S | None: ...

    def feasible(self, state: S) -> bool: ...

    def is_goal(self, state: S) -> bool: ...


@dataclass
class LexStats:
    """Counters of one search: oracle calls, single steps taken, backtracks, jumps."""

    oracle_calls: int = 0
    steps: int = 0
    backtracks: int = 0
    jumps: int = 0
    jumped_moves: int = 0


@dataclass
class LexPath(Generic[S]):
    """A move sequence held as runs ``(pattern, times)``; ``final`` is the state it reaches.

    ``complete`` is false when the search stopped early at the requested length.

    >>> LexPath([("E", 3), ("SN", 2)], 7, None).text(3, 6)
    'ESNS'
    """

    runs: list[tuple[str, int]]
    length: int
    final: S
    complete: bool = True
    stats: LexStats = field(default_factory=LexStats)

    def text(self, first: int = 1, last: int | None = None) -> str:
        """Characters ``first..last`` (1-based, inclusive) of the sequence."""
        last = self.length if last is None else min(last, self.length)
        if first < 1 or first > last + 1:
            raise ValueError(f"bad range {first}..{last} of a path of length {self.length}")
        out: list[str] = []
        pos = 0  # characters before the current run
        for pattern, times in self.runs:
            size = len(pattern) * times
            lo, hi = max(first - 1, pos), min(last, pos + size)
            if lo < hi:
                a, b = lo - pos, hi - pos
                period = len(pattern)
                # only the repetitions that overlap [a, b) are materialised
                k0, k1 = a // period, -(-b // period)
                out.append((pattern * (k1 - k0))[a - k0 * period : b - k0 * period])
            pos += size
            if pos >= last:
                break
        return "".join(out)

    def runs_text(self) -> Iterator[str]:
        """The runs as ``PATTERN`` or ``(PATTERN)xTIMES`` strings (for people)."""
        for pattern, times in self.runs:
            if times == 1:
                yield pattern
            else:
                yield f"{pattern}x{times}" if len(pattern) == 1 else f"({pattern})x{times}"


def search(
    model: LexModel[S],
    start: S,
    *,
    stop: int | None = None,
    jumps: bool = True,
    max_period: int = 64,
    max_nodes: int = 10_000_000,
) -> LexPath[S] | None:
    """The lexicographically first move sequence from ``start`` to a goal, or ``None``.

    ``stop``: with an exact oracle, stop once the sequence has at least this many moves
    (a prefix of the answer; ``complete`` is then false). ``jumps``: use periodic jumps
    when the model offers them (``shape``/``repeat``) and its oracle is exact.
    ``max_period``: longest window repeated by a jump. ``max_nodes``: budget of states
    entered when the oracle is inexact (:class:`ResourceLimitError` beyond it).
    """
    stats = LexStats()
    stats.oracle_calls += 1
    if not model.feasible(start):
        return None
    if not model.exact:
        return _backtracking(model, start, stats, max_nodes)
    can_jump = jumps and hasattr(model, "shape") and hasattr(model, "repeat")
    return _greedy(model, start, stats, stop, can_jump, max_period)


def _greedy(
    model: Any, start: Any, stats: LexStats, stop: int | None, can_jump: bool, max_period: int
) -> LexPath[Any]:
    moves = model.moves
    successor, feasible, is_goal = model.successor, model.feasible, model.is_goal
    runs: list[tuple[str, int]] = []
    recent: list[str] = []  # single steps since the last jump, not yet in ``runs``
    length = 0
    state = start
    # shape -> (length, state) at its latest visit since the last jump: the window's start
    seen: dict[Hashable, tuple[int, Any]] = {model.shape(start): (0, start)} if can_jump else {}
    while not is_goal(state) and (stop is None or length < stop):
        for m in range(len(moves)):
            child = successor(state, m)
            if child is None:
                continue
            stats.oracle_calls += 1
            if feasible(child):
                break
        else:
            raise ModelError(
                f"the oracle accepted a state after {length} moves but refuses all its moves; "
                "it is not exact"
            )
        state = child
        recent.append(moves[m])
        length += 1
        stats.steps += 1
        if not can_jump:
            continue
        shape = model.shape(state)
        if shape in seen:
            then, earlier = seen[shape]
            period = length - then
            if period <= max_period:
                cap = None if stop is None else -(-(stop - length) // period)
                times = _max_repeats(model, state, earlier, cap, stats)
                if times:
                    pattern = "".join(recent[-period:])
                    if recent:
                        runs.append(("".join(recent), 1))
                        recent = []
                    runs.append((pattern, times))
                    state = model.repeat(state, earlier, times)
                    length += period * times
                    stats.jumps += 1
                    stats.jumped_moves += period * times
                    seen = {}
        seen[shape] = (length, state)
    if recent:
        runs.append(("".join(recent), 1))
    return LexPath(runs, length, state, complete=is_goal(state), stats=stats)


def _max_repeats(model: Any, state: Any, earlier: Any, cap: int | None, stats: LexStats) -> int:
    """Largest ``r <= cap`` with ``repeat(state, earlier, r)`` feasible (0 if none)."""

    def ok(r: int) -> bool:
        stats.oracle_calls += 1
        return bool(model.feasible(model.repeat(state, earlier, r)))

    if cap is not None and cap < 1 or not ok(1):
        return 0
    good, bad = 1, None  # feasibility is downward closed in r (the window property)
    while bad is None:
        trial = good * 2 if cap is None else min(good * 2, cap)
        if trial == good:
            return good
        if ok(trial):
            good = trial
        else:
            bad = trial
    while bad - good > 1:
        mid = (good + bad) // 2
        if ok(mid):
            good = mid
        else:
            bad = mid
    return good


def _backtracking(model: Any, start: Any, stats: LexStats, max_nodes: int) -> LexPath[Any] | None:
    moves = model.moves
    # stack of [state, index of the next move to try, name of the move that led here]
    stack: list[list[Any]] = [[start, 0, ""]]
    nodes = 1
    while not model.is_goal(stack[-1][0]):
        frame = stack[-1]
        m, child = frame[1], None
        while m < len(moves) and child is None:
            child = model.successor(frame[0], m)
            m += 1
            if child is not None:
                stats.oracle_calls += 1
                if not model.feasible(child):
                    child = None
        frame[1] = m
        if child is None:
            stack.pop()
            stats.backtracks += 1
            if not stack:
                return None
            continue
        nodes += 1
        if nodes > max_nodes:
            raise ResourceLimitError(f"search gave up after {max_nodes:,} states (inexact oracle)")
        stats.steps += 1
        stack.append([child, 0, moves[m - 1]])
    text = "".join(frame[2] for frame in stack)
    return LexPath([(text, 1)] if text else [], len(text), stack[-1][0], stats=stats)
