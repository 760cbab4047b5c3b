"""How the outcome (total cost, plus the terminal value) is distributed under a policy.

The same recursion serves two-player dice games: under a fixed strategy pair a
:class:`~perfectplay.graphs.stochastic.StochasticGraph` is a Markov chain over
``(position, player to move)`` pairs (:func:`policy_chain`), written as a one-player chance
graph in which every move costs 1, so :func:`move_distribution` gives the law of the
number of moves until the game ends with this module's kernel (and the chance solvers for
the mean and the probability of each result).

Under a fixed policy, let ``F_k(c)`` be the probability that, starting with roll ``c``, a
goal is reached having paid at most ``k``. A roll costs ``cost(c)``; with probability
``p_e`` it shows outcome ``e``, which is either kept (then the game goes on from the
kept decision node's chosen roll, or ends at a goal) or rejected (the same roll again)::

    F_k(c) = sum_{kept e} p_e F_{k - cost(c)}(next(e)) + p_rejected F_{k - cost(c)}(c)

with ``F_j(terminal x) = 1`` for ``j >= value(x)`` (0 below) and ``F_j = 0`` for
``j < 0``. Each ``k`` is one pass over the outcome edges, after merging the kept outcomes
that go on with the same roll (often half of them on Alea graphs); the kernel keeps the
last ``max cost + 1`` layers in a ring, so memory is independent of ``k_max``. Work is
``k_max`` passes over the edges, so ``k_max`` is capped
(:data:`MAX_K` and :data:`MAX_WORK` edge visits) and the call cannot hang.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.solvers.retry import solve_retry
>>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 1)]])
>>> sol = solve_retry(g)
>>> cost_distribution(g, sol, 3).tolist()
[0.0, 0.5, 0.75, 0.875]
>>> quantile(g, sol, 0.8, limit=100)
3
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, cast

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay._util.memory import require
from perfectplay.errors import (
    InputError,
    ResourceLimitError,
    UnsupportedObjectiveError,
    short_repr,
)
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution

if TYPE_CHECKING:
    from perfectplay.graphs.stochastic import StochasticGraph

__all__ = [
    "MAX_K",
    "MAX_WORK",
    "MoveDistribution",
    "PolicyChain",
    "RESULTS",
    "check_work",
    "cost_distribution",
    "move_distribution",
    "outcome_pmf",
    "outcome_support",
    "policy_chain",
    "quantile",
]

MAX_K = 10_000_000
"""Largest ``k_max`` accepted."""

MAX_WORK = 4_000_000_000
"""Largest ``(k_max + 1) * (number of outcome edges)`` accepted (a few seconds of work)."""


def outcome_support(graph: ChanceGraph, what: str) -> None:
    """Raise :class:`~perfectplay.errors.UnsupportedObjectiveError` unless outcomes (costs
    paid plus the terminal value) are integers a play adds up roll by roll: a minimising
    cost or score objective, integer costs of at least 1 and integer terminal values; or,
    on an acyclic graph (every play ends), any integer costs and values, either sense.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> race = ChanceGraph.from_lists([False, True], [[0], []], [[(0, 1), (1, 1)]])
    >>> outcome_support(race, "the distribution")  # integer costs: supported
    >>> free = ChanceGraph.from_lists([False, True], [[0], []], [[(0, 1), (1, 1)]], cost=[0])
    >>> try:
    ...     outcome_support(free, "the distribution")
    ... except ValueError as e:
    ...     print(str(e).split(": ", 1)[1])
    a roll costs 0 (supported: every cost at least 1)
    """
    obj = graph.objective
    if graph.scale == 1 and _acyclic(graph):
        return  # every play ends within n_chance rolls: any integer costs, either sense
    why = None
    if obj.sense != "min" or obj.measure == "probability":
        why = f"the objective is to {obj.describe()} (supported: minimise a cost or score)"
    elif graph.scale != 1:
        why = "costs or terminal values are fractions (supported: integers)"
    elif graph.n_chance and int(graph.cost.min()) < 1:
        why = "a roll costs 0 (supported: every cost at least 1)"
    if why is not None:
        raise UnsupportedObjectiveError(f"{what} is not available: {why}")


@kernel
def _cdf(
    goal: Any, tval: Any, outcome_ptr: Any, outcome_idx: Any, outcome_weight: Any, cost: Any,
    best: Any, accept: Any, start: Any, k_max: Any,
) -> Any:  # fmt: skip
    nc = cost.shape[0]
    n_out = outcome_idx.shape[0]
    out = np.empty(k_max + 1)
    for k in range(k_max + 1):
        out[k] = 1.0 if goal[start] and k >= tval[start] else 0.0
    first = best[start]
    if goal[start] or first < 0:
        return out

    # Compress each roll once: the probability of finishing at once (a kept terminal worth
    # 0; those worth v > 0 get a term each in g_*, counted once k - cost >= v), of rolling
    # it again (a rejected outcome, or a kept one whose policy picks this roll), and one
    # term per distinct roll the kept outcomes go on with. Kept outcomes with no finite
    # choice never finish and are dropped.
    p_goal = np.empty(nc)
    p_again = np.empty(nc)
    g_ptr = np.empty(nc + 1, np.int64)
    g_tv = np.empty(n_out, np.int64)
    g_p = np.empty(n_out)
    g_ptr[0] = 0
    ng = 0
    t_ptr = np.empty(nc + 1, np.int64)
    t_to = np.empty(n_out, np.int32)
    t_p = np.empty(n_out)
    slot = np.empty(nc, np.int64)
    ring = 1
    for c in range(nc):
        slot[c] = -1
        if cost[c] + 1 > ring:
            ring = cost[c] + 1
    t_ptr[0] = 0
    n = 0
    for c in range(nc):
        lo = outcome_ptr[c]
        hi = outcome_ptr[c + 1]
        tot = 0
        for e in range(lo, hi):
            tot += outcome_weight[e]
        p_goal[c] = 0.0
        p_again[c] = 0.0
        for e in range(lo, hi):
            x = outcome_idx[e]
            p = outcome_weight[e] / tot
            b = best[x]
            if not accept[e] or (not goal[x] and b == c):
                p_again[c] += p
            elif goal[x] and tval[x] == 0:
                p_goal[c] += p
            elif goal[x]:
                g_tv[ng] = tval[x]
                g_p[ng] = p
                ng += 1
            elif b >= 0:
                if slot[b] < t_ptr[c]:
                    slot[b] = n
                    t_to[n] = b
                    t_p[n] = p
                    n += 1
                else:
                    t_p[slot[b]] += p
        t_ptr[c + 1] = n
        g_ptr[c + 1] = ng

    layer = np.empty((ring, nc))  # layer[k % ring, c] = F_k(c)
    for j in range(ring):
        for c in range(nc):
            layer[j, c] = 0.0
    for k in range(1, k_max + 1):
        cur = k % ring
        for c in range(nc):
            j = k - cost[c]
            if j < 0:
                layer[cur, c] = 0.0
                continue
            prev = j % ring
            s = p_goal[c] + p_again[c] * layer[prev, c]
            for t in range(g_ptr[c], g_ptr[c + 1]):
                if j >= g_tv[t]:
                    s += g_p[t]
            for t in range(t_ptr[c], t_ptr[c + 1]):
                s += t_p[t] * layer[prev, t_to[t]]
            layer[cur, c] = s
        out[k] = layer[cur, first]
    return out


def check_work(k_max: int, edges: int | None = None) -> None:
    """Refuse a distribution up to ``k_max`` over ``edges`` outcome edges that is over
    :data:`MAX_K` or :data:`MAX_WORK` (``edges`` unknown, before a solve: ``k_max``
    alone).

    >>> check_work(20_000_000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    perfectplay.errors.ResourceLimitError: a distribution up to k = 20,000,000 is too much work ...
    """
    work = (k_max + 1) * max(1, edges or 0)
    if k_max > MAX_K or work > MAX_WORK:
        over = f" over {edges:,} outcome edges" if edges is not None else ""
        raise ResourceLimitError(
            f"a distribution up to k = {k_max:,}{over} is too much work "
            f"(limits: k <= {MAX_K:,}, k * edges <= {MAX_WORK:,})"
        )


def _check_k(graph: ChanceGraph, k_max: int) -> None:
    if isinstance(k_max, bool) or not isinstance(k_max, int | np.integer) or k_max < 0:
        raise InputError(f"k_max must be an int >= 0, not {short_repr(k_max)}")
    check_work(k_max, int(graph.outcome_idx.shape[0]))
    max_cost = int(graph.cost.max()) if graph.n_chance else 1
    require(
        graph.outcome_idx.shape[0] * 12 + graph.n_chance * (40 + 8 * (max_cost + 1)) + k_max * 8,
        "the cost distribution",
    )


def cost_distribution(graph: ChanceGraph, solution: ChanceSolution, k_max: int) -> np.ndarray:
    """``float64[k_max + 1]``: entry ``k`` is P(the play ends with outcome <= k), the
    outcome being the total cost paid plus the value of the terminal node reached (for
    goals worth 0: P(goal reached with total cost <= k)).

    Follows ``solution``'s policy from ``graph.start``: ``best_choice`` at decision nodes,
    ``accept`` at chance nodes (a rejected outcome rolls the same chance node again).
    As ``k`` grows the entries approach 1 when the start value is finite. Rounding keeps
    each entry within about ``1e-12`` of the exact probability for moderate ``k``.

    Raises:
        InputError: ``k_max`` is not an int >= 0 (a ValueError).
        ResourceLimitError: ``k_max > MAX_K`` or ``(k_max + 1) * edges > MAX_WORK``.
        UnsupportedObjectiveError: the objective does not minimise integer costs of at
            least 1 (see :func:`outcome_support`), or a terminal value is negative.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.solvers.retry import solve_retry
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[2])
    >>> cost_distribution(g, solve_retry(g), 3).tolist()
    [0.0, 0.0, 1.0, 1.0]
    """
    outcome_support(graph, "the distribution")
    if graph.scale == 1 and _acyclic(graph):
        _check_k(graph, k_max)
        values, probs = outcome_pmf(graph, solution)
        cdf = np.zeros(k_max + 1)
        for v, p in zip(values.tolist(), probs.tolist(), strict=True):
            cdf[max(v, 0) :] += p if v <= k_max else 0.0
        return np.minimum(cdf, 1.0)
    if bool(np.any(graph.terminal_value < 0)):
        raise UnsupportedObjectiveError(
            "the distribution is not available: a terminal value is negative (it counts "
            "outcomes from 0)"
        )
    _check_k(graph, k_max)
    return cast(np.ndarray, _cdf(*policy_arrays(graph, solution), int(k_max)))


def _acyclic(graph: ChanceGraph) -> bool:
    return graph.acyclic_order() is not None


def outcome_pmf(graph: ChanceGraph, solution: ChanceSolution) -> tuple[np.ndarray, np.ndarray]:
    """``(outcomes, probabilities)``, outcomes sorted: the exact law of the outcome (costs
    paid plus the terminal value, as integers over ``graph.scale``) of ``solution``'s
    policy on an acyclic graph, by pushing probability mass from the start in topological
    order (each node's law of the amount paid so far). Floats; plays that reach a node
    without a choice are left out.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.solvers.backward import solve_backward
    >>> g = ChanceGraph.from_lists(terminal=[False, True, True], terminal_value=[0, 2, 7],
    ...     choices=[[0], [], []], outcomes=[[(1, 3), (2, 1)]], cost=[0])
    >>> [a.tolist() for a in outcome_pmf(g, solve_backward(g))]
    [[2, 7], [0.75, 0.25]]
    """
    order = graph.acyclic_order()
    if order is None:
        raise UnsupportedObjectiveError("the outcome law by propagation needs an acyclic graph")
    nd = graph.n_decision
    a = graph.arrays(values=True)
    terminal, optr, oidx, ow, cost, tval = a[0], a[3], a[4], a[5], a[6], a[7]
    best = solution.best_choice
    law: dict[int, dict[int, float]] = {graph.start: {0: 1.0}}
    final: dict[int, float] = {}
    for v in order[::-1].tolist():  # predecessors first
        here = law.pop(v, None)
        if here is None:
            continue
        if v >= nd:
            c = v - nd
            lo, hi = int(optr[c]), int(optr[c + 1])
            total = float(ow[lo:hi].sum())
            for e in range(lo, hi):
                x, p = int(oidx[e]), float(ow[e]) / total
                dest = law.setdefault(x, {})
                for paid, q in here.items():
                    k = paid + int(cost[c])
                    dest[k] = dest.get(k, 0.0) + p * q
        elif terminal[v]:
            for paid, q in here.items():
                k = paid + int(tval[v])
                final[k] = final.get(k, 0.0) + q
        elif best[v] >= 0:
            dest = law.setdefault(nd + int(best[v]), {})
            for paid, q in here.items():
                dest[paid] = dest.get(paid, 0.0) + q
    keys = sorted(final)
    return np.array(keys, np.int64), np.array([final[k] for k in keys])


def policy_arrays(graph: ChanceGraph, solution: ChanceSolution) -> tuple[Any, ...]:
    """``(terminal, terminal_value, outcome_ptr, outcome_idx, outcome_weight, cost, best,
    accept, start)`` in the dtypes the policy-following kernels are compiled for."""
    terminal, _, _, outcome_ptr, outcome_idx, outcome_weight, cost, tval = graph.arrays(values=True)
    return (
        terminal, tval, outcome_ptr, outcome_idx, outcome_weight, cost,
        np.ascontiguousarray(solution.best_choice, np.int32),
        np.ascontiguousarray(solution.accept, np.bool_),
        int(graph.start),
    )  # fmt: skip


def quantile(graph: ChanceGraph, solution: ChanceSolution, q: float, limit: int) -> int | None:
    """Smallest ``k <= limit`` with P(total cost <= k) >= ``q``, or ``None`` if there is none.

    Searches ``k`` by doubling, so the work is at most about twice that of the answer.
    Probabilities are floats: ask for ``q`` slightly below 1 rather than exactly 1.

    Raises:
        InputError: ``q`` outside [0, 1] or a negative ``limit`` (a ValueError).
        ResourceLimitError: the search reaches the limits of :func:`cost_distribution`
            before it reaches ``q``.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.solvers.retry import solve_retry
    >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    >>> sol = solve_retry(g)
    >>> quantile(g, sol, 0.5, limit=1000), quantile(g, sol, 0.999999, limit=10)
    (4, None)
    """
    if isinstance(q, bool) or not isinstance(q, int | float) or not 0.0 <= q <= 1.0:
        raise InputError(f"q must be a number from 0 to 1, not {short_repr(q)}")
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 0:
        raise InputError(f"limit must be an int >= 0, not {short_repr(limit)}")
    k = min(limit, 64)
    while True:
        cdf = cost_distribution(graph, solution, k)
        hit = np.flatnonzero(cdf >= q)
        if hit.size:
            return int(hit[0])
        if k >= limit:
            return None
        k = min(limit, 2 * k)


@kernel
def _chain(
    terminal: Any, choice: Any, outcome_ptr: Any, target: Any, weight: Any, passes: Any, start: Any
) -> Any:
    # Breadth-first over (position, who moves) from (start, first mover): node 2p + b,
    # b = 1 when the second mover is to move; a passing outcome flips b. Two passes over
    # the reached part: count, then fill the chance graph's arrays.
    n = terminal.shape[0]
    ident = np.full(2 * n, -1, np.int64)
    order = np.empty(2 * n, np.int64)
    ident[2 * start] = 0
    order[0] = 2 * start
    m = 1
    n_ch = 0
    n_out = 0
    i = 0
    while i < m:
        v = order[i]
        i += 1
        p = v // 2
        c = choice[p]
        if terminal[p] or c < 0:
            continue
        n_ch += 1
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            w = 2 * target[e] + (1 - v % 2 if passes[e] else v % 2)
            if ident[w] < 0:
                ident[w] = m
                order[m] = w
                m += 1
            n_out += 1
    term = np.empty(m, np.bool_)
    cptr = np.empty(m + 1, np.int64)
    cidx = np.empty(n_ch, np.int32)
    optr = np.empty(n_ch + 1, np.int64)
    oidx = np.empty(n_out, np.int32)
    ow = np.empty(n_out, np.int64)
    cptr[0] = 0
    optr[0] = 0
    k = 0
    f = 0
    for i in range(m):
        v = order[i]
        p = v // 2
        c = choice[p]
        if terminal[p] or c < 0:
            term[i] = True
            cptr[i + 1] = k
            continue
        term[i] = False
        cidx[k] = k
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            w = 2 * target[e] + (1 - v % 2 if passes[e] else v % 2)
            oidx[f] = ident[w]
            ow[f] = weight[e]
            f += 1
        k += 1
        cptr[i + 1] = k
        optr[k] = f
    return order[:m].copy(), term, cptr, cidx, optr, oidx, ow


class PolicyChain(NamedTuple):
    """The Markov chain of a strategy pair on a two-player dice game (:func:`policy_chain`).

    Attributes:
        graph: a one-player :class:`~perfectplay.graphs.chance.ChanceGraph` with one
            decision node per ``(position, player to move)`` pair reached from the start,
            each with its single move (cost 1) or terminal (worth 0).
        position: ``int64[m]``, the game's position of each node.
        second: ``bool[m]``, whether the second mover is to move there.
        result: ``int64[m]``, at terminal nodes the first mover's result as a numerator
            over ``scale`` (``scale``: a win, 0: a loss); ``-1`` elsewhere.
        scale: the game's common denominator.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, True)]], []],
    ...                                terminal_value=[0, 2])
    >>> ch = policy_chain(g, [0, -1])    # one move to a position the second mover wins
    >>> isinstance(ch, PolicyChain), ch.graph.n_decision, ch.result.tolist()
    (True, 2, [-1, 0])
    """

    graph: ChanceGraph
    position: np.ndarray
    second: np.ndarray
    result: np.ndarray
    scale: int


def policy_chain(graph: StochasticGraph, choice: Any) -> PolicyChain:
    """The chain of ``graph`` when every position plays ``choice[p]`` (a chance node of
    ``p``; the same table serves both players, since positions are seen from the mover).
    A choice that is not one of its position's raises
    :class:`~perfectplay.errors.ModelError`.

    The players are told apart by the parity of the passes so far; a position that is
    not terminal but has no choice (``-1``) ends the game as a loss for its mover.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists(          # toss: heads wins, tails passes the turn
    ...     [False, True], [[[(1, 1, False), (0, 1, True)]], []], terminal_value=[0, 2])
    >>> ch = policy_chain(g, [0, -1])
    >>> ch.position.tolist(), ch.second.tolist(), ch.result.tolist()
    ([0, 1, 0, 1], [False, False, True, True], [-1, 2, -1, 0])
    """
    from perfectplay.errors import ModelError

    choice = np.ascontiguousarray(choice, np.int64)
    n, cp = graph.n_positions, graph.choice_ptr
    if choice.shape != (n,):
        raise ModelError(f"choice must have one entry per position ({n})")
    bad = (choice >= 0) & ~graph.terminal & ((choice < cp[:-1]) | (choice >= cp[1:]))
    if bad.any():
        p = int(np.flatnonzero(bad)[0])
        raise ModelError(f"choice {int(choice[p])} is not a move of position {p}")
    require(32 * graph.n_positions + 24 * graph.n_outcomes, "the chain of a strategy pair")
    compiled = compile_for(graph.n_outcomes, 20_000, _chain)
    order, term, cptr, cidx, optr, oidx, ow = _chain.run(
        graph.terminal, choice, graph.outcome_ptr, graph.target, graph.weight, graph.passes,
        int(graph.start), compiled=compiled,
    )  # fmt: skip
    position = order // 2
    second = (order % 2).astype(np.bool_)
    mover = np.where(graph.terminal[position], graph.terminal_value[position], 0)
    result = np.where(term, np.where(second, graph.scale - mover, mover), -1).astype(np.int64)
    chain = ChanceGraph(
        terminal=term, choice_ptr=cptr, choice_idx=cidx, outcome_ptr=optr, outcome_idx=oidx,
        outcome_weight=ow, cost=np.ones(cidx.shape[0], np.int64),
    )  # fmt: skip
    return PolicyChain(chain, position, second, result, int(graph.scale))


#: The first mover's results that :class:`MoveDistribution` tells apart: ``other`` is a
#: terminal worth a probability strictly between 0 and 1 other than one half.
RESULTS = ("win", "lose", "tie", "other")


@dataclass(frozen=True)
class MoveDistribution:
    """How long a two-player dice game lasts under a strategy pair, and how it ends.

    A *move* is one decision of the player to move (in Pig: one roll or one hold); the
    start counts 0 moves.

    Attributes:
        within: ``float64[k_max + 1]``: entry ``k`` is P(the game has ended after at most
            ``k`` moves).
        ended: P(the game ends at all); ``never`` is ``1 - ended``.
        mean: the expected number of moves (``inf`` when the game may never end).
        results: P(the game ends with each first-mover result of :data:`RESULTS`);
            they add up to ``ended``.
        chain: the :class:`PolicyChain` it was computed on; ``solution`` its policy.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists(          # toss: heads wins, tails passes the turn
    ...     [False, True], [[[(1, 1, False), (0, 1, True)]], []], terminal_value=[0, 2])
    >>> d = move_distribution(g, [0, -1], 2)
    >>> isinstance(d, MoveDistribution), d.k_max, d.beyond, d.quantile(0.9, 100)
    (True, 2, 0.25, 4)
    """

    within: np.ndarray
    ended: float
    mean: float
    results: dict[str, float]
    chain: PolicyChain
    solution: ChanceSolution

    @property
    def k_max(self) -> int:
        return int(self.within.shape[0] - 1)

    @property
    def exactly(self) -> np.ndarray:
        """``float64[k_max + 1]``: P(the game ends after exactly ``k`` moves)."""
        return np.diff(self.within, prepend=0.0)

    @property
    def beyond(self) -> float:
        """P(the game ends after more than ``k_max`` moves)."""
        return max(0.0, self.ended - float(self.within[-1]))

    @property
    def never(self) -> float:
        """P(the game never ends)."""
        return max(0.0, 1.0 - self.ended)

    def quantile(self, q: float, limit: int) -> int | None:
        """Smallest ``k <= limit`` with P(ended within ``k`` moves) >= ``q`` (see
        :func:`quantile`), ``None`` if there is none."""
        return quantile(self.chain.graph, self.solution, q, limit)


def move_distribution(
    graph: StochasticGraph, choice: Any, k_max: int, *, progress: bool = True
) -> MoveDistribution:
    """The law of the number of moves until the game ends when every position plays
    ``choice`` (for instance a solution's ``best_choice``: both players optimal), with
    the probability of each result for the first mover.

    The distribution is :func:`cost_distribution` on :func:`policy_chain` (each move
    costs 1); the mean is the chain's expected cost and each result's probability its
    chance of reaching those terminals (:func:`~perfectplay.solvers.solve_chance`: policy
    iteration, end components collapsed where play may go on for ever): the expected
    absorption time and absorption probabilities of an absorbing Markov chain (J. Kemeny
    and J. L. Snell, *Finite Markov Chains*, 1960, ch. 3). Floats, each within about
    ``1e-12``.

    Raises:
        InputError: ``k_max`` is not an int >= 0 (a ValueError).
        ResourceLimitError: ``k_max`` or the work is over :data:`MAX_K`/:data:`MAX_WORK`.

    >>> from perfectplay.graphs.stochastic import StochasticGraph
    >>> g = StochasticGraph.from_lists(          # toss: heads wins, tails passes the turn
    ...     [False, True], [[[(1, 1, False), (0, 1, True)]], []], terminal_value=[0, 2])
    >>> d = move_distribution(g, [0, -1], 3)
    >>> d.exactly.tolist(), d.mean, d.results["win"] == 2 / 3, d.never
    ([0.0, 0.5, 0.25, 0.125], 2.0, True, 0.0)
    """
    from perfectplay.solvers import solve_chance

    chain = policy_chain(graph, choice)
    cg = chain.graph
    _check_k(cg, k_max)
    moves = solve_chance(cg, method="policy-iteration", progress=progress)
    # The chain has one move per node: the kernel must follow it even where the game
    # may never end (the solver leaves such nodes without a choice).
    forced = np.full(cg.n_decision, -1, np.int32)
    forced[~cg.terminal] = cg.choice_idx
    solution = ChanceSolution(
        cg, moves.decision_value, moves.chance_value, forced,
        np.ones(cg.outcome_idx.shape[0], np.bool_), method=moves.method,
    )  # fmt: skip
    mean = float(moves.value)
    finite = bool(np.isfinite(mean))
    ended = 1.0 if finite else _reach(cg, cg.terminal, progress)
    scale, result, term = chain.scale, chain.result, cg.terminal
    masks = {
        "win": term & (result == scale),
        "lose": term & (result == 0),
        "tie": term & (2 * result == scale),
    }
    masks["other"] = term & ~(masks["win"] | masks["lose"] | masks["tie"])
    present = [r for r in RESULTS if masks[r].any()]
    results = dict.fromkeys(RESULTS, 0.0)
    for r in present[:-1] if finite else present:
        results[r] = _reach(cg, masks[r], progress)
    if finite and present:
        # Play ends for sure: the last result is what the others leave.
        results[present[-1]] = max(0.0, 1.0 - sum(results.values()))
    within = cost_distribution(cg, solution, k_max)
    return MoveDistribution(within, ended, mean, results, chain, solution)


def _reach(chain: ChanceGraph, mask: np.ndarray, progress: bool) -> float:
    """P(the chain ends in a terminal of ``mask``) from its start."""
    from perfectplay.objectives import Objective
    from perfectplay.solvers import solve_chance

    g = ChanceGraph(
        terminal=chain.terminal, terminal_value=mask.astype(np.int64),
        choice_ptr=chain.choice_ptr, choice_idx=chain.choice_idx,
        outcome_ptr=chain.outcome_ptr, outcome_idx=chain.outcome_idx,
        outcome_weight=chain.outcome_weight, cost=np.zeros(chain.n_chance, np.int64),
        start=chain.start, objective=Objective.probability(),
    )  # fmt: skip
    return float(solve_chance(g, method="policy-iteration", progress=progress).value)
