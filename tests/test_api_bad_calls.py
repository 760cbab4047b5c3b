"""The Python API as a caller meets it: bad calls raise the documented errors
(:mod:`perfectplay.errors`) with a message naming the problem, never a bare
``ValueError``/``TypeError``/``AttributeError`` from deep inside; solutions say what they
are in ``repr``; the library prints nothing unless asked.

Each case here was found by using the library as documented and failed before its fix.
"""

from __future__ import annotations

import pathlib

import pytest

import perfectplay
from perfectplay.errors import InputError, ModelError, PerfectplayError, RulesError, WriteError
from perfectplay.examples.five_dice import FiveDice
from perfectplay.examples.pig import Pig
from perfectplay.yahtzee import Card, Category, Rules, Situation

BOXES = (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum))


@pytest.fixture(scope="module")
def three_dice() -> perfectplay.Solution:
    return perfectplay.solve(FiveDice(dice=3))


# -- constructors and arguments: the documented types, which are still ValueErrors -------


@pytest.mark.parametrize(
    "make, words",
    [
        (lambda: FiveDice(dice=None), "dice must be 1..12"),
        (lambda: FiveDice(dice=-1), "dice must be 1..12"),
        (lambda: Pig(goal=0), "goal must be an integer 1..1000"),
        (lambda: __import__("perfectplay.lattice").lattice.TurnLattice(dice=0), "dice must"),
    ],
)
def test_bad_example_parameters_are_input_errors(make, words):
    with pytest.raises(InputError, match=words) as err:
        make()
    assert isinstance(err.value, ValueError)  # what callers caught before


def test_bad_ur_parameters_are_input_errors():
    from perfectplay.examples.ur import Ur

    with pytest.raises(InputError, match="pieces must be 1..15, not 0"):
        perfectplay.solve(Ur(pieces=0))


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"dice": 0}, "dice must be 1..16"),
        ({"faces": 1000}, "faces must be 1..64"),
        ({"upper_bonus": float("nan")}, "upper_bonus must be an int"),
        ({"name": None}, "a rule set's name is one line of text, not None"),
        ({"name": ""}, "a rule set's name is one line of text"),
        ({"name": "a\nb"}, "a rule set's name is one line of text"),
    ],
)
def test_bad_rules_are_rules_errors(kwargs, words):
    args = {"name": "m", "dice": 3, "faces": 3, "rolls": 2, **kwargs}
    with pytest.raises(RulesError, match=words) as err:
        Rules(categories=BOXES, **args)
    assert isinstance(err.value, ValueError)


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda s: s.distribution(-1), "k_max must be an int >= 0, not -1"),
        (lambda s: s.distribution("3"), "k_max must be an int >= 0, not '3'"),
        (lambda s: s.simulate(-1), "runs must be an int >= 0, not -1"),
        (lambda s: s.simulate(2, seed=None), "seed must be an int"),
        (lambda s: s.quantile(2), "q must be a number from 0 to 1, not 2"),
        (lambda s: s.quantile(float("nan")), "q must be a number from 0 to 1, not nan"),
    ],
)
def test_bad_analysis_arguments_are_input_errors(three_dice, call, words):
    with pytest.raises(InputError, match=words):
        call(three_dice)


@pytest.mark.parametrize("value", [-1, "many", 2.5])
def test_bad_explore_limits_are_input_errors(value):
    with pytest.raises(InputError, match="max_states must be"):
        perfectplay.solve(FiveDice(dice=2), max_states=value)


# -- the Yahtzee family's states -----------------------------------------------------------


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda g: g.value(5), "a scorecard of mini is a Card, not 5"),
        (lambda g: g.options(None), "options are a Situation.s"),
        (lambda g: g.options(), "a turn starts with a roll"),
        (lambda g: g.options(Card()), "not a Card \\(between turns\\)"),
        (lambda g: g.options("dice 1 2 3; rolls left 1"), "is a Situation"),
        (lambda g: g.best(Card()), "is a Situation"),
        (lambda g: g.options_json(next(iter(g.states()))), "is a Situation"),
        (lambda g: g.options(Situation(None, (1, 2, 3), 1)), "is a Card, not None"),
        (lambda g: g.options(Situation(Card(), None, 1)), "dice: a tuple of faces, not None"),
        (lambda g: g.value(Card(filled=None)), "filled boxes are a mapping"),
    ],
)
def test_yahtzee_states_of_the_wrong_type(mini, call, words):
    with pytest.raises(InputError, match=words):
        call(mini)


