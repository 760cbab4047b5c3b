"""The Yeetzhee chance graph over groupings up to symmetry.

Which values the kept dice show does not matter, only how many dice share each value: the
state is the sorted tuple of group sizes, padded with zeros to ``K`` entries (``K`` is the
number of groups in the target ``A``, sorted the same way). A grouping ``x`` can still end
as the target exactly when ``x[i] <= A[i]`` for every ``i`` (match the largest group with
the largest target size, and so on; if ``x[i] > A[i]`` the ``K - i`` largest groups would
need ``K - i`` target sizes above ``A[i]``, and there are fewer). So the live groupings
are exactly the :class:`~perfectplay.graphs.canonical.SortedTupleSpace` with caps ``A``, and
its ranks number them without a dictionary; the target is the last rank.

Graph: decision node ``r`` is the grouping of rank ``r`` (plus one shared *dead* node with
no choices, for every outcome that can no longer reach the target); each non-goal
grouping has one choice, chance node ``r`` ("roll the next die"), whose outcomes are

* the die repeats a value of a group of size ``s``: weight = number of groups of size
  ``s``; the group at the last position holding ``s`` grows by one (the tuple stays sorted);
* the die shows a new value: weight ``M - (groups so far)``; the last zero becomes 1.

Rerolling the die just rolled is the graph's implicit retry rule (``retry=True``). Every
array is built with whole-array numpy operations; the only per-state work is in the
solver's compiled kernel.

>>> g = build(3, 6, (1, 2))
>>> g.rows.tolist()           # the live groupings, by rank; the last one is the target
[[0, 0], [0, 1], [0, 2], [1, 1], [1, 2]]
>>> [a.tolist() for a in g.graph.outcomes(1)]  # from (0, 1): new value, or a pair
[[3, 2], [5, 1]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from perfectplay._util.memory import require
from perfectplay.errors import ResourceLimitError
from perfectplay.graphs.canonical import SortedTupleSpace
from perfectplay.graphs.chance import ChanceGraph

#: Largest ``k * (largest group + 1)``, the size of the ranking tables, that is accepted.
MAX_TABLE = 4_000_000


@dataclass(frozen=True, eq=False)
class YeetzheeGraph:
    """The chance graph of one instance and the groupings its nodes stand for.

    Attributes:
        graph: decision node ``r < len(rows)`` is grouping ``rows[r]``; decision node
            ``dead == len(rows)`` collects every outcome that cannot reach the target;
            chance node ``r`` is the roll made from grouping ``r`` (all but the target).
        space: the ranking of sorted group-size tuples capped by the target.
        rows: ``[S, K]`` small integers, the live groupings in rank order (each sorted,
            zero-padded in front).
        m: faces of a die.
    """

    graph: ChanceGraph
    space: SortedTupleSpace
    rows: np.ndarray
    m: int

    @property
    def dead(self) -> int:
        return int(self.rows.shape[0])

    @property
    def target(self) -> int:
        return int(self.rows.shape[0]) - 1


def _results(k: int, n: int) -> int:
    """At most how many results a throw has: a grouping of ``n`` dice has at most ``t``
    distinct sizes with ``t (t + 1) / 2 <= n``, and each, or a new value, is a result."""
    return min(k, math.isqrt(2 * n)) + 1


def estimate_bytes(n_groupings: int, k: int, n: int) -> int:
    """Peak bytes of :func:`build` (about twice what it measures): the groupings at one
    byte an entry, and a dozen 8-byte arrays over the throws' results."""
    return n_groupings * (2 * k + 40 + 100 * _results(k, n))


def groupings(groups: tuple[int, ...]) -> SortedTupleSpace:
    """The ranking of the groupings that can still end as the sorted target ``groups``.

    Raises :class:`~perfectplay.errors.ResourceLimitError` when its tables would be too
    large (:data:`MAX_TABLE`).

    >>> groupings((1, 2)).size
    5
    """
    k = len(groups)
    # The ranking tables alone take k * (largest size) Python integers: refuse absurd
    # targets before building them, and the groupings before listing them.
    if k * (groups[-1] + 1) > MAX_TABLE:
        raise ResourceLimitError(
            f"a target of {k:,} groups up to size {groups[-1]:,} is too large to rank "
            f"(limit: groups * largest size <= {MAX_TABLE:,})"
        )
    return SortedTupleSpace(groups)


