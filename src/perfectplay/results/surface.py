"""The one result surface: what every solved game answers, solved now or loaded from disk.

:class:`Solution` is the base of every solved thing :func:`perfectplay.solve` and
:func:`perfectplay.load` return: a chance model, a two-player model, a two-player dice
model, a Yahtzee rule set, a saved table. Each answers the same questions with the same
names and kinds:

==================  =========================================================================
``start_value``     the value of the start (``value()``)
``value(state)``    the value of a state: a float in the objective's unit, or for a game
                    without dice a :class:`~perfectplay.results.options.Result`
``options(state)``  every choice with its value, regret, label and the state it leads to,
                    best first, ties marked (:class:`~perfectplay.results.options.Option`);
                    like ``value``, ``options``, ``best`` and ``options_json`` take the
                    start when the state is omitted
``best(state)``     the optimal choices (several when they tie)
``exact(state)``    the exact value (a :class:`~fractions.Fraction`) where the solve can
                    give one; :class:`~perfectplay.errors.UnsupportedError` otherwise
``distribution``    the distribution of the outcome (what it counts depends on the kind)
``simulate``        seeded plays with the optimal strategy
``save(path)``      the table on disk, which :func:`perfectplay.load` reads back
``states()``        every solved state
``objective``       what is optimised (:class:`~perfectplay.objectives.Objective`)
``solver``          the algorithm that ran
``options_json``    ``options`` as JSON data: all a page needs
==================  =========================================================================

A question a kind cannot answer raises :class:`~perfectplay.errors.UnsupportedError` with
one line saying why, never ``AttributeError``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

from perfectplay.errors import PerfectplayError, UnsupportedError
from perfectplay.objectives import Objective
from perfectplay.results.options import Option, best_actions

__all__ = ["Solution"]


class Solution(ABC):
    """The base of every solved game (see the module docstring for the vocabulary).

    Subclasses implement :meth:`value`, :meth:`options`, :meth:`states`, :meth:`save` and
    the :attr:`objective`, :attr:`solver` and :attr:`name` properties; :meth:`best`,
    :meth:`options_json` and :attr:`start_value` follow from them, and the questions a
    kind cannot answer say so.
    """

    #: ``"chance"`` (one player with dice), ``"game"`` (two players, no dice),
    #: ``"stochastic"`` (two players with dice) or ``"scorecard"`` (the Yahtzee family).
    kind: str = ""

    @property
    @abstractmethod
    def name(self) -> str:
        """The game's name (the model's class, the rule set)."""

    @property
    @abstractmethod
    def objective(self) -> Objective:
        """What the solve optimised."""

    @property
    @abstractmethod
    def solver(self) -> str:
        """The algorithm that ran (for a loaded table: the one that made it)."""

    @abstractmethod
    def value(self, state: Any = None) -> Any:
        """The value of ``state`` (the start when omitted) for the player to move."""

    @abstractmethod
    def options(self, state: Any = None) -> list[Option]:
        """Every choice of ``state`` (the start when omitted, as for :meth:`value`) with
        its value and regret, best first; empty where the game is over."""

    @abstractmethod
    def states(self) -> Iterator[Any]:
        """Every solved state, in table order."""

    @abstractmethod
    def save(self, path: str | Path, *, exact: bool = False) -> Path:
        """Write the solved table to ``path`` (written whole or not at all), with every
        state's exact value when ``exact`` (where the kind has them); returns the path
        written. :func:`perfectplay.load` reads it back."""

    @property
    def start_value(self) -> Any:
        """The value of the start."""
        return self.value()

    def __repr__(self) -> str:
        """``<StochasticModelSolution Pig (stochastic): start 0.530592725>``: what was
        solved and the start's value, for every kind (a subclass may say more)."""
        try:
            v = self.start_value
        except PerfectplayError as exc:  # a table that cannot value its start says why
            shown = f"no start value ({exc})"
        else:
            shown = f"start {v:.9g}" if isinstance(v, float) else f"start {v}"
        return f"<{type(self).__name__} {self.name} ({self.kind}): {shown}>"

    def best(self, state: Any = None) -> list[Any]:
        """The optimal choices of ``state`` (the start when omitted; the ``action`` of every
        option tied with the best); empty where the game is over or nothing reaches a goal."""
        return best_actions(self.options(state))

    def options_json(self, state: Any = None) -> list[dict[str, Any]]:
        """:meth:`options` as JSON data (:meth:`Option.to_json`), best first."""
        return [o.to_json() for o in self.options(state)]

    def exact(self, state: Any = None) -> Fraction | None:
        """The exact value of ``state`` (the start when omitted); ``None`` for an infinite
        value."""
        raise UnsupportedError(
            f"{self.name}: exact values are not available for a {self.kind} solution"
        )

    def distribution(self, k_max: int) -> Any:
        """The distribution of the outcome under optimal play, up to ``k_max``."""
        raise UnsupportedError(f"{self.name}: no outcome distribution for a {self.kind} solution")

    def simulate(self, runs: int, seed: int = 0) -> Any:
        """``runs`` seeded plays with the optimal strategy."""
        raise UnsupportedError(f"{self.name}: no simulation for a {self.kind} solution")

    def export(self, path: str | Path, exact: bool = False) -> Path:
        """The same as :meth:`save` (its name before the result surface was one)."""
        return self.save(path, exact=exact)
