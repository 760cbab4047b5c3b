"""Monte Carlo runs of a policy on a chance graph.

Each run starts at ``graph.start``, follows ``best_choice`` at decision nodes, rolls chance
nodes by their integer weights, rerolls outcomes the policy rejects, and stops at a
terminal node; its outcome (total cost plus the terminal's value) is recorded. The runs
are an independent check of the computed expectation
(its mean should land within a few standard errors) and a way to look at the spread.

The loop is one compiled kernel seeded explicitly, so a given ``seed`` always gives the
same runs. It cannot hang: from any state of a proper policy the expected remaining cost
is at most the largest finite value ``M``, so by Markov's inequality a run survives
``2M`` more cost with probability at most 1/2, and past ``128 M`` with probability below
``2^-64``; a run that gets that far means the policy is not the one the values describe,
and the call fails instead of spinning. The total expected work is capped as well
(:data:`MAX_EXPECTED_STEPS`).

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.solvers.retry import solve_retry
>>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
>>> costs = simulate(g, solve_retry(g), runs=20000, seed=1)
>>> costs.dtype.name, bool(abs(costs.mean() - 6.0) < 0.2)
('int64', True)
"""

from __future__ import annotations

import math
import time
from typing import Any, cast

import numpy as np

from perfectplay._util.jit import kernel
from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.analysis.distribution import outcome_support, policy_arrays
from perfectplay.errors import InputError, ResourceLimitError, short_repr
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution

__all__ = ["MAX_EXPECTED_STEPS", "simulate"]

MAX_EXPECTED_STEPS = 2_000_000_000
"""Largest ``runs * start value / smallest cost`` accepted (expected rolls in total)."""


@kernel
def _simulate(
    goal: Any, tval: Any, outcome_ptr: Any, outcome_idx: Any, outcome_weight: Any, cost: Any,
    best: Any, accept: Any, start: Any, runs: Any, seed: Any, cap: Any,
) -> Any:  # fmt: skip
    if seed >= 0:  # else: go on with the stream of the call before (the next chunk of runs)
        np.random.seed(seed)
    n_out = outcome_idx.shape[0]
    nc = cost.shape[0]
    # Running sums of weights within each chance node, for sampling by bisection.
    cum = np.empty(n_out, np.int64)
    total = np.empty(nc, np.int64)
    for c in range(nc):
        s = 0
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            s += outcome_weight[e]
            cum[e] = s
        total[c] = s
    out = np.empty(runs, np.int64)
    for r in range(runs):
        paid = 0
        x = start
        while not goal[x]:
            c = best[x]
            if c < 0:
                return out, r, 2
            while True:
                paid += cost[c]
                if paid > cap:
                    return out, r, 1
                u = np.random.randint(0, total[c])
                lo = outcome_ptr[c]
                hi = outcome_ptr[c + 1] - 1
                while lo < hi:  # first edge whose running sum exceeds u
                    mid = (lo + hi) >> 1
                    if cum[mid] > u:
                        hi = mid
                    else:
                        lo = mid + 1
                if accept[lo]:
                    x = outcome_idx[lo]
                    break
        out[r] = paid + tval[x]
    return out, runs, 0


def _chunks(arrays: tuple[Any, ...], runs: int, seed: int, cap: int) -> tuple[Any, int, int]:
    """:func:`_simulate` of ``runs`` runs in chunks, one random stream through them all (the
    same runs as one call), with progress and the time left on stderr past 2 s; a chunk
    grows while it takes under a second, so the reports cost nothing."""
    out = np.empty(runs, np.int64)
    progress = Progress("simulating", delay=2.0, interval=5.0, eta=True)
    done, size, why = 0, 1024, 0
    while done < runs:
        n = min(size, runs - done)
        t0 = time.perf_counter()
        part, ran, why = _simulate(*arrays, n, seed if done == 0 else -1, cap)
        out[done : done + ran] = part[:ran]
        done += ran
        if why:
            break
        if time.perf_counter() - t0 < 1.0:
            size *= 2
        progress.update(done, "runs", runs)
    progress.done()
    return out, done, why


