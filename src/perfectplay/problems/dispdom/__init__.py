"""CodeChef DISPDOM, "Disappearing Dominoes": a placement game on a strip whose pieces vanish.

A strip of ``N`` cells has some cells blocked. Alice and Bob alternate, Alice first; a
move covers ``K`` consecutive empty cells with a domino, and a domino placed on turn ``T``
disappears at the start of turn ``T + D``. Whoever cannot move loses. Who wins, or does
the game go on forever?

**Reduction to the plain game** (the editorial's argument). During the first ``D`` turns
nothing has disappeared yet, so the game is the plain placement game. If it has not ended
by then, it never ends: on every turn ``T + D`` the cells of turn ``T``'s domino have just
become free, so the player to move has a move. Hence the only player who can win is the
winner of the plain game, and they win the disappearing game exactly when they can force
the plain game to end in fewer than ``D`` moves: when the plain game's *remoteness* (the
winner hurries, the loser delays) is below ``D``. Otherwise the answer is ``Draw``.

**Canonical states.** A position of the plain game is the set of empty cells, but only the
lengths of the maximal empty segments matter, not their order or place, and:

* a segment shorter than ``K`` can never hold a domino: it is dropped;
* a segment of length ``L`` with ``K <= L < 2K`` takes exactly one domino, after which
  both pieces are shorter than ``K``: it behaves exactly like a segment of length ``K``,
  and is stored as one;
* for ``K = 1`` every empty cell is one move, whatever the segments: the state is the
  number of empty cells.

So a state is the sorted tuple of the remaining lengths (:func:`canonical`); a move
replaces one length ``L`` by the canonical forms of ``a`` and ``L - K - a``
(:func:`next_states`, with the distinct leftovers of each length tabulated once). Each such map
is a bisimulation (the same moves to equivalent states), so values and remoteness are
exact. The total canonical length strictly falls with every move, so the graph is acyclic.
For ``N = 60, K = 2`` there are about 5.5e4 canonical states, where bitmasks would need
up to 2^60.

>>> sol = solve(parse("10 2 10\\n0000011000\\n"))
>>> format(sol), sol.plain_winner, sol.length
('Alice', 'Alice', 3)
>>> canonical([1, 3, 7, 2], k=2)   # 1 is dead, 3 acts like 2
(2, 2, 7)
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.cli.common import int_token, iter_lines, quote_token, split_tokens
from perfectplay.errors import InputError, short_repr
from perfectplay.graphs.canonical import StateIndex
from perfectplay.graphs.game import GameGraph, GameSolution, Value

#: Largest strip accepted. The canonical state space grows like the number of partitions of
#: N (doubling about every 5 cells for K = 2); at N = 64 the worst case (K = 2) explores
#: about 1e5 states in a few seconds. Measured in docs/dispdom.md.
MAX_N = 64
#: D only meets the game length (at most N / K), so any D beyond that means the same; the
#: bound just keeps the input sane.
MAX_D = 10**18
PLAYERS = ("Alice", "Bob")


class Instance(NamedTuple):
    """One game: strip length, domino length, disappearing delay, and the strip itself
    (``'1'`` blocked, ``'0'`` empty)."""

    n: int
    k: int
    d: int
    strip: str

    @classmethod
    def make(cls, strip: str, k: int, d: int) -> Instance:
        """Validate values given from Python.

        >>> Instance.make("0000", k=2, d=3).n
        4
        """
        n = len(strip)
        if not 1 <= n <= MAX_N:
            raise InputError(f"the strip must have 1 to {MAX_N} cells, got {n}")
        if set(strip) - {"0", "1"}:
            raise InputError("the strip may contain only '0' (empty) and '1' (blocked)")
        _check_range("K", k, 1, n)
        _check_range("D", d, 1, MAX_D)
        return cls(n, k, d, strip)


def _check_range(name: str, x: object, lo: int, hi: int, line: int | None = None) -> None:
    if isinstance(x, bool) or not isinstance(x, int) or not lo <= x <= hi:
        raise InputError(
            f"{name} must be an integer from {lo} to {hi}, got {short_repr(x)}", line=line
        )


def parse(text: str) -> Instance:
    """Read ``N K D`` on the first line and the strip of ``N`` characters on the next.

    >>> parse("4 2 3\\n0100\\n")
    Instance(n=4, k=2, d=3, strip='0100')
    """
    # Lazily, the lines that have tokens: reading stops at the third, however long the input.
    lines = ((i, tokens) for i, line in iter_lines(text) if (tokens := split_tokens(line)))
    first = next(lines, None)
    if first is None:
        raise InputError("empty input: expected 'N K D' and then the strip")
    line, head = first
    if len(head) != 3:
        got = "1 token" if len(head) == 1 else f"{len(head)} tokens"
        raise InputError(f"expected three integers 'N K D', got {got}", line=line)
    n = _integer(head[0], "N", 1, MAX_N, line)
    k = _integer(head[1], "K", 1, n, line)
    d = _integer(head[2], "D", 1, MAX_D, line)
    second = next(lines, None)
    if second is None:
        raise InputError(f"missing the strip of {n} cells after 'N K D'", line=line)
    line, rest = second
    if len(rest) != 1:
        raise InputError("the strip must be one word of '0' and '1' characters", line=line)
    strip = rest[0]
    bad = next((c for c in strip if c not in "01"), None)
    if bad is not None:
        raise InputError(f"the strip may contain only '0' and '1', found {bad!r}", line=line)
    if len(strip) != n:
        raise InputError(f"the strip has {len(strip)} cells, expected N = {n}", line=line)
    third = next(lines, None)
    if third is not None:
        line, extra = third
        raise InputError(f"unexpected {quote_token(extra[0])} after the strip", line=line)
    return Instance(n, k, d, strip)


def _integer(tok: str, name: str, lo: int, hi: int, line: int) -> int:
    value = int_token(tok)  # the number rule of every command
    if value is None:
        raise InputError(f"{name} must be an integer, got {quote_token(tok)}", line=line)
    if not lo <= value <= hi:
        shown = tok if len(tok) <= 20 else tok[:20] + "..."
        raise InputError(f"{name} must be from {lo} to {hi}, got {shown}", line=line)
    return value


def segments(strip: str) -> list[int]:
    """Lengths of the maximal runs of empty cells, left to right.

    >>> segments("0010001000")
    [2, 3, 3]
    """
    return [len(run) for run in strip.split("1") if run]


def canonical(lengths: Iterable[int], k: int) -> tuple[int, ...]:
    """The canonical state of a multiset of empty-segment lengths (module docstring).

    Idempotent, so canonical states can be fed back in.

    >>> canonical([7, 1, 4], k=1), canonical([7, 1, 4], k=3), canonical([], k=2)
    ((12,), (3, 7), ())
    """
    if k == 1:
        total = sum(lengths)
        return (total,) if total else ()
    return tuple(sorted(length if length >= 2 * k else k for length in lengths if length >= k))


def split_table(n: int, k: int) -> list[tuple[tuple[int, ...], ...]]:
    """``table[L]``: the distinct canonical leftovers (sorted tuples of the live pieces) of
    one move on a canonical segment of length ``L``, for ``L`` up to ``n`` (``k >= 2``).

    >>> split_table(6, 2)[6]   # 0+4, 1+3 -> 2, 2+2
    ((4,), (2,), (2, 2))
    """

    def live(x: int) -> int:
        return x if x >= 2 * k else (k if x >= k else 0)

    table: list[tuple[tuple[int, ...], ...]] = []
    for length in range(n + 1):
        room = length - k
        seen: dict[tuple[int, ...], None] = {}
        for a in range(room // 2 + 1) if room >= 0 else ():
            seen[tuple(sorted(x for x in (live(a), live(room - a)) if x))] = None
        table.append(tuple(seen))
    return table


def next_states(
    state: tuple[int, ...], k: int, table: list[tuple[tuple[int, ...], ...]] | None = None
) -> Iterator[tuple[int, ...]]:
    """Canonical states one move away from a canonical state (possibly repeated).

    ``table`` is :func:`split_table` for ``k`` (computed when omitted).

    >>> sorted(set(next_states((2, 5), k=2)))   # every move on the 5 leaves one live piece
    [(2, 2), (5,)]
    """
    if k == 1:
        if state:
            yield (state[0] - 1,) if state[0] > 1 else ()
        return
    if table is None:
        table = split_table(max(state, default=0), k)
    previous = -1
    for i, length in enumerate(state):
        if length == previous:  # equal segments give the same states
            continue
        previous = length
        rest = state[:i] + state[i + 1 :]
        for pieces in table[length]:
            yield tuple(sorted(rest + pieces)) if pieces else rest


class Model(NamedTuple):
    """The canonical game graph of an instance; ``graph.index`` maps canonical states to
    position ids (``graph.position(canonical(segments(strip), k))``)."""

    instance: Instance
    graph: GameGraph


def build(instance: Instance) -> Model:
    """Explore the canonical states reachable from the instance's strip, breadth first.

    ``graph.index`` is keyed by canonical states (sorted tuples, see :func:`canonical`).
    """
    k = instance.k
    table = split_table(instance.n, k) if k > 1 else None
    start = canonical(segments(instance.strip), k)
    ids = {start: 0}  # a plain dict while exploring: one look-up per move, nothing more
    keys = [start]
    moves: list[list[int]] = []
    n_moves = 0
    progress = None
    for state in keys:  # grows as new states are found: breadth first
        kids = []
        for child in set(next_states(state, k, table)):
            c = ids.get(child)
            if c is None:
                c = ids[child] = len(keys)
                keys.append(child)
            kids.append(c)
        kids.sort()
        moves.append(kids)
        n_moves += len(kids)
        if not len(moves) & 8191:
            progress = progress or _progress()
            progress.update(len(moves), "states", len(keys))
            require(_STATE_BYTES * len(keys) + _MOVE_BYTES * n_moves, "the dispdom state graph")
    if progress is not None:
        progress.done(f"{len(keys):,} canonical states")
    index = StateIndex()
    for key in keys:
        index.add(key)
    return Model(instance, GameGraph.from_lists(moves, index=index))


# Python's cost of a state (its key tuple, a dict slot, list slots) and of a move (an int
# in a list, then in the array and the solver's lists): generous estimates.
_STATE_BYTES = 400
_MOVE_BYTES = 120


def _progress() -> Progress:
    return Progress("exploring dispdom states")


class Solution:
    """The solved game.

    Attributes:
        model: the canonical game graph.
        game: value and remoteness of every canonical state (player to move's view).
    """

    __slots__ = ("model", "game")

    def __init__(self, model: Model, game: GameSolution) -> None:
        self.model = model
        self.game = game

    def __repr__(self) -> str:
        return f"<dispdom.Solution {self.verdict}: {self.n_states:,} canonical states>"

    @property
    def instance(self) -> Instance:
        return self.model.instance

    @property
    def plain_winner(self) -> str:
        """Who wins the plain game (dominoes never disappear)."""
        return PLAYERS[0] if self.game.start_value == Value.WIN else PLAYERS[1]

    @property
    def length(self) -> int:
        """Moves the plain game lasts when the winner hurries and the loser delays."""
        return self.game.start_remoteness

    @property
    def verdict(self) -> str:
        """``Alice``, ``Bob`` or ``Draw`` for the disappearing game."""
        return self.plain_winner if self.length < self.instance.d else "Draw"

    @property
    def n_states(self) -> int:
        return self.model.graph.n_positions

    def value_of_strip(self, strip: str) -> tuple[Value, int]:
        """Value and remoteness of any strip (for the player to move) with this K."""
        return self.game.lookup(canonical(segments(strip), self.instance.k))

    def line(self) -> list[int]:
        """One optimal line of play on the real strip: the first cell (0-based) covered by
        each move. Each player picks the leftmost placement that keeps the optimum."""
        k = self.instance.k
        cells = list(self.instance.strip)
        out: list[int] = []
        value, rem = self.value_of_strip(self.instance.strip)
        while rem > 0:
            for start in _placements(cells, k):
                after = cells[:start] + ["1"] * k + cells[start + k :]
                v, r = self.value_of_strip("".join(after))
                # The child must be the optimum seen from the other side, one move closer.
                if r == rem - 1 and v == value.for_opponent():
                    break
            else:  # pragma: no cover - the solution is inconsistent
                raise AssertionError("no optimal move found")
            out.append(start)
            cells[start : start + k] = ["1"] * k
            value, rem = v, r
        return out


def _placements(cells: list[str], k: int) -> Iterator[int]:
    run = 0
    for i, c in enumerate(cells):
        run = run + 1 if c == "0" else 0
        if run >= k:
            yield i - k + 1


def solve(instance: Instance, *, compiled: bool | None = None) -> Solution:
    """Build and solve the canonical graph (``compiled`` as in
    :func:`~perfectplay.solvers.retrograde.solve_retrograde`; small instances run without
    numba)."""
    from perfectplay.solvers.retrograde import solve_retrograde

    model = build(instance)
    return Solution(model, solve_retrograde(model.graph, compiled=compiled, method="acyclic"))


def format(solution: Solution) -> str:
    """The official answer: ``Alice``, ``Bob`` or ``Draw``."""
    return solution.verdict


def explain(solution: Solution) -> str:
    """The answer, why, the winner's first move and one optimal line drawn on the strip."""
    inst = solution.instance
    winner, loser = solution.plain_winner, PLAYERS[solution.plain_winner == "Alice"]
    r = solution.length
    moves = f"{r} move{'s' * (r != 1)}"
    out = [solution.verdict]
    if r == 0:
        run = "empty cell" if inst.k == 1 else f"{inst.k} consecutive empty cells"
        out.append(f"Alice has no {run}: she cannot move and loses.")
    else:
        out.append(
            f"Without disappearing, {winner} wins the placement game; with best play ({winner} "
            f"hurries, {loser} delays) it lasts {moves}."
        )
        if solution.verdict == "Draw":
            out.append(
                f"{r} >= D = {inst.d}: {loser} can keep the game going for D moves; from turn "
                "D + 1 on, the domino placed D turns earlier has just disappeared, so the "
                "player to move always has a move and the game never ends."
            )
        else:
            out.append(f"{r} < D = {inst.d}: {loser} is stuck before any domino disappears.")
    line = solution.line()
    if line:
        first = line[0] if winner == "Alice" else line[1]
        out.append(f"{winner}'s first move: {_cells(first, inst.k)} (cells numbered from 1).")
        out.append("optimal play (# blocked, A/B dominoes):")
        cells = ["#" if c == "1" else "." for c in inst.strip]
        out.append(f"  {'start':<10} {''.join(cells)}")
        for turn, start in enumerate(line):
            who = PLAYERS[turn % 2]
            cells[start : start + inst.k] = [who[0]] * inst.k
            out.append(f"  {f'{turn + 1}. {who}':<10} {''.join(cells)}  {_cells(start, inst.k)}")
    g = solution.model.graph
    out.append(f"canonical states: {g.n_positions:,}; moves between them: {g.n_moves:,}")
    return "\n".join(out)


def _cells(start: int, k: int) -> str:
    return f"cell {start + 1}" if k == 1 else f"cells {start + 1}-{start + k}"


__all__ = [
    "MAX_D",
    "MAX_N",
    "Instance",
    "Model",
    "Solution",
    "build",
    "canonical",
    "explain",
    "format",
    "next_states",
    "parse",
    "segments",
    "solve",
    "split_table",
]
