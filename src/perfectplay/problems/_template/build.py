"""The chance graph: decision nodes start, hit (the goal) and miss; one roll.

A roll from start or from a miss lands on hit with weight ``F - T + 1`` (the faces
``T..F``) and on miss with weight ``T - 1``. Since a miss may roll again, the graph has
the retry property, and :func:`~perfectplay.solvers.solve_chance` picks the
label-setting solver. The objective is the default, the fewest expected rolls
(:data:`~perfectplay.objectives.MIN_COST`): the goal is a terminal node worth 0 and each
roll costs 1. Another objective (a score, a probability) is a different ``objective=`` and
``terminal_value=`` here, nothing else.
"""

from __future__ import annotations

from perfectplay.graphs.chance import ChanceGraph

from .instance import Instance

START, HIT, MISS = 0, 1, 2


def build(instance: Instance) -> ChanceGraph:
    """The graph of ``instance`` (three decision nodes, one chance node).

    >>> build(Instance(6, 6)).n_decision
    3
    """
    hits = instance.faces - instance.target + 1
    misses = instance.target - 1
    outcomes = [(HIT, hits)] + ([(MISS, misses)] if misses else [])
    return ChanceGraph.from_lists(
        terminal=[False, True, False],
        choices=[[0], [], [0]],
        outcomes=[outcomes],
        start=START,
    )
