"""Text reports of a solved chance graph, shared by the dice problems and commands.

It sits above :mod:`perfectplay.analysis` (whose distributions it writes out) and below
the gallery and the command line, which both print these reports; numbers are written
by the rules of :mod:`perfectplay.text.numbers`.

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

Two-player dice games count moves instead (:func:`move_distribution_report`): the
probability that the game ends after exactly ``k`` moves, the rest beyond ``K``, play that
never ends, and how the game ends for the first mover.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.text.numbers import DIGITS, decimal_text, fraction_text, probability_text

if TYPE_CHECKING:
    from perfectplay.analysis.distribution import MoveDistribution

__all__ = [
    "distribution_json",
    "require_table",
    "distribution_report",
    "move_distribution_json",
    "move_distribution_report",
    "percentile_text",
]


#: Bytes one row of a distribution costs while it is written, beyond its characters: a
#: Python ``str`` per line (or a ``float`` and a JSON fragment per entry), a list slot,
#: and the joined text. Measured: 10 million rows of ``--distribution`` took about 1.3 GB
#: as text and 0.9 GB as JSON.
ROW_OVERHEAD = 96


def require_table(rows: int, columns: int = 1, digits: int = DIGITS) -> None:
    """Refuse, before its text is built, a table of ``rows`` probabilities (``columns``
    a row) whose text would not fit in memory: the work limits of the distribution allow
    ten million rows, about a gigabyte of text (see :mod:`perfectplay._util.memory`).

    >>> require_table(1000)
    """
    from perfectplay._util.memory import require

    chars = len(str(rows)) + 2 + columns * (digits + 4)
    require(rows * (ROW_OVERHEAD + 2 * chars), f"a distribution table of {rows:,} rows")


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
    graph: ChanceGraph,
    solution: ChanceSolution,
    k_max: int,
    unit: str | None = None,
    digits: int = DIGITS,
) -> str:
    """Table of P(done within ``k`` ``unit``) for ``k = 1..k_max`` under the solution's
    policy, then the mean, median and 90th percentile. ``unit`` defaults to the graph's
    objective's (``rolls`` for :data:`~perfectplay.objectives.MIN_COST`).

    Probabilities are floats (about 1e-12 accurate), so a percentile that falls exactly
    on a step of the distribution may be reported one step late or early.
    """
    from perfectplay.analysis.distribution import cost_distribution

    unit = graph.objective.unit if unit is None else unit
    cdf = cost_distribution(graph, solution, k_max)  # refuses too much work first
    require_table(k_max, digits=digits)
    width = max(len(unit), len(str(k_max)))
    # A cost is paid roll by roll ("done within k"); a score or a probability is the
    # outcome of the play, which may be 0 ("at most k").
    cost = graph.objective.measure == "cost"
    lines = [f"{unit:>{width}}  " + ("P(done within)" if cost else "P(outcome <= k)")]
    first = 1 if cost else 0
    lines += [f"{k:>{width}}  {decimal_text(cdf[k], digits)}" for k in range(first, k_max + 1)]
    mean = solution.value
    if math.isinf(mean):
        endless = fraction_text(None, graph.objective)
        lines.append(f"mean {endless} {unit}: the goal cannot be reached")
    else:
        lines.append(
            f"mean {decimal_text(mean, digits)} {unit}, "
            f"median {percentile_text(graph, solution, 0.5)}, "
            f"90th percentile {percentile_text(graph, solution, 0.9)}"
        )
    return "\n".join(lines)


def distribution_json(graph: ChanceGraph, solution: ChanceSolution, k_max: int) -> dict[str, Any]:
    """The ``distribution`` object of ``perfectplay solve --json`` for a chance model:
    ``within[k]``, P(outcome <= k) for ``k = 0..k_max``, with the mean, median and 90th
    percentile (``None`` where the goal cannot be reached).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.solvers.retry import solve_retry
    >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 1)]])
    >>> distribution_json(g, solve_retry(g), 2)
    {'unit': 'rolls', 'within': [0.0, 0.5, 0.75], 'mean': 2.0, 'median': 1, 'percentile_90': 4}
    """
    from perfectplay.analysis.distribution import cost_distribution, quantile

    cdf = cost_distribution(graph, solution, k_max)  # refuses too much work first
    require_table(k_max + 1, digits=17)
    mean = solution.value
    finite = math.isfinite(mean)
    limit = _search_limit(graph)
    return {
        "unit": graph.objective.unit,
        "within": cdf.tolist(),
        "mean": mean if finite else None,
        "median": quantile(graph, solution, 0.5, limit) if finite else None,
        "percentile_90": quantile(graph, solution, 0.9, limit) if finite else None,
    }


def _move_percentile(dist: MoveDistribution, q: float) -> int | None | str:
    """Smallest ``k`` with P(ended within ``k`` moves) >= ``q``; ``None`` when the game
    ends with a smaller probability; the text ``more than N`` past the search limit."""
    if dist.ended < q:
        return None
    limit = _search_limit(dist.chain.graph)
    k = dist.quantile(q, limit)
    return f"more than {limit:,}" if k is None else k


def move_distribution_report(
    dist: MoveDistribution, unit: str = "moves", digits: int = DIGITS
) -> str:
    """Table of P(the game ends after exactly ``k`` moves) and P(ended within ``k``) for
    ``k = 1..K``, the probabilities beyond ``K`` and of never ending, the mean, median and
    90th percentile, and the first mover's results at the end.

    >>> from perfectplay.examples.pig import Piglet
    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> print(move_distribution_report(solve_stochastic_model(Piglet(goal=2)).move_distribution(3)))
    moves  P(ends after exactly k)  P(ended within k)
        1  0.000000000              0.000000000
        2  0.250000000              0.250000000
        3  0.125000000              0.375000000
    after more than 3 moves: 0.625000000; never ends: 0
    mean 6.000000000 moves, median 4, 90th percentile 12
    the first mover at the end: wins 0.571428571, loses 0.428571429, ties 0
    """
    k_max = dist.k_max
    require_table(k_max + 1, columns=2, digits=digits)
    width = max(len(unit), len(str(k_max)))
    exactly, within = dist.exactly, dist.within
    head = "P(ends after exactly k)"
    lines = [f"{unit:>{width}}  {head}  P(ended within k)"]
    first = 0 if within[0] > 0 else 1  # a game over at the start ends after 0 moves
    lines += [
        f"{k:>{width}}  {decimal_text(exactly[k], digits):<{len(head)}}  "
        f"{decimal_text(within[k], digits)}"
        for k in range(first, k_max + 1)
    ]
    lines.append(
        f"after more than {k_max:,} {unit}: {probability_text(dist.beyond, digits)}; "
        f"never ends: {probability_text(dist.never, digits)}"
    )
    if math.isfinite(dist.mean):
        median, p90 = _move_percentile(dist, 0.5), _move_percentile(dist, 0.9)
        lines.append(
            f"mean {decimal_text(dist.mean, digits)} {unit}, median {median}, 90th percentile {p90}"
        )
    else:
        median = _move_percentile(dist, 0.5)
        shown = "never reached" if median is None else str(median)
        lines.append(f"mean: infinite (the game may never end); median {shown}")
    r = dist.results
    words = [("wins", "win"), ("loses", "lose"), ("ties", "tie")]
    parts = [f"{word} {probability_text(r[key], digits)}" for word, key in words]
    if r["other"]:
        parts.append(f"other results {probability_text(r['other'], digits)}")
    lines.append("the first mover at the end: " + ", ".join(parts))
    return "\n".join(lines)


def move_distribution_json(dist: MoveDistribution, unit: str = "moves") -> dict[str, Any]:
    """The ``distribution`` object of ``perfectplay solve --json`` for a two-player dice
    game: ``exactly[k]`` and ``within[k]`` for ``k = 0..K`` (index ``k``), ``beyond``,
    ``never``, ``mean`` (``None`` if infinite), ``median`` and ``percentile_90``
    (``None`` where never reached) and ``results``: the first mover's ``win``, ``lose``,
    ``tie`` and ``other`` probabilities.

    >>> from perfectplay.examples.pig import Piglet
    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> out = move_distribution_json(solve_stochastic_model(Piglet(goal=2)).move_distribution(2))
    >>> out["exactly"], out["never"], out["median"]
    ([0.0, 0.0, 0.25], 0.0, 4)
    """
    require_table(dist.k_max + 1, columns=2, digits=17)
    median, p90 = _move_percentile(dist, 0.5), _move_percentile(dist, 0.9)
    return {
        "unit": unit,
        "exactly": dist.exactly.tolist(),
        "within": dist.within.tolist(),
        "beyond": dist.beyond,
        "never": dist.never,
        "mean": dist.mean if math.isfinite(dist.mean) else None,
        "median": median if isinstance(median, int) else None,
        "percentile_90": p90 if isinstance(p90, int) else None,
        "results": dict(dist.results),
    }
