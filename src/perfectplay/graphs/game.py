"""Two-player game graphs held in compact arrays, and their solutions.

A game graph is an explicit graph of *positions*. Each position includes whose turn it is,
so a move always hands the turn to the other player and every value below is stated for
**the player to move**. Moves are stored in CSR form: the children of position ``p`` are
``children[indptr[p]:indptr[p + 1]]``. A position may be *terminal* with a fixed outcome for
the player to move (``WIN``, ``LOSE`` or ``TIE``); its moves, if any are listed, are ignored.
A non-terminal position without moves is lost for the player to move (the normal-play
convention: whoever cannot move loses).

Outcomes (:class:`Outcome`) and remoteness, as computed by
:func:`perfectplay.solvers.retrograde.solve_retrograde`:

* ``WIN``: the mover can force a win; remoteness is the number of moves to the end when
  the winner hurries and the loser delays.
* ``LOSE``: the opponent can force a win; remoteness as for ``WIN``.
* ``TIE``: nobody can force a win, and the game can be steered into a terminal tie;
  remoteness is the number of moves to the nearest such tie (both players hurry to it).
* ``DRAW``: nobody can force a win and no tie can be reached without giving the opponent
  a win: play goes on forever (only in graphs with cycles); remoteness ``-1``.

The numeric codes are ordered by preference of the mover, ``WIN > TIE > DRAW > LOSE``.
See ``docs/twoplayer-core.md`` for why this order and what it means in loopy games.

Arrays are numpy arrays, or ``array.array`` for small graphs built without numpy (so a
small instance never pays for importing numpy); both index the same way, and
:meth:`GameGraph.as_numpy` converts.

>>> g = GameGraph.from_lists([[1, 2], [], [0]], terminal=[0, 0, Outcome.TIE])
>>> g.n_positions, g.n_moves, list(g.moves(0))
(3, 3, [1, 2])
>>> from perfectplay.solvers.retrograde import solve_retrograde
>>> s = solve_retrograde(g)
>>> isinstance(s, GameSolution), s.best_moves(0) == [Move(1, Outcome.WIN, 1)]
(True, True)
"""

from __future__ import annotations

import operator
from array import array
from collections.abc import Hashable, Sequence
from enum import IntEnum
from typing import Any, NamedTuple

from perfectplay.graphs.canonical import StateIndex

__all__ = ["NOT_TERMINAL", "Outcome", "GameGraph", "Move", "GameSolution"]

#: ``terminal`` code of a position that is not terminal.
NOT_TERMINAL = 0


class Outcome(IntEnum):
    """Game-theoretic value for the player to move, ordered by the mover's preference.

    The one outcome vocabulary of the package (graphs, solvers, results, model solutions
    and tables). ``str()`` gives the lower-case word (``"win"``) for text at the command
    line's edge; :meth:`parse` reads it back.

    >>> Outcome.WIN > Outcome.TIE > Outcome.DRAW > Outcome.LOSE, str(Outcome.TIE)
    (True, 'tie')
    >>> f"{Outcome.DRAW:>5}", Outcome.parse("lose")
    (' draw', <Outcome.LOSE: 1>)
    """

    LOSE = 1
    DRAW = 2
    TIE = 3
    WIN = 4

    def for_opponent(self) -> Outcome:
        """The same outcome seen by the other player (``WIN`` <-> ``LOSE``).

        >>> Outcome.LOSE.for_opponent(), Outcome.TIE.for_opponent()
        (<Outcome.WIN: 4>, <Outcome.TIE: 3>)
        """
        return _OPPOSITE[self]

    def __str__(self) -> str:
        return self.name.lower()

    def __format__(self, spec: str) -> str:
        return format(str(self), spec)

    @classmethod
    def parse(cls, text: str) -> Outcome:
        """The outcome named ``text`` (``"win"``, ``"lose"``, ``"tie"`` or ``"draw"``)."""
        try:
            return cls[text.upper()]
        except KeyError:
            raise ValueError(f"unknown outcome {text!r}: win, lose, tie or draw") from None


_OPPOSITE = {
    Outcome.WIN: Outcome.LOSE,
    Outcome.LOSE: Outcome.WIN,
    Outcome.TIE: Outcome.TIE,
    Outcome.DRAW: Outcome.DRAW,
}

IntArray = Any  # numpy.ndarray or array.array of integers (see the module docstring)


