"""solve_retry, solve_ssp and exact_solution against each other and an independent twin.

The twin is written here from the Bellman equations alone: Gauss-Seidel value iteration
from zero (a lower bound that rises to the optimum), where a roll's update tries *every*
subset of outcomes to keep (no prefix argument, no ordering), and infinite values come
from a plain reachability search. Graphs are small and random, with the retry property
explicit (each outcome lists the roll among its choices) or implicit (``retry=True``),
and are steered into the awkward cases: unreachable goals, single outcomes, duplicated
outcomes, exact ties (identical twin rolls), dead ends and decision nodes without choices.

Tolerances: floats agree with the exact rational values to 1e-9 relative (solve_retry,
solve_ssp) and 1e-7 (value iteration, stopped at a change below 1e-12).
"""

from __future__ import annotations

import itertools
import math
import random
from fractions import Fraction

import numpy as np
import pytest

from perfectplay.analysis.exact import VerificationError, exact_solution
from perfectplay.errors import PerfectplayError, ResourceLimitError
from perfectplay.graphs import _csr
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.policy_iteration import solve_ssp
from perfectplay.solvers.retry import settle_order, solve_retry

# ---------------------------------------------------------------- random graphs


def random_graph(rng: random.Random, implicit: bool, retry: bool = True) -> ChanceGraph:
    """A small random chance graph; with ``retry`` it has the retry rule (see module doc)."""
    nd = rng.randint(1, 12)
    nc = rng.randint(1, 10)
    goal_p = rng.choice([0.0, 0.1, 0.2, 0.35, 0.6])
    goal = [rng.random() < goal_p for _ in range(nd)]
    outcomes = []
    for _ in range(nc):
        k = rng.choice([1, 1, 2, 3, 4, 5])
        outcomes.append([(rng.randrange(nd), rng.choice([1, 1, 2, 3])) for _ in range(k)])
    choices = [[] for _ in range(nd)]
    for x in range(nd):
        if not goal[x] and rng.random() < 0.85:  # some decision nodes have no choice
            choices[x] = rng.sample(range(nc), rng.randint(1, min(3, nc)))
    cost = [rng.choice([1, 1, 1, 2, 3]) for _ in range(nc)]
    if rng.random() < 0.3:  # an identical twin of a roll: exact ties between choices
        c = rng.randrange(nc)
        outcomes.append(list(outcomes[c]))
        cost.append(cost[c])
        for x in range(nd):
            if c in choices[x]:
                choices[x].append(nc)
        nc += 1
    if retry and not implicit:
        for c, outs in enumerate(outcomes):
            for x, _ in outs:
                if not goal[x] and c not in choices[x]:
                    choices[x].append(c)
    start = rng.randrange(nd)
    return ChanceGraph.from_lists(goal, choices, outcomes, start, cost, retry=retry and implicit)


def graphs(seed: int, n: int, implicit: bool, retry: bool = True):
    rng = random.Random(seed)
    return [random_graph(rng, implicit, retry) for _ in range(n)]


# ---------------------------------------------------------------- the independent twin


def twin_values(g: ChanceGraph) -> tuple[list[float], list[float]]:
    """Value iteration with brute-force keep sets; returns (decision, chance) values."""
    nd, nc = g.n_decision, g.n_chance
    choices = [[int(c) for c in g.choices(x)] for x in range(nd)]
    outs = []
    for c in range(nc):
        xs, ws = g.outcomes(c)
        outs.append([(int(x), int(w)) for x, w in zip(xs, ws, strict=True)])
    total = [sum(w for _, w in o) for o in outs]
    goal = [bool(v) for v in g.goal]

    # Infinite values: without reachability of a goal nothing is finite (retry graphs).
    reach_d = set(x for x in range(nd) if goal[x])
    reach_c: set[int] = set()
    grew = True
    while grew:
        grew = False
        for c in range(nc):
            if c not in reach_c and any(x in reach_d for x, _ in outs[c]):
                reach_c.add(c)
                grew = True
        for x in range(nd):
            if x not in reach_d and any(c in reach_c for c in choices[x]):
                reach_d.add(x)
                grew = True

    vd = [0.0 if x in reach_d else math.inf for x in range(nd)]
    vc = [0.0 if c in reach_c else math.inf for c in range(nc)]

    def may_reroll(c: int, x: int) -> bool:
        return g.retry or (not goal[x] and c in choices[x])

    for _sweep in range(200_000):
        change = 0.0
        for c in sorted(reach_c):
            # Value of outcome x if it does not come back to c.
            vals = []
            for x, w in outs[c]:
                if goal[x]:
                    vals.append((0.0, w))
                else:
                    alt = [vc[b] for b in choices[x] if b != c]
                    vals.append((min(alt, default=math.inf), w))
            best = math.inf
            for r in range(1, len(vals) + 1):
                for keep in itertools.combinations(range(len(vals)), r):
                    rest = set(range(len(vals))) - set(keep)
                    if any(not may_reroll(c, outs[c][i][0]) for i in rest):
                        continue
                    if any(math.isinf(vals[i][0]) for i in keep):
                        continue
                    kw = sum(vals[i][1] for i in keep)
                    v = (g.cost[c] * total[c] + sum(vals[i][0] * vals[i][1] for i in keep)) / kw
                    best = min(best, v)
            change = max(change, abs(best - vc[c]) / max(1.0, abs(best)))
            vc[c] = best
        for x in sorted(reach_d):
            if not goal[x]:
                vd[x] = min(vc[b] for b in choices[x])
        if change < 1e-12:
            return vd, vc
    raise AssertionError("value iteration did not converge")


