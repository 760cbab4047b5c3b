"""The scorecard solver against its brute-force twin (tests/twins/scorecard_bruteforce.py)
on random reduced games: 2-3 boxes, 2-3 dice, 2-4 faces (some weighted by a repeated
label), 1-3 rolls, with and without an upper bonus, an extra n-of-a-kind bonus, and the
three joker rules. Every state the twin reaches must have the solver's value to 1e-9, and
every option of random situations (keeps before a reroll, boxes after the last roll) the
twin's value, the score so far added."""

from __future__ import annotations

import importlib.util
import random
from pathlib import Path

import numpy as np
import pytest

from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Category, Rules, n_of_a_kind, straight
from perfectplay.yahtzee.solution import Card, Situation, YahtzeeSolution
from perfectplay.yahtzee.solver import solve_all

_spec = importlib.util.spec_from_file_location(
    "scorecard_bruteforce",
    Path(__file__).resolve().parent.parent / "twins" / "scorecard_bruteforce.py",
)
twin_mod = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin_mod)  # type: ignore[union-attr]
ScorecardTwin = twin_mod.ScorecardTwin

TOL = 1e-9
NAMES = {1: "ones", 2: "twos", 3: "threes", 4: "fours"}


def _odd_sum(dice):
    return sum(d for d in dice if d % 2)


def _top_pair(dice):
    return n_of_a_kind(2, of_face=True)(dice)


def random_rules(rng: random.Random, joker: str | None = None, kind: bool | None = None) -> Rules:
    """A reduced rule set: 2-3 boxes drawn from upper boxes, an n-of-a-kind box and a few
    lower boxes (some with joker values), random dice, faces, rolls and bonuses."""
    dice = rng.choice((2, 3))
    faces = rng.choice((2, 3, 4, (1, 1, 2, 3), (1, 2, 2, 3, 4)))
    labels = sorted(set(range(1, faces + 1) if isinstance(faces, int) else faces))
    n_boxes = rng.choice((2, 3))
    kind = rng.random() < 0.6 if kind is None else kind
    if joker is not None and joker != "none":
        kind = True
    cats: list[Category] = []
    if kind:
        cats.append(Category("kind", n_of_a_kind(dice, points=rng.choice((5, 10, 20)))))
    ups = rng.sample(labels, k=min(len(labels), rng.choice((1, 2))))
    for f in sorted(ups):
        if len(cats) < n_boxes:
            cats.append(Category.upper(f, NAMES[f]))
    lower = [
        Category("chance", sum, joker=rng.choice((None, 9))),
        Category("odd", _odd_sum),
        Category(
            "run", straight(rng.choice((6, 8)), ((1, 2), (2, 3))), joker=rng.choice((None, 7))
        ),
        Category("pair", _top_pair, joker=rng.choice((None, 5))),
    ]
    rng.shuffle(lower)
    while len(cats) < n_boxes:
        cats.append(lower.pop())
    rng.shuffle(cats)
    upper_max = sum(c.face * dice for c in cats if c.face is not None)
    threshold = rng.randint(1, max(1, upper_max)) if rng.random() < 0.7 else 0
    if joker is None:
        joker = rng.choice(("none", "free", "forced")) if kind else "none"
    return Rules(
        f"random-{rng.random():.6f}",
        tuple(cats),
        dice=dice,
        faces=faces,
        rolls=rng.choice((1, 2, 3)),
        upper_threshold=threshold,
        upper_bonus=rng.choice((0, 4, 15)) if threshold else 0,
        kind_box="kind" if kind else None,
        kind_bonus=rng.choice((0, 10, 25)) if kind else 0,
        joker=joker,
    )


def solver_state(game: ScorecardGame, twin, state) -> int:
    filled, upper, holds = state
    mask = sum(1 << c for c in filled)
    kind = int(bool(holds)) if game.n_kind_values == 2 else 0
    return game.state_index(mask, upper if game.n_upper_values > 1 else 0, kind)


def check_all_states(rules: Rules, cap_upper: bool = True) -> tuple[ScorecardGame, object]:
    game = ScorecardGame(rules)
    values = solve_all(game)
    twin = ScorecardTwin(rules, cap_upper=cap_upper)
    exact = twin.reachable()
    seen = set()
    for state, v in exact.items():
        s = solver_state(game, twin, state)
        seen.add(s)
        assert game.is_reachable(s), (rules, state)
        assert abs(values[s] - float(v)) <= TOL * max(1.0, abs(float(v))), (rules, state, v)
    # The solver's reachable set: every state the twin reaches, and nothing it cannot
    # (an upper total the filled upper boxes make, the n-of-a-kind flag once that box is filled).
    solver_reach = {int(s) for t in range(game.n_categories + 1) for s in game.tier_states(t)}
    assert seen <= solver_reach
    assert np.isnan(values[sorted(set(range(game.n_states)) - solver_reach)]).all()
    return game, twin


SEEDS = list(range(24))


@pytest.mark.parametrize("seed", SEEDS)
def test_every_reachable_state_matches_the_twin(seed):
    check_all_states(random_rules(random.Random(seed)))


def _joker_rules(joker: str, dice: int, faces: int, third: str) -> Rules:
    other = {
        "pair30": Category("pair", n_of_a_kind(2, points=30)),
        "chance": Category("chance", sum, joker=9),
        "ones": Category.upper(1, "ones"),
    }[third]
    return Rules(
        f"joker-{joker}-{dice}-{faces}-{third}",
        (Category("kind", n_of_a_kind(dice, points=10)), Category.upper(2, "twos"), other),
        dice=dice,
        faces=faces,
        rolls=2,
        upper_threshold=2 * dice,
        upper_bonus=6,
        kind_box="kind",
        kind_bonus=20,
        joker=joker,
    )


