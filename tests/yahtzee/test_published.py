"""Yahtzee: the five built-in rule sets against their published values
(tests/data/published_yahtzee.toml, with its provenance), the turn lattice against brute
force over its own transition arrays and over ordered dice, the validation of rules and
lattices, and the independence of a tier's batches."""

from __future__ import annotations

import random
import tomllib
from collections import Counter
from functools import cache
from itertools import product
from math import comb, prod
from pathlib import Path

import numpy as np
import pytest

from perfectplay.lattice import MAX_KEEPS, TurnLattice
from perfectplay.yahtzee import RULES, rules, solve
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Category, Rules, full_house, n_of_a_kind, straight
from perfectplay.yahtzee.solver import solve_all, solve_batch, tier_batches

PUBLISHED = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "data" / "published_yahtzee.toml").read_text()
)


@cache
def solved(name: str):
    return solve(name)


# --- published values -------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(PUBLISHED["values"]))
def test_builtin_rules_reproduce_published_value(name):
    assert abs(solved(name).value() - PUBLISHED["values"][name]) <= 1e-6


def test_every_builtin_rule_set_has_a_published_value():
    assert set(RULES) == set(PUBLISHED["values"])


@pytest.mark.slow
def test_american_tables_agree_where_the_rules_cannot_matter():
    """A full card is worth 0; with the Yahtzee box scratched (0 points) no extra bonus is
    ever paid, so the no-joker and no-bonus rules agree on every such card."""
    g = ScorecardGame(rules("american"))
    full = g.tier_states(g.n_categories)
    assert (solved("american").values[full] == 0).all()
    no_joker, no_bonus = solved("american-no-joker"), solved("american-no-bonus")
    gn, gb = no_joker.game, no_bonus.game
    yz = gn.kind_box
    for t in range(gn.n_categories):
        for s in gn.tier_states(t)[:: max(1, len(gn.tier_states(t)) // 200)]:
            mask, u, kind = gn.decode(int(s))
            if (mask >> yz) & 1 and not kind:
                b = gb.state_index(mask, u, 0)
                assert no_joker.values[s] == pytest.approx(no_bonus.values[b], abs=1e-9)


# --- the turn lattice -------------------------------------------------------------------


def test_lattice_counts_of_five_dice():
    lat = TurnLattice(5, 6, 3)
    turn = PUBLISHED["turn"]
    assert (lat.n_hands, lat.n_keeps, lat.n_situations) == (
        turn["hands"],
        turn["keeps"],
        turn["situations"],
    )


@pytest.mark.parametrize("dice", [1, 2, 3, 5])
@pytest.mark.parametrize("faces", [1, 2, 4, 6, (1, 1, 2, 3), ("a", "b", "b", "c", "c", "c")])
def test_lattice_counts_and_weights(dice, faces):
    lat = TurnLattice(dice, faces, rolls=2)
    labels = list(range(1, faces + 1)) if isinstance(faces, int) else list(faces)
    f = len(set(labels))
    assert lat.n_hands == comb(dice + f - 1, dice)
    assert lat.n_keeps == comb(dice + f, dice)
    # first-roll weights: orderings of the dice over the listed faces
    ordered = Counter(tuple(sorted(o)) for o in product(labels, repeat=dice))
    assert {lat.dice_of(h): int(lat.hand_weight[h]) for h in range(lat.n_hands)} == ordered
    assert lat.weight_total == len(labels) ** dice
    assert lat.hand_prob.sum() == pytest.approx(1.0, abs=1e-12)
    # keep -> roll: rolling the dice not kept, one ordered outcome at a time
    ptr, hand, weight = lat.keep_to_roll
    for k in range(lat.n_keeps):
        kept = lat.keep_dice(k)
        want = Counter(tuple(sorted(kept + o)) for o in product(labels, repeat=dice - len(kept)))
        got = {
            lat.dice_of(int(hand[e])): int(weight[e]) for e in range(int(ptr[k]), int(ptr[k + 1]))
        }
        assert got == want
    # roll -> keep: every sub-multiset of the hand, once
    rptr, keep = lat.roll_to_keep
    for h in range(lat.n_hands):
        ks = keep[rptr[h] : rptr[h + 1]].tolist()
        counts = Counter(lat.dice_of(h)).values()
        assert len(ks) == len(set(ks)) == prod(c + 1 for c in counts)
        for k in ks:
            assert not Counter(lat.keep_dice(k)) - Counter(lat.dice_of(h))
        assert ks == lat.keeps_of(h)
    # add/remove are inverse one-die steps
    for k in range(lat.n_keeps):
        for fi in range(lat.n_faces):
            a = int(lat.add[k, fi])
            if a >= 0:
                assert int(lat.remove[a, fi]) == k
                assert Counter(lat.keep_dice(a)) - Counter(lat.keep_dice(k)) == Counter(
                    [lat.labels[fi]]
                )


def _brute_turn(lat: TurnLattice, final: np.ndarray):
    """Hand values with r rerolls left (r = 0 .. rolls-1) and keep values, by the
    keep-to-roll arrays: V_r[h] = max over keeps k of h of sum_h' w(k, h') V_{r-1}[h']."""
    ptr, hand, weight = lat.keep_to_roll
    sizes = lat.keeps.sum(axis=1)
    denom = np.array([float(lat.face_weight.sum()) ** (lat.n_dice - s) for s in sizes])
    V = [final.astype(float)]
    keep_vals = []
    for _ in range(lat.n_rolls - 1):
        prev = V[-1]
        kv = np.array(
            [
                (weight[ptr[k] : ptr[k + 1]] * prev[hand[ptr[k] : ptr[k + 1]]]).sum() / denom[k]
                for k in range(lat.n_keeps)
            ]
        )
        keep_vals.append(kv)
        V.append(np.array([max(kv[k] for k in lat.keeps_of(h)) for h in range(lat.n_hands)]))
    return V, keep_vals


CASES = [
    (1, 6, 2),
    (2, 3, 3),
    (3, (1, 1, 2, 3), 3),
    (4, 4, 1),
    (5, 6, 3),
    (3, (0, 0, 0, 1), 4),
    (2, ("x", "y", "y"), 2),
]


@pytest.mark.parametrize(("dice", "faces", "rolls"), CASES)
def test_lattice_evaluate_equals_brute_force(dice, faces, rolls):
    rng = np.random.default_rng(dice * 100 + rolls)
    lat = TurnLattice(dice, faces, rolls)
    batch = rng.normal(size=(5, lat.n_hands)) * 10
    batch[1] = np.round(batch[1])  # ties between keeps
    batch[2] = 0.0
    got = lat.evaluate(batch)
    assert got.shape == (5,)
    for b in range(5):
        V, _ = _brute_turn(lat, batch[b])
        want = float(lat.hand_prob @ V[-1])
        assert got[b] == pytest.approx(want, rel=1e-12, abs=1e-12)
        assert lat.evaluate(batch[b]) == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(("dice", "faces", "rolls"), CASES)
def test_lattice_keep_values_consistent(dice, faces, rolls):
    rng = np.random.default_rng(7 + dice)
    lat = TurnLattice(dice, faces, rolls)
    final = rng.uniform(-5, 20, size=lat.n_hands)
    kv = lat.keep_values(final)
    assert kv.shape == (rolls - 1, lat.n_keeps)
    V, brute = _brute_turn(lat, final)
    base = lat.n_keeps - lat.n_hands
    for r in range(1, rolls):
        np.testing.assert_allclose(kv[r - 1], brute[r - 1], rtol=1e-12, atol=1e-12)
        # keeping every die is worth the hand with one reroll fewer
        np.testing.assert_allclose(kv[r - 1][base:], V[r - 1], rtol=1e-12, atol=1e-12)
        # the best keep of a hand is its value with r rerolls left
        best = [max(kv[r - 1][k] for k in lat.keeps_of(h)) for h in range(lat.n_hands)]
        np.testing.assert_allclose(best, V[r], rtol=1e-12, atol=1e-12)
    # the turn is the first roll's mean of the best keeps with rolls - 1 rerolls left
    assert lat.evaluate(final) == pytest.approx(float(lat.hand_prob @ V[-1]), abs=1e-12)


def test_lattice_names_hands_and_keeps():
    lat = TurnLattice(3, (1, 2, 2, 5))
    assert lat.labels == (1, 2, 5)
    for h in range(lat.n_hands):
        assert lat.hand_index(lat.dice_of(h)) == h
        assert lat.hand_index(tuple(reversed(lat.dice_of(h)))) == h
    for k in range(lat.n_keeps):
        assert lat.keep_index(lat.keep_dice(k)) == k
    assert lat.keep_index(()) == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ((0, 6, 3), "dice must be"),
        ((17, 6, 3), "dice must be"),
        ((True, 6, 3), "dice must be"),
        ((5, 6, 0), "rolls must be"),
        ((5, 6, 101), "rolls must be"),
        ((5, 6, 2.0), "rolls must be"),
        ((2, 65, 2), "at most 64"),
        ((16, 30, 2), "keeps"),
        ((5, 0, 3), "at least one face"),
        ((5, (), 3), "at least one face"),
    ],
)
def test_lattice_bad_arguments(args, message):
    with pytest.raises(ValueError, match=message):
        TurnLattice(*args)