# ---------------------------------------------------------------- helpers


def exact_floats(g: ChanceGraph, ex) -> tuple[np.ndarray, np.ndarray]:
    d = [ex.decision_value(x) for x in range(g.n_decision)]
    c = [ex.chance_value(i) for i in range(g.n_chance)]
    f = lambda v: math.inf if v is None else float(v)  # noqa: E731
    return np.array([f(v) for v in d]), np.array([f(v) for v in c])


def assert_close(a, b, rel: float, what: str) -> None:
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert np.array_equal(np.isinf(a), np.isinf(b)), f"{what}: infinite at different nodes"
    fin = np.isfinite(a)
    np.testing.assert_allclose(a[fin], b[fin], rtol=rel, atol=rel, err_msg=what)


def check_policy_shape(g: ChanceGraph, sol: ChanceSolution) -> None:
    """Basic invariants of any solution: goals 0, choices legal, -1 exactly where inf."""
    for x in range(g.n_decision):
        b = int(sol.best_choice[x])
        if g.goal[x]:
            assert sol.decision_value[x] == 0.0 and b == -1
        elif math.isinf(sol.decision_value[x]):
            assert b == -1
        else:
            assert b in g.choices(x).tolist()
            assert sol.decision_value[x] == sol.chance_value[b]


# ---------------------------------------------------------------- the 300+ agreement cases


@pytest.mark.parametrize("implicit", [False, True], ids=["explicit", "implicit"])
def test_retry_agrees_with_ssp_exact_and_twin(implicit):
    cases = graphs(seed=2024 + implicit, n=200, implicit=implicit)
    kinds = {"inf start": 0, "finite start": 0, "single outcome": 0, "tie": 0, "dead end": 0}
    for i, g in enumerate(cases):
        sol = solve_retry(g)
        check_policy_shape(g, sol)
        ssp = solve_ssp(g)
        ex = exact_solution(g, sol)  # raises unless the policy is exactly optimal
        ed, ec = exact_floats(g, ex)
        assert_close(sol.decision_value, ed, 1e-9, f"case {i}: retry vs exact")
        assert_close(sol.chance_value, ec, 1e-9, f"case {i}: retry chance vs exact")
        assert_close(ssp.decision_value, ed, 1e-9, f"case {i}: ssp vs exact")
        assert_close(ssp.chance_value, ec, 1e-9, f"case {i}: ssp chance vs exact")
        # The SSP policy is optimal too, so the exact check must accept it as well.
        assert exact_solution(g, ssp).value == ex.value
        if i % 2 == 0:
            td, tc = twin_values(g)
            assert_close(td, ed, 1e-7, f"case {i}: twin vs exact")
            assert_close(tc, ec, 1e-7, f"case {i}: twin chance vs exact")
        kinds["inf start" if ex.value is None else "finite start"] += 1
        kinds["single outcome"] += int((np.diff(g.outcome_ptr) == 1).any())
        kinds["dead end"] += int(
            any(g.choices(x).size == 0 and not g.goal[x] for x in range(g.n_decision))
        )
        vals = ec[np.isfinite(ec)]
        kinds["tie"] += int(len(vals) != len(set(vals.tolist())))
    # The generator really produced the awkward cases.
    assert all(count >= 10 for count in kinds.values()), kinds


