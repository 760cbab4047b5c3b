"""Text reports of a solved chance graph, shared by the dice commands.

``--distribution K`` and ``--exact`` print the same kind of thing for every dice game: the
probability of having finished within ``k`` rolls for ``k = 1..K`` with the median and the
90th percentile, and an exact value as ``p/q``. Keeping the wording here gives every
command the same output and keeps the game modules to their rules.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.solvers.retry import solve_retry
>>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 1)]])
>>> print(distribution_report(g, solve_retry(g), 3))
rolls  P(done within)
    1  0.500000000
    2  0.750000000
    3  0.875000000
mean 2.000000000 rolls, median 1, 90th percentile 4
>>> fraction_text(None), fraction_text(Fraction(47, 10))
('inf', '47/10')
"""

from __future__ import annotations

import math
from fractions import Fraction

from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.objectives import MIN_COST, Objective

__all__ = ["distribution_report", "fraction_text", "percentile_text"]


def fraction_text(value: Fraction | None, objective: Objective = MIN_COST) -> str:
    """``p/q`` (``p`` alone for an integer), or the objective's value of a play that never
    ends for ``None`` (``inf`` when minimising a cost: no goal reachable)."""
    if value is None:
        endless = objective.endless
        return ("-inf" if endless < 0 else "inf") if math.isinf(endless) else f"{endless:g}"
    if value.denominator == 1:
        return str(value.numerator)
    return f"{value.numerator}/{value.denominator}"


def _search_limit(graph: ChanceGraph) -> int:
    from perfectplay.analysis.distribution import MAX_K, MAX_WORK

    edges = max(1, int(graph.outcome_idx.shape[0]))
    # Half the work budget: the doubling search may overshoot the answer by a factor 2.
    return max(1, min(MAX_K, MAX_WORK // (2 * edges) - 1))


def percentile_text(graph: ChanceGraph, solution: ChanceSolution, q: float) -> str:
    """Smallest ``k`` with P(done within ``k``) >= ``q``, as text (bounded work)."""
    from perfectplay.analysis.distribution import quantile

    limit = _search_limit(graph)
    k = quantile(graph, solution, q, limit)
    return f"more than {limit:,}" if k is None else str(k)


def distribution_report(
    graph: ChanceGraph, solution: ChanceSolution, k_max: int, unit: str | None = None
) -> str:
    """Table of P(done within ``k`` ``unit``) for ``k = 1..k_max`` under the solution's
    policy, then the mean, median and 90th percentile. ``unit`` defaults to the graph's
    objective's (``rolls`` for :data:`~perfectplay.objectives.MIN_COST`).

    Probabilities are floats (about 1e-12 accurate), so a percentile that falls exactly
    on a step of the distribution may be reported one step late or early.
    """
    from perfectplay.analysis.distribution import cost_distribution

    unit = graph.objective.unit if unit is None else unit
    cdf = cost_distribution(graph, solution, k_max)
    width = max(len(unit), len(str(k_max)))
    # A cost is paid roll by roll ("done within k"); a score or a probability is the
    # outcome of the play, which may be 0 ("at most k").
    cost = graph.objective.measure == "cost"
    lines = [f"{unit:>{width}}  " + ("P(done within)" if cost else "P(outcome <= k)")]
    lines += [f"{k:>{width}}  {cdf[k]:.9f}" for k in range(1 if cost else 0, k_max + 1)]
    mean = solution.value
    if math.isinf(mean):
        endless = fraction_text(None, graph.objective)
        lines.append(f"mean {endless} {unit}: the goal cannot be reached")
    else:
        lines.append(
            f"mean {mean:.9f} {unit}, median {percentile_text(graph, solution, 0.5)}, "
            f"90th percentile {percentile_text(graph, solution, 0.9)}"
        )
    return "\n".join(lines)
