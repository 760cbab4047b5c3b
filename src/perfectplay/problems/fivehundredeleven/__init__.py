"""TopCoder SRM 511 "FiveHundredEleven": a card game on a 9-bit memory.

Fox Ciel and Toastman share a memory that starts at 0 and a set of cards with values
0..511. Taking turns, Fox Ciel first, a player plays one card nobody has played yet and
the memory becomes ``memory | card``. Whoever makes the memory 511 loses; whoever has no
card left to play loses. Who wins with perfect play?

**The model.** A position is ``(m, t)``: the memory ``m`` and the number ``t`` of cards
played so far (whose turn it is follows from ``t``). This forgets *which* cards were
played, and loses nothing:

* every played card is a subset of ``m`` (the memory is the OR of the played cards), so
  every card that is not a subset of ``m`` is certainly unplayed;
* among the ``s(m)`` cards that are subsets of ``m``, exactly ``t`` are played and
  ``s(m) - t`` are not; an unplayed subset card leaves the memory as it is, now and in
  every later position (memories only grow), so unplayed subset cards are
  interchangeable "passes" and only their number matters.

So the moves of ``(m, t)`` are: a pass to ``(m, t + 1)`` when ``t < s(m)``, and
``(m | x, t + 1)`` for every value ``x`` among the cards that are not subsets of ``m``.
The position with memory 511 is terminal, a win for the player to move (the opponent made
511); a position without moves is a loss. Two games with the same ``(m, t)`` have the same
moves to the same abstract positions, so they have the same value and remoteness: the
abstraction is exact, and ``t`` strictly grows, so the graph is acyclic.

The reachable positions are exactly ``d(m) <= t <= s(m)`` for the memories ``m`` that
ORs of cards can reach, where ``d(m)`` is the fewest cards whose OR is ``m`` (play those,
then any ``t - d(m)`` other subset cards; no prefix reaches 511 before the end). Positions
``(511, t)`` are included for every ``d(511) <= t <= N``; a few of them may be unreachable,
which is harmless since they are terminal. At most ``512 * 51`` positions; the graph is
built with a few vectorised numpy operations and solved by
:func:`perfectplay.solvers.retrograde.solve_retrograde`.

>>> sol = solve([3, 5, 7, 9, 510])
>>> format(sol), sol.remoteness   # 510 first: every card left completes 511
('Fox Ciel', 2)
>>> [(m.cards, m.value.name, m.remoteness) for m in sol.first_moves()][:2]
[((510,), 'WIN', 2), ((3,), 'LOSE', 5)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from perfectplay.cli.common import input_lines, quote_token
from perfectplay.errors import InputError, short_repr
from perfectplay.graphs.game import GameGraph, GameSolution, Value

MAX_CARDS = 50
FULL = 511
PLAYERS = ("Fox Ciel", "Toastman")


@dataclass(frozen=True)
class Instance:
    """The cards of one game, in input order."""

    cards: tuple[int, ...]

    @classmethod
    def from_cards(cls, cards: Iterable[int]) -> Instance:
        """Validate card values given from Python.

        >>> Instance.from_cards([511]).cards
        (511,)
        """
        values = tuple(cards)
        if not 1 <= len(values) <= MAX_CARDS:
            raise InputError(
                f"the number of cards must be from 1 to {MAX_CARDS}, got {len(values)}"
            )
        for i, x in enumerate(values):
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= FULL:
                raise InputError(
                    f"card {i + 1} must be an integer from 0 to {FULL}, got {short_repr(x)}"
                )
        return cls(values)


def parse(text: str) -> Instance:
    """Read ``N`` and then ``N`` card values (any whitespace separates them).

    >>> parse("5\\n3 5 7 9 510\\n").cards
    (3, 5, 7, 9, 510)
    """
    tokens = [(tok, k + 1) for k, line in enumerate(input_lines(text)) for tok in line.split()]
    if not tokens:
        raise InputError("empty input: expected N, the number of cards")
    tok, line = tokens[0]
    n = _integer(tok, line, "N (the number of cards)", 1, MAX_CARDS)
    if len(tokens) - 1 < n:
        last = tokens[-1][1]
        raise InputError(f"expected {n} card values, got {len(tokens) - 1}", line=last)
    cards = [
        _integer(tok, line, f"card {i + 1}", 0, FULL)
        for i, (tok, line) in enumerate(tokens[1 : n + 1])
    ]
    if len(tokens) > n + 1:
        tok, line = tokens[n + 1]
        what = "1 card" if n == 1 else f"{n} cards"
        raise InputError(f"unexpected {quote_token(tok)} after the {what}", line=line)
    return Instance(tuple(cards))


def _integer(tok: str, line: int, what: str, lo: int, hi: int) -> int:
    digits = tok[1:] if tok[0] in "+-" else tok
    if not (digits.isascii() and digits.isdigit()):
        raise InputError(f"{what} must be an integer, got {quote_token(tok)}", line=line)
    if len(digits) > 18 or not lo <= int(tok) <= hi:
        shown = tok if len(tok) <= 20 else tok[:20] + "..."
        raise InputError(f"{what} must be from {lo} to {hi}, got {shown}", line=line)
    return int(tok)


@dataclass(frozen=True, eq=False)
class Model:
    """The game graph of an instance and what each position means.

    Attributes:
        graph: positions ``(memory, played)`` in CSR form, start ``(0, 0)`` = id 0.
        memory: ``int64[n]``, the memory of each position.
        played: ``int64[n]``, the number of cards played before it.
    """

    instance: Instance
    graph: GameGraph
    memory: Any
    played: Any


def build(instance: Instance) -> Model:
    """The ``(memory, played)`` game graph of ``instance`` (see the module docstring).

    Positions are numbered by memory, then by cards played; every move goes to a larger
    id, so the retrograde solver's acyclic path finishes each position in one visit.
    """
    import numpy as np

    cards = np.asarray(instance.cards, dtype=np.int64)
    values = np.unique(cards)
    # subsets[m]: cards whose bits all lie in m (sum over submasks, one bit at a time).
    subsets = np.bincount(cards, minlength=FULL + 1)
    for b in range(9):
        view = subsets.reshape(-1, 2, 1 << b)
        view[:, 1, :] += view[:, 0, :]
    # fewest[m]: fewest cards whose OR is m, by breadth-first search over ORs (-1: never).
    fewest = np.full(FULL + 1, -1, np.int64)
    fewest[0] = 0
    frontier = np.zeros(1, np.int64)
    depth = 0
    while frontier.size:
        depth += 1
        seen = np.zeros(FULL + 1, np.bool_)
        seen[frontier[:, None] | values[None, :]] = True
        frontier = np.flatnonzero(seen & (fewest < 0))
        fewest[frontier] = depth
    mems = np.flatnonzero(fewest >= 0)  # ascending, mems[0] == 0
    k = mems.size
    slot = np.full(FULL + 1, -1, np.int64)
    slot[mems] = np.arange(k)
    lo = fewest[mems]
    hi = subsets[mems]
    sizes = hi - lo + 1
    base = np.cumsum(sizes) - sizes
    # The moves of memory m, the same for every t: the distinct memories m | x over cards x
    # that are not subsets of m, then m itself (a pass). The move to memory j from (m, t)
    # goes to (j, t + 1), id base[j] + t + 1 - lo[j]; a pass is just the case j = m.
    after = mems[:, None] | values[None, :]
    after = np.where(after != mems[:, None], after, FULL + 1)
    after.sort(axis=1)
    keep = after <= FULL
    keep[:, 1:] &= after[:, 1:] != after[:, :-1]
    full_row = mems == FULL
    after = np.concatenate([after, mems[:, None]], axis=1)
    keep = np.concatenate([keep, ~full_row[:, None]], axis=1)
    width = keep.sum(axis=1)  # moves of each memory, pass included (0 at memory 511)
    target = slot[after[keep]]  # row by row
    shift = base[target] - lo[target] + 1
    first = np.cumsum(width) - width

    total = int(sizes.sum())
    node_mem = np.repeat(np.arange(k), sizes)
    node_t = lo[node_mem] + np.arange(total) - base[node_mem]
    node_width = width[node_mem]
    edge_start = np.cumsum(node_width) - node_width
    move = np.arange(int(node_width.sum())) - np.repeat(edge_start - first[node_mem], node_width)
    children = shift[move] + np.repeat(node_t, node_width)
    # No pass once every subset card is played: drop the last move of each memory's last t.
    last = base + sizes - 1
    no_pass = last[~full_row]
    children = np.delete(children, edge_start[no_pass] + node_width[no_pass] - 1)
    degree = node_width
    degree[no_pass] -= 1
    indptr = np.zeros(total + 1, np.int64)
    np.cumsum(degree, out=indptr[1:])
    terminal = np.zeros(total, np.int8)
    terminal[node_mem == k - 1] = Value.WIN if full_row[-1] else 0
    graph = GameGraph(indptr, children.astype(np.int32), terminal, 0)
    return Model(instance, graph, mems[node_mem], node_t)


class FirstMove(NamedTuple):
    """A first move of Fox Ciel: the card values that make it, the position and memory
    after it, and its value and remoteness for her (counting this move)."""

    cards: tuple[int, ...]
    child: int
    memory: int
    value: Value
    remoteness: int


@dataclass(frozen=True, eq=False)
class Solution:
    """The solved game: who wins, in how many moves, and how.

    Attributes:
        model: the game graph with the meaning of each position.
        game: value and remoteness of every position (for the player to move).
    """

    model: Model
    game: GameSolution

    def __repr__(self) -> str:
        cards = self.model.instance.cards
        return (
            f"<fivehundredeleven.Solution {len(cards)} cards: {self.winner} wins "
            f"in {self.remoteness}, {self.n_positions:,} positions>"
        )

    @property
    def first_player_wins(self) -> bool:
        return self.game.start_value == Value.WIN

    @property
    def winner(self) -> str:
        return PLAYERS[0] if self.first_player_wins else PLAYERS[1]

    @property
    def remoteness(self) -> int:
        """Cards played until the game ends when the winner hurries and the loser delays."""
        return self.game.start_remoteness

    @property
    def n_positions(self) -> int:
        return self.model.graph.n_positions

    def cards_for(self, p: int, c: int, played: Iterable[int] = ()) -> tuple[int, ...]:
        """Distinct values of the unplayed cards that move position ``p`` to its child ``c``.

        ``played`` lists the cards played before ``p`` (the position itself only knows how
        many), so that a pass names a card that is really still in hand.
        """
        left = Counter(self.model.instance.cards)
        left.subtract(played)
        m, m2 = int(self.model.memory[p]), int(self.model.memory[c])
        return tuple(sorted(x for x, k in left.items() if k > 0 and x | m == m2))

    def first_moves(self) -> list[FirstMove]:
        """Every distinct first move, best for Fox Ciel first."""
        return [
            FirstMove(
                self.cards_for(0, mv.child),
                mv.child,
                int(self.model.memory[mv.child]),
                mv.value,
                mv.remoteness,
            )
            for mv in self.game.moves(0)
        ]

    def line(self) -> list[tuple[str, int, int]]:
        """One optimal line of play: ``(player, card, memory after)`` per move."""
        out: list[tuple[str, int, int]] = []
        played: list[int] = []
        p = self.model.graph.start
        while best := self.game.best_moves(p):
            c = best[0].child
            card = self.cards_for(p, c, played)[0]
            played.append(card)
            out.append((PLAYERS[len(out) % 2], card, int(self.model.memory[c])))
            p = c
        return out


def solve(instance: Instance | Iterable[int], *, compiled: bool | None = None) -> Solution:
    """Solve an instance (or a list of card values).

    ``compiled`` is passed to :func:`~perfectplay.solvers.retrograde.solve_retrograde`; a
    caller solving many instances in one process passes ``True`` (numba's start-up is then
    paid once, each later game costs about a millisecond).

    >>> solve([511]).winner, solve([0, 0, 0]).winner
    ('Toastman', 'Fox Ciel')
    """
    from perfectplay.solvers.retrograde import solve_retrograde

    if not isinstance(instance, Instance):
        instance = Instance.from_cards(instance)
    model = build(instance)
    return Solution(model, solve_retrograde(model.graph, compiled=compiled, method="acyclic"))


def format(solution: Solution) -> str:
    """The official answer: ``Fox Ciel`` or ``Toastman``."""
    return solution.winner


def explain(solution: Solution) -> str:
    """The answer with the reason: a winning first card, or every first card and its refutation."""
    out = [solution.winner]
    r = solution.remoteness
    if solution.first_player_wins:
        best = solution.first_moves()[0]
        out.append(
            f"Fox Ciel wins: play {_cards(best.cards)} first (memory 0 -> {best.memory}); "
            f"she wins after {r} card{'s' * (r != 1)} in all against the longest defence."
        )
    elif solution.game.best_moves(0):
        out.append(
            f"Every first card loses; with best play the game lasts {r} card{'s' * (r != 1)} "
            "(Toastman hurries, Fox Ciel delays):"
        )
    else:
        out.append("Fox Ciel has no card to play.")
    if not solution.first_player_wins:
        for mv in solution.first_moves():
            reply = solution.game.best_moves(mv.child)
            answer = ""
            if reply:
                c = reply[0].child
                card = solution.cards_for(mv.child, c, mv.cards[:1])[0]
                answer = f", Toastman answers {card} (memory {int(solution.model.memory[c])})"
            out.append(
                f"  {_cards(mv.cards)}: memory {mv.memory}{answer}; "
                f"Fox Ciel loses after {mv.remoteness} card{'s' * (mv.remoteness != 1)}"
            )
    line = solution.line()
    if line:
        out.append("optimal play: " + ", ".join(f"{who} {card} ({mem})" for who, card, mem in line))
    g = solution.model.graph
    out.append(f"positions (memory, cards played): {g.n_positions:,}; moves: {g.n_moves:,}")
    return "\n".join(out)


def _cards(cards: tuple[int, ...]) -> str:
    return f"card {cards[0]}" if len(cards) == 1 else "a card of " + "/".join(map(str, cards))


__all__ = [
    "FULL",
    "MAX_CARDS",
    "Instance",
    "Model",
    "Solution",
    "build",
    "explain",
    "format",
    "parse",
    "solve",
]