def test_hand_made_values():
    # Die with a six as goal, others rerolled: 6 rolls.
    g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    assert solve_retry(g).value == pytest.approx(6.0, rel=1e-15)
    assert exact_solution(g, solve_retry(g)).value == 6
    # Seed-004-style example: from [1] the next roll gives [1,1] (worth 2) or [1,2] (worth
    # 1), each with probability 1/2; keeping only [1,2] costs 3, keeping both 2.5.
    g = ChanceGraph.from_lists(
        goal=[False, False, False, True],
        choices=[[0], [1], [2], []],
        outcomes=[[(1, 1), (2, 1)], [(3, 1)], [(3, 1)]],
        cost=[1, 2, 1],
        retry=True,
    )
    ex = exact_solution(g, solve_retry(g))
    assert ex.value == Fraction(5, 2)
    assert ex.decision_value(1) == 2 and ex.decision_value(2) == 1
    assert solve_retry(g).accept.tolist() == [True, True, True, True]


def test_unreachable_goal_is_inf_never_a_number():
    g = ChanceGraph.from_lists(
        goal=[False, False, True], choices=[[0], [0], []], outcomes=[[(0, 1), (1, 2)]]
    )
    sol = solve_retry(g)
    assert math.isinf(sol.value) and sol.best_choice.tolist() == [-1, -1, -1]
    assert not sol.accept.any()
    assert exact_solution(g, sol).value is None
    assert math.isinf(solve_ssp(g).value)


def test_start_at_goal_and_zero_choice_start():
    g = ChanceGraph.from_lists([True, False], [[], [0]], [[(0, 1), (1, 1)]], start=0)
    assert solve_retry(g).value == 0.0 and exact_solution(g, solve_retry(g)).value == 0
    g = ChanceGraph.from_lists([False, True, False], [[], [], [0]], [[(1, 1)]], start=0)
    assert math.isinf(solve_retry(g).value) and exact_solution(g, solve_retry(g)).value is None


def test_ties_keep_the_policy_proper():
    # Two identical rolls; outcome 2 may go on with either one. Values tie exactly, and
    # whatever the order, following the policy must end at a goal.
    g = ChanceGraph.from_lists(
        goal=[False, True, False],
        choices=[[0, 1], [], [0, 1]],
        outcomes=[[(1, 1), (2, 1)], [(1, 1), (2, 1)]],
    )
    sol = solve_retry(g)
    assert sol.chance_value.tolist() == [2.0, 2.0]
    ex = exact_solution(g, sol)
    assert ex.chance_value(0) == ex.chance_value(1) == 2
    # Follow the policy from every decision node: it never returns to a node it left
    # unless by a reroll.
    for x in range(3):
        seen = set()
        while not g.goal[x]:
            c = int(sol.best_choice[x])
            assert c not in seen
            seen.add(c)
            xs, _ = g.outcomes(c)
            kept = [
                int(y)
                for y, a in zip(
                    xs, sol.accept[g.outcome_ptr[c] : g.outcome_ptr[c + 1]], strict=True
                )
                if a
            ]
            x = kept[0]


def test_settle_order_puts_successors_first():
    for g in graphs(seed=7, n=40, implicit=False):
        sol, order = settle_order(g)
        rank = {int(c): i for i, c in enumerate(order)}
        assert set(rank) == set(np.flatnonzero(np.isfinite(sol.chance_value)).tolist())
        for c in rank:
            for e in range(g.outcome_ptr[c], g.outcome_ptr[c + 1]):
                x = int(g.outcome_idx[e])
                if sol.accept[e] and not g.goal[x]:
                    assert rank[int(sol.best_choice[x])] < rank[c]


def test_retry_refuses_graphs_without_the_retry_rule():
    g = ChanceGraph.from_lists([False, True, False], [[0], [], []], [[(1, 1), (2, 1)]])
    with pytest.raises(ValueError, match="retry"):
        solve_retry(g)
    # A goal outcome needs no retry choice, and retry=True makes the rule implicit.
    g2 = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
    assert solve_retry(g2).value == 1.0
    g3 = ChanceGraph.from_lists([False, True, False], [[0], [], []], [[(1, 1), (2, 1)]], retry=True)
    assert solve_retry(g3).value == 2.0


