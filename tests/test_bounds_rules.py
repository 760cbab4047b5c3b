"""Issue 24, bounded inputs: a rule set is range-checked before anything is allocated
(integers that would not fit the kernels' types are refused in one line), the score
distribution checks its size against the memory budget first, box names cannot be
confused, and a user's file that calls ``sys.exit`` is an error, not a success."""

from __future__ import annotations

import pytest

from perfectplay import cli
from perfectplay.errors import ResourceLimitError, RulesError
from perfectplay.problems.yahtzee.instance import parse_situation
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import MAX_POINTS, Category, Rules, rules


def mini(**changes):
    """Three boxes, two dice of three faces; ``changes`` override any field."""
    fields = dict(
        name="mini",
        categories=(Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum)),
        dice=2,
        faces=3,
        rolls=2,
        upper_threshold=3,
        upper_bonus=10,
    )
    return Rules(**{**fields, **changes})


def pair(joker=None):
    return Category("pair", lambda d: 50 if len(set(d)) == 1 else 0, joker=joker)


BAD_RULES = {
    # bonuses that wrapped in the kernels (2**31: a wrong exact distribution; 2**61: a
    # negative simulated mean) or spread the distribution over billions of scores
    "upper bonus 2**31": (lambda: mini(upper_bonus=2**31), "upper_bonus 2147483648 is too large"),
    "upper bonus 2**61": (lambda: mini(upper_bonus=2**61), "upper_bonus"),
    "upper bonus 10**9": (lambda: mini(upper_bonus=10**9), "at most 1,000,000"),
    "kind bonus 2**62": (
        lambda: Rules(
            "kb",
            (Category.upper(1, "ones"), pair()),
            dice=2,
            faces=3,
            kind_box="pair",
            kind_bonus=2**62,
        ),
        "kind_bonus",
    ),
    # listed for ever before the lattice's own check
    "faces 10**100": (lambda: mini(faces=10**100), "faces must be 1..64"),
    "faces 0": (lambda: mini(faces=0), "faces must be 1..64"),
    # truncated to 2 before
    "joker 2.9": (
        lambda: Rules(
            "j",
            (Category("chance", sum, joker=2.9), pair()),
            dice=2,
            faces=3,
            kind_box="pair",
            joker="free",
            upper_threshold=0,
        ),
        "joker must be an int, not 2.9",
    ),
    "joker 10**7": (
        lambda: Rules(
            "j",
            (Category("chance", sum, joker=10**7), pair()),
            dice=2,
            faces=3,
            kind_box="pair",
            joker="free",
            upper_threshold=0,
        ),
        "out of range",
    ),
    "a box named 5": (
        lambda: mini(categories=(Category(5, sum),)),  # type: ignore[arg-type]
        "name must be a non-empty str, not 5",
    ),
    "not a category": (lambda: mini(categories=("chance",)), "must be Category objects"),
    "two boxes one key": (
        lambda: mini(categories=(Category("X", sum), Category("x", max))),
        "'X' and 'x' differ only in case",
    ),
    "two boxes one key, dash": (
        lambda: mini(categories=(Category("full-house", sum), Category("full_house", max))),
        "differ only in case or '-'/'_'",
    ),
}


@pytest.mark.parametrize("name", BAD_RULES)
def test_out_of_range_rules_are_refused_in_one_line(name):
    make, fragment = BAD_RULES[name]
    with pytest.raises(ValueError) as info:
        make()
    message = str(info.value)
    assert fragment in message and "\n" not in message and len(message) < 200


def test_the_largest_allowed_values_are_accepted():
    mini(upper_bonus=MAX_POINTS)
    mini(faces=64, dice=1)
    assert rules("american").upper_bonus == 35


def test_a_huge_score_is_one_line_not_a_traceback():
    huge = mini(categories=(Category("big", lambda d: 10**5000),))
    with pytest.raises(RulesError, match=r"scored <an integer of about 5,000 digits> for 1 1"):
        ScorecardGame(huge)


def test_the_distribution_checks_its_size_before_allocating(monkeypatch):
    from perfectplay.yahtzee.distribution import score_distribution, score_span
    from perfectplay.yahtzee.solution import solve

    big = mini(upper_bonus=MAX_POINTS)
    game = ScorecardGame(big)
    assert score_span(game) == 2 + 4 + 6 + MAX_POINTS + 1  # ones, twos, chance, bonus
    table = solve(big)
    dist = score_distribution(table)  # fits the budget: exact, the bonus included
    assert dist.pmf[MAX_POINTS:].sum() > 0 and abs(dist.mean - table.value()) < 1e-6
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "4M")
    with pytest.raises(ResourceLimitError, match="score distribution of mini needs about 7.6 MiB"):
        score_distribution(table)


def test_box_names_match_in_any_case_and_never_two_boxes():
    american = rules("american")
    sit = parse_situation("dice 12345; rolls 0; filled Full-House=25 ONES=1", american)
    assert sit.card.filled == {"full_house": 25, "ones": 1}
    # one box "X": x names it (documented); two boxes X and x cannot be made
    one = mini(categories=(Category("X", sum), Category("y", max)), upper_threshold=0)
    assert parse_situation("dice 1 2; rolls 0; filled x=4", one).card.filled == {"X": 4}


RULES_FILE = """\
import sys
from perfectplay.yahtzee.ruleset import Category, Rules

def BONUS():
    return Rules("b", (Category.upper(1, "ones"), Category("chance", sum)), dice=2, faces=3,
                 upper_threshold=2, upper_bonus=2**61)

def FACES():
    return Rules("f", (Category("chance", sum),), faces=10**100)

def JOKER():
    return Rules("j", (Category("chance", sum, joker=2.9),
                       Category("pair", lambda d: 50 * (len(set(d)) == 1))),
                 dice=2, faces=3, kind_box="pair", joker="free", upper_threshold=0)

def EXIT():
    sys.exit(0)

def SCORE_EXIT():
    return Rules("s", (Category("chance", lambda d: sys.exit(0)),), dice=2, faces=3,
                 upper_threshold=0)

def HUGE():
    return Rules("h", (Category("chance", lambda d: 10**5000),), dice=2, faces=3,
                 upper_threshold=0)
"""


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("BONUS", "upper_bonus 2305843009213693952 is too large"),
        ("FACES", "faces must be 1..64, not <an integer of about 100 digits>"),
        ("JOKER", "joker must be an int, not 2.9"),
        ("EXIT", "EXIT() failed: SystemExit: 0"),
        ("SCORE_EXIT", "category 'chance' failed for 1 1: SystemExit: 0"),
        ("HUGE", "scored <an integer of about 5,000 digits>"),
    ],
)
def test_users_rules_files_are_refused_in_one_line(capsys, tmp_path, name, fragment):
    path = tmp_path / "mine.py"
    path.write_text(RULES_FILE)
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    code = cli.main(["yahtzee", str(empty), "-q", "--no-cache", "--rules", f"{path}:{name}"])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.startswith("perfectplay: ") and err.count("\n") == 1 and fragment in err, err


def test_sys_exit_while_a_rules_file_is_imported_is_exit_2(capsys, tmp_path):
    path = tmp_path / "leave.py"
    path.write_text("import sys\nsys.exit(0)\n")
    empty = tmp_path / "empty.txt"
    empty.write_text("")
    for argv in (["yahtzee", str(empty), "--rules", f"{path}:R"], ["solve", f"{path}:M"]):
        code = cli.main([*argv, "-q"])
        out, err = capsys.readouterr()
        assert (code, out) == (2, ""), argv
        assert err == f"perfectplay: importing {path} failed: SystemExit: 0\n"
