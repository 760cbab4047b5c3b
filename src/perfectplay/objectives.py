"""What a chance graph asks: the objective of its player.

An :class:`Objective` says whether the player minimises or maximises, what the number
being optimised measures (a cost paid per roll, a score, a probability), the unit it is
counted in, and what a play that never reaches a terminal node is worth (``endless``).
The *outcome* of one play is the sum of the costs of the rolls made plus the value of the
terminal node reached; the *value* of a node is the expected outcome under optimal play.

Today's question, "least expected number of rolls to finish", is :data:`MIN_COST`, the
default of every graph. This module imports nothing heavy (no NumPy), so the command line
and reports can use it freely.

>>> MIN_COST.describe(), MIN_COST.endless
('minimise expected rolls', inf)
>>> best = Objective.score()
>>> best.describe(), best.endless, best.better(3, 2), best.best_of([1, 5, 2])
('maximise expected score', -inf, True, 5)
>>> Objective.probability().orient, Objective.probability().endless
(-1, 0.0)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = ["MIN_COST", "WIN_CHANCE", "Objective"]

Sense = Literal["min", "max"]
Measure = Literal["cost", "score", "probability", "outcome"]


@dataclass(frozen=True)
class Objective:
    """The player's objective: ``sense`` (``"min"`` or ``"max"``) of the expected
    ``measure`` (``"cost"``, ``"score"`` or ``"probability"``), counted in ``unit``.

    Build one with :meth:`cost`, :meth:`score` or :meth:`probability`.
    """

    sense: Sense = "min"
    measure: Measure = "cost"
    unit: str = "rolls"

    def __post_init__(self) -> None:
        if self.sense not in ("min", "max"):
            raise ValueError(f"sense must be 'min' or 'max', not {self.sense!r}")
        if self.measure not in ("cost", "score", "probability", "outcome"):
            raise ValueError(
                f"measure must be 'cost', 'score', 'probability' or 'outcome', not {self.measure!r}"
            )

    @classmethod
    def cost(cls, unit: str = "rolls") -> Objective:
        """Minimise the expected total cost (``unit``: what one cost unit counts)."""
        return cls("min", "cost", unit)

    @classmethod
    def score(cls, sense: Sense = "max", unit: str = "score") -> Objective:
        """Maximise (or minimise) the expected score: the terminal value plus costs."""
        return cls(sense, "score", unit)

    @classmethod
    def probability(cls, sense: Sense = "max", unit: str = "probability") -> Objective:
        """Maximise (or minimise) the probability of the event the terminal values mark
        (terminal values between 0 and 1; a play that never ends counts as 0)."""
        return cls(sense, "probability", unit)

    @classmethod
    def outcome(cls) -> Objective:
        """A game without dice: the best outcome for the player to move (win, then tie,
        then draw, then lose), won soonest and lost latest. Its values are outcomes with
        remoteness, not numbers: only results use it, no graph solver.

        >>> Objective.outcome().describe()
        'maximise outcome'
        """
        return cls("max", "outcome", "outcome")

    @property
    def orient(self) -> int:
        """``+1`` when minimising, ``-1`` when maximising: ``orient * value`` is minimised."""
        return 1 if self.sense == "min" else -1

    @property
    def endless(self) -> float:
        """The value of a play that never reaches a terminal node.

        A probability counts it as 0 (the event never happened); otherwise it is the worst
        value there is: ``inf`` when minimising, ``-inf`` when maximising.
        """
        if self.measure == "probability":
            return 0.0
        return math.inf * self.orient

    def better(self, a: float, b: float) -> bool:
        """Whether value ``a`` is strictly better than ``b`` for this player."""
        return a < b if self.sense == "min" else a > b

    def prefers(self, a: float, b: float) -> bool:
        """Whether ``a`` is at least as good as ``b`` (ties prefer ``a``)."""
        return not self.better(b, a)

    def best_of(self, values: Iterable[float]) -> float:
        """The best of ``values`` for this player."""
        return min(values) if self.sense == "min" else max(values)

    @property
    def verb(self) -> str:
        """``minimise`` or ``maximise``."""
        return "minimise" if self.sense == "min" else "maximise"

    @property
    def noun(self) -> str:
        """What a value is called in reports: ``expected rolls``, ``expected score``, or
        for a probability its unit alone (a probability is already an expectation).

        >>> Objective.score().noun, Objective.probability().noun
        ('expected score', 'probability')
        """
        if self.measure in ("probability", "outcome"):
            return self.unit
        return f"expected {self.unit}"

    def describe(self) -> str:
        """One phrase for reports, e.g. ``minimise expected rolls``."""
        return f"{self.verb} {self.noun}"


MIN_COST = Objective.cost()
"""The default objective: minimise the expected number of rolls (total cost)."""

WIN_CHANCE = Objective.probability("max", "winning chance")
"""Two players with dice: the player to move maximises their chance of winning."""
