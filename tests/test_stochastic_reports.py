"""Two-player dice games get what a one-player chance model gets: the distribution of the
number of moves (against the exact twin in tests/twins/play_length.py and a seeded
simulation), export and load of the solved table, progress reports, and the command line
(text, --json, bad input)."""

from __future__ import annotations

import importlib.util
import json
import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from perfectplay._util import progress
from perfectplay.analysis.distribution import move_distribution, policy_chain
from perfectplay.examples.pig import Pig, Piglet, hold_at
from perfectplay.graphs.stochastic import StochasticGraph
from perfectplay.models import load_solution, solve_model
from perfectplay.models.base import UnknownStateError
from perfectplay.models.stochastic import solve_stochastic_model
from perfectplay.solvers.stochastic import solve_stochastic

TWINS = Path(__file__).resolve().parent / "twins"


def _load(name):
    spec = importlib.util.spec_from_file_location(name, TWINS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


games = _load("stochastic_game")
length = _load("play_length")


def _pick(graph, choice):
    """The twin's strategy: index into each position's own list of moves."""
    cp = graph.choice_ptr
    return {p: int(choice[p] - cp[p]) for p in range(graph.n_positions) if choice[p] >= 0}


def _agrees(graph, choice, k_max):
    """move_distribution equals the exact twin (1e-12) and its masses add up to 1."""
    d = move_distribution(graph, choice, k_max, progress=False)
    term, tval, choices = games.game_lists(graph)
    exactly, results, mean = length.play_length(term, tval, choices, _pick(graph, choice),
                                                graph.start, k_max)  # fmt: skip
    assert np.allclose(d.exactly, [float(x) for x in exactly], rtol=0, atol=1e-12)
    for kind, p in results.items():
        assert abs(d.results[kind] - float(p)) <= 1e-12, kind
    ended = sum(results.values())
    assert abs(d.ended - float(ended)) <= 1e-12
    assert abs(d.never - float(1 - ended)) <= 1e-12
    if mean is None:
        assert d.mean == float("inf")
    else:
        assert abs(d.mean - float(mean)) <= 1e-9 * max(1.0, float(mean))
    total = float(d.exactly.sum()) + d.beyond + d.never
    assert abs(total - 1.0) <= 1e-12
    assert abs(sum(d.results.values()) - d.ended) <= 1e-12
    return d


@pytest.mark.parametrize("goal", [2, 3])
@pytest.mark.parametrize("hold_at_zero", [False, True])
def test_piglet_distribution_matches_the_exact_twin(goal, hold_at_zero):
    sol = solve_stochastic_model(Piglet(goal=goal, hold_at_zero=hold_at_zero), progress=False)
    d = _agrees(sol.graph, sol.solution.best_choice, 40)
    # Both optimal: the first mover's winning chance is the game's value.
    assert abs(d.results["win"] - sol.start_value) <= 1e-11
    assert d.never == 0.0 and d.results["tie"] == 0.0


def test_fixed_strategies_and_endless_play():
    # Both hold at 0 for ever: the game never ends; one holding at 0, the other at 2:
    # the holder at 2 wins every game.
    model = Pig(goal=4, hold_at_zero=True)
    never = solve_stochastic_model(model, first=hold_at(0), second=hold_at(0), progress=False)
    d = _agrees(never.graph, never.solution.best_choice, 10)
    assert d.never == 1.0 and d.mean == float("inf") and not any(d.results.values())
    assert d.quantile(0.5, 50) is None
    lopsided = solve_stochastic_model(model, first=hold_at(0), second=hold_at(2), progress=False)
    d = _agrees(lopsided.graph, lopsided.solution.best_choice, 12)
    assert d.results["lose"] == 1.0 and d.never == 0.0


def random_game(rng: random.Random) -> StochasticGraph:
    """Free positions, then terminals worth a loss, a win, a tie and 1/3 (scale 6);
    some moves only pass the turn, so play may go on for ever."""
    n = rng.randint(1, 5)
    tvals = [0, 6, 3, 2]
    total = n + len(tvals)
    choices = []
    for _ in range(n):
        cs = []
        for _ in range(rng.randint(1, 3)):
            if rng.random() < 0.2:
                cs.append([(rng.randrange(n), 1, True)])
                continue
            cs.append([(rng.randrange(total), rng.randint(1, 3), rng.random() < 0.5)
                       for _ in range(rng.randint(1, 3))])  # fmt: skip
        choices.append(cs)
    return StochasticGraph.from_lists([False] * n + [True] * len(tvals),
                                      choices + [[] for _ in tvals],
                                      terminal_value=[0] * n + tvals, scale=6)  # fmt: skip


def test_random_games_and_strategy_pairs_match_the_twin():
    rng = random.Random(2026)
    seen = {"never": 0, "tie": 0, "other": 0}
    for _ in range(120):
        g = random_game(rng)
        if rng.random() < 0.5:
            choice = solve_stochastic(g, compiled=False, progress=False).best_choice
        else:  # any strategy pair, not only the optimal one
            cp = g.choice_ptr
            choice = np.array([rng.randrange(cp[p], cp[p + 1]) if cp[p + 1] > cp[p] else -1
                               for p in range(g.n_positions)], np.int64)  # fmt: skip
        d = _agrees(g, choice, rng.randint(0, 12))
        seen["never"] += d.never > 0
        seen["tie"] += d.results["tie"] > 0
        seen["other"] += d.results["other"] > 0
    assert all(seen.values()), seen  # every branch ran


def test_a_game_over_at_the_start_lasts_zero_moves():
    g = StochasticGraph.from_lists([True], [[]], terminal_value=[2])
    d = _agrees(g, [-1], 3)
    assert d.exactly.tolist() == [1.0, 0.0, 0.0, 0.0] and d.mean == 0.0
    assert d.results["win"] == 1.0


def test_policy_chain_tells_the_players_apart():
    sol = solve_stochastic_model(Piglet(goal=2), progress=False)
    chain = policy_chain(sol.graph, sol.solution.best_choice)
    g = chain.graph
    assert g.n_decision == len(set(zip(chain.position.tolist(), chain.second.tolist(),
                                       strict=True)))  # fmt: skip
    # Each non-terminal node plays the solved move of its position.
    free = ~g.terminal
    assert (g.choice_ptr[1:] - g.choice_ptr[:-1])[free].tolist() == [1] * int(free.sum())
    assert (chain.result[g.terminal] >= 0).all() and (chain.result[free] == -1).all()


def test_policy_chain_refuses_foreign_choices():
    from perfectplay.errors import ModelError

    g = StochasticGraph.from_lists([False, False, True],
                                   [[[(2, 1, False)]], [[(2, 1, True)]], []])  # fmt: skip
    with pytest.raises(ModelError, match="choice 1 is not a move of position 0"):
        policy_chain(g, [1, 1, -1])
    with pytest.raises(ModelError, match="one entry per position"):
        policy_chain(g, [0, 1])


def _play_lengths(sol, games_n: int, seed: int) -> np.ndarray:
    """Seeded games with the solved strategies: the number of moves of each."""
    g = sol.graph
    rng = np.random.default_rng(seed)
    best = sol.solution.best_choice
    out = np.empty(games_n, np.int64)
    for n in range(games_n):
        p, moves = g.start, 0
        while not g.terminal[p]:
            c = int(best[p])
            lo, hi = int(g.outcome_ptr[c]), int(g.outcome_ptr[c + 1])
            w = g.weight[lo:hi]
            e = lo + int(rng.choice(hi - lo, p=w / w.sum()))
            p = int(g.target[e])
            moves += 1
        out[n] = moves
    return out


def test_pig_goal_10_mean_length_agrees_with_a_seeded_simulation():
    sol = solve_stochastic_model(Pig(goal=10), progress=False)
    d = sol.move_distribution(60)
    runs = _play_lengths(sol, 20_000, seed=11)
    se = runs.std(ddof=1) / len(runs) ** 0.5
    assert abs(runs.mean() - d.mean) <= 4 * se
    # The share of games over within 10 moves, too (a binomial standard error).
    p = float(d.within[10])
    assert abs(float((runs <= 10).mean()) - p) <= 4 * (p * (1 - p) / len(runs)) ** 0.5


def test_export_and_load_round_trip(tmp_path):
    sol = solve_stochastic_model(Piglet(goal=6), progress=False)
    path = sol.export(tmp_path / "piglet", exact=True)
    assert path.name == "piglet.npz"
    table = load_solution(path)
    assert table.kind == "stochastic" and len(table) == sol.n_positions
    exact = sol.exact_values()
    for state, p in sol.exploration.ids.items():
        assert table.value(state) == sol.value(state)
        assert table.best_move(state) == sol.best_move(state)
        assert table.is_over(state) == sol.is_over(state)
        got, want = table.options(state), sol.options(state)
        assert [o.move for o in got] == [o.move for o in want]
        assert all(abs(a.value - b.value) <= 1e-15 for a, b in zip(got, want, strict=True))
        assert table.exact_value(state) == exact[p]
    assert table.exact_value() == sol.exact_value()
    assert table.best_move() == sol.best_move()
    assert table.start_value == sol.start_value
    with pytest.raises(UnknownStateError):
        table.value((99, 0, 0))
    plain = load_solution(sol.export(tmp_path / "plain.npz"))
    with pytest.raises(Exception, match="no exact values"):
        plain.exact_value()


class Keyed(Piglet):
    """Piglet whose positions are stored under a text key (a canonical method)."""

    def canonical(self, s):
        return "-".join(map(str, s))


def test_tables_of_fixed_strategies_load_with_the_model(tmp_path):
    model = Keyed(goal=4)
    sol = solve_stochastic_model(model, first=hold_at(2), progress=False)
    table = load_solution(sol.export(tmp_path / "t.npz"), model)
    for rep in sol.exploration.reps:
        assert table.value(rep) == sol.value(rep)
        assert table.best_move(rep) == sol.best_move(rep)
    assert table.value(((0, 0, 1), 1)) == sol.value(((0, 0, 1), 1))
    raw = load_solution(tmp_path / "t.npz")
    assert raw.value(("0-0-1", 0)) == sol.value(((0, 0, 1), 0))
    assert set(raw._data["player"].tolist()) == {0, 1}
    assert raw._data["strategies"].tolist() == [True, False]


def test_moves_that_are_not_plain_values_are_refused_on_export(tmp_path):
    from perfectplay.errors import ModelError
    from perfectplay.results.table import key_texts

    class Boxed(Piglet):
        def moves(self, s):
            return [frozenset({m}) for m in super().moves(s)]

        def chances(self, s, m):
            return super().chances(s, next(iter(m)))

    sol = solve_stochastic_model(Boxed(goal=2), progress=False)
    with pytest.raises(ModelError, match="cannot export the move frozenset"):
        sol.export(tmp_path / "t.npz")
    # Equal but differently printed values keep their own text.
    assert key_texts([1, True, 1.0, 1, (1, True)]) == ["1", "True", "1.0", "1", "(1, True)"]


def test_progress_reports_explore_and_solve(capsys, monkeypatch):
    # No delay and no interval: every update prints (the defaults wait a second).
    monkeypatch.setattr(progress.Progress.__init__, "__defaults__", (0.0, 0.0, None))
    with progress.reporting(True):
        solve_model(Pig(goal=30))
    err = capsys.readouterr().err
    assert "exploring Pig" in err and "positions" in err
    assert "perfectplay: solving" in err
    with progress.reporting(True):  # a fixed strategy reports the game's own name
        solve_stochastic_model(Pig(goal=30), first=hold_at(20))
    assert "exploring Pig:" in capsys.readouterr().err
    with progress.reporting(False):
        solve_model(Pig(goal=30))
    assert capsys.readouterr().err == ""
    with progress.reporting(True):
        solve_stochastic_model(Pig(goal=30), progress=False)
    assert capsys.readouterr().err == ""


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "perfectplay", "solve", *args],
                          capture_output=True, text=True, cwd=cwd, timeout=300)  # fmt: skip


