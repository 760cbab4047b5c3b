"""The result: the solved graph plus the problem's decoder (nodes in the problem's words).

>>> from perfectplay.problems._template.instance import Instance
>>> s = solve(Instance(6, 5))
>>> s.value, s.hit_probability
(3.0, Fraction(1, 3))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .instance import Instance

if TYPE_CHECKING:
    from perfectplay.graphs.chance import ChanceGraph, ChanceSolution


@dataclass(frozen=True, eq=False)
class Solution:
    """An instance, its graph and the core's solution of it."""

    instance: Instance
    graph: ChanceGraph
    chance: ChanceSolution

    @property
    def value(self) -> float:
        """The expected number of rolls from the start."""
        return self.chance.value

    @property
    def hit_probability(self) -> Fraction:
        """The chance that one roll shows the target or more, exactly."""
        return Fraction(self.instance.faces - self.instance.target + 1, self.instance.faces)

    def node_name(self, node: int) -> str:
        """A decision node in the problem's words."""
        from .build import HIT, START

        return {START: "before the first roll", HIT: "target reached"}.get(node, "missed")


def solve(instance: Instance) -> Solution:
    """Build the graph of ``instance`` and solve it with the core (``method="auto"``)."""
    from perfectplay.solvers import solve_chance

    from .build import build

    graph = build(instance)
    return Solution(instance, graph, solve_chance(graph))
