"""The stochastic-game solver against its twins (tests/twins/stochastic_game.py): exhaustive
minimax over strategy pairs on small random games (ties, cycles, endless play worth a draw),
plain value iteration on Piglet, and exact evaluation with verification."""

from __future__ import annotations

import importlib.util
import random
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import ModelError, UnsupportedObjectiveError
from perfectplay.graphs.stochastic import StochasticGraph
from perfectplay.solvers.stochastic import exact_stochastic, solve_stochastic, verify_stochastic

_spec = importlib.util.spec_from_file_location(
    "stochastic_game", Path(__file__).resolve().parent.parent / "twins" / "stochastic_game.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


def random_game(rng: random.Random, endless: bool) -> StochasticGraph:
    """Free positions 0..n-1, then terminals worth lose, win and (sometimes) a tie."""
    n = rng.randint(1, 4)
    tvals = [0, 2] + ([1] if rng.random() < 0.5 else [])
    total = n + len(tvals)
    choices = []
    for _ in range(n):
        cs = []
        for _ in range(rng.randint(1, 2)):
            outs = [
                (rng.randrange(total), rng.randint(1, 3), rng.random() < 0.5)
                for _ in range(rng.randint(1, 3))
            ]
            cs.append(outs)
        if endless and rng.random() < 0.5:  # a move that only passes the turn
            cs[rng.randrange(len(cs))] = [(rng.randrange(n), 1, True)]
        choices.append(cs)
    return StochasticGraph.from_lists(
        [False] * n + [True] * len(tvals),
        choices + [[] for _ in tvals],
        terminal_value=[0] * n + tvals,
        scale=2,
    )


@pytest.mark.parametrize("endless", [False, True])
def test_random_games_match_minimax(endless):
    rng = random.Random(12 + endless)
    stalled = 0
    for _ in range(60):
        g = random_game(rng, endless)
        term, tval, choices = twin.game_lists(g)
        sol = solve_stochastic(g, compiled=False)
        exact = exact_stochastic(g, sol.best_choice)
        assert verify_stochastic(g, exact) == []
        stalled += bool(sol.endless.any())
        for start in {0, rng.randrange(len([t for t in term if not t]))}:
            want = twin.minimax(term, tval, choices, start)
            assert exact[start] == want
            assert abs(sol.value[start] - float(want)) <= 1e-9
            assert abs(sol.value[start] - float(want)) <= sol.bound + 1e-15
    assert stalled > 0  # the endless-play branch ran


def test_compiled_matches_interpreted():
    rng = random.Random(5)
    for _ in range(20):
        g = random_game(rng, True)
        a, b = solve_stochastic(g, compiled=False), solve_stochastic(g, compiled=True)
        assert np.allclose(a.value, b.value, atol=1e-12)
        assert a.best_choice.tolist() == b.best_choice.tolist()


def test_fixed_pair_is_the_markov_chain():
    rng = random.Random(7)
    for _ in range(40):
        g = random_game(rng, True)
        term, tval, choices = twin.game_lists(g)
        n = len(term)
        pick = {p: rng.randrange(len(choices[p])) for p in range(n) if not term[p]}
        fixed = np.array(
            [int(g.choice_ptr[p]) + pick[p] if p in pick else -1 for p in range(n)], np.int64
        )
        sol = solve_stochastic(g, fixed=fixed, compiled=False)
        want = twin.chain_value(term, tval, choices, pick, pick, 0)
        assert exact_stochastic(g, sol.best_choice)[0] == want
        assert abs(sol.value[0] - float(want)) <= 1e-9


def test_loop_that_ties_a_win_is_not_chosen():
    # Staying put ties the value of winning at once; only winning realises it.
    g = StochasticGraph.from_lists(
        [False, True], [[[(0, 1, False)], [(1, 1, False)]], []], terminal_value=[0, 2]
    )
    sol = solve_stochastic(g, compiled=False)
    assert int(sol.best_choice[0]) == 1
    assert exact_stochastic(g, sol.best_choice)[0] == 1


def test_endless_play_is_a_draw():
    # Both players can only pass: play never ends.
    g = StochasticGraph.from_lists([False, False], [[[(1, 1, True)]], [[(0, 1, True)]]])
    sol = solve_stochastic(g, compiled=False)
    assert sol.value.tolist() == [0.5, 0.5] and sol.endless.all()
    assert exact_stochastic(g, sol.best_choice) == [Fraction(1, 2)] * 2


def test_the_endless_component_limit_is_an_option():
    # A ring of four positions that only pass the turn: one endless component of 4.
    ring = [[[((p + 1) % 4, 1, True)]] for p in range(4)]
    g = StochasticGraph.from_lists([False] * 4, ring)
    with pytest.raises(UnsupportedObjectiveError, match=r"4 positions.*over the 3 .*--max-endless"):
        solve_stochastic(g, compiled=False, max_endless=3)
    assert solve_stochastic(g, compiled=False, max_endless=4).value.tolist() == [0.5] * 4


def test_bad_graphs_and_fixed_choices_are_refused():
    with pytest.raises(ModelError, match="weights"):
        StochasticGraph.from_lists([False, True], [[[(1, 0, False)]], []])
    with pytest.raises(ModelError, match="does not exist"):
        StochasticGraph.from_lists([False], [[[(3, 1, False)]]])
    g = StochasticGraph.from_lists([False, True], [[[(1, 1, False)]], []])
    with pytest.raises(ModelError, match="not a choice of position 0"):
        solve_stochastic(g, fixed=np.array([5, -1]))


def test_verification_names_an_improving_choice():
    g = StochasticGraph.from_lists(
        [False, True, True], [[[(1, 1, False)], [(2, 1, False)]], [], []], terminal_value=[0, 0, 2]
    )
    assert verify_stochastic(g, exact_stochastic(g, [0, -1, -1])) == [(0, 1, Fraction(1))]