@cache
def _piglet3():
    sol = solve_stochastic_model(Piglet(goal=3), progress=False)
    return sol, sol.move_distribution(8)


def test_cli_text_distribution_and_export(tmp_path):
    target = tmp_path / "piglet.npz"
    run = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=3", "--distribution", "8",
               "--export", str(target), "--exact", "-q")  # fmt: skip
    assert run.returncode == 0, run.stderr
    sol, d = _piglet3()
    out = run.stdout
    assert "moves  P(ends after exactly k)  P(ended within k)" in out
    assert f"    8  {d.exactly[8]:<23.9f}  {d.within[8]:.9f}" in out
    assert f"after more than 8 moves: {d.beyond:.9f}; never ends: 0" in out
    assert f"mean {d.mean:.9f} moves" in out
    assert f"the first mover at the end: wins {d.results['win']:.9f}" in out
    assert f"table: {target} ({sol.n_positions} rows)" in out
    table = load_solution(target)
    exact = sol.exact_value()
    assert table.exact_texts is not None
    assert table.exact_texts[0] == f"{exact.numerator}/{exact.denominator}"


def test_cli_json_distribution_and_table(tmp_path):
    target = tmp_path / "t.npz"
    run = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=3", "--distribution", "8",
               "--json", "--export", str(target))  # fmt: skip
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)  # one object: the table line is inside it
    sol, d = _piglet3()
    dist = out["distribution"]
    assert dist["unit"] == "moves"
    assert np.allclose(dist["exactly"], d.exactly, rtol=0, atol=1e-15)
    assert np.allclose(dist["within"], d.within, rtol=0, atol=1e-15)
    assert dist["never"] == 0.0 and abs(dist["beyond"] - d.beyond) <= 1e-15
    assert dist["median"] == d.quantile(0.5, 1000) and dist["mean"] == d.mean
    assert dist["results"] == d.results
    assert out["table"] == {"path": str(target), "rows": sol.n_positions}
    assert load_solution(target).value((0, 0, 1)) == sol.value((0, 0, 1))