def test_uncompiled_kernel_gives_the_same_answers(monkeypatch):
    cases = graphs(seed=99, n=30, implicit=True)
    compiled = [solve_retry(g, compiled=True) for g in cases]
    for g, a in zip(cases, compiled, strict=True):
        b = solve_retry(g, compiled=False)
        assert np.array_equal(a.decision_value, b.decision_value)
        assert np.array_equal(a.best_choice, b.best_choice)
        assert np.array_equal(a.accept, b.accept)
        exact_solution(g, b)


# ---------------------------------------------------------------- graphs without the retry rule


def test_ssp_and_exact_without_retry_rule():
    """General graphs (cycles, forced outcomes): SSP and exact agree; unsafe nodes are inf."""
    rng = random.Random(5)
    n_cyclic = n_inf = 0
    for i in range(150):
        g = random_graph(rng, implicit=False, retry=False) if i % 3 == 0 else cyclic_graph(rng)
        sol = solve_ssp(g)
        check_policy_shape(g, sol)
        ex = exact_solution(g, sol)
        ed, ec = exact_floats(g, ex)
        assert_close(sol.decision_value, ed, 1e-9, f"case {i}")
        assert_close(sol.chance_value, ec, 1e-9, f"case {i}")
        n_inf += ex.value is None
        # A policy that can come back to where it was (a cycle through several rolls).
        n_cyclic += _has_policy_cycle(g, sol)
    assert n_cyclic >= 5 and n_inf >= 5


def cyclic_graph(rng: random.Random) -> ChanceGraph:
    """No retry rule, but most rolls can finish: policies with cycles through several rolls."""
    nd = rng.randint(2, 8)
    nc = rng.randint(1, 6)
    goal = [x == 0 or rng.random() < 0.1 for x in range(nd)]
    outcomes = []
    for _ in range(nc):
        outs = [(rng.randrange(1, nd), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.8:
            outs.append((0, rng.randint(1, 3)))
        outcomes.append(outs)
    choices = [
        [] if goal[x] else rng.sample(range(nc), rng.randint(1, min(3, nc))) for x in range(nd)
    ]
    cost = [rng.randint(1, 3) for _ in range(nc)]
    return ChanceGraph.from_lists(goal, choices, outcomes, rng.randrange(nd), cost)


def _has_policy_cycle(g: ChanceGraph, sol: ChanceSolution) -> bool:
    nxt: dict[int, set[int]] = {}
    for c in range(g.n_chance):
        xs, _ = g.outcomes(c)
        nxt[c] = {int(sol.best_choice[x]) for x in xs if not g.goal[x]} - {-1, c}
    state = dict.fromkeys(nxt, 0)

    def dfs(c: int) -> bool:
        state[c] = 1
        for b in nxt[c]:
            if state[b] == 1 or (state[b] == 0 and dfs(b)):
                return True
        state[c] = 2
        return False

    return any(state[c] == 0 and dfs(c) for c in nxt)


def test_no_retry_almost_sure_reachability():
    # Roll 0 may land on a dead end: without retry it can fail forever, so it is inf,
    # although a goal is reachable. Roll 1 is safe.
    g = ChanceGraph.from_lists(
        goal=[False, True, False],
        choices=[[0, 1], [], []],
        outcomes=[[(1, 1), (2, 1)], [(1, 1), (0, 3)]],
    )
    sol = solve_ssp(g)
    assert math.isinf(sol.chance_value[0]) and sol.chance_value[1] == pytest.approx(4.0)
    ex = exact_solution(g, sol)
    assert ex.chance_value(0) is None and ex.value == 4
    # The same graph with the retry rule: roll 0 rerolls the dead end.
    g = ChanceGraph.from_lists(
        g.goal.tolist(), [[0, 1], [], []], [[(1, 1), (2, 1)], [(1, 1), (0, 3)]], retry=True
    )
    assert exact_solution(g, solve_retry(g)).value == 2


def test_exact_cycles_have_no_size_limit_only_a_memory_estimate(monkeypatch):
    # A ring of n rolls, each landing on the next decision node or a goal (the old exact
    # limit was 150 rolls).
    n = 1500
    goal = [False] * n + [True]
    choices = [[i] for i in range(n)] + [[]]
    outcomes = [[((i + 1) % n, 1), (n, 1)] for i in range(n)]
    g = ChanceGraph.from_lists(goal, choices, outcomes)
    best = np.arange(n + 1, dtype=np.int32)
    best[n] = -1
    sol = ChanceSolution(g, np.full(n + 1, 2.0), np.full(n, 2.0), best, np.ones(2 * n, bool))
    ex = exact_solution(g, sol)
    assert [ex.chance_value(c) for c in range(n)] == [2] * n
    # The fill estimate (entries times their bits) is checked before the elimination.
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "2M")
    with pytest.raises(ResourceLimitError, match="exact elimination of a cycle through 1,500"):
        exact_solution(g, sol)
    monkeypatch.delenv("PERFECTPLAY_MEMORY_LIMIT")
    small = ChanceGraph.from_lists(
        goal[-4:], [[0], [1], [2], []], [[(1, 1), (3, 1)], [(2, 1), (3, 1)], [(0, 1), (3, 1)]]
    )
    ex = exact_solution(small, solve_ssp(small))
    assert ex.value == 2


def test_ssp_has_no_size_limit_per_graph_or_per_cycle():
    # Many rolls are fine when the policy graph has no cycle (the old dense solver
    # refused more than 2,000 chance nodes) ...
    n = 5000
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]] * n)
    assert solve_ssp(g).chance_value.tolist() == [1.0] * n
    # ... and so is one cycle of more rolls than the old 3,000-roll limit: a ring of
    # rolls, each going on round the ring (V = 1 + V / 2) or finishing.
    n = 3001
    g = ChanceGraph.from_lists(
        [False] * n + [True],
        [[i] for i in range(n)] + [[]],
        [[((i + 1) % n, 1), (n, 1)] for i in range(n)],
    )
    np.testing.assert_allclose(solve_ssp(g).chance_value, 2.0, rtol=1e-12)


