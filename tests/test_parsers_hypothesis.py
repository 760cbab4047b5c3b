"""Issue 24, keep them fixed: a property test for every parser and loader of the package.

Arbitrary text (or bytes) never raises anything but the parser's one-line error
(:class:`~perfectplay.errors.InputError` or :class:`~perfectplay.errors.ModelError`,
a :class:`~perfectplay.site.errors.SiteError` for the site's files, ``ValueError`` for a
model's own ``parse`` hook and ``ArgumentTypeError`` for an option), and valid values
round-trip where a formatter exists. Each test draws a few dozen to a few hundred
examples: the whole file takes seconds, not minutes.

The parsers: the situation notation (:mod:`perfectplay.problems.yahtzee.instance`),
Yahtzee rules files (``--rules file.py:NAME``), model parameters (``-p NAME=VALUE``),
states typed on ``--query``, the Ur notation (:mod:`perfectplay.examples.ur`), the
:mod:`perfectplay.text` package, ``site.toml`` and ``meta.toml``, the inputs of the five
gallery problems, and the table loaders.
"""

from __future__ import annotations

import argparse
import functools
import math
import random
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from perfectplay.errors import InputError, ModelError, PerfectplayError

FAST = settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
MORE = settings(max_examples=100, deadline=None)

# Text near the parsers' own words: fragments of valid inputs glued with separators, so the
# examples reach past the first check (pure random text is refused on its first byte).
WORDS = [
    "dice", "rolls", "left", "filled", "upper", "score", "bonus", "rules", "yes", "no",
    "american", "yatzy", "ones=3", "sixes=18", "yahtzee=50", "chance", "full_house=25",
    "Full-House", "-", "0", "1", "2", "3", "5", "6", "7", "12345", "66666", "-1", "+2",
    "99999999999999999999", "1.5", "=", "#", "x",
]  # fmt: skip
SEPARATORS = [" ", " ", ";", "|", "\n", "\t", "\r\n", "\x0c", "\x00", "\u00a0"]


def near(words: list[str] = WORDS) -> st.SearchStrategy[str]:
    piece = st.one_of(st.sampled_from(words), st.text(max_size=4))
    glue = st.sampled_from(SEPARATORS)
    return st.lists(st.tuples(piece, glue), max_size=24).map(
        lambda pairs: "".join(a + b for a, b in pairs)
    )


TEXT = st.one_of(st.text(max_size=200), near())


def one_line(exc: BaseException) -> None:
    message = str(exc)
    assert message and "\n" not in message and len(message) < 400, message


# --- the text package ----------------------------------------------------------------------


@MORE
@given(st.one_of(st.text(max_size=40), st.binary(max_size=40)))
def test_int_token_is_an_int_in_range_or_none(token):
    from perfectplay.text.parse import INT_LIMIT, int_token

    value = int_token(token)
    assert value is None or (isinstance(value, int) and abs(value) <= INT_LIMIT)


@MORE
@given(st.integers(min_value=-(10**18), max_value=10**18))
def test_int_token_round_trips(n):
    from perfectplay.text.parse import int_token

    assert int_token(str(n)) == n and int_token(f"+{n}" if n >= 0 else str(n)) == n


@MORE
@given(TEXT)
def test_lines_and_tokens(text):
    from perfectplay.text.parse import (
        WHITESPACE,
        input_lines,
        iter_lines,
        split_tokens,
        unify_line_ends,
    )

    lines = [line for _, line in iter_lines(text)]
    assert lines == input_lines(text)
    assert "\n".join(lines) == unify_line_ends(text).removesuffix("\n")
    for line in lines:
        for token in split_tokens(line):
            assert token and not any(c in WHITESPACE for c in token)


@MORE
@given(st.text(max_size=30), st.integers(-100, 100), st.integers(0, 100))
def test_int_in_range_raises_only_input_errors(token, lo, span):
    from perfectplay.text.parse import int_in_range

    try:
        value = int_in_range(token, "N", lo, lo + span)
    except InputError as exc:
        one_line(exc)
    else:
        assert lo <= value <= lo + span


@MORE
@given(st.text(max_size=30))
def test_option_types_raise_only_argument_errors(text):
    from perfectplay.text.arguments import digits_arg, int_arg, path_arg, positive_arg

    for parse in (int_arg, positive_arg, digits_arg, path_arg):
        try:
            parse(text)
        except argparse.ArgumentTypeError as exc:
            one_line(exc)