def test_lattice_bad_queries():
    lat = TurnLattice(3, 4, 2)
    assert MAX_KEEPS >= lat.n_keeps
    with pytest.raises(ValueError, match="shape"):
        lat.evaluate(np.zeros(lat.n_hands + 1))
    with pytest.raises(ValueError, match="shape"):
        lat.evaluate(np.zeros((2, 2, lat.n_hands)))
    with pytest.raises(ValueError, match="shape"):
        lat.keep_values(np.zeros((1, lat.n_hands)))
    with pytest.raises(ValueError, match="a hand has 3 dice"):
        lat.hand_index((1, 2))
    with pytest.raises(ValueError, match="not a face"):
        lat.hand_index((1, 2, 7))
    with pytest.raises(ValueError, match="4 dice"):
        lat.keep_index((1, 1, 2, 2))
    with pytest.raises(TypeError):
        TurnLattice(2, "abc")


# --- rules ------------------------------------------------------------------------------


CHANCE = Category("chance", sum)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"categories": ()}, "at least one category"),
        (
            {"categories": tuple(Category(f"c{i}", sum) for i in range(21))},
            "at most 20 categories",
        ),
        ({"categories": (CHANCE, CHANCE)}, "'chance' is listed twice"),
        ({"joker": "sometimes", "kind_box": "chance"}, "joker must be one of"),
        ({"kind_box": "yahtzee"}, "kind_box 'yahtzee' is not a category"),
        ({"kind_bonus": 100}, "needs kind_box"),
        ({"joker": "free"}, "needs kind_box"),
        ({"upper_threshold": -1}, "upper_threshold must be an int >= 0"),
        ({"upper_bonus": 2.5}, "upper_bonus must be an int >= 0"),
        ({"kind_bonus": True, "kind_box": "chance"}, "kind_bonus must be an int >= 0"),
        ({"rolls": -1}, "rolls must be an int >= 0"),
        ({"upper_threshold": 10_001}, "too large"),
    ],
)
def test_rules_validation(kwargs, message):
    args = {"categories": (CHANCE,)} | kwargs
    with pytest.raises(ValueError, match=message):
        Rules("bad", **args)