def simulate(graph: ChanceGraph, solution: ChanceSolution, runs: int, seed: int) -> np.ndarray:
    """``int64[runs]``: the outcome of ``runs`` independent plays of ``solution``'s policy:
    the total cost paid plus the value of the terminal node reached.

    Raises:
        UnsupportedObjectiveError: the objective does not minimise integer costs of at
            least 1 (see :func:`~perfectplay.analysis.distribution.outcome_support`).
        InputError: ``runs`` or ``seed`` is not a valid count or seed (an InputError is a
            ValueError); ValueError: the start value is infinite (no run would end).
        ResourceLimitError: the expected total work exceeds :data:`MAX_EXPECTED_STEPS`,
            the results would not fit in memory, or a run went on far longer than the
            values allow (the policy does not match them).

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.solvers.retry import solve_retry
    >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], cost=[3])
    >>> simulate(g, solve_retry(g), runs=3, seed=7).tolist()
    [3, 3, 3]
    """
    if isinstance(runs, bool) or not isinstance(runs, int | np.integer) or runs < 0:
        raise InputError(f"runs must be an int >= 0, not {short_repr(runs)}")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**32:
        # numba's generator takes 32 bits: a larger seed would wrap around silently.
        raise InputError(f"seed must be an int from 0 to 2**32-1, not {seed!r}")
    outcome_support(graph, "simulation")
    # A probability's dead ends end a run like terminals worth 0 (the event did not happen).
    graph = graph.finish_dead_ends()
    value = solution.value
    if not math.isfinite(value):
        raise ValueError("the start value is infinite: no run would ever reach a goal")
    from perfectplay.analysis.distribution import _acyclic

    if graph.scale == 1 and _acyclic(graph):
        # Every run ends within n_chance rolls; the cap on the amount paid is moot.
        if runs * max(1, graph.n_chance) > 64 * MAX_EXPECTED_STEPS:
            raise ResourceLimitError(f"{runs:,} runs are too much work")
        require(runs * 8 + graph.outcome_idx.shape[0] * 8, "the simulated runs")
        out, done, why = _chunks(policy_arrays(graph, solution), int(runs), int(seed), 2**62)
        if why:
            raise ResourceLimitError(
                f"run {done + 1} reached a decision node without a choice; the policy does "
                "not match its values"
            )
        return cast(np.ndarray, out)
    min_cost = int(graph.cost.min()) if graph.n_chance else 1
    if runs * value / min_cost > MAX_EXPECTED_STEPS:
        raise ResourceLimitError(
            f"{runs:,} runs of about {value:.3g} expected cost each are too much work "
            f"(limit {MAX_EXPECTED_STEPS:,} rolls in total)"
        )
    require(runs * 8 + graph.outcome_idx.shape[0] * 8 + graph.n_chance * 8, "the simulated runs")
    # Expected remaining cost is at most the largest finite value less the lowest terminal
    # value (the bound the run cap rests on, see the module docstring).
    finite = solution.chance_value[np.isfinite(solution.chance_value)]
    low = graph.terminal_value[graph.terminal]
    worst = float(finite.max()) - min(0.0, float(low.min()) if low.size else 0.0)
    worst = worst if finite.size else 0.0
    value -= float(low.min()) if low.size else 0.0
    max_cost = int(graph.cost.max()) if graph.n_chance else 1
    cap = int(min(128.0 * worst + 64 * max_cost, 2.0**62))
    out, done, why = _chunks(policy_arrays(graph, solution), int(runs), int(seed), cap)
    if why == 2:
        raise ResourceLimitError(
            f"run {done + 1} reached a decision node without a choice; the policy does not "
            "match its values"
        )
    if why == 1:
        raise ResourceLimitError(
            f"run {done + 1} paid more than {cap:,} without reaching a goal; the policy does "
            "not match its values"
        )
    return cast(np.ndarray, out)