@pytest.mark.parametrize(
    ("dice", "faces", "third", "differ"),
    [
        # a pair box worth more than the twos: the forced joker must take the twos box
        (2, 2, "pair30", ("free", "forced")),
        (2, 3, "pair30", ("free", "forced")),
        # a box with a joker value: only a joker rule pays it
        (3, 2, "chance", ("none", "free")),
        (2, 3, "chance", ("none", "forced")),
        # upper boxes only: the forced joker falls back to an open upper box
        (3, 3, "ones", None),
    ],
)
def test_joker_rules(dice, faces, third, differ):
    """The n-of-a-kind box and the twos, plus a third box chosen so that the joker rules
    give different values (checked on the twin, so the comparison can tell them apart);
    every rule against the solver."""
    exact = {}
    for joker in ("none", "free", "forced"):
        _, twin = check_all_states(_joker_rules(joker, dice, faces, third))
        exact[joker] = twin.reachable()
    if differ:
        a, b = exact[differ[0]], exact[differ[1]]
        assert any(a[s] != b[s] for s in a if s in b)


@pytest.mark.parametrize("seed", range(4))
def test_uncapped_upper_total_agrees(seed):
    """The twin with the exact upper total: every total at or above the threshold has the
    capped state's value (the solver stores totals capped at the threshold)."""
    rng = random.Random(2000 + seed)
    rules = random_rules(rng)
    while not rules.upper_threshold or rules.dice * len(rules.categories) > 6:
        rules = random_rules(rng)
    check_all_states(rules, cap_upper=False)


def _random_path(twin, rng: random.Random):
    """A random play from the empty card: the state, the card's boxes with their points,
    and the points so far (bonuses included)."""
    state = twin.start()
    filled: dict[str, int] = {}
    so_far = 0
    stop = rng.randrange(len(twin.cats))
    for _ in range(stop):
        dice = tuple(rng.choice(twin.faces) for _ in range(twin.n))
        c, gain, nxt = rng.choice(twin.placements(state, dice))
        new_upper = nxt[1]
        pts = gain
        # the box's own points: the gain less the bonuses paid with it
        extra = (
            twin.rules.kind_bonus
            if (
                twin.kind is not None and twin.kind in state[0] and len(set(dice)) == 1 and state[2]
            )
            else 0
        )
        pts -= extra
        if twin.bonus_on and c in twin.upper_boxes and state[1] < twin.threshold <= new_upper:
            pts -= twin.rules.upper_bonus
        filled[twin.cats[c].name] = pts
        so_far += gain
        state = nxt
    return state, filled, so_far


@pytest.mark.parametrize("seed", range(12))
def test_option_values_of_random_situations(seed):
    rng = random.Random(3000 + seed)
    rules = random_rules(rng)
    while rules.rolls < 2:
        rules = random_rules(rng)
    game = ScorecardGame(rules)
    sol = YahtzeeSolution(game, solve_all(game))
    twin = ScorecardTwin(rules)
    for _ in range(6):
        state, filled, so_far = _random_path(twin, rng)
        card = Card(filled=filled, score=so_far)
        whole = so_far + float(twin.value(state))
        assert abs(sol.value(card) - whole) <= TOL * max(1.0, whole)
        if rng.random() < 0.3:  # n of a kind: the extra bonus and the joker rules
            dice = (rng.choice(twin.faces),) * twin.n
        else:
            dice = tuple(rng.choice(twin.faces) for _ in range(twin.n))
        r = rng.randrange(rules.rolls)
        got = sol.options(Situation(card, dice, r))
        if r == 0:
            want = {f"score {k}": v for k, v in twin.box_values(state, dice).items()}
        else:
            want = {
                "keep " + (" ".join(map(str, k)) if k else "nothing"): v
                for k, v in twin.keep_values(state, dice, r).items()
            }
        assert sorted(o.action for o in got) == sorted(want), (rules, state, dice, r)
        for o in got:
            exact = so_far + want[o.action]
            assert abs(o.value - float(exact)) <= TOL * max(1.0, abs(float(exact))), (o, exact)
        values = [o.value for o in got]
        assert values == sorted(values, reverse=True)
        assert sol.options(Situation(card, dice, r))[0] == got[0]


def test_twin_by_hand():
    """The twin on games small enough to work out on paper."""
    from fractions import Fraction

    one_die = Rules("one die", (Category("chance", sum),), dice=1, rolls=2, upper_threshold=0)
    # reroll 1-3, keep 4-6: (3 * 7/2 + 4 + 5 + 6) / 6
    assert ScorecardTwin(one_die).value((frozenset(), 0, None)) == Fraction(17, 4)
    coin_bonus = Rules(
        "coin",
        (Category.upper(2, "twos"),),
        dice=1,
        faces=2,
        rolls=1,
        upper_threshold=2,
        upper_bonus=10,
    )
    # a two (probability 1/2) scores 2 and the bonus
    assert ScorecardTwin(coin_bonus).value((frozenset(), 0, None)) == 6
    kind = Rules(
        "kind",
        (Category("kind", n_of_a_kind(2, points=5)), Category("chance", sum, joker=9)),
        dice=2,
        faces=2,
        rolls=1,
        upper_threshold=0,
        kind_box="kind",
        kind_bonus=10,
        joker="free",
    )
    twin = ScorecardTwin(kind)
    # kind box holding 5, chance open: a pair scores the joker 9 and the bonus 10, else 3
    assert twin.value((frozenset({0}), 0, True)) == Fraction(1, 2) * 19 + Fraction(1, 2) * 3
    # kind box scratched: the joker without the bonus
    assert twin.value((frozenset({0}), 0, False)) == Fraction(1, 2) * 9 + Fraction(1, 2) * 3
