"""solve_ssp on graphs far above the old 2,000-roll limit, against independent computations.

Each check is written here from the game's definition, not from the solver:

* a 3,000-square race in which a roll that overshoots the last square leaves the token
  where it is, against the backward recursion that is exact for that game;
* a ring of 2,500 rolls (one cycle, hence one dense solve) fed by an acyclic approach
  road, against NumPy's dense solve of the whole linear system;
* random graphs with the retry property, against the label-setting solver, which uses
  an unrelated algorithm;
* a cycle longer than the old 3,000-roll limit, and the refusal of a cycle whose matrix
  would not fit in the memory budget.

Tolerances: 1e-9 relative throughout (both sides are float64; the race and the ring are
well conditioned).
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from perfectplay.errors import ResourceLimitError
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.solvers.policy_iteration import solve_ssp
from perfectplay.solvers.retry import solve_retry

REL = 1e-9


def assert_values(got: np.ndarray, want: np.ndarray, what: str) -> None:
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert np.array_equal(np.isinf(got), np.isinf(want)), f"{what}: inf at different nodes"
    fin = np.isfinite(want)
    np.testing.assert_allclose(got[fin], want[fin], rtol=REL, atol=0.0, err_msg=what)


# ---------------------------------------------------------------- the overshoot race


def race(squares: int, split_stay: bool) -> ChanceGraph:
    """Squares 0..N (N is the goal); square s rolls one die: s+k, or stay if s+k > N.

    Decision node s has one choice, roll s. With ``split_stay`` each overshooting face is
    its own outcome edge (duplicate edges to the same node), else they share one edge.
    """
    n = squares
    outcomes = []
    for s in range(n):
        outs = [(s + k, 1) for k in range(1, 7) if s + k <= n]
        stay = 6 - len(outs)
        if stay:
            outs += [(s, 1)] * stay if split_stay else [(s, stay)]
        outcomes.append(outs)
    return ChanceGraph.from_lists(
        goal=[False] * n + [True],
        choices=[[s] for s in range(n)] + [[]],
        outcomes=outcomes,
        start=0,
    )


def race_values(squares: int) -> list[float]:
    """V(s) = (1 + sum_{k: s+k <= N} V(s+k) / 6) / (1 - stay(s) / 6), from the goal back."""
    n = squares
    v = [0.0] * (n + 1)
    for s in range(n - 1, -1, -1):
        ahead = [v[s + k] for k in range(1, 7) if s + k <= n]
        stay = 6 - len(ahead)
        v[s] = (6.0 + math.fsum(ahead)) / (6 - stay)
    return v


@pytest.mark.parametrize(("split_stay", "compiled"), [(False, False), (True, False), (False, True)])
def test_overshoot_race_of_3000_squares(split_stay, compiled):
    g = race(3000, split_stay)
    sol = solve_ssp(g, compiled=compiled)
    want = race_values(3000)
    assert_values(sol.decision_value, want, "decision values")
    assert_values(sol.chance_value, want[:-1], "chance values")
    assert sol.best_choice.tolist() == list(range(3000)) + [-1]
    assert sol.accept.all()


# ---------------------------------------------------------------- one long cycle


def ring_with_road(ring: int, road: int, seed: int) -> ChanceGraph:
    """Decision nodes: 0 the goal, 1..ring-1 on the ring, then ``road`` squares leading in.

    Ring node i rolls its own die: forward (weight 2), backward (weight 1), and with
    weight 1 stays put; node 0 of the ring is the goal, so the ring's rolls form a
    single strongly connected component of ``ring - 1`` rolls. The road squares move
    one or two squares towards the ring and enter it at a random node. Costs vary.
    """
    rng = random.Random(seed)
    n_dec = ring + road
    goal = [x == 0 for x in range(n_dec)]
    choices: list[list[int]] = [[]]
    outcomes: list[list[tuple[int, int]]] = []
    cost: list[int] = []
    for i in range(1, ring):
        choices.append([len(outcomes)])
        outcomes.append([((i + 1) % ring, 2), (i - 1, 1), (i, 1)])
        cost.append(rng.randint(1, 3))
    for j in range(road):
        x = ring + j
        nxt = [x + 1, x + 2] if j + 2 < road else [rng.randrange(1, ring)] * 2
        nxt = [y if y < n_dec else rng.randrange(1, ring) for y in nxt]
        choices.append([len(outcomes)])
        outcomes.append([(nxt[0], rng.randint(1, 4)), (nxt[1], rng.randint(1, 4))])
        cost.append(rng.randint(1, 3))
    return ChanceGraph.from_lists(goal, choices, outcomes, start=n_dec - 1, cost=cost)


def dense_values(g: ChanceGraph) -> np.ndarray:
    """The whole single-choice system (I - P) v = cost over all rolls, solved densely."""
    nc = g.n_chance
    a = np.eye(nc)
    b = g.cost.astype(float)
    for c in range(nc):
        xs, ws = g.outcomes(c)
        total = float(ws.sum())
        for x, w in zip(xs.tolist(), ws.tolist(), strict=True):
            if not g.goal[x]:
                (only,) = g.choices(x).tolist()
                a[c, only] -= w / total
    return np.linalg.solve(a, b)


def test_ring_of_2500_rolls_against_a_dense_solve():
    g = ring_with_road(ring=2501, road=300, seed=3)
    assert g.n_chance == 2800
    sol = solve_ssp(g)
    want = dense_values(g)
    assert_values(sol.chance_value, want, "chance values")
    live = ~g.goal
    assert_values(sol.decision_value[live], want[sol.best_choice[live]], "decision values")
    assert sol.decision_value[0] == 0.0


def test_compiled_and_interpreted_kernels_agree():
    g = ring_with_road(ring=200, road=150, seed=5)
    a = solve_ssp(g, compiled=False)
    b = solve_ssp(g, compiled=True)
    np.testing.assert_allclose(a.chance_value, b.chance_value, rtol=1e-13)
    assert np.array_equal(a.best_choice, b.best_choice)
    assert_values(a.chance_value, dense_values(g), "small ring")


def test_many_small_rolls_are_no_longer_refused():
    # 5,000 independent one-outcome rolls: the old solver refused more than 2,000 rolls.
    n = 5000
    g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]] * n, cost=[2] * n)
    sol = solve_ssp(g)
    assert sol.chance_value.tolist() == [2.0] * n and sol.value == 2.0


# ---------------------------------------------------------------- retry graphs vs solve_retry


def retry_graph(rng: random.Random, nd: int, nc: int, implicit: bool) -> ChanceGraph:
    """Random graph with the retry rule: explicit (outcomes list the roll) or implicit."""
    goal = [rng.random() < 0.08 for _ in range(nd)]
    outcomes = []
    for _ in range(nc):
        k = rng.choice([1, 2, 3, 4, 6])
        outcomes.append([(rng.randrange(nd), rng.randint(1, 5)) for _ in range(k)])
    choices: list[list[int]] = []
    for x in range(nd):
        if goal[x] or rng.random() < 0.05:
            choices.append([])  # goals, and a few dead ends
        else:
            choices.append(rng.sample(range(nc), rng.randint(1, min(4, nc))))
    if not implicit:
        for c, outs in enumerate(outcomes):
            for x, _ in outs:
                if not goal[x] and c not in choices[x]:
                    choices[x].append(c)
    cost = [rng.choice([1, 1, 2, 5]) for _ in range(nc)]
    return ChanceGraph.from_lists(
        goal, choices, outcomes, start=rng.randrange(nd), cost=cost, retry=implicit
    )


def test_agrees_with_label_setting_on_random_retry_graphs():
    rng = random.Random(20241122)
    finite = infinite = 0
    for i in range(24):
        nd = rng.randint(20, 400)
        g = retry_graph(rng, nd, rng.randint(5, nd), implicit=i % 2 == 1)
        want = solve_retry(g)
        got = solve_ssp(g)
        assert_values(got.decision_value, want.decision_value, f"case {i} decisions")
        assert_values(got.chance_value, want.chance_value, f"case {i} rolls")
        # -1 exactly at goals and infinite nodes; elsewhere a choice worth the node's value.
        unreached = g.goal | np.isinf(want.decision_value)
        assert np.array_equal(got.best_choice < 0, unreached), f"case {i}"
        on = ~unreached
        np.testing.assert_array_equal(got.chance_value[got.best_choice[on]], got.decision_value[on])
        finite += int(np.isfinite(want.decision_value).sum())
        infinite += int((np.isinf(want.decision_value)).sum())
    assert finite > 1000 and infinite > 50  # both kinds really occurred


# ---------------------------------------------------------------- refusals


def ring_of(n: int) -> ChanceGraph:
    """n rolls in a ring, each moving to the next or finishing (weights 1:1)."""
    return ChanceGraph.from_lists(
        [False] * n + [True],
        [[i] for i in range(n)] + [[]],
        [[((i + 1) % n, 1), (n, 1)] for i in range(n)],
    )


def test_a_cycle_above_the_old_component_limit_is_solved():
    # Each roll: V = 1 + V(next) / 2, the same on the whole ring, so V = 2 everywhere.
    sol = solve_ssp(ring_of(3001))
    np.testing.assert_allclose(sol.chance_value, 2.0, rtol=REL)


def test_a_cycle_that_does_not_fit_in_memory_is_refused(monkeypatch):
    # A ring with random jumps across it: no narrow order, so a dense LU.
    n = 1000
    rng = random.Random(4)
    g = ChanceGraph.from_lists(
        [False] * n + [True],
        [[i] for i in range(n)] + [[]],
        [[((i + 1) % n, 1), (rng.randrange(n), 1), (rng.randrange(n), 1), (n, 3)]
         for i in range(n)],
    )  # fmt: skip
    assert solve_ssp(g).value == pytest.approx(2.0, rel=REL)  # 1 + 3V/6 = V
    # The 1,000 x 1,000 matrix needs 8 MB (16 MB with LAPACK's copy).
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "4M")
    with pytest.raises(ResourceLimitError, match="dense LU.*needs about"):
        solve_ssp(g)
