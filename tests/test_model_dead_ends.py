"""Dead ends and endless plays in chance models, against a twin written here.

A dead end is a non-goal state without a choice. Under a probability objective a play that
stops there, like one that goes round a loop for ever, is over without the event: worth 0,
in both senses. Under a cost or a score it cannot finish: it is worth what a play that
never ends is worth (``inf`` for a cost, the worst value for a score), and so is every
state from which no policy finishes for sure.

The regressions (tests/data/models/dead_ends.py) were wrong answers: 0 for 6/35 when a
dead end and a loop met, ``inf`` for a probability, ``exact: 0`` printed where no exact
value had been computed, an IndexError for a dice game without a roll. The twin solves
random small models with dead ends, loops and both senses by value iteration over dicts
(floats, to 1e-9) and by enumerating every stationary policy in fractions (exact).
"""

from __future__ import annotations

import importlib.util
import itertools
import json
import math
import random
from fractions import Fraction
from pathlib import Path

import pytest

from perfectplay import cli
from perfectplay.models import Objective, solve_model

MODELS = Path(__file__).resolve().parent / "data" / "models" / "dead_ends.py"
_spec = importlib.util.spec_from_file_location("dead_end_models", MODELS)
models = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(models)  # type: ignore[union-attr]


def solve(capsys, name, *args):
    code = cli.main(["solve", f"{MODELS}:{name}", "-q", *args])
    out, err = capsys.readouterr()
    return code, out, err


# --- regressions ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("Chain", Fraction(6, 35)),  # was 0 (dead end and loop, end components collapsed)
        ("ChainMin", Fraction(6, 35)),
        ("ChainNoLoop", Fraction(6, 35)),  # float right, exact None ("exact: 0")
        ("ChainNoDeadEnd", Fraction(6, 35)),  # float right, exact None ("exact: 0")
        ("Split", Fraction(1, 4)),  # was 0
        ("SplitMin", Fraction(1, 4)),  # was 0
        ("Stuck", Fraction(0)),  # was inf (label-setting)
        ("Dodge", Fraction(0)),  # was 1/2: the dead end was inf, so the roll was taken
    ],
)
def test_a_probability_counts_a_dead_end_as_zero(name, want):
    sol = solve_model(getattr(models, name)(), progress=False)
    assert sol.start_value == pytest.approx(float(want), abs=1e-12)
    assert sol.exact() == want and isinstance(sol.exact(), Fraction)


def test_states_of_the_chain_and_its_loop():
    sol = solve_model(models.Chain(), progress=False)
    for state, want in (("B", Fraction(2, 5)), ("C", Fraction(2, 5)), ("D", 0), ("L", 0)):
        assert sol.value(state) == pytest.approx(float(want)) and sol.exact(state) == want
    # States inside a closed loop had no exact value (None).
    loop = solve_model(models.ChainNoDeadEnd(), progress=False)
    assert loop.exact("L") == 0 and loop.exact("D") == 0 and loop.exact() == Fraction(6, 35)
    assert solve_model(models.Dodge(), progress=False).best("S") == ["stop"]


def test_the_command_prints_the_exact_value_it_verified(capsys):
    code, out, _ = solve(capsys, "Chain", "--exact", "--query", "'B'")
    assert code == 0
    assert "start value: 0.171428571" in out and "exact: 6/35  (verified optimal)" in out
    assert "state 'B': probability 0.400000000 = 2/5" in out
    code, out, _ = solve(capsys, "ChainNoDeadEnd", "--exact", "--json")
    assert code == 0 and json.loads(out)["exact"] == "6/35"
    code, out, _ = solve(capsys, "Stuck", "--exact")
    assert code == 0 and "start value: 0.000000000\n" in out and "exact: 0  (" in out


def test_a_simulated_run_ends_at_a_dead_end(capsys):
    # It stopped with "reached a decision node without a choice".
    runs = solve_model(models.ChainNoLoop(), progress=False).simulate(2000, seed=3)
    assert set(runs.tolist()) == {0, 1} and abs(runs.mean() - 6 / 35) < 0.03
    code, out, _ = solve(capsys, "Dodge", "--simulate", "50")
    assert code == 0 and "mean outcome 0.000000" in out
    # A score that no play finishes for sure: said in one line (it was a ValueError).
    code, out, err = solve(capsys, "ScoreDead", "--simulate", "50")
    assert code == 0 and "simulation: the goal cannot be reached" in out and not err


def test_a_score_cannot_finish_at_a_dead_end(capsys):
    sol = solve_model(models.ScoreDead(), progress=False)
    assert sol.start_value == -math.inf and sol.exact() is None
    code, out, _ = solve(capsys, "ScoreDead", "--exact")
    assert code == 0 and "exact: -inf  (verified optimal)" in out
    assert "start value: -inf  (the goal cannot be reached)" in out
    avoid = solve_model(models.ScoreAvoid(), progress=False)
    assert avoid.start_value == 1 and avoid.exact() == 1 and avoid.best("S") == ["safe"]