def test_rule_lookup_errors():
    with pytest.raises(KeyError, match="unknown rules 'klondike'.*american"):
        rules("klondike")
    with pytest.raises(KeyError, match="'sevens' is not a category of american"):
        rules("american").index("sevens")
    assert rules("american").index("chance") == 12


@pytest.mark.parametrize(
    ("category", "message"),
    [
        (Category("half", lambda d: sum(d) / 2), "scores must be ints"),
        (Category("flag", lambda d: True), "scores must be ints"),
        (Category("huge", lambda d: 10**7), "out of range"),
    ],
)
def test_game_refuses_bad_scores(category, message):
    with pytest.raises(ValueError, match=message):
        ScorecardGame(Rules("bad", (category,), dice=2, faces=3, upper_threshold=0))


def test_game_refuses_negative_upper_points_with_a_bonus():
    minus = Category("minus", lambda d: -sum(d), face=1)
    with pytest.raises(ValueError, match="negative"):
        ScorecardGame(Rules("bad", (minus, CHANCE), dice=2, faces=3, upper_threshold=3))
    # without a bonus the upper total is not tracked, and negative points are fine
    ScorecardGame(Rules("ok", (minus, CHANCE), dice=2, faces=3, upper_threshold=0))


def test_builtin_scoring_functions():
    assert full_house(25)((6, 6, 6, 6, 6)) == 0
    assert n_of_a_kind(4)((2, 2, 2, 2, 5)) == 13
    assert n_of_a_kind(3, of_face=True)((6, 6, 6, 6, 1)) == 18
    assert straight(15, ((1, 2, 3, 4, 5),))((1, 2, 3, 4, 5)) == 15
    assert straight(20, ((2, 3, 4, 5, 6),))((1, 2, 3, 4, 5)) == 0
    g = ScorecardGame(rules("yatzy"))
    two_pairs = rules("yatzy").index("two_pairs")
    assert g.score[two_pairs, g.lattice.hand_index((4, 4, 4, 4, 1))] == 0
    assert g.score[two_pairs, g.lattice.hand_index((4, 4, 6, 6, 6))] == 20


