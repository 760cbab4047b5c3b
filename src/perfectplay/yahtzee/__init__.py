"""Solitaire Yahtzee and its family: rules as data, solved by tiered backward induction.

>>> from perfectplay.yahtzee import rules
>>> rules("american").n_categories
13

``solve("american")`` builds the whole table in a few seconds; see
:mod:`perfectplay.yahtzee.solution`.
"""

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import RULES, Category, Rules, rules
    from perfectplay.yahtzee.solution import Card, Situation, YahtzeeOption, YahtzeeSolution, solve

__all__ = [
    "RULES",
    "Card",
    "Category",
    "Rules",
    "ScorecardGame",
    "Situation",
    "YahtzeeOption",
    "YahtzeeSolution",
    "rules",
    "solve",
]

_MODULES = {
    "perfectplay.yahtzee.game": ["ScorecardGame"],
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