def test_the_summary_names_a_custom_cost(capsys):
    code, out, _ = solve(capsys, "ThreeQuarters", "--exact")
    assert code == 0
    assert "(chance; objective: minimise expected cost; solver: label-setting)" in out
    assert "exact: 3/2" in out
    code, out, _ = solve(capsys, "ThreeQuarters", "--json")
    assert json.loads(out)["objective"] == "minimise expected cost"
    sol = solve_model(models.ThreeQuarters(), progress=False)
    assert "minimise expected cost" in sol.summary()
    code, out, _ = solve(capsys, "Stuck")
    assert "objective: minimise probability;" in out


@pytest.mark.parametrize(("name", "want"), [("StartNoMoves", 0), ("StartNoMovesWins", 1)])
def test_a_dice_game_whose_first_mover_has_no_move(capsys, name, want):
    # It raised IndexError (a game without a roll) in the exact evaluation.
    sol = solve_model(getattr(models, name)(), progress=False)
    assert sol.value() == want and sol.exact() == want
    code, out, err = solve(capsys, name, "--exact")
    assert code == 0 and f"exact: {want}  (verified optimal)" in out and "Traceback" not in err
    code, out, _ = solve(capsys, name, "--exact", "--json")
    assert code == 0 and Fraction(json.loads(out)["exact"]) == want


# --- the twin ------------------------------------------------------------------------


class RandomModel:
    """States ``0..n-1``; a few are goals; each other state has zero to two of the shared
    rolls (zero: a dead end); rolls land anywhere, so loops and closed loops abound."""

    start = 0

    def __init__(self, seed: int, objective: Objective) -> None:
        rng = random.Random(seed)
        self.objective = objective
        prob = objective.measure == "probability"
        n, m = rng.randint(3, 7), rng.randint(2, 6)
        self.goals = {
            s: rng.choice((0, 1, Fraction(1, 2))) if prob else rng.randint(-3, 5)
            for s in range(1, n)
            if rng.random() < 0.3
        }
        self.rolls = [
            {rng.randrange(n): rng.randint(1, 4) for _ in range(rng.randint(1, 3))}
            for _ in range(m)
        ]
        # Costs never pay the player (no unbounded loop); 0 makes loops free.
        low = 1 if objective.measure == "cost" else 0
        self.prices = [rng.randint(low, 2) for _ in range(m)]
        self.offer = {s: sorted(rng.sample(range(m), rng.choice((0, 1, 1, 2, 2))))
                      for s in range(n) if s not in self.goals}  # fmt: skip

    def is_goal(self, s):
        return s in self.goals

    def value(self, s):
        return self.goals[s]

    def choices(self, s):
        return self.offer[s]

    def roll(self, r):
        return self.rolls[r]


class PricedModel(RandomModel):
    """The same with a price per roll (a score or a cost)."""

    def cost(self, r):
        return self.prices[r]


def reachable(model: RandomModel) -> list[int]:
    seen, todo = {0}, [0]
    while todo:
        s = todo.pop()
        if model.is_goal(s):
            continue
        for r in model.choices(s):
            for t in model.roll(r):
                if t not in seen:
                    seen.add(t)
                    todo.append(t)
    return sorted(seen)


def twin_floats(model: RandomModel) -> dict[int, float]:
    """Value iteration over dicts, minimising ``orient * value``: for a probability from
    0 (a dead end stays 0; plays that never end add nothing), for a cost or a score from
    an upper bound on the states that can finish for sure (the others are worth the
    worst value, ``inf`` oriented)."""
    obj = model.objective
    o = obj.orient
    states = reachable(model)
    price = getattr(model, "cost", lambda r: 0)
    prob = {r: [(t, w / sum(out.values())) for t, w in out.items()]
            for r, out in enumerate(model.rolls)}  # fmt: skip
    rolls = {s: list(model.choices(s)) for s in states if not model.is_goal(s)}
    if obj.measure == "probability":
        v = {s: o * float(model.value(s)) if model.is_goal(s) else 0.0 for s in states}
    else:
        # The states from which some policy finishes for sure, and the rolls keeping to
        # them: shrink until every kept state reaches a goal by kept rolls.
        ok = set(states)
        while True:
            safe = {s: [r for r in rolls[s] if all(t in ok for t, _ in prob[r])] for s in rolls}
            reach = {s for s in ok if model.is_goal(s)}
            grew = True
            while grew:
                grew = False
                for s, rs in safe.items():
                    if (
                        s in ok
                        and s not in reach
                        and any(any(t in reach for t, _ in prob[r]) for r in rs)
                    ):
                        reach.add(s)
                        grew = True
            if reach == ok:
                break
            ok = reach
        rolls = {s: safe[s] for s in rolls if s in ok}
        top = 1e4
        v = {s: o * float(model.value(s)) if model.is_goal(s) else (top if s in ok else math.inf)
             for s in states}  # fmt: skip
    for _ in range(200_000):
        delta = 0.0
        for s, rs in rolls.items():
            if not rs:
                continue  # a dead end
            # Oriented, a price always adds (a cost worsens the outcome in both senses).
            new = min(price(r) + sum(p * v[t] for t, p in prob[r]) for r in rs)
            delta = max(delta, abs(new - v[s]))
            v[s] = new
        if delta < 1e-14:
            break
    else:
        raise AssertionError("value iteration did not converge")
    return {s: o * x if not math.isinf(x) else obj.endless for s, x in v.items()}


