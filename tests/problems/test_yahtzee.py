"""``perfectplay.problems.yahtzee`` as a library: the situation parser, the answers, the
interpreted query path and a brute-force twin of a tiny user rule set."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from dataclasses import replace
from fractions import Fraction
from functools import cache

import pytest

from perfectplay.errors import InputError
from perfectplay.problems.yahtzee import answer, parse, parse_situation, resolve_rules, solve
from perfectplay.yahtzee import Card, Category, Rules, Situation, rules

AMERICAN = rules("american")


# --- the parser -------------------------------------------------------------------------


def test_fields_in_any_order_and_case_with_both_separators():
    a = parse_situation("dice 1 3 3 5 6; rolls left 2; filled ones=3 fives=15 yahtzee=50", AMERICAN)
    b = parse_situation("FILLED Yahtzee=50 FIVES=15 ones=3 | Rolls 2 | DICE 63531", AMERICAN)
    assert a.dice == (1, 3, 3, 5, 6) and b.dice == (6, 3, 5, 3, 1)
    assert a.rolls_left == b.rolls_left == 2
    assert dict(a.card.filled) == dict(b.card.filled) == {"ones": 3, "fives": 15, "yahtzee": 50}


def test_optional_fields():
    s = parse_situation(
        "dice 2 2 2 2 2; rolls 0; filled twos yahtzee sixes=18; upper 24; bonus yes; score 130",
        AMERICAN,
    )
    card = s.card
    assert card.filled == {"twos": None, "yahtzee": None, "sixes": 18}
    assert (card.upper, card.kind_holds, card.score) == (24, True, 130)
    empty = parse_situation("dice 12345; rolls 1; filled -", AMERICAN)
    assert empty.card == Card() and empty.rolls_left == 1
    assert parse_situation(
        "dice 12345; rolls_left 0; filled three-of-a-kind=0", AMERICAN
    ).card.filled == {"three_of_a_kind": 0}


def test_the_input_format():
    text = (
        "# a comment\n\nrules yatzy\r\n"
        "dice 6 6 6 6 6; rolls left 0   # five sixes\n"
        "\n"
        "dice 1 2 3 4 5; rolls 1; filled chance=20\n"
    )
    inst = parse(text)
    assert inst.rules.name == "yatzy"
    assert [line.line for line in inst.situations] == [4, 6]
    assert inst.situations[1].situation.card.filled == {"chance": 20}
    assert parse("").rules.name == "american" and parse("").situations == ()
    assert parse("rules american-no-bonus\n").rules.name == "american-no-bonus"
    # --rules chosen by the caller and a rules line that agrees
    assert parse("rules yatzy\n", rules("yatzy")).rules.name == "yatzy"


BAD_SITUATIONS = [
    ("dice 1 3 3 5; rolls 2", "expected 5 dice, got 4"),
    ("dice 1 3 3 5 6 6; rolls 2", "expected 5 dice, got 6"),
    ("dice 1 3 3 5 7; rolls 2", "7 is not a face"),
    ("dice 1 3 3 5 x; rolls 2", "dice: x is not a face of these dice (1, 2, 3, 4, 5, 6)"),
    ("dice 1 3 3 5 6", "missing field 'rolls left'"),
    ("rolls 2", "missing field 'dice'"),
    ("dice 13356; rolls 3", "rolls left must be from 0 to 2"),
    ("dice 13356; rolls -1", "rolls left must be at least 0"),
    ("dice 13356; rolls two", "rolls left: expected an integer"),
    ("dice 13356; rolls 1 2", "rolls left: expected one value"),
    ("dice 13356; rolls 2; filled ones=3 ones=2", "box 'ones' is filled twice"),
    ("dice 13356; rolls 2; filled onez=3", "'onez' is not a box of american"),
    ("dice 13356; rolls 2; filled ones=x", "ones=x: expected an integer"),
    ("dice 13356; rolls 2; filled ones=6", "box 'ones' cannot score 6"),
    ("dice 13356; rolls 2; filled full_house=20", "box 'full_house' cannot score 20"),
    ("dice 13356; rolls 2; filled ones=3; upper 5", "upper total 5 does not match"),
    ("dice 13356; rolls 2; filled ones", "give the upper total"),
    ("dice 13356; rolls 2; filled ones; upper 6", "the filled upper boxes cannot total 6"),
    ("dice 13356; rolls 2; filled twos; upper 3", "the filled upper boxes cannot total 3"),
    ("dice 13356; rolls 2; upper 4", "upper total 4 does not match the upper boxes (0)"),
    ("dice 13356; rolls 2; filled yahtzee", "say whether the yahtzee box holds"),
    ("dice 13356; rolls 2; filled yahtzee=50; bonus no", "bonus state cannot be no"),
    ("dice 13356; rolls 2; bonus yes", "the yahtzee box is open"),
    ("dice 13356; rolls 2; bonus maybe", "bonus: expected yes or no"),
    ("dice 13356; rolls 2; frobnicate 3", "unknown field 'frobnicate'"),
    ("dice 13356; rolls 2; dice 12345", "field 'dice' is given twice"),
    ("dice 13356; rolls 2; upper 9" + "9" * 5000, "out of range"),
    ("dice 13356; rolls 2; score -1", "score must be at least 0, got -1"),
    ("dice 13356; rolls 2; upper -3", "upper must be at least 0, got -3"),
    ("", "missing field 'dice'"),
]


@pytest.mark.parametrize(("text", "fragment"), BAD_SITUATIONS)
def test_bad_situations(text, fragment):
    with pytest.raises(InputError) as info:
        parse_situation(text, AMERICAN)
    assert fragment in info.value.message
    assert "\n" not in info.value.message and len(info.value.message) < 250


def test_a_bonus_state_under_rules_without_the_box_is_refused():
    # Yatzy has no box with an extra bonus: 'bonus yes' was taken and ignored.
    with pytest.raises(InputError, match="yatzy rules have no n-of-a-kind box with a bonus"):
        parse_situation("dice 12345; rolls 0; filled yatzy; bonus yes", rules("yatzy"))
    assert parse_situation("dice 12345; rolls 0; bonus no", rules("yatzy")).card.kind_holds is False


def test_the_bonus_state_under_rules_without_the_extra_bonus():
    no_bonus = rules("american-no-bonus")
    s = parse_situation("dice 12345; rolls 0; filled yahtzee; bonus yes", no_bonus)
    assert s.card.kind_holds is True  # not tracked by these rules, and not contradicted
    with pytest.raises(InputError, match="the yahtzee box is open"):
        parse_situation("dice 12345; rolls 0; bonus yes", no_bonus)
    assert parse_situation("dice 12345; rolls 0; filled yahtzee", no_bonus).card.filled == {
        "yahtzee": None
    }


def test_full_card_and_line_numbers():
    full = " ".join(f"{c.name}={5 if c.name == 'chance' else 0}" for c in AMERICAN.categories)
    with pytest.raises(InputError, match="the scorecard is full"):
        parse_situation(f"dice 12345; rolls 0; filled {full}", AMERICAN)
    with pytest.raises(InputError) as info:
        parse("dice 12345; rolls 0\n\n# ok\ndice 12345; rolls 9\n")
    assert info.value.line == 4
    with pytest.raises(InputError) as info:
        parse("dice 12345; rolls 0\nrules yatzy\n")
    assert info.value.line == 2 and "first line" in info.value.message
    with pytest.raises(InputError, match="unknown rules 'nope'; known: american"):
        parse("rules nope\n")
    with pytest.raises(InputError, match="the input is for rules 'yatzy', not 'american'"):
        parse("rules yatzy\n", AMERICAN)
    with pytest.raises(InputError, match="'yatzy' is not a box of american"):
        parse("dice 12345; rolls 0; filled yatzy=0\n")
    # a user's own rule set is named by its name (a built-in name is still checked)
    mine = replace(AMERICAN, name="my-rules")
    assert parse("rules my-rules\ndice 12345; rolls 0\n", mine).rules is mine
    with pytest.raises(InputError, match="the input is for rules 'yatzy', not 'my-rules'"):
        parse("rules yatzy\n", mine)
    # a name that is no built-in one, with a user's rules given: the mismatch, not a list
    # of the built-in names
    with pytest.raises(InputError, match="the input is for rules 'my-rulez', not 'my-rules'"):
        parse("rules my-rulez\n", mine)


def test_names_of_several_words_can_be_typed():
    # A user's rules and boxes may have names with spaces (the tests' own "one die" and
    # "twice max"); the rules line took only one word and no 'filled' field could name
    # such a box.
    spaced = Rules(
        "my rules",
        (Category("twice max", lambda d: 2 * max(d)), Category("chance", sum)),
        dice=2,
        faces=3,
        upper_threshold=0,
    )
    inst = parse("rules my rules\ndice 1 2; rolls 0; filled twice_max=6\n", spaced)
    assert inst.rules is spaced
    assert inst.situations[0].situation.card.filled == {"twice max": 6}
    assert parse_situation("dice 1 2; rolls 0; filled Twice-Max", spaced).card.filled == {
        "twice max": None
    }


@pytest.mark.parametrize("name", ["a=b", "x;y", "p|q", "no#1"])
def test_a_box_name_a_situation_cannot_write_is_refused(name):
    with pytest.raises(ValueError, match="a box's name cannot hold"):
        Rules("r", (Category(name, sum),), dice=2, faces=3)


def test_resolve_rules(tmp_path):
    assert resolve_rules("american-forced-joker").joker == "forced"
    bad = tmp_path / "bad.py"
    bad.write_text("RULES = 1\ndef f() return 1\n")
    for spec, fragment in (
        ("nope", "unknown rules 'nope'; known: american, american-forced-joker"),
        # a file without ':NAME' said only "unknown rules 'mine.py'"
        ("mine.py", "(a file's rules are FILE.py:NAME, e.g. mine.py:RULES)"),
        ("perfectplay.yahtzee.ruleset:RULES", "names a dict object, not a yahtzee Rules"),
        (str(tmp_path / "none.py") + ":X", "no such file"),
        ("perfectplay.yahtzee.ruleset:NOPE", "has no 'NOPE'"),
        (f"{bad}:RULES", "syntax error: expected ':' (line 2)"),
    ):
        with pytest.raises(InputError) as info:
            resolve_rules(spec)
        assert fragment in info.value.message, info.value.message


# --- the answers equal the library's ------------------------------------------------------


def test_answers_are_the_best_options_of_the_library():
    mini = Rules(
        "mini",
        (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum)),
        dice=3,
        faces=3,
        rolls=2,
        upper_threshold=4,
        upper_bonus=10,
    )
    inst = parse(
        "dice 1 2 2; rolls 1\ndice 1 1 3; rolls 0; filled twos=4\n"
        "dice 3 3 3; rolls 0; filled ones; upper 2",
        mini,
    )
    sol = solve(mini)
    assert solve(mini) is sol  # solved once per process
    got = answer(sol, inst)
    for a, line in zip(got, inst.situations, strict=True):
        assert list(a.options) == sol.options(line.situation)
        assert a.best == max(a.options, key=lambda o: o.value)
        values = [o.value for o in a.options]
        assert values == sorted(values, reverse=True)


# --- a brute-force twin of a tiny user rule set -------------------------------------------

MINI_SOURCE = """\
from perfectplay.yahtzee import Category, Rules