# ---------------------------------------------------------------- large graphs without retry


def race_graph(n: int, faces: tuple[int, ...], chutes: dict[int, int] | None = None):
    """Squares 0..n, n the goal. On a square the player picks a die (one roll per die);
    a throw past n stays put, and landing on a chute's square moves to its foot."""
    chutes = chutes or {}
    squares = [s for s in range(n) if s not in chutes]

    def land(s: int, d: int) -> int:
        return chutes.get(s + d, s + d) if s + d <= n else s

    node = {s: i for i, s in enumerate(squares + [n])}
    goal = [False] * len(squares) + [True]
    choices, outcomes = [], []
    for s in squares:
        choices.append(list(range(len(outcomes), len(outcomes) + len(faces))))
        for f in faces:
            outcomes.append([(node[land(s, d)], 1) for d in range(1, f + 1)])
    return ChanceGraph.from_lists(goal, choices + [[]], outcomes), squares, land


def race_by_value_iteration(n: int, faces: tuple[int, ...], squares, land) -> np.ndarray:
    """The twin: Jacobi value iteration from zero, min over the dice of 1 + mean value."""
    targets = [np.array([[land(s, d) for d in range(1, f + 1)] for s in squares]) for f in faces]
    v = np.zeros(n + 1)
    for _ in range(100_000):
        new = np.min([1.0 + v[t].mean(axis=1) for t in targets], axis=0)
        change = np.max(np.abs(new - v[squares]))
        v[squares] = new
        if change <= 1e-13 * new.max():
            return v[squares]
    raise AssertionError("value iteration did not converge")


def largest_policy_cycle(g: ChanceGraph, sol: ChanceSolution) -> int:
    """Rolls in the largest strongly connected component of the policy graph, by
    Kosaraju's two searches (not Tarjan's, which the solver uses)."""
    nxt: list[set[int]] = [set() for _ in range(g.n_chance)]
    for c in range(g.n_chance):
        for x in g.outcomes(c)[0].tolist():
            if not g.goal[x] and sol.best_choice[x] >= 0:
                nxt[c].add(int(sol.best_choice[x]))
    prv: list[list[int]] = [[] for _ in range(g.n_chance)]
    for c, bs in enumerate(nxt):
        for b in bs:
            prv[b].append(c)
    finished: list[int] = []
    seen = [False] * g.n_chance
    for root in range(g.n_chance):
        if seen[root]:
            continue
        seen[root] = True
        work = [(root, iter(nxt[root]))]
        while work:
            c, it = work[-1]
            b = next((b for b in it if not seen[b]), None)
            if b is None:
                work.pop()
                finished.append(c)
            else:
                seen[b] = True
                work.append((b, iter(nxt[b])))
    comp = [-1] * g.n_chance
    sizes = []
    for root in reversed(finished):
        if comp[root] >= 0:
            continue
        comp[root] = len(sizes)
        todo, size = [root], 0
        while todo:
            c = todo.pop()
            size += 1
            for b in prv[c]:
                if comp[b] < 0:
                    comp[b] = comp[root]
                    todo.append(b)
        sizes.append(size)
    return max(sizes)


