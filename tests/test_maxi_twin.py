"""Maxi Yatzy (``maxi``, ``maxi-saved``) against an independent brute-force twin.

The twin below is written from the rules text of docs/yahtzee.md, not from the solver: a
plain recursive expectimax over Python dicts with its own scoring of each box (the best
choice of dice where six dice allow several), exact upper totals, and saved throws as the
rules say them: a turn has its ``rolls`` throws plus the throws carried; after any throw
the player may fill a box and carry the throws left into the next turn, or keep any dice
and throw the others. The solver must give every state the twin reaches the twin's value,
and every option of a situation the twin's value.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import replace
from functools import cache
from itertools import combinations_with_replacement, product

import numpy as np
import pytest

from perfectplay.errors import InputError, UnsupportedError
from perfectplay.yahtzee.cards import Card, Situation
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Rules, rules
from perfectplay.yahtzee.solution import YahtzeeSolution, solve
from perfectplay.yahtzee.solver import solve_all

TOL = 1e-9

# --- the boxes of Maxi Yatzy, scored from their definitions ----------------------------


def _kinds(dice):
    return Counter(dice)


def _groups(dice, sizes):
    """The best sum of groups of ``sizes`` dice, each group one face, the faces different:
    every assignment of faces to the groups is tried."""
    counts = _kinds(dice)
    best = 0
    for faces in product(sorted(counts), repeat=len(sizes)):
        pairs = list(zip(faces, sizes, strict=True))
        if len(set(faces)) == len(faces) and all(counts[f] >= k for f, k in pairs):
            best = max(best, sum(f * k for f, k in pairs))
    return best


def _run(points, faces):
    return lambda d: points if set(faces) <= set(d) else 0


def _face(face):
    return lambda d: face * d.count(face)


UPPER = {"ones": 1, "twos": 2, "threes": 3, "fours": 4, "fives": 5, "sixes": 6}
BOXES = {
    **{name: _face(face) for name, face in UPPER.items()},
    "one_pair": lambda d: _groups(d, (2,)),
    "two_pairs": lambda d: _groups(d, (2, 2)),
    "three_pairs": lambda d: _groups(d, (2, 2, 2)),
    "three_of_a_kind": lambda d: _groups(d, (3,)),
    "four_of_a_kind": lambda d: _groups(d, (4,)),
    "five_of_a_kind": lambda d: _groups(d, (5,)),
    "small_straight": _run(15, (1, 2, 3, 4, 5)),
    "large_straight": _run(20, (2, 3, 4, 5, 6)),
    "full_straight": _run(21, (1, 2, 3, 4, 5, 6)),
    "full_house": lambda d: _groups(d, (3, 2)),
    "villa": lambda d: _groups(d, (3, 3)),
    "tower": lambda d: _groups(d, (4, 2)),
    "chance": sum,
    "maxi_yatzy": lambda d: 100 if len(d) == 6 and len(set(d)) == 1 else 0,
}


def test_every_maxi_box_scores_every_hand_as_its_definition():
    game = ScorecardGame(rules("maxi"))
    lat = game.lattice
    assert [c.name for c in game.rules.categories] == list(BOXES)
    for h in range(lat.n_hands):
        dice = lat.dice_of(h)
        for c, name in enumerate(BOXES):
            assert game.score[c, h] == BOXES[name](dice), (name, dice)
    # the examples of the published rules (docs/yahtzee.md)
    r = rules("maxi")
    for name, dice, points in [
        ("one_pair", (6, 4, 2, 6, 5, 1), 12),
        ("two_pairs", (2, 1, 3, 3, 5, 5), 16),
        ("three_pairs", (2, 2, 5, 5, 6, 6), 26),
        ("four_of_a_kind", (2, 4, 2, 2, 5, 2), 8),
        ("small_straight", (1, 2, 3, 4, 5, 3), 15),
        ("full_house", (3, 4, 4, 6, 6, 6), 26),
        ("villa", (2, 2, 2, 5, 5, 5), 21),
        ("tower", (3, 3, 6, 6, 6, 6), 30),
        ("chance", (3, 4, 2, 6, 5, 4), 24),
        ("maxi_yatzy", (4,) * 6, 100),
    ]:
        assert r.categories[r.index(name)].score(tuple(sorted(dice))) == points, name


# --- the twin -----------------------------------------------------------------------------


class Twin:
    """Expected points still to come in a reduced Maxi Yatzy: ``boxes`` (names of
    :data:`BOXES`), ``dice`` dice with faces ``1..faces``, ``rolls`` throws a turn, the
    upper bonus ``bonus`` once the upper boxes total ``threshold``; with ``save`` the
    throws left when a box is filled are carried (at most ``cap`` when given)."""

    def __init__(self, boxes, dice, faces, rolls, threshold, bonus, save, cap=None):
        self.boxes, self.dice, self.rolls = list(boxes), dice, rolls
        self.faces = list(range(1, faces + 1))
        self.threshold, self.bonus, self.save, self.cap = threshold, bonus, save, cap
        self.values: dict = {}
        self.hands = {m: self._outcomes(m) for m in range(dice + 1)}
        self.value = cache(self._value)
        self.hand_value = cache(self._hand_value)
        self.keep_value = cache(self._keep_value)

    def _outcomes(self, m):
        """``{sorted faces: probability}`` of throwing ``m`` dice."""
        out: dict = {}
        for roll in product(self.faces, repeat=m):
            key = tuple(sorted(roll))
            out[key] = out.get(key, 0) + 1
        return {k: v / len(self.faces) ** m for k, v in out.items()}

    def _value(self, filled, upper, saved):
        """From the start of a turn: filled boxes (a frozenset), exact upper total,
        throws carried."""
        if len(filled) == len(self.boxes):
            return 0.0
        left = self.rolls - 1 + saved
        total = sum(
            p * self.hand_value(filled, upper, h, left) for h, p in self.hands[self.dice].items()
        )
        self.values[(filled, upper, saved)] = total
        return total

    def fill(self, filled, upper, hand, left):
        """``{box: points now + value after}`` for filling a box with ``left`` throws left."""
        carried = 0
        if self.save:
            carried = left if self.cap is None else min(left, self.cap)
        out = {}
        for box in self.boxes:
            if box in filled:
                continue
            points = BOXES[box](hand)
            new_upper = upper + points if box in UPPER else upper
            if upper < self.threshold <= new_upper and self.bonus:
                points += self.bonus
            out[box] = points + self.value(filled | {box}, new_upper, carried)
        return out

    def keeps(self, filled, upper, hand, left):
        """``{kept faces: value}`` with ``left >= 1`` throws left."""
        subs = set()
        for mask in range(1 << self.dice):
            subs.add(tuple(sorted(hand[i] for i in range(self.dice) if mask >> i & 1)))
        return {k: self.keep_value(filled, upper, k, left) for k in subs}

    def _keep_value(self, filled, upper, kept, left):
        return sum(
            p * self.hand_value(filled, upper, tuple(sorted(kept + roll)), left - 1)
            for roll, p in self.hands[self.dice - len(kept)].items()
        )

    def _hand_value(self, filled, upper, hand, left):
        best = -1.0
        if left == 0 or self.save:
            best = max(self.fill(filled, upper, hand, left).values())
        if left > 0:
            best = max(best, max(self.keeps(filled, upper, hand, left).values()))
        return best


def small_rules(boxes, dice, faces, threshold, save, cap=None, rolls=3):
    """``maxi`` (or ``maxi-saved``) with fewer boxes, dice or faces: the same boxes."""
    base = rules("maxi-saved" if save else "maxi")
    cats = tuple(base.categories[base.index(b)] for b in boxes)
    return replace(
        base,
        name=f"small {'-'.join(boxes)}",
        categories=cats,
        dice=dice,
        faces=faces,
        rolls=rolls,
        upper_threshold=threshold,
        max_saved=cap,
    )


def check(r: Rules, cap=None):
    game = ScorecardGame(r)
    values = solve_all(game)
    twin = Twin(
        [c.name for c in r.categories],
        r.dice,
        r.faces,
        r.rolls,
        r.upper_threshold,
        r.upper_bonus,
        r.save_throws,
        cap,
    )
    start = twin.value(frozenset(), 0, 0)
    assert abs(values[game.state_index(0, 0, 0)] - start) <= TOL * max(1, start)
    names = [c.name for c in r.categories]
    for (filled, upper, saved), v in twin.values.items():
        mask = sum(1 << names.index(b) for b in filled)
        s = game.state_index(mask, upper if game.n_upper_values > 1 else 0, 0, saved)
        assert game.is_reachable(s)
        assert abs(values[s] - v) <= TOL * max(1.0, abs(v)), (filled, upper, saved, values[s], v)
    reached = {int(s) for t in range(game.n_categories + 1) for s in game.tier_states(t)}
    assert np.isnan(values[sorted(set(range(game.n_states)) - reached)]).all()
    return game, values, twin


SMALL = [
    # (boxes, dice, faces, threshold)
    (("ones", "twos", "one_pair", "chance"), 4, 3, 6),
    (("threes", "two_pairs", "three_of_a_kind"), 4, 3, 5),
    (("twos", "full_house", "villa"), 6, 3, 6),
    (("tower", "maxi_yatzy"), 6, 6, 0),
]


@pytest.mark.parametrize("save", [False, True], ids=["maxi", "maxi-saved"])
@pytest.mark.parametrize("case", SMALL, ids=lambda c: "-".join(c[0]))
def test_small_cards_match_the_twin(case, save):
    boxes, dice, faces, threshold = case
    check(small_rules(boxes, dice, faces, threshold, save))


def test_a_cap_on_saved_throws_matches_the_twin():
    check(small_rules(("ones", "one_pair", "chance"), 4, 3, 4, True, cap=1), cap=1)


def test_a_cap_of_zero_is_the_game_without_saved_throws():
    plain = small_rules(("ones", "twos", "one_pair", "chance"), 4, 3, 6, False)
    capped = small_rules(("ones", "twos", "one_pair", "chance"), 4, 3, 6, True, cap=0)
    assert solve(plain).value() == pytest.approx(solve(capped).value(), abs=1e-12)
    assert solve(capped).value() < solve(replace(capped, max_saved=None)).value()


def test_options_with_saved_throws_match_the_twin():
    r = small_rules(("ones", "twos", "one_pair", "chance"), 4, 3, 6, True)
    game, values, twin = check(r)
    sol = YahtzeeSolution(game, values)
    rng = random.Random(7)
    hands = list(combinations_with_replacement((1, 2, 3), 4))
    cases = [
        ({}, 0, 2),
        ({}, 0, 0),
        ({"ones": 2}, 2, 4),
        ({"ones": 1, "chance": 9}, 4, 6),
        ({"twos": 6, "one_pair": 4, "chance": 8}, 3, 5),
        ({"one_pair": 6}, 2, 1),
    ]
    for filled, saved, left in cases:
        hand = rng.choice(hands)
        card = Card(filled=filled, saved=saved)
        upper = sum(v for b, v in filled.items() if b in UPPER)
        so_far = sum(filled.values()) + (r.upper_bonus if upper >= r.upper_threshold else 0)
        fs = frozenset(filled)
        want = {f"score {b}": so_far + v for b, v in twin.fill(fs, upper, hand, left).items()}
        if left:
            for kept, v in twin.keeps(fs, upper, hand, left).items():
                want["keep " + (" ".join(map(str, kept)) if kept else "nothing")] = so_far + v
        got = {o.label: o.value for o in sol.options(Situation(card, hand, rolls_left=left))}
        assert set(got) == set(want), (filled, hand, left)
        for label, v in want.items():
            assert got[label] == pytest.approx(v, abs=1e-9), (filled, hand, left, label)


def test_saved_throws_are_checked():
    r = small_rules(("ones", "twos", "one_pair", "chance"), 4, 3, 6, True)
    sol = solve(r)
    with pytest.raises(InputError, match="cannot be saved with 1 boxes filled"):
        sol.value(Card(filled={"ones": 1}, saved=3))
    with pytest.raises(InputError, match="rolls left must be from 0 to 4"):
        sol.options(Situation(Card(filled={"ones": 1}, saved=2), (1, 1, 2, 3), rolls_left=5))
    with pytest.raises(InputError, match="save no throws"):
        solve(replace(r, save_throws=False)).value(Card(filled={"ones": 1}, saved=1))
    with pytest.raises(UnsupportedError, match="save throws"):
        sol.simulate(10)
    assert sol.value(Card(filled={"ones": 1}, saved=2)) > sol.value(Card(filled={"ones": 1}))


def test_a_saved_table_round_trips(tmp_path):
    r = small_rules(("ones", "one_pair", "chance"), 4, 3, 4, True)
    sol = solve(r)
    back = YahtzeeSolution.load(sol.save(tmp_path / "t.table"), rules=r)
    assert np.array_equal(np.isnan(back.values), np.isnan(sol.values))
    assert np.array_equal(np.nan_to_num(back.values), np.nan_to_num(sol.values))
    # the same name with another cap: another version of those rules
    with pytest.raises(InputError, match="made for another version of rules"):
        YahtzeeSolution.load(tmp_path / "t.table", rules=replace(r, max_saved=2))


def test_state_numbers_with_saved_throws():
    game = ScorecardGame(rules("maxi-saved"))
    assert game.n_saved_values == 41 and game.n_cards == ScorecardGame(rules("maxi")).n_states
    s = game.state_index(0b101, 7, 0, 9)
    assert game.decode(s) == (0b101, 7, 0) and game.saved_of(s) == 9
    assert [game.max_saved(t) for t in (0, 1, 10, 20)] == [0, 2, 20, 40]
    assert game.tier_size(20) == len(game.tier_cards(20)) * 41