MINI = Rules(
    "mini",
    (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum)),
    dice=2, faces=3, rolls=2, upper_threshold=3, upper_bonus=5,
)
"""


def _twin_value() -> tuple[Fraction, dict]:
    """Ordered dice, keeps by position, plain recursion in fractions: the optimal expected
    final score of MINI (two d3, two rolls; ones, twos, chance; 5 bonus at 3)."""
    faces = (1, 2, 3)
    boxes = {"ones": lambda d: d.count(1), "twos": lambda d: 2 * d.count(2), "chance": sum}
    upper = {"ones", "twos"}

    @cache
    def card(filled: frozenset, up: int) -> Fraction:
        if len(filled) == len(boxes):
            return Fraction(0)
        total = Fraction(0)
        for roll in itertools.product(faces, repeat=2):
            total += turn(filled, up, roll, 1)
        return total / 9

    @cache
    def turn(filled: frozenset, up: int, dice: tuple, rerolls: int) -> Fraction:
        best = max(box(filled, up, dice, name) for name in boxes if name not in filled)
        if rerolls:
            for keep in itertools.product((True, False), repeat=2):
                outcomes = [
                    tuple(d if k else r for d, k, r in zip(dice, keep, new, strict=True))
                    for new in itertools.product(faces, repeat=2)
                ]
                # a kept die's "new" face is ignored: each outcome counted 9 times
                value = sum(turn(filled, up, o, rerolls - 1) for o in outcomes) / 9
                best = max(best, value)
        return best

    def box(filled: frozenset, up: int, dice: tuple, name: str) -> Fraction:
        points = boxes[name](list(dice))
        new_up = up + points if name in upper else up
        bonus = 5 if name in upper and up < 3 <= new_up else 0
        return points + bonus + card(filled | {name}, min(new_up, 3))

    return card(frozenset(), 0), {"turn": turn, "card": card}


def test_user_rules_file_matches_the_brute_force_twin(tmp_path):
    path = tmp_path / "minirules.py"
    path.write_text(MINI_SOURCE)
    mini = resolve_rules(f"{path}:MINI")
    value, twin = _twin_value()
    sol = solve(mini)
    assert abs(sol.value() - float(value)) < 1e-9
    # every option of a few situations, against the twin's turn values
    turn = twin["turn"]
    for dice in itertools.product((1, 2, 3), repeat=2):
        for filled in ({}, {"ones": 1}, {"twos": 4, "chance": 3}):
            up = sum(v for k, v in filled.items() if k in ("ones", "twos"))
            so_far = sum(filled.values()) + (5 if up >= 3 else 0)
            sit = Situation(Card(filled=filled), dice, rolls_left=1)
            best = sol.options(sit)[0]
            expected = so_far + turn(frozenset(filled), min(up, 3), dice, 1)
            assert abs(best.value - float(expected)) < 1e-9, (dice, filled)


# --- the interpreted query path -----------------------------------------------------------


def test_interpreted_modules_leave_the_process_as_it_was():
    from perfectplay._util.jit import interpreted_modules

    before = {
        n: sys.modules.get(n)
        for n in ("perfectplay.lattice.kernels", "perfectplay.yahtzee.kernels")
    }
    env = os.environ.get("PERFECTPLAY_NO_JIT")
    turns, scorecard = interpreted_modules(
        "perfectplay.lattice.kernels", "perfectplay.yahtzee.kernels"
    )
    assert scorecard.turn_values is turns.turn_values
    assert not hasattr(scorecard.box_values, "py_func")
    assert {n: sys.modules.get(n) for n in before} == before
    assert os.environ.get("PERFECTPLAY_NO_JIT") == env
    import perfectplay.yahtzee as yahtzee

    assert getattr(yahtzee, "kernels", None) is before["perfectplay.yahtzee.kernels"]


QUERY = """\
import json, sys
from perfectplay.problems.yahtzee import parse
from perfectplay.yahtzee import YahtzeeSolution
sol = YahtzeeSolution.load(sys.argv[1])
inst = parse(sys.stdin.read(), sol.game)
out = []
for l in inst.situations:
    out.append([(o.action, o.value) for o in sol.options(l.situation)])
    if len(out) == 1:
        # later queries may switch to the compiled kernels once 0.05 s is spent
        numba = "numba" in sys.modules