def test_ssp_solves_a_3000_square_race():
    """The users' case the old dense solver refused: 6,000 rolls, no retry property."""
    n, faces = 3000, (4, 6)
    g, squares, land = race_graph(n, faces)
    assert not g.has_retry_property() and g.n_chance == 6000
    sol = solve_ssp(g)
    check_policy_shape(g, sol)
    twin = race_by_value_iteration(n, faces, squares, land)
    assert_close(sol.decision_value[:n], twin, 1e-9, "race vs value iteration")
    assert 850 < sol.value < 870  # about n / 3.5 throws of the larger die
    # The policy graph is acyclic but for the stay-put rerolls, and the exact check (in
    # rational arithmetic) proves the policy optimal.
    assert largest_policy_cycle(g, sol) == 1
    assert float(exact_solution(g, sol).value) == pytest.approx(sol.value, rel=1e-12)


def test_ssp_large_cycle_matches_the_closed_form():
    # n rolls in a row: each goes on with weight 999 or sends the token back to the start
    # (weight 1). Expected rolls from position i to n successes in a row:
    # (p**-n - p**-i) / q, with p = 999/1000, q = 1/1000. One component of n rolls.
    n = 2000
    g = ChanceGraph.from_lists(
        [False] * n + [True],
        [[i] for i in range(n)] + [[]],
        [[(i + 1, 999), (0, 1)] for i in range(n)],
    )
    sol = solve_ssp(g)
    # (Floats: the subtraction loses at most a factor 1000 of the 1e-16 rounding.)
    p, q = 0.999, 0.001
    want = (p ** -float(n) - p ** -np.arange(n, dtype=float)) / q
    assert largest_policy_cycle(g, sol) == n
    assert_close(sol.decision_value[:n], want, 1e-9, "ring vs closed form")


def test_ssp_large_cycle_with_choices_matches_value_iteration():
    # A race with chutes: a chute near the end back to square 5 puts most of the board
    # in one cycle, smaller chutes make cycles inside it, and the dice give choices.
    n, faces = 600, (4, 6)
    chutes = {s: s - 30 for s in range(40, n, 37)}
    chutes[590] = 5
    g, squares, land = race_graph(n, faces, chutes)
    sol = solve_ssp(g)
    check_policy_shape(g, sol)
    twin = race_by_value_iteration(n, faces, squares, land)
    assert_close(sol.decision_value[: len(squares)], twin, 1e-9, "chutes vs value iteration")
    assert largest_policy_cycle(g, sol) > 500


def test_ssp_compiled_and_python_source_agree():
    rng = random.Random(41)
    cases = [cyclic_graph(rng) for _ in range(40)]
    cases += [random_graph(rng, implicit=bool(i % 2)) for i in range(40)]
    cases.append(race_graph(40, (3, 5), {17: 2, 33: 20})[0])
    for g in cases:
        a = solve_ssp(g, compiled=True)
        b = solve_ssp(g, compiled=False)
        assert np.array_equal(a.decision_value, b.decision_value)
        assert np.array_equal(a.chance_value, b.chance_value)
        assert np.array_equal(a.best_choice, b.best_choice)
        assert np.array_equal(a.accept, b.accept)


# ---------------------------------------------------------------- the exact check rejects


def _solved(seed: int = 11) -> tuple[ChanceGraph, ChanceSolution]:
    g = ChanceGraph.from_lists(
        goal=[False, True, False, False],
        choices=[[0, 1], [], [0, 1], [0, 1]],
        outcomes=[[(1, 1), (2, 2), (3, 3)], [(1, 1), (2, 2), (3, 1)]],
    )
    return g, solve_retry(g)


def _with(sol: ChanceSolution, best=None, accept=None) -> ChanceSolution:
    return ChanceSolution(
        sol.graph,
        sol.decision_value,
        sol.chance_value,
        sol.best_choice if best is None else best,
        sol.accept if accept is None else accept,
    )