@MORE
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12))
def test_decimal_text_round_trips(x):
    from perfectplay.text.numbers import decimal_text

    assert math.isclose(float(decimal_text(x)), x, rel_tol=1e-9, abs_tol=1e-9)


# --- Yahtzee situations and rules ----------------------------------------------------------


@functools.cache
def american_game():
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import rules

    return ScorecardGame(rules("american"))


@MORE
@given(TEXT)
def test_situations_raise_only_input_errors(text):
    from perfectplay.problems.yahtzee.instance import parse, parse_situation, stream

    game = american_game()
    for read in (parse, lambda t, g: list(stream(t, g).situations)):
        try:
            read(text, game)
        except InputError as exc:
            one_line(exc)
    try:
        parse_situation(text, game)
    except InputError as exc:
        one_line(exc)


@st.composite
def situations(draw):
    """A valid american situation, as its fields and as text."""
    from perfectplay.yahtzee.ruleset import rules

    american = rules("american")
    rng = random.Random(draw(st.integers(0, 2**32)))
    dice = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
    filled = {}
    for box in rng.sample(american.categories, rng.randint(0, 12)):
        hand = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
        filled[box.name] = 0 if box.name == "yahtzee" else box.score(hand)
    rolls = rng.randint(0, 2)
    fields = [
        f"dice {' '.join(map(str, dice))}",
        f"rolls left {rolls}",
        "filled " + (" ".join(f"{k}={v}" for k, v in filled.items()) or "-"),
    ]
    rng.shuffle(fields)
    return (dice, rolls, filled), draw(st.sampled_from([";", "|", " ; "])).join(fields)


@MORE
@given(situations())
def test_valid_situations_round_trip(case):
    from perfectplay.problems.yahtzee.instance import parse_situation
    from perfectplay.problems.yahtzee.report import situation_json

    (dice, rolls, filled), text = case
    got = situation_json(parse_situation(text, american_game()))
    assert (tuple(sorted(got["dice"])), got["rolls_left"], got["filled"]) == (dice, rolls, filled)


POINTS = st.one_of(
    st.integers(-5, 70),
    st.sampled_from([10**6, 10**6 + 1, 2**31, 2**61, 10**9, 10**100]),
    st.sampled_from([2.9, "5", None, True]),
)


@settings(FAST, max_examples=40)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            "upper_bonus": POINTS,
            "kind_bonus": POINTS,
            "upper_threshold": POINTS,
            "faces": POINTS,
            "dice": POINTS,
            "rolls": POINTS,
        },
    ),
    POINTS,
)
def test_rules_files_are_refused_in_one_line_or_accepted(tmp_path_factory, fields, joker):
    from perfectplay.problems.yahtzee.instance import resolve_rules
    from perfectplay.yahtzee.game import ScorecardGame

    args = ", ".join(f"{k}={v!r}" for k, v in fields.items())
    kind = "kind_box='pair', joker='free', " if joker is not None else ""
    source = (
        "from perfectplay.yahtzee.ruleset import Category, Rules\n"
        f"R = Rules('r', (Category.upper(1, 'ones'), Category('chance', sum, joker={joker!r}),"
        " Category('pair', lambda d: 50 * (len(set(d)) == 1))),"
        f" {kind}{args})\n"
    )
    path = tmp_path_factory.mktemp("rules") / "mine.py"
    path.write_text(source)
    try:
        rules = resolve_rules(f"{path}:R")
    except PerfectplayError as exc:
        one_line(exc)
        return
    # accepted: every number is in range; a small game's arrays are built, or refused
    if rules.dice <= 3 and isinstance(rules.faces, int) and rules.faces <= 6:
        try:
            ScorecardGame(rules)
        except PerfectplayError as exc:
            one_line(exc)


@FAST
@given(st.text(alphabet=st.characters(blacklist_characters=":"), max_size=40))
def test_rules_names_raise_only_input_errors(name):
    from perfectplay.problems.yahtzee.instance import resolve_rules

    # No ':' here: MODULE:NAME would import whatever module the text names.
    try:
        resolve_rules(name)
    except InputError as exc:
        one_line(exc)


# --- model parameters, typed states, the Ur notation ---------------------------------------


@MORE
@given(st.lists(st.one_of(st.text(max_size=30), near(["n", "=", "3", "'a'", "(1, 2)", "True"]))))
def test_model_params_raise_only_input_errors(items):
    from perfectplay.cli.solve import _params

    try:
        _params(items)
    except InputError as exc:
        one_line(exc)


