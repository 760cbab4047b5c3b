"""FiveHundredEleven solved: the winner, the first moves, one optimal line of play."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

from perfectplay.graphs.game import GameSolution, Outcome
from perfectplay.problems.fivehundredeleven.build import Model, build
from perfectplay.problems.fivehundredeleven.instance import PLAYERS, Instance


class FirstMove(NamedTuple):
    """A first move of Fox Ciel: the card values that make it, the position and memory
    after it, and its value and remoteness for her (counting this move)."""

    cards: tuple[int, ...]
    child: int
    memory: int
    value: Outcome
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
        return self.game.start_value == Outcome.WIN

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


def solve(instance: Instance | Iterable[int]) -> Solution:
    """Solve an instance (or a list of card values).

    Small games run the solver interpreted (no numba start-up); a process solving many
    games switches to the compiled solver once their interpreted time adds up
    (:func:`~perfectplay._util.jit.budget_spent`), after which each game costs about
    a millisecond.

    >>> solve([511]).winner, solve([0, 0, 0]).winner
    ('Toastman', 'Fox Ciel')
    """
    from perfectplay.solvers.retrograde import solve_retrograde

    if not isinstance(instance, Instance):
        instance = Instance.from_cards(instance)
    model = build(instance)
    return Solution(model, solve_retrograde(model.graph, method="acyclic"))