def test_exact_rejects_a_worse_choice():
    g, sol = _solved()
    ex = exact_solution(g, sol)
    x = 0
    other = [int(c) for c in g.choices(x) if c != sol.best_choice[x]][0]
    assert ex.chance_value(other) > ex.value
    best = sol.best_choice.copy()
    best[x] = other
    with pytest.raises(VerificationError, match="better"):
        exact_solution(g, _with(sol, best=best))


def test_exact_rejects_wrong_keep_or_reroll():
    g, sol = _solved()
    ex = exact_solution(g, sol)
    for e in range(g.outcome_idx.size):
        acc = sol.accept.copy()
        acc[e] = not acc[e]
        c = int(np.searchsorted(g.outcome_ptr, e, side="right") - 1)
        vx = ex.decision_value(int(g.outcome_idx[e]))
        if vx == ex.chance_value(c):
            continue  # a tie may go either way
        with pytest.raises(VerificationError):
            exact_solution(g, _with(sol, accept=acc))


def test_exact_rejects_illegal_and_improper_policies():
    g, sol = _solved()
    best = sol.best_choice.copy()
    best[0] = -1  # gives up at a node that can finish
    with pytest.raises(VerificationError, match="infinite value"):
        exact_solution(g, _with(sol, best=best))
    # A choice the node does not have.
    g2 = ChanceGraph.from_lists([False, True, False], [[0], [], [1]], [[(1, 1)], [(1, 1), (2, 1)]])
    s2 = solve_retry(g2)
    best = s2.best_choice.copy()
    best[0] = 1
    with pytest.raises(VerificationError, match="not one of its choices"):
        exact_solution(g2, _with(s2, best=best))
    # Rerolling where the rules do not allow it (no retry rule, node cannot choose c).
    g3 = ChanceGraph.from_lists([False, True, False], [[0], [], [1]], [[(1, 1), (2, 1)], [(1, 1)]])
    s3 = solve_ssp(g3)
    with pytest.raises(VerificationError, match="do not allow"):
        exact_solution(g3, _with(s3, accept=np.array([True, False, True])))
    # Rejecting every outcome: the roll never ends.
    g4 = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]], retry=True)
    s4 = solve_retry(g4)
    with pytest.raises(VerificationError):
        exact_solution(g4, _with(s4, accept=np.array([False])))
    assert issubclass(VerificationError, PerfectplayError)


def test_exact_rejects_a_near_tie_that_floats_cannot_see():
    # Two rolls whose values differ by about 2**-61: equal as floats, so the float solver
    # may pick either; the exact check must find the better one, and improve=True must
    # repair the policy.
    big = 2**60
    g = ChanceGraph.from_lists(
        goal=[False, True, False],
        choices=[[0, 1], [], [0, 1]],
        outcomes=[[(1, big), (2, big)], [(1, big + 1), (2, big)]],
    )
    sol = solve_retry(g)
    assert sol.chance_value[0] == sol.chance_value[1] == 2.0  # floats cannot tell
    keep_all = np.ones(4, bool)
    good = _with(sol, best=np.array([1, -1, 1], np.int32), accept=keep_all)
    ex = exact_solution(g, good)
    assert ex.chance_value(1) == Fraction(2 * big + 1, big + 1)
    assert ex.value == ex.chance_value(1) < ex.chance_value(0) < 2
    bad = _with(sol, best=np.array([0, -1, 0], np.int32), accept=keep_all)
    with pytest.raises(VerificationError, match="exactly"):
        exact_solution(g, bad)
    fixed = exact_solution(g, bad, improve=True)
    assert fixed.value == ex.value
    assert fixed.solution.best_choice.tolist() == [1, -1, 1]
    # Whatever the float solver picked, improve=True ends at the exact optimum.
    assert exact_solution(g, sol, improve=True).value == ex.value


def test_improve_repairs_any_legal_proper_policy():
    rng = random.Random(31)
    repaired = 0
    for _ in range(60):
        g = random_graph(rng, implicit=bool(rng.random() < 0.5))
        sol = solve_retry(g)
        ex = exact_solution(g, sol)
        # Scramble the choices among finite ones (still proper: retry graphs let every
        # roll keep only outcomes that are closer to a goal... so use SSP's safe policy).
        best = sol.best_choice.copy()
        for x in range(g.n_decision):
            opts = [int(c) for c in g.choices(x) if math.isfinite(sol.chance_value[c])]
            if best[x] >= 0 and opts:
                best[x] = rng.choice(opts)
        scrambled = _with(sol, best=best)
        try:
            fixed = exact_solution(g, scrambled, improve=True)
        except VerificationError:
            continue  # the scramble made the policy improper (a cycle with no way out)
        assert fixed.value == ex.value
        repaired += not np.array_equal(best, sol.best_choice)
    assert repaired >= 10