print(json.dumps({"numba": numba, "options": out}))
"""

SITUATIONS = """\
dice 1 3 3 5 6; rolls left 2
dice 1 3 3 5 6; rolls left 1; filled ones=3 fives=15 yahtzee=50
dice 6 6 6 6 6; rolls left 0; filled sixes=24 yahtzee=50
dice 6 6 6 6 6; rolls left 0; filled yahtzee=50 sixes=24 large_straight=40 full_house=25
dice 2 2 2 2 2; rolls left 2; filled twos yahtzee; upper 4; bonus no
dice 1 2 3 4 6; rolls left 0; filled chance=22 three_of_a_kind=0
"""


def test_a_query_from_a_table_runs_without_numba_and_equals_the_compiled_one(tmp_path):
    import json

    sol = solve(AMERICAN)
    table = tmp_path / "american.table"
    sol.save(table)
    res = subprocess.run(
        [sys.executable, "-c", QUERY, str(table)],
        input=SITUATIONS,
        capture_output=True,
        text=True,
        check=True,
    )
    got = json.loads(res.stdout)
    assert got["numba"] is False
    # in this process the solve loaded the compiled kernels: the same options, same order
    inst = parse(SITUATIONS, sol.game)
    for line, interpreted in zip(inst.situations, got["options"], strict=True):
        compiled = [(o.action, o.value) for o in sol.options(line.situation)]
        assert [a for a, _ in compiled] == [a for a, _ in interpreted]
        assert max(abs(a[1] - b[1]) for a, b in zip(compiled, interpreted, strict=True)) < 1e-9


@pytest.mark.parametrize(
    ("face", "faces", "says"),
    [
        (7, 6, "counts face 7, which the dice do not show (faces 1..6)"),
        (4, 3, "counts face 4, which the dice do not show (faces 1..3)"),
        ("z", ("a", "b"), "counts face 'z', which the dice do not show (faces 'a', 'b')"),
    ],
)
def test_an_upper_box_of_a_face_the_dice_lack_is_refused(face, faces, says):
    # Category.upper(7, ...) on six-sided dice always scored 0 and was taken silently.
    with pytest.raises(ValueError, match=None) as info:
        Rules("r", (Category.upper(face, "odd"), Category("n", len)), dice=2, faces=faces)
    assert says in str(info.value)


def test_a_negative_score_so_far_where_a_box_scores_below_zero():
    # A user's penalty box may score below 0 and its filled points were accepted, but
    # 'score -3' (the points so far, after it) was refused.
    neg = Rules(
        "neg",
        (Category("penalty", lambda d: -sum(d)), Category("chance", sum)),
        dice=2,
        faces=3,
        upper_threshold=0,
    )
    sit = parse_situation("dice 1 2; rolls 0; filled penalty; score -3", neg)
    assert sit.card.score == -3
    with pytest.raises(InputError, match="score must be at least 0, got -3"):
        parse_situation("dice 12345; rolls 0; filled ones; upper 3; score -3", AMERICAN)
