"""One-player objectives in the modelling API: the dice helpers, Threes and one Yahtzee
turn (published values, asserted exactly), the cost/reward rule, refusals of bad input,
export and load, and the command line."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from itertools import product

import numpy as np
import pytest

from perfectplay.dice import keeps, outcomes, roll_rest
from perfectplay.errors import ModelError, UnsupportedObjectiveError
from perfectplay.examples.threes import Threes
from perfectplay.examples.yahtzee_turn import YahtzeeTurn
from perfectplay.models import MIN_COST, ChanceModel, Objective, load_solution, solve_model
from perfectplay.models.explore import explore_chance

# Published values: ../shared/testdata/published/README.md, copied in
# tests/data/published_objectives.md.
THREES = {1: Fraction(3), 2: Fraction(79, 18), 5: Fraction(504205555, 80621568)}
YAHTZEE_TURN = Fraction(347897, 7558272)


# -- dice helpers against brute-force enumeration of ordered rolls -----------------------
@pytest.mark.parametrize("n, faces", [(0, 6), (1, 6), (3, 4), (5, 6), (2, (1, 1, 2, 3, 4, 5))])
def test_outcomes_match_ordered_enumeration(n, faces):
    labels = list(range(1, faces + 1)) if isinstance(faces, int) else list(faces)
    want = Counter(tuple(sorted(r)) for r in product(labels, repeat=n))
    got = outcomes(n, faces)
    assert dict(got) == dict(want)
    assert [r for r, _ in got] == sorted(want)


def test_five_dice_counts():
    rolls = outcomes(5)
    assert len(rolls) == 252 and sum(w for _, w in rolls) == 6**5
    assert len({k for r, _ in rolls for k in keeps(r)}) == 462


def test_keeps_are_the_distinct_sub_multisets():
    roll = (2, 2, 5, 6)
    want = {tuple(sorted(roll[i] for i in range(4) if m >> i & 1)) for m in range(16)}
    assert sorted(keeps(roll)) == sorted(want) and len(keeps(roll)) == len(want)
    assert keeps((6, 2, 2, 5)) == keeps(roll)  # any order of the dice


def test_roll_rest_is_the_kept_dice_plus_a_fresh_roll():
    for kept in [(), (3,), (1, 1), (2, 4, 6)]:
        want = Counter(tuple(sorted(kept + r)) for r in product(range(1, 7), repeat=4 - len(kept)))
        assert dict(roll_rest(kept, 4)) == dict(want)
    with pytest.raises(ValueError):
        roll_rest((1, 2, 3), 2)
    with pytest.raises(ValueError):
        outcomes(2, faces=0)
    with pytest.raises(TypeError):
        outcomes(2, faces="abc")


# -- the examples reproduce the published numbers --------------------------------------
@pytest.mark.parametrize("dice", sorted(THREES))
def test_threes(dice):
    sol = solve_model(Threes(dice=dice))
    assert sol.exact_value() == THREES[dice]
    assert sol.solver == "backward-induction"
    assert math.isclose(sol.start_value, float(THREES[dice]), rel_tol=1e-12)


def test_yahtzee_turn():
    sol = solve_model(YahtzeeTurn())
    assert sol.exact_value() == YAHTZEE_TURN
    # More rolls never hurt, one roll is the chance of five of a kind at once: 6/6**5.
    assert solve_model(YahtzeeTurn(rolls=1)).exact_value() == Fraction(6, 6**5)
    assert solve_model(YahtzeeTurn(rolls=4)).start_value > sol.start_value


@pytest.mark.parametrize("model", [Threes(), YahtzeeTurn()], ids=["threes", "yahtzee"])
def test_simulation_lands_within_four_standard_errors(model):
    sol = solve_model(model)
    runs = sol.simulate(40_000, seed=11)
    se = runs.std(ddof=1) / math.sqrt(runs.size)
    assert abs(runs.mean() - sol.start_value) < 4 * se


def test_threes_score_distribution_is_a_law_with_the_right_mean():
    sol = solve_model(Threes(dice=3))
    cdf = sol.distribution(18)  # 3 dice score at most 18
    assert cdf[-1] == pytest.approx(1.0, abs=1e-12)
    pmf = np.diff(np.concatenate(([0.0], cdf)))
    assert (pmf >= -1e-15).all()
    assert float(np.arange(19) @ pmf) == pytest.approx(sol.start_value, rel=1e-12)
    assert sol.quantile(0.5) == int(np.flatnonzero(cdf >= 0.5)[0])


def test_options_are_ranked_best_first_in_the_objectives_sense():
    sol = solve_model(YahtzeeTurn())
    opts = sol.options((2, (1, 2, 2, 5, 6)))
    values = [o.value for o in opts]
    assert values == sorted(values, reverse=True)  # maximising: largest first
    sol = solve_model(Threes(dice=3))
    values = [o.value for o in sol.options(((), (1, 3, 6)))]
    assert values == sorted(values)  # minimising: smallest first


def test_export_and_load_keep_the_objective(tmp_path):
    sol = solve_model(YahtzeeTurn(dice=3, rolls=2))
    path = sol.export(tmp_path / "turn.npz", exact=True)
    table = load_solution(path)
    assert table.objective == YahtzeeTurn.objective and table.maximise
    state = (1, (1, 2, 2))
    assert table.value(state) == pytest.approx(sol.value(state))
    assert table.best(state) == sol.best(state)
    # A table without the objective (older format) loads as minimising a cost.
    data = dict(np.load(path))
    del data["objective"]
    np.savez(tmp_path / "old.npz", **data)
    assert load_solution(tmp_path / "old.npz").objective == MIN_COST


# -- the cost / reward rule --------------------------------------------------------------
def bet(objective, hook, amount):
    """Stop with 3, or take a coin flip for 0 or 8 (the flip has a cost or a reward)."""

    class Bet(ChanceModel):
        start = "start"

        def is_goal(self, s):
            return s != "start"

        def value(self, s):
            return {"stop": 3, "tails": 0, "heads": 8}[s]

        def choices(self, s):
            return ["stop", "flip"]

        def roll(self, p):
            return [("stop", 1)] if p == "stop" else [("tails", 1), ("heads", 1)]

    Bet.objective = objective
    setattr(Bet, hook, lambda self, p: amount if p == "flip" else 0)
    return Bet()


def test_a_cost_worsens_and_a_reward_improves_in_either_sense():
    # Maximising: flipping is worth 4 - cost or 4 + reward.
    assert solve_model(bet(Objective.score(), "reward", 2)).start_value == 6
    assert solve_model(bet(Objective.score(), "cost", 2)).start_value == 3
    assert solve_model(bet(Objective.score(), "cost", Fraction(1, 2))).exact_value() == Fraction(
        7, 2
    )
    # Minimising: flipping is worth 4 + cost or 4 - reward.
    assert solve_model(bet(Objective.score("min"), "cost", 2)).start_value == 3
    assert solve_model(bet(Objective.score("min"), "reward", 2)).start_value == 2
    assert solve_model(bet(Objective.score("min"), "cost", -2)).start_value == 2


def test_probability_objective_counts_goals_by_default():
    class Coin(ChanceModel):
        objective = Objective.probability()
        start = 2  # tosses left; a head is the event

        def is_goal(self, s):
            return s == "H" or s == 0

        def value(self, s):
            return int(s == "H")

        def choices(self, s):
            return [("toss", s)]

        def roll(self, p):
            return [("H", 1), (p[1] - 1, 1)]

    assert solve_model(Coin()).exact_value() == Fraction(3, 4)  # a head in two tosses


# -- bad input: one line naming the method and the state --------------------------------
class Base(ChanceModel):
    start = 0

    def is_goal(self, s):
        return s == 1

    def choices(self, s):
        return ["a", "b"]

    def roll(self, p):
        return [(1, 1)]


def model(**methods):
    return type("Broken", (Base,), methods)()


@pytest.mark.parametrize(
    "methods, pattern",
    [
        (
            {"canonical_choice": lambda self, p: "r", "cost": lambda self, p: 1 if p == "a" else 5},
            r"Broken\.cost\('b'\) returned 5 but Broken\.cost\('a'\) returned 1 for the same "
            r"roll 'r'",
        ),
        (
            {
                "canonical_choice": lambda self, p: "r",
                "objective": Objective.score(),
                "reward": lambda self, p: len(p) if p == "a" else 0,
            },
            r"reward\('b'\) returned 0 but .*reward\('a'\) returned 1 for the same roll 'r'",
        ),
        ({"cost": lambda self, p: 1, "reward": lambda self, p: 1}, "defines both cost"),
        ({"value": lambda self, s: 0.5}, r"Broken\.value\(1\) returned 0\.5; expected an int"),
        ({"value": lambda self, s: "win"}, r"Broken\.value\(1\) returned 'win'"),
        ({"cost": lambda self, p: 1.5}, r"Broken\.cost\('a'\) returned 1\.5"),
        ({"objective": "max"}, r"Broken\.objective is 'max', not an Objective"),
        (
            {"objective": Objective.probability(), "value": lambda self, s: 2},
            r"Broken\.value\(1\) returned 2; a probability objective needs values between 0",
        ),
        (
            {"objective": Objective.probability(), "cost": lambda self, p: 1},
            "probability has no per-roll amounts",
        ),
        ({"play": lambda self, s, m: s}, r"also defines play\(\), a two-player method"),
        ({"is_goal": lambda self, s: "win"}, r"Broken\.is_goal\(0\) returned 'win'; expected"),
        ({"outcome": lambda self, s: "win"}, r"also defines outcome\(\)"),
    ],  # fmt: skip
)
def test_bad_models_are_refused_by_name(methods, pattern):
    with pytest.raises(ModelError, match=pattern) as err:
        explore_chance(model(**methods), progress=False)
    assert "\n" not in str(err.value)


def test_equal_amounts_for_the_same_roll_are_fine():
    m = model(canonical_choice=lambda self, p: "r", cost=lambda self, p: 2)
    assert solve_model(m).start_value == 2


class Spin(ChanceModel):
    """Spin for a point and come back, or leave: the score is unbounded."""

    objective = Objective.score()
    start = "home"

    def is_goal(self, s):
        return s == "out"

    def choices(self, s):
        return ["spin", "leave"]

    def reward(self, p):
        return 1 if p == "spin" else 0

    def roll(self, p):
        return [("home", 1)] if p == "spin" else [("out", 1)]


def test_an_unbounded_model_names_a_state_of_the_cycle():
    with pytest.raises(UnsupportedObjectiveError, match="unbounded.*through the state 'home'"):
        solve_model(Spin())


def test_a_paying_roll_that_cannot_repeat_for_ever_is_solved():
    class Fair(Spin):  # each spin pays 1 and ends the game half the time
        def roll(self, p):
            return [("home", 1), ("out", 1)] if p == "spin" else [("out", 1)]

    sol = solve_model(Fair())
    assert sol.solver == "policy-iteration"
    assert sol.exact_value() == 2 and sol.best("home") == ["spin"]


# -- the command line ----------------------------------------------------------------------
def run_cli(*args):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run(
        [sys.executable, "-m", "perfectplay", "solve", *args, "-q"],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip


def test_cli_json_and_summary():
    out = run_cli("perfectplay.examples.threes:Threes", "--exact", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["exact"] == "504205555/80621568"
    assert data["value"] == pytest.approx(504205555 / 80621568, rel=1e-12)
    assert data["objective"] == "minimise expected score"
    out = run_cli("perfectplay.examples.yahtzee_turn:YahtzeeTurn", "-p", "rolls=2",
                  "--query", "(1, (1, 2, 2, 5, 6))")  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert "objective: maximise" in out.stdout and "solver: backward-induction" in out.stdout
    lines = [ln for ln in out.stdout.splitlines() if ln.startswith("  (")]
    values = [float(ln.split()[-2] if ln.endswith("best") else ln.split()[-1]) for ln in lines]
    assert values and values == sorted(values, reverse=True)


def test_cli_refusals_exit_2_without_traceback(tmp_path):
    path = tmp_path / "bad.py"
    path.write_text(
        "from perfectplay.models import ChanceModel, Objective\n"
        "class Dup(ChanceModel):\n"
        "    start = 0\n"
        "    def is_goal(self, s): return s == 1\n"
        "    def choices(self, s): return ['a', 'b']\n"
        "    def canonical_choice(self, p): return 'r'\n"
        "    def cost(self, p): return 1 if p == 'a' else 5\n"
        "    def roll(self, p): return [(1, 1)]\n"
        "class Loop(ChanceModel):\n"
        "    objective = Objective.score()\n"
        "    start = 0\n"
        "    def is_goal(self, s): return s == 1\n"
        "    def choices(self, s): return ['spin', 'stop']\n"
        "    def reward(self, p): return 1 if p == 'spin' else 0\n"
        "    def roll(self, p): return [(0 if p == 'spin' else 1, 1)]\n"
    )
    for name, pattern in (("Dup", "for the same roll 'r'"), ("Loop", "unbounded")):
        out = run_cli(f"{path}:{name}")
        assert out.returncode == 2 and pattern in out.stderr, out.stderr
        assert "Traceback" not in out.stderr and out.stderr.count("\n") == 1


def test_one_key_for_two_rolls_with_different_outcomes_is_refused():
    m = model(canonical_choice=lambda self, p: "r",
              roll=lambda self, p: [(1, 1)] if p == "a" else [(1, 1), (0, 1)])  # fmt: skip
    with pytest.raises(ModelError, match=r"roll\('b'\) and Broken\.roll\('a'\) differ but"):
        explore_chance(m, progress=False)
    # Equal outcome laws (other weights, same probabilities) are one roll.
    m = model(canonical_choice=lambda self, p: "r",
              roll=lambda self, p: [(1, 1)] if p == "a" else [(1, 3)])  # fmt: skip
    assert solve_model(m).start_value == 1


class Limbo(ChanceModel):
    """Flip: heads wins, tails sends the player to limbo for ever; or stop and lose."""

    objective = Objective.probability()
    start = "start"

    def is_goal(self, s):
        return s in ("won", "lost")

    def value(self, s):
        return int(s == "won")

    def choices(self, s):
        return ["loop"] if s == "limbo" else ["flip", "stop"]

    def roll(self, p):
        return {"flip": [("won", 1), ("limbo", 1)], "stop": [("lost", 1)],
                "loop": [("limbo", 1)]}[p]  # fmt: skip


def test_a_probability_counts_endless_play_as_zero():
    sol = solve_model(Limbo())
    assert sol.start_value == 0.5 and sol.value("limbo") == 0.0
    assert sol.best("start") == ["flip"]
    # The exact verifier counts endless plays as 0 too (on the collapsed graph).
    assert sol.exact_value() == Fraction(1, 2) and sol.exact_value("limbo") == 0