def twin_exact(model: RandomModel) -> dict[int, Fraction | None]:
    """The best value over every stationary policy, each evaluated in fractions (``None``:
    a cost or a score that cannot finish for sure)."""
    obj = model.objective
    o = obj.orient
    prob = obj.measure == "probability"
    states = reachable(model)
    price = getattr(model, "cost", lambda r: 0)
    free = [s for s in states if not model.is_goal(s) and model.choices(s)]
    best: dict[int, Fraction | None] = {}
    for picks in itertools.product(*(model.choices(s) for s in free)):
        policy = dict(zip(free, picks, strict=True))
        values = evaluate(model, states, policy, prob, price)
        for s, x in values.items():
            if x is None:
                continue
            if best.get(s) is None or o * x < o * best[s]:  # type: ignore[operator]
                best[s] = x
    for s in states:
        if model.is_goal(s):
            best[s] = Fraction(model.value(s))
        elif s not in best:  # a dead end, or no policy finishes for sure
            best[s] = Fraction(0) if prob else None
    return best


def evaluate(model, states, policy, prob, price) -> dict[int, Fraction | None]:
    """The values of a stationary policy: absorption in fractions, by Gaussian
    elimination over the states that can still reach a goal."""
    step = {s: {t: Fraction(w, sum(model.roll(r).values())) for t, w in model.roll(r).items()}
            for s, r in policy.items()}  # fmt: skip
    goals = {s for s in states if model.is_goal(s)}
    reach = leading_to(step, goals)
    if prob:
        live = [s for s in step if s in reach]  # the others: 0, the event never happens
    else:
        # Finite only where the play never strays to a state that cannot reach a goal.
        bad = leading_to(step, set(states) - reach)
        live = [s for s in step if s not in bad]
    index = {s: i for i, s in enumerate(live)}
    k = len(live)
    o = model.objective.orient  # a price lowers a maximised score, raises a minimised one
    rows = []
    for s in live:
        # v(s) - sum of p v(t) over live t = the price plus what the goals reached pay.
        row = [Fraction(0)] * (k + 1)
        row[index[s]] += 1
        row[k] = o * Fraction(price(policy[s]))
        for t, p in step[s].items():
            if t in index:
                row[index[t]] -= p
            elif t in goals:
                row[k] += p * Fraction(model.value(t))
        rows.append(row)
    solution = solve_fractions(rows, k)
    out: dict[int, Fraction | None] = {s: solution[index[s]] for s in live}
    for s in step:
        if s not in index:
            out[s] = Fraction(0) if prob else None
    return out


def leading_to(step: dict[int, dict[int, Fraction]], targets: set[int]) -> set[int]:
    """``targets`` and every state from which the chain ``step`` may reach one."""
    out = set(targets)
    grew = True
    while grew:
        grew = False
        for s, nxt in step.items():
            if s not in out and any(t in out for t in nxt):
                out.add(s)
                grew = True
    return out


def solve_fractions(rows: list[list[Fraction]], k: int) -> list[Fraction]:
    for i in range(k):
        pivot = next(j for j in range(i, k) if rows[j][i] != 0)
        rows[i], rows[pivot] = rows[pivot], rows[i]
        for j in range(k):
            if j != i and rows[j][i] != 0:
                f = rows[j][i] / rows[i][i]
                rows[j] = [a - f * b for a, b in zip(rows[j], rows[i], strict=True)]
    return [rows[i][k] / rows[i][i] for i in range(k)]


TWIN_OBJECTIVES = [
    Objective.probability("max"),
    Objective.probability("min"),
    Objective.score("max"),
    Objective.score("min"),
    Objective.cost(),
]


@pytest.mark.parametrize("objective", TWIN_OBJECTIVES, ids=lambda o: o.describe())
def test_random_models_with_dead_ends_and_loops_match_the_twin(objective):
    kind = RandomModel if objective.measure == "probability" else PricedModel
    dead = loops = 0
    for seed in range(150):
        model = kind(seed, objective)
        sol = solve_model(model, progress=False)
        floats, exact = twin_floats(model), twin_exact(model)
        for s in reachable(model):
            want = exact[s]
            assert floats[s] == pytest.approx(math.inf * objective.orient if want is None
                                              else float(want), abs=1e-9), (seed, s)  # fmt: skip
            got = sol.value(s)
            if want is None:
                assert got == objective.endless and sol.exact(s) is None, (seed, s)
            else:
                assert got == pytest.approx(float(want), abs=1e-9), (seed, s, got, want)
                assert sol.exact(s) == want, (seed, s, sol.exact(s), want)
        dead += any(not model.is_goal(s) and not model.choices(s) for s in reachable(model))
        loops += sol.graph.acyclic_order() is None
    assert dead > 40 and loops > 40  # the cases that were wrong are well represented