@MORE
@given(st.one_of(st.text(max_size=80), near(["(", ")", "[", "]", ",", "1", "'X'", "None"])))
def test_query_states_raise_only_input_errors(text):
    from perfectplay.cli.query import _state

    try:
        _state(SimpleNamespace(kind="chance"), text)
    except InputError as exc:
        one_line(exc)


@pytest.fixture(scope="module")
def ur():
    from perfectplay.examples.ur import Ur

    return Ur("finkel", pieces=3)


@FAST
@given(text=st.one_of(st.text(max_size=40), near(["1", "2", "4", "8", "14", ",", "/", "+", "+2"])))
def test_ur_positions_raise_only_value_errors(ur, text):
    try:
        ur.parse(text)
    except ValueError as exc:  # the parse hook's contract: the caller adds the context
        one_line(exc)


@FAST
@given(st.sets(st.integers(1, 14), max_size=3), st.sets(st.integers(1, 14), max_size=3))
def test_ur_positions_round_trip(ur, light, dark):
    text = f"{','.join(map(str, sorted(light)))}/{','.join(map(str, sorted(dark)))}"
    try:
        state = ur.parse(text)
    except ValueError as exc:  # two pieces on one shared tile
        one_line(exc)
        return
    assert ur.parse(ur.describe(state)) == state


# --- the five gallery problems -------------------------------------------------------------

GALLERY = ["alea", "yeetzhee", "diemaker", "dispdom", "fivehundredeleven"]


@pytest.mark.parametrize("name", GALLERY)
def test_gallery_inputs_raise_only_input_errors(name):
    import importlib

    from perfectplay.problems import REGISTRY

    parse = importlib.import_module(f"perfectplay.problems.{name}.instance").parse
    example = REGISTRY[name].example
    words = sorted(set(example.split())) + ["0", "-1", "99999999999999999999", "x"]

    @FAST
    @given(st.one_of(st.text(max_size=120), near(words), st.just(example)))
    def check(text):
        try:
            parse(text)
        except InputError as exc:
            one_line(exc)

    check()


# --- site.toml and meta.toml ---------------------------------------------------------------

TOML_WORDS = [
    "title", "description", "entries", "time_limit", "output_limit", "flags", "cpp", "=",
    '"x"', "[", "]", '["."]', '["a/*"]', '["../x"]', "[flags]", "1", "-1", "1e400", "nan",
    "true", "{", "}", '"\\u0000"', "problem", "status", "tags", "[[x]]",
]  # fmt: skip


@FAST
@given(st.one_of(st.text(max_size=120), near(TOML_WORDS)))
def test_site_toml_raises_only_site_errors(tmp_path_factory, text):
    from perfectplay.site.config import load_config
    from perfectplay.site.errors import SiteError

    root = tmp_path_factory.mktemp("site")
    try:
        (root / "site.toml").write_text(text, encoding="utf-8", errors="surrogateescape")
    except (UnicodeEncodeError, ValueError):
        assume(False)
    try:
        load_config(root)
    except SiteError as exc:
        one_line(exc)


@FAST
@given(st.one_of(st.text(max_size=120), near(TOML_WORDS)))
def test_meta_toml_raises_only_site_errors(tmp_path_factory, text):
    from perfectplay.site.entries import REQUIRED_FILES, load
    from perfectplay.site.errors import SiteError

    root = tmp_path_factory.mktemp("archive")
    folder = root / "archive" / "p"
    folder.mkdir(parents=True)
    for name in REQUIRED_FILES:
        (folder / name).write_text("x\n")
    try:
        (folder / "meta.toml").write_text(text, encoding="utf-8")
    except UnicodeEncodeError:
        assume(False)
    try:
        load(root, folder)
    except SiteError as exc:
        one_line(exc)


# --- table loaders -------------------------------------------------------------------------


@FAST
@given(st.binary(max_size=300), st.sampled_from([b"", b"PK\x03\x04", b"\x93NUMPY", "yahtzee"]))
def test_table_loaders_raise_only_input_errors(tmp_path_factory, data, head):
    from perfectplay import load
    from perfectplay.results.table import load_solution
    from perfectplay.yahtzee.solution import _MAGIC, YahtzeeSolution

    if head == "yahtzee":
        head = _MAGIC
    path = Path(tmp_path_factory.mktemp("t")) / "t.table"
    path.write_bytes(head + data)
    for read in (load_solution, YahtzeeSolution.load, load):
        try:
            read(path)
        except (InputError, ModelError) as exc:
            one_line(exc)