def test_cli_json_distribution_of_a_chance_model():
    from perfectplay.analysis.distribution import cost_distribution
    from perfectplay.examples.five_dice import FiveDice

    run = _cli("perfectplay.examples.five_dice:FiveDice", "-p", "dice=2", "--json",
               "--distribution", "5", "-q")  # fmt: skip
    assert run.returncode == 0, run.stderr
    dist = json.loads(run.stdout)["distribution"]
    sol = solve_model(FiveDice(dice=2))
    want = cost_distribution(sol.graph, sol.solution, 5)
    assert np.allclose(dist["within"], want, rtol=0, atol=1e-15)
    assert dist["unit"] == "rolls" and dist["mean"] == pytest.approx(sol.start_value)


def test_cli_endless_play_in_the_report(tmp_path):
    (tmp_path / "always.py").write_text("def hold(state):\n    return 'hold'\n")
    args = ["-p", "goal=4", "-p", "hold_at_zero=True", "--strategy", "always.py:hold"]
    run = _cli("perfectplay.examples.pig:Pig", *args, "--distribution", "3", "-q", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    assert "after more than 3 moves: 0; never ends: 1.000000000" in run.stdout
    assert "mean: infinite (the game may never end); median never reached" in run.stdout
    assert "the first mover at the end: wins 0, loses 0, ties 0" in run.stdout


def test_cli_bad_input(tmp_path):
    run = _cli("perfectplay.examples.pig:Piglet", "--distribution", "0")
    assert run.returncode == 2 and "--distribution: expected a positive integer" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1
    # Over MAX_K: refused before the solve, in the words of the analysis (and of alea's).
    run = _cli("perfectplay.examples.pig:Pig", "--distribution", "10000001")
    assert run.returncode == 2 and "k = 10,000,001 is too much work" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "solving" not in run.stderr
    bad = tmp_path / "no" / "such" / "dir" / "t.npz"
    run = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=3", "--export", str(bad), "-q")
    assert run.returncode == 1 and "cannot write" in run.stderr  # a write error: 1
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.stderr
    run = _cli("perfectplay.examples.pig:Piglet", "-p", "goal=3", "--export", str(tmp_path))
    assert run.returncode == 1 and "is a directory" in run.stderr and run.stdout == ""


def test_fraction_results_are_other():
    # A terminal worth 1/3 to its mover is neither a win, a loss nor a tie.
    g = StochasticGraph.from_lists([False, True], [[[(1, 1, True)]], []],
                                   terminal_value=[0, 1], scale=3, draw_value=0)  # fmt: skip
    d = _agrees(g, [0, -1], 2)
    assert d.results == {"win": 0.0, "lose": 0.0, "tie": 0.0, "other": 1.0}
    assert d.chain.result.tolist() == [-1, 2]  # the first mover's 2/3, over the scale 3