# -- the gallery problems given None or a wrong type ---------------------------------------


def _problems():
    from perfectplay.problems import alea, diemaker, dispdom, fivehundredeleven, yeetzhee

    return [
        (lambda: alea.solve(None, ["A"]), "dice must be a sequence of strings"),
        (lambda: alea.solve(["ABCDEF"], None), "words must be an iterable"),
        (lambda: yeetzhee.solve(3, 6, None), "group sizes are a list"),
        (lambda: diemaker.solve(None), "a die has 6 faces"),
        (lambda: dispdom.solve(None), "solve takes an Instance"),
        (lambda: fivehundredeleven.solve(None), "cards are a list of integers"),
    ]


@pytest.mark.parametrize("index", range(6))
def test_problems_refuse_none(index):
    call, words = _problems()[index]
    with pytest.raises(InputError, match=words):
        call()


def test_problem_queries_refuse_wrong_types():
    from perfectplay.problems import alea, yeetzhee

    sol = alea.solve(alea.EXAMPLE_DICE, alea.EXAMPLE_WORDS)
    for roll in (None, 5, [1, 2, 3, 4, 5]):
        with pytest.raises(InputError, match="a roll is a string of symbols"):
            sol.best_keep(roll)
    y = yeetzhee.solve(3, 6, [1, 2])
    with pytest.raises(InputError, match="a grouping is a list"):
        y.rule(None)
    with pytest.raises(InputError, match="cannot reach the target"):
        y.rule([5])


# -- compiled models --------------------------------------------------------------------


def test_compiled_positions_and_saves(tmp_path: pathlib.Path):
    from perfectplay.examples.ur import Ur

    sol = perfectplay.solve(Ur(pieces=1), workdir=tmp_path / "ur")
    with pytest.raises(InputError, match="an int64 state, not 1000"):
        sol.options((10**30, 1))
    with pytest.raises(InputError, match="an int64 state"):
        sol.value(-(2**64))
    afile = tmp_path / "file"
    afile.write_text("not a directory")
    with pytest.raises(WriteError, match="is a file; a compiled table is saved as a directory"):
        sol.save(afile)


def test_every_error_here_is_a_perfectplay_error():
    # The classes the tests above expect are all PerfectplayErrors (what the docs promise).
    for cls in (InputError, RulesError, WriteError):
        assert issubclass(cls, PerfectplayError)


def _toss(chances):
    """A two-player dice game of one toss whose ``chances`` are given."""

    class Toss:
        start = "go"

        def outcome(self, s):
            return None if s == "go" else s

        def moves(self, s):
            return ["toss"]

        def chances(self, s, m):
            return chances

    return Toss()


@pytest.mark.parametrize("flag", ["no", None, 2, 0.0])
def test_a_pass_flag_that_is_not_a_bool_is_refused(flag):
    # Read by its truth value, "no" passed the turn and None kept it, without a word.
    with pytest.raises(ModelError, match=r"Toss.chances\('go', 'toss'\) gave passes"):
        perfectplay.solve(_toss({("win", flag): 1, ("lose", False): 1}))


@pytest.mark.parametrize("flag", [True, False, 1, 0])
def test_pass_flags_that_are_bools_or_bits_are_read(flag):
    assert perfectplay.solve(_toss([("win", 1, flag)])).value() == (0.0 if flag else 1.0)


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"runs": -3}, "runs must be an int >= 0, not -3"),  # numpy: negative dimensions
        ({"runs": 2, "seed": -1}, "seed must be an int from 0 to 2\\*\\*64-1, not -1"),
        ({"runs": 2, "seed": None}, "seed must be"),  # unseeded, unlike every other kind
        ({"runs": 2, "max_steps": -1}, "max_steps must be an int >= 0"),
    ],
)
def test_two_player_dice_simulation_arguments(kwargs, words):
    from perfectplay.examples.pig import Piglet

    with pytest.raises(InputError, match=words):
        perfectplay.solve(Piglet(goal=2)).simulate(**kwargs)