class GameGraph:
    """Positions and moves of a two-player game in CSR arrays.

    Attributes:
        indptr: ``int64[n + 1]``, offsets of each position's moves in ``children``.
        children: ``int32[n_moves]``, the position each move leads to.
        terminal: ``int8[n]``, ``NOT_TERMINAL`` (0) or the outcome ``Outcome.WIN``,
            ``Outcome.LOSE`` or ``Outcome.TIE`` for the player to move.
        start: the position the game starts in.
        index: optional :class:`~perfectplay.graphs.canonical.StateIndex` whose ids are the
            position ids, so positions can be looked up by (canonical) state.

    A plain slotted class rather than a dataclass: importing :mod:`dataclasses` costs
    several milliseconds, a noticeable share of a small command's run.
    """

    __slots__ = ("indptr", "children", "terminal", "start", "index")

    def __init__(
        self,
        indptr: IntArray,
        children: IntArray,
        terminal: IntArray,
        start: int = 0,
        index: StateIndex | None = None,
    ) -> None:
        self.indptr = indptr
        self.children = children
        self.terminal = terminal
        self.start = start
        self.index = index

    def __repr__(self) -> str:
        return f"<GameGraph: {self.n_positions:,} positions, {self.n_moves:,} moves>"

    @property
    def n_positions(self) -> int:
        return len(self.terminal)

    @property
    def n_moves(self) -> int:
        return len(self.children)

    def moves(self, p: int) -> IntArray:
        """Children of position ``p`` (as listed; terminal positions' moves are ignored)."""
        return self.children[self.indptr[p] : self.indptr[p + 1]]

    def position(self, state: Any) -> int:
        """Id of the position of ``state`` (through ``index``); ``KeyError`` if unknown."""
        if self.index is None:
            raise KeyError("this graph has no state index; use position ids")
        i = self.index.get(state)
        if i is None:
            raise KeyError(f"{state!r} is not a position of this graph")
        return i

    def key(self, p: int) -> Hashable:
        """Canonical key of position ``p`` (its id when the graph has no index)."""
        return p if self.index is None else self.index.key(p)

    def nbytes(self) -> int:
        return sum(_nbytes(a) for a in (self.indptr, self.children, self.terminal))

    def as_numpy(self) -> GameGraph:
        """The same graph with numpy arrays (``int64``, ``int32``, ``int8``); no copy if already."""
        import numpy as np

        indptr = np.asarray(self.indptr, dtype=np.int64)
        children = np.asarray(self.children, dtype=np.int32)
        terminal = np.asarray(self.terminal, dtype=np.int8)
        if indptr is self.indptr and children is self.children and terminal is self.terminal:
            return self
        return GameGraph(indptr, children, terminal, self.start, self.index)

    def validate(self) -> None:
        """Check lengths, offsets, index ranges and terminal codes; ``ValueError`` if broken."""
        n = self.n_positions
        if len(self.indptr) != n + 1 or self.indptr[0] != 0 or self.indptr[n] != self.n_moves:
            raise ValueError("indptr has the wrong length or ends")
        if n == 0:
            raise ValueError("a game graph needs at least one position")
        if not 0 <= self.start < n:
            raise ValueError("start out of range")
        if _is_numpy(self.indptr):
            import numpy as np

            bad_ptr = bool(np.any(np.diff(self.indptr) < 0))
            ch = np.asarray(self.children)
            bad_child = bool(ch.size and (ch.min() < 0 or ch.max() >= n))
            bad_term = bool(np.any(~np.isin(np.asarray(self.terminal), _TERMINAL_CODES)))
        else:  # builtins that loop in C: cheap even for a million moves
            ptr = list(self.indptr)
            bad_ptr = any(map(operator.gt, ptr[:-1], ptr[1:]))
            ch = self.children
            bad_child = len(ch) > 0 and (min(ch) < 0 or max(ch) >= n)
            bad_term = not set(self.terminal) <= set(_TERMINAL_CODES)
        if bad_ptr:
            raise ValueError("indptr is not non-decreasing")
        if bad_child:
            raise ValueError("a move leads out of range")
        if bad_term:
            raise ValueError("terminal codes must be 0 or Outcome.WIN, Outcome.LOSE, Outcome.TIE")
        if self.index is not None and len(self.index) != n:
            raise ValueError("index and graph differ in size")

    @classmethod
    def from_lists(
        cls,
        moves: Sequence[Sequence[int]],
        terminal: Sequence[int] | None = None,
        start: int = 0,
        index: StateIndex | None = None,
    ) -> GameGraph:
        """Build a graph from Python lists of children (no numpy needed).

        >>> g = GameGraph.from_lists([[1], [0]], start=1)
        >>> g.n_positions, g.start, g.terminal.tolist()
        (2, 1, [0, 0])
        """
        indptr = array("q", [0])
        children = array("i")
        total = 0
        for ms in moves:
            children.extend(ms)
            total += len(ms)
            indptr.append(total)
        term = array("b", bytes(len(moves)) if terminal is None else terminal)
        g = cls(indptr, children, term, int(start), index)
        g.validate()
        return g


_TERMINAL_CODES = (NOT_TERMINAL, int(Outcome.WIN), int(Outcome.LOSE), int(Outcome.TIE))