# ---------------------------------------------------------------- Alea-shaped graphs


def alea_like(rng: random.Random, d: int, n_words: int, alphabet: str) -> ChanceGraph:
    """Plain Alea Iacta Est state graph: full rolls choose which dice to reroll."""
    dice = ["".join(rng.choice(alphabet) for _ in range(6)) for _ in range(d)]
    words = {"".join(sorted(rng.choice(alphabet) for _ in range(d))) for _ in range(n_words)}
    rolls = list(itertools.product(range(6), repeat=d))
    roll_id = {r: i for i, r in enumerate(rolls)}
    goal = ["".join(sorted(dice[i][f] for i, f in enumerate(r))) in words for r in rolls]
    partial: dict[tuple, int] = {}
    choices: list[list[int]] = []
    for r in rolls:
        mine = []
        for mask in range(1, 2**d):
            key = tuple(-1 if mask >> i & 1 else f for i, f in enumerate(r))
            mine.append(partial.setdefault(key, len(partial)))
        choices.append(mine)
    outcomes: list[list[tuple[int, int]]] = [[] for _ in partial]
    for key, c in partial.items():
        free = [i for i, f in enumerate(key) if f < 0]
        for faces in itertools.product(range(6), repeat=len(free)):
            r = list(key)
            for i, f in zip(free, faces, strict=True):
                r[i] = f
            outcomes[c].append((roll_id[tuple(r)], 1))
    start = len(rolls)
    all_free = partial[tuple([-1] * d)]
    return ChanceGraph.from_lists(goal + [False], choices + [[all_free]], outcomes, start)


def test_alea_shaped_graphs_agree():
    rng = random.Random(8)
    for d, n_words, alphabet in [
        (1, 1, "AB"),
        (2, 3, "ABCDE"),
        (2, 1, "ABCDEFGH"),
        (3, 4, "ABCDEF"),
        (3, 1, "ABCDEFGHIJ"),
        (3, 2, "XY"),
    ]:
        g = alea_like(rng, d, n_words, alphabet)
        assert g.has_retry_property()
        sol = solve_retry(g)
        ex = exact_solution(g, sol)
        ed, ec = exact_floats(g, ex)
        assert_close(sol.decision_value, ed, 1e-12, f"d={d}")
        assert_close(solve_ssp(g).decision_value, ed, 1e-9, f"d={d}")
    # Three plain dice that must all show a six: keeping sixes is optimal, and the number
    # of rolls is the maximum of three geometric(1/6) variables, whose mean is
    # sum_k (1 - (1 - q^k)^3) = 3/(1-q) - 3/(1-q^2) + 1/(1-q^3) with q = 5/6, = 10566/1001.
    dice_graph = alea_like(random.Random(0), 3, 0, "A")
    goal = np.zeros(dice_graph.n_decision, bool)
    goal[215] = True  # the roll (5, 5, 5): the face "6" on every die
    g = ChanceGraph(
        goal,
        dice_graph.choice_ptr,
        dice_graph.choice_idx,
        dice_graph.outcome_ptr,
        dice_graph.outcome_idx,
        dice_graph.outcome_weight,
        dice_graph.cost,
        dice_graph.start,
    )
    assert exact_solution(g, solve_retry(g)).value == Fraction(10566, 1001)


def test_retry_property_checks_agree():
    """The O(E) pass of the retry property, compiled and interpreted, agrees with a direct
    scan of every outcome's choices, and label-setting refuses exactly the graphs without."""
    rng = random.Random(12)
    verdicts = set()
    for i in range(150):
        g = random_graph(rng, implicit=False, retry=i % 3 != 0)
        direct = all(
            g.goal[x] or c in g.choices(int(x)).tolist()
            for c in range(g.n_chance)
            for x in g.outcomes(c)[0]
        )
        arrays = g.arrays()[:5]
        for compiled in (False, True):
            assert _csr.retry_property(*arrays, compiled=compiled) == direct
        assert g.has_retry_property() == direct
        if direct:
            solve_retry(g)
        else:
            with pytest.raises(ValueError, match="retry"):
                solve_retry(g)
        verdicts.add(direct)
    assert verdicts == {True, False}
