"""Solitaire Yahtzee and its family: rules as data, solved by tiered backward induction.

>>> from perfectplay.yahtzee import rules
>>> rules("american").n_categories
13

``solve("american")`` builds the whole table in a few seconds; see
:mod:`perfectplay.yahtzee.solution` (every option's value),
:func:`perfectplay.yahtzee.simulate.simulate` (seeded games under the optimal policy) and
:func:`score_distribution` (the exact distribution of the final score).
"""

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
    from perfectplay.yahtzee.distribution import ScoreDistribution, score_distribution
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import RULES, Category, Rules, rules
    from perfectplay.yahtzee.simulate import SimulationResult
    from perfectplay.yahtzee.solution import Card, Situation, YahtzeeOption, YahtzeeSolution, solve

__all__ = [
    "RULES",
    "Card",
    "Category",
    "Rules",
    "ScoreDistribution",
    "ScorecardGame",
    "SimulationResult",
    "Situation",
    "YahtzeeOption",
    "YahtzeeSolution",
    "rules",
    "score_distribution",
    "solve",
]

_MODULES = {
    "perfectplay.yahtzee.distribution": ["ScoreDistribution", "score_distribution"],
    "perfectplay.yahtzee.game": ["ScorecardGame"],
    "perfectplay.yahtzee.simulate": ["SimulationResult"],
    "perfectplay.yahtzee.ruleset": ["RULES", "Category", "Rules", "rules"],
    "perfectplay.yahtzee.solution": [
        "Card",
        "Situation",
        "YahtzeeOption",
        "YahtzeeSolution",
        "solve",
    ],
}
__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _MODULES.items() for name in names}
)