def estimate_items(n: int, groups: tuple[int, ...]) -> int:
    """About the nodes plus edges of the graph of a checked target (at most a few times
    more), the size the solvers weigh against numba's start-up; cheap (no array).

    >>> estimate_items(3, (1, 2)) >= build(3, 6, (1, 2)).graph.n_edges
    True
    """
    return groupings(groups).size * (3 + _results(len(groups), n))


def build(n: int, m: int, groups: tuple[int, ...]) -> YeetzheeGraph:
    """Build the graph of ``n`` dice with ``m`` faces and sorted target sizes ``groups``.

    ``groups`` must already be checked (positive, sorted, summing to ``n``).
    """
    k = len(groups)
    space = groupings(groups)
    require(estimate_bytes(space.size, k, n), f"the {space.size:,} groupings of this target")
    small = np.int8 if n < 127 else np.int16 if n < 32767 else np.int64
    rows = space.rows(small)
    s = rows.shape[0]
    x = rows[:-1]  # every grouping but the target rolls

    # One outcome per run of equal sizes (zeros included: "a new value"), named by the
    # run's last position j, which is where the die goes to keep the tuple sorted.
    last = np.ones(x.shape, np.bool_)
    last[:, :-1] = x[:, :-1] != x[:, 1:]
    # Runs by their cells in row-major order: grouped by grouping, j ascending. A row's
    # last cell always ends a run, so the run before a row's first run ends just before
    # the row starts, and every run's length is the distance from the previous run's end.
    cell = np.flatnonzero(last)
    src, j = np.divmod(cell, k)
    v = x.reshape(-1)[cell].astype(np.int64)
    # A run of equal sizes s > 0 is that many groups, so that many faces repeat one of
    # them. A run of zeros ends at j: the kept dice show k - 1 - j values, and the other
    # m - (k - 1 - j) faces are new.
    weight = np.where(v > 0, np.diff(cell, prepend=-1), np.maximum(m - (k - 1 - j), 0))
    alive = v < np.asarray(groups, np.int64)[j]
    caps_full = x[:, 0] > 0  # k values kept: a new one can never fit

    dead_w = np.bincount(src[~alive], weights=weight[~alive], minlength=s - 1).astype(np.int64)
    dead_w += np.where(caps_full, max(m - k, 0), 0)
    live = alive & (weight > 0)
    src, j, v, weight = src[live], j[live], v[live], weight[live]
    nxt = src + space.increment_offsets(j, v)

    # CSR: each grouping's live outcomes in order, then its dead outcome if any.
    n_live = np.bincount(src, minlength=s - 1)
    has_dead = dead_w > 0
    outcome_ptr = np.zeros(s, np.int64)
    np.cumsum(n_live + has_dead, out=outcome_ptr[1:])
    live_start = np.zeros(s - 1, np.int64)
    np.cumsum(n_live[:-1], out=live_start[1:])
    slot = outcome_ptr[src] + (np.arange(src.shape[0]) - live_start[src])
    outcome_idx = np.empty(int(outcome_ptr[-1]), np.int32)
    outcome_weight = np.empty(int(outcome_ptr[-1]), np.int64)
    outcome_idx[slot] = nxt
    outcome_weight[slot] = weight
    dead_rows = np.flatnonzero(has_dead)
    dead_slot = outcome_ptr[dead_rows + 1] - 1
    outcome_idx[dead_slot] = s
    outcome_weight[dead_slot] = dead_w[dead_rows]

    goal = np.zeros(s + 1, np.bool_)
    goal[s - 1] = True
    choice_ptr = np.empty(s + 2, np.int64)
    choice_ptr[:s] = np.arange(s)
    choice_ptr[s:] = s - 1
    graph = ChanceGraph(
        terminal=goal,
        choice_ptr=choice_ptr,
        choice_idx=np.arange(s - 1, dtype=np.int32),
        outcome_ptr=outcome_ptr,
        outcome_idx=outcome_idx,
        outcome_weight=outcome_weight,
        cost=np.ones(s - 1, np.int64),
        start=0,
        retry=True,
    )
    return YeetzheeGraph(graph=graph, space=space, rows=rows, m=m)
