"""The plain placement game of DISPDOM as a :class:`~perfectplay.models.GameModel`.

A position of the plain game (dominoes never disappear) is the set of empty cells, but
only the lengths of the maximal empty segments matter, not their order or place, and:

* a segment shorter than ``K`` can never hold a domino: it is dropped;
* a segment of length ``L`` with ``K <= L < 2K`` takes exactly one domino, after which
  both pieces are shorter than ``K``: it behaves exactly like a segment of length ``K``,
  and is stored as one;
* for ``K = 1`` every empty cell is one move, whatever the segments: the state is the
  number of empty cells.

So a state is the sorted tuple of the remaining lengths (:func:`canonical`), and a move
replaces one length ``L`` by the canonical forms of ``a`` and ``L - K - a``
(:func:`split_table` lists the distinct leftovers of each length once). Each such map is a
bisimulation (the same moves to equivalent states), so values and remoteness are exact;
the total canonical length strictly falls with every move, so the graph is acyclic.

The model's states are already canonical, so it needs no ``canonical`` hook, and its moves
are distinct by construction: two moves ``(L, pieces)`` and ``(L', pieces')`` of one state
with ``L != L'`` lead to different states, because every piece is shorter than the
segment it came from (so neither multiset can make up for the other's missing length).
Written this way the game goes through the shared explorer and retrograde solver
(:func:`perfectplay.models.solve_model`) like any user's model.

>>> from perfectplay.models import solve_model
>>> sol = solve_model(DispdomModel("0000011000", k=2), progress=False)
>>> str(sol.start_value.value), sol.start_value.remoteness, sol.n_positions
('win', 3, 5)
>>> [(m.action, str(m.value)) for m in sol.options((2, 5))]   # cover the 2, or leave a live 2
[((2, ()), 'WIN in 3'), ((5, (2,)), 'WIN in 3')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from perfectplay.models.base import GameModel

State = tuple[int, ...]
#: A move: the canonical length of the segment played on and the live pieces it leaves.
Move = tuple[int, State]


def segments(strip: str) -> list[int]:
    """Lengths of the maximal runs of empty cells, left to right.

    >>> segments("0010001000")
    [2, 3, 3]
    """
    return [len(run) for run in strip.split("1") if run]


def canonical(lengths: Iterable[int], k: int) -> State:
    """The canonical state of a multiset of empty-segment lengths (module docstring).

    Idempotent, so canonical states can be fed back in.

    >>> canonical([1, 3, 7, 2], k=2)   # 1 is dead, 3 acts like 2
    (2, 2, 7)
    >>> canonical([7, 1, 4], k=1), canonical([7, 1, 4], k=3), canonical([], k=2)
    ((12,), (3, 7), ())
    """
    if k == 1:
        total = sum(lengths)
        return (total,) if total else ()
    return tuple(sorted(length if length >= 2 * k else k for length in lengths if length >= k))


def split_table(n: int, k: int) -> list[tuple[State, ...]]:
    """``table[L]``: the distinct canonical leftovers (sorted tuples of the live pieces) of
    one move on a canonical segment of length ``L``, for ``L`` up to ``n`` (``k >= 2``).

    >>> split_table(6, 2)[6]   # 0+4, 1+3 -> 2, 2+2
    ((4,), (2,), (2, 2))
    """

    def live(x: int) -> int:
        return x if x >= 2 * k else (k if x >= k else 0)

    table: list[tuple[State, ...]] = []
    for length in range(n + 1):
        room = length - k
        seen: dict[State, None] = {}
        for a in range(room // 2 + 1) if room >= 0 else ():
            seen[tuple(sorted(x for x in (live(a), live(room - a)) if x))] = None
        table.append(tuple(seen))
    return table


class DispdomModel(GameModel):
    """The plain placement game with dominoes of ``k`` cells, from ``strip`` (``'1'``
    blocked, ``'0'`` empty), on canonical states; whoever cannot move loses.

    A move is ``(L, pieces)``: a domino on a segment of canonical length ``L`` that leaves
    the live ``pieces`` (see :func:`split_table`).
    """

    def __init__(self, strip: str, k: int) -> None:
        self.k = k
        self.first: State = canonical(segments(strip), k)
        # Every move of every segment length, tabulated once: moves() only concatenates.
        if k == 1:
            self._moves: list[tuple[Move, ...]] = [()] + [
                ((t, (t - 1,) if t > 1 else ()),) for t in range(1, len(strip) + 1)
            ]
        else:
            table = split_table(len(strip), k)
            self._moves = [tuple((length, p) for p in ps) for length, ps in enumerate(table)]

    def __repr__(self) -> str:
        return f"DispdomModel(start={self.first}, k={self.k})"

    def start(self) -> State:
        return self.first

    def state_of(self, strip: str) -> State:
        """The canonical state of any strip for this ``k`` (its position key)."""
        return canonical(segments(strip), self.k)

    def moves(self, state: State) -> Sequence[Move]:
        table = self._moves
        if len(state) < 2:
            return table[state[0]] if state else ()
        # Equal segments give the same moves: each distinct length once (state is sorted).
        out: list[Move] = []
        previous = -1
        for length in state:
            if length != previous:
                out += table[length]
                previous = length
        return out

    def play(self, state: State, move: Move) -> State:
        """The canonical state after ``move``: one ``length`` replaced by its ``pieces``.

        >>> DispdomModel("0" * 9, k=2).play((2, 2, 7), (7, (2, 2)))   # 2 + domino + 3
        (2, 2, 2, 2)
        """
        length, pieces = move
        i = state.index(length)
        rest = state[:i] + state[i + 1 :]
        return tuple(sorted(rest + pieces)) if pieces else rest


def next_states(state: State, k: int, table: list[tuple[State, ...]] | None = None) -> list[State]:
    """Canonical states one move away from a canonical state (each once).

    ``table`` is :func:`split_table` for ``k`` (computed when omitted). The same children as
    :class:`DispdomModel`'s moves, listed without move objects.

    >>> next_states((2, 5), k=2)   # every move on the 5 leaves one live piece
    [(5,), (2, 2)]
    """
    if k == 1:
        return [(state[0] - 1,) if state[0] > 1 else ()] if state else []
    if table is None:
        table = split_table(max(state, default=0), k)
    out: list[State] = []
    previous = -1
    for i, length in enumerate(state):
        if length != previous:
            previous = length
            rest = state[:i] + state[i + 1 :]
            out += (tuple(sorted(rest + pieces)) if pieces else rest for pieces in table[length])
    return out


__all__ = [
    "DispdomModel",
    "Move",
    "State",
    "canonical",
    "next_states",
    "segments",
    "split_table",
]