# --- tiers as independent batches --------------------------------------------------------


def _medium_rules() -> Rules:
    return Rules(
        "medium",
        (
            Category.upper(1, "ones"),
            Category.upper(2, "twos"),
            Category.upper(3, "threes"),
            Category("kind", n_of_a_kind(4, points=30)),
            Category("pair", n_of_a_kind(2)),
            CHANCE,
        ),
        dice=4,
        faces=4,
        rolls=3,
        upper_threshold=14,
        upper_bonus=20,
        kind_box="kind",
        kind_bonus=50,
        joker="forced",
    )


def test_tier_batches_in_any_order_give_the_same_table():
    """Each batch of a tier reads only the finished tier above: solved in a shuffled order,
    each into a table where every other state of its tier (and every state below) is NaN,
    the batches reproduce solve_all exactly."""
    game = ScorecardGame(_medium_rules())
    reference = solve_all(game)
    rng = random.Random(5)
    values = np.full(game.n_states, np.nan)
    values[game.tier_states(game.n_categories)] = 0.0
    for filled in range(game.n_categories - 1, -1, -1):
        batches = tier_batches(game, filled, size=rng.choice((1, 7, 64)))
        assert sorted(int(s) for b in batches for s in b) == game.tier_states(filled).tolist()
        rng.shuffle(batches)
        done = []
        for batch in batches:
            scratch = values.copy()  # the tiers above only
            solve_batch(game, scratch, batch)
            assert not np.isnan(scratch[batch]).any()
            done.append((batch, scratch[batch]))
        for batch, v in done:
            values[batch] = v
    np.testing.assert_array_equal(values, reference)
    assert sum(len(b) for b in tier_batches(game, 0)) == 1


@pytest.mark.parametrize("bad", [{"dice": 0}, {"rolls": 0}, {"dice": 17}])
def test_rules_refuse_no_dice_or_no_rolls_when_written(bad):
    with pytest.raises(ValueError, match="dice must be 1..16 and rolls 1..100"):
        Rules("bad", (Category("chance", sum),), **bad)
