"""Solitaire Yahtzee and its family: rules as data, solved by tiered backward induction.

>>> from perfectplay.yahtzee import rules
>>> rules("american").n_categories
13

``solve("american")`` builds the whole table in a few seconds; see
:mod:`perfectplay.yahtzee.solution` (every option's value),
:func:`perfectplay.yahtzee.simulate.simulate` (seeded games under the optimal policy) and
:func:`score_distribution` (the exact distribution of the final score).
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.yahtzee.cards import Card, Situation
    from perfectplay.yahtzee.distribution import ScoreDistribution, score_distribution
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import RULES, Category, Rules, rules
    from perfectplay.yahtzee.simulate import SimulationResult
    from perfectplay.yahtzee.solution import YahtzeeAction, YahtzeeOption, YahtzeeSolution, solve

__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".distribution": ["ScoreDistribution", "score_distribution"],
        ".game": ["ScorecardGame"],
        ".ruleset": ["RULES", "Category", "Rules", "rules"],
        ".simulate": ["SimulationResult"],
        ".cards": ["Card", "Situation"],
        ".solution": ["YahtzeeAction", "YahtzeeOption", "YahtzeeSolution", "solve"],
    },
)