def _is_numpy(a: Any) -> bool:
    return type(a).__module__ == "numpy"


def _nbytes(a: Any) -> int:
    return int(a.nbytes) if hasattr(a, "nbytes") else len(a) * a.itemsize


class Move(NamedTuple):
    """One move of a position, valued from the mover's point of view.

    ``remoteness`` counts this move: a move to a position lost for the opponent in 2 moves
    is a win in 3. It is ``-1`` for ``DRAW``.
    """

    child: int
    value: Outcome
    remoteness: int


class GameSolution:
    """Outcome and remoteness of every position of a :class:`GameGraph`.

    Attributes:
        graph: the solved graph.
        value: ``int8[n]``, a :class:`Outcome` code for the player to move.
        remoteness: ``int32[n]``, moves to the end under optimal play (``-1`` for ``DRAW``).
        method: ``"acyclic"`` or ``"loopy"``, the algorithm that produced it.

    >>> from perfectplay.solvers.retrograde import solve_retrograde
    >>> s = solve_retrograde(GameGraph.from_lists([[1, 2], [], [1]]))
    >>> s.value_of(0), s.remoteness_of(0)   # move to 1, where the opponent is stuck
    (<Outcome.WIN: 4>, 1)
    >>> [tuple(m) for m in s.moves(0)]
    [(1, <Outcome.WIN: 4>, 1), (2, <Outcome.LOSE: 1>, 2)]
    >>> s.best_moves(0)
    [Move(child=1, value=<Outcome.WIN: 4>, remoteness=1)]
    """

    __slots__ = ("graph", "value", "remoteness", "method")

    def __init__(
        self, graph: GameGraph, value: IntArray, remoteness: IntArray, method: str
    ) -> None:
        self.graph = graph
        self.value = value
        self.remoteness = remoteness
        self.method = method

    def __repr__(self) -> str:
        return (
            f"<GameSolution ({self.method}): start {self.start_value.name} "
            f"in {self.start_remoteness}>"
        )

    def value_of(self, p: int) -> Outcome:
        return Outcome(int(self.value[p]))

    def remoteness_of(self, p: int) -> int:
        return int(self.remoteness[p])

    @property
    def start_value(self) -> Outcome:
        return self.value_of(self.graph.start)

    @property
    def start_remoteness(self) -> int:
        return self.remoteness_of(self.graph.start)

    def lookup(self, state: Any) -> tuple[Outcome, int]:
        """``(value, remoteness)`` of a state, found through the graph's canonical index."""
        p = self.graph.position(state)
        return self.value_of(p), self.remoteness_of(p)

    def moves(self, p: int) -> list[Move]:
        """Every move of ``p`` with its value and remoteness for the mover, best first.

        Best first means: wins (fastest first), ties (fastest first), draws, losses
        (slowest first); equal moves keep their listed order. Terminal positions have no
        moves.
        """
        if self.graph.terminal[p] != NOT_TERMINAL:
            return []
        out = []
        for c in self.graph.moves(p):
            c = int(c)
            v = Outcome(int(self.value[c])).for_opponent()
            r = int(self.remoteness[c])
            out.append(Move(c, v, -1 if v == Outcome.DRAW else r + 1))
        out.sort(key=_move_rank)
        return out

    def best_moves(self, p: int) -> list[Move]:
        """The moves of ``p`` that achieve its value and remoteness (empty if it has none)."""
        ms = self.moves(p)
        return [m for m in ms if _move_rank(m) == _move_rank(ms[0])] if ms else []

    def counts(self) -> dict[Outcome, int]:
        """How many positions have each value."""
        tally = dict.fromkeys(Outcome, 0)
        if _is_numpy(self.value):
            import numpy as np

            for v, k in zip(*np.unique(self.value, return_counts=True), strict=True):
                tally[Outcome(int(v))] = int(k)
        else:
            for v in self.value:
                tally[Outcome(v)] += 1
        return tally


def move_rank(value: Outcome, remoteness: int | None) -> tuple[int, int]:
    """The one order of moves, smaller is better for the mover: wins and ties hurry
    (fewest moves first), then draws, then losses delay (most moves first). A draw's
    remoteness (``None`` or ``-1``) is not read.

    >>> sorted([(Outcome.LOSE, 2), (Outcome.DRAW, None), (Outcome.WIN, 3)],
    ...        key=lambda m: move_rank(*m))[0]
    (<Outcome.WIN: 4>, 3)
    """
    r = remoteness or 0
    if value == Outcome.WIN:
        return (0, r)
    if value == Outcome.TIE:
        return (1, r)
    if value == Outcome.DRAW:
        return (2, 0)
    return (3, -r)


def _move_rank(m: Move) -> tuple[int, int]:
    return move_rank(m.value, m.remoteness)
