"""The input: situations of a Yahtzee-family game as a person types them.

A situation is one line of fields separated by ``;`` (or ``|``), in any order, keywords in
any case:

- ``dice 1 3 3 5 6`` (or ``dice 13356``): the dice showing; required;
- ``rolls left 2`` (or ``rolls 2``): rerolls still allowed, 0 after the last roll; required;
- ``filled ones=3 fives=15 yahtzee=50``: the filled boxes (names of the rules' boxes, in
  any case, ``-`` and ``_`` alike: no rule set has two boxes these would confuse; a bare
  ``ones`` is filled with points unknown); ``filled -`` or no field: an empty card;
- ``upper 18``: the upper-section total (needed when an upper box is filled without its
  points);
- ``score 120``: the points scored so far (optional: else the boxes' points, plus the
  upper bonus once earned);
- ``bonus yes`` / ``bonus no``: whether the Yahtzee box holds 50 (needed when it is filled
  without its points and the rules pay extra Yahtzees);
- ``saved 4``: the throws carried into this turn from earlier ones (rules that save
  throws, ``maxi-saved``); optional: ``rolls left`` then counts every throw still allowed
  this turn, the saved ones included (at most ``rolls - 1`` plus the throws saved).

The official input is an optional first line ``rules NAME`` (default ``american``), then
one situation per line; blank lines and ``#`` comments are skipped.

>>> inst = parse("dice 1 3 3 5 6; rolls left 2; filled ones=3 fives=15 yahtzee=50\\n")
>>> inst.rules.name, len(inst.situations)
('american', 1)
>>> sit = inst.situations[0].situation
>>> sit.dice, sit.rolls_left, dict(sit.card.filled)
((1, 3, 3, 5, 6), 2, {'ones': 3, 'fives': 15, 'yahtzee': 50})
>>> parse("rules yatzy\\ndice 66666 | rolls 0 | filled yatzy").situations[0].situation.card
Card(filled={'yatzy': None}, upper=None, kind_holds=None, score=None, saved=None)
>>> text = "rules maxi-saved\\ndice 666612; rolls 7; saved 5; filled ones=2 twos=4 chance=20"
>>> sit = parse(text).situations[0].situation
>>> sit.rolls_left, sit.card.saved
(7, 5)
>>> parse("dice 1 2 3 4 7; rolls 0")
Traceback (most recent call last):
...
perfectplay.errors.InputError: line 1: dice: 7 is not a face of these dice (1, 2, 3, 4, 5, 6)
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from perfectplay.errors import InputError
from perfectplay.text.parse import int_token, iter_lines, quote_token, split_tokens

if TYPE_CHECKING:
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import Rules
    from perfectplay.yahtzee.solution import Situation

__all__ = [
    "Instance",
    "Line",
    "Situations",
    "Streamed",
    "parse",
    "parse_situation",
    "resolve_rules",
    "stream",
]

FIELDS = ("dice", "rolls left", "filled", "upper", "score", "bonus", "saved")
_YES = {
    "yes": True,
    "y": True,
    "true": True,
    "1": True,
    "no": False,
    "n": False,
    "false": False,
    "0": False,
}


@dataclass(frozen=True)
class Line:
    """One situation of the input and the line it is on."""

    line: int
    situation: Situation
    text: str


@dataclass(frozen=True)
class Instance:
    """The rules (from the ``rules`` line, the caller, or ``american``) and the situations."""

    rules: Rules
    situations: tuple[Line, ...]


@dataclass(frozen=True)
class Streamed:
    """An :class:`Instance` whose situations are read as they are used (:func:`stream`)."""

    rules: Rules
    situations: Situations


def resolve_rules(spec: str) -> Rules:
    """A built-in rule set by name, or ``MODULE:NAME`` / ``file.py:NAME`` naming a
    :class:`~perfectplay.yahtzee.ruleset.Rules` (or a function returning one) in a user's
    Python file, loaded as ``perfectplay solve`` loads models.

    >>> resolve_rules("yatzy").n_categories
    15
    >>> resolve_rules("klondike")
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: unknown rules 'klondike'; known: american, \
american-forced-joker, american-no-joker, american-no-bonus, yatzy, maxi, maxi-saved
    """
    from perfectplay.yahtzee.ruleset import BUILTIN_RULES as RULES
    from perfectplay.yahtzee.ruleset import Rules

    if spec in RULES:
        return RULES[spec]
    head, sep, tail = spec.rpartition(":")
    if not (sep and head and tail.isidentifier()):
        known = f"unknown rules {quote_token(spec)}; known: {', '.join(RULES)}"
        if spec.endswith(".py"):  # a file without the name of its Rules in it
            raise InputError(f"{known} (a file's rules are FILE.py:NAME, e.g. {spec}:RULES)")
        raise InputError(
            f"{known} (or MODULE:NAME naming a Rules object)" if ":" in spec else known
        )
    from perfectplay.models.loading import load_model

    try:
        obj: Any = load_model(spec)
    except InputError as exc:
        where = f" (line {exc.line})" if exc.line else ""
        raise InputError(f"{quote_token(spec, 60)}: {exc.message}{where}") from None
    if not isinstance(obj, Rules):
        raise InputError(
            f"{quote_token(spec, 60)} names a {type(obj).__name__} object, not a yahtzee Rules"
        )
    return obj


def parse(text: str, rules: Rules | ScorecardGame | None = None) -> Instance:
    """Read the official input: an optional ``rules NAME`` line, then situations.

    ``rules`` is the rule set the caller chose (``--rules``, or the game of a loaded
    table); a ``rules`` line that names another is an error. Every situation is checked
    against the rules before anything is solved; the first bad line raises
    :class:`~perfectplay.errors.InputError`. Every situation is held: an input of many
    lines is read with :func:`stream` instead.
    """
    read = Situations(text, rules)
    return Instance(read.rules, tuple(read))


def stream(text: str, rules: Rules | ScorecardGame | None = None) -> Streamed:
    """:func:`parse` in constant memory: every line is checked (the first bad one raises
    :class:`~perfectplay.errors.InputError`, before any answer is printed), then the
    situations are read again, one at a time, as they are answered. Progress on stderr
    for a long input.

    >>> inst = stream("rules yatzy\\ndice 66666; rolls 0\\n# a comment\\ndice 12345; rolls 2")
    >>> inst.rules.name, len(inst.situations), [line.line for line in inst.situations]
    ('yatzy', 2, [2, 4])
    """
    read = Situations(text, rules)
    read.check()
    return Streamed(read.rules, read)


class Situations:
    """The situations of an input text, parsed again each time they are iterated (so only
    the text is held, not a situation per line). The ``rules`` line, when the input has
    one, is read on construction: :attr:`rules` is known before any situation."""

    def __init__(self, text: str, rules: Rules | ScorecardGame | None = None) -> None:
        from perfectplay.yahtzee.game import ScorecardGame

        self.text = text
        self._game: ScorecardGame | None = None
        if isinstance(rules, ScorecardGame):
            self._game, rules = rules, rules.rules
        self.rules, self._header = _rules_line(text, rules)
        self._count: int | None = None

    def _game_of_rules(self) -> ScorecardGame:
        from perfectplay.yahtzee.game import ScorecardGame

        if self._game is None:
            self._game = ScorecardGame(self.rules)
        return self._game

    def __iter__(self) -> Iterator[Line]:
        for number, line in _content_lines(self.text):
            if split_tokens(line)[0].lower() == "rules":
                if number == self._header:
                    continue
                raise InputError("'rules NAME' must be the first line of the input", line=number)
            try:
                situation = parse_situation(line, self._game_of_rules())
            except InputError as exc:
                raise InputError(exc.message, line=number) from None
            yield Line(number, situation, line)

    def check(self) -> int:
        """Read every situation once (raising at the first bad one) and count them."""
        if self._count is None:
            from perfectplay._util.progress import Progress

            progress = Progress("checking situations", interval=5.0)
            count = 0
            for count, _ in enumerate(self, start=1):
                if count % 1024 == 0:
                    progress.update(count, "lines")
            progress.done(f"{count:,} situation{'s' * (count != 1)}")
            self._count = count
        return self._count

    def __len__(self) -> int:
        return self.check()

    def __bool__(self) -> bool:
        return self.check() > 0


def _content_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(number, line)`` of each line that is not blank once its comment is cut."""
    for number, raw in iter_lines(text):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield number, line


def _rules_line(text: str, rules: Rules | None) -> tuple[Rules, int | None]:
    """The input's rules (its ``rules`` line, which must agree with ``rules`` when given:
    name them, as a built-in rule set or by ``rules.name``; else ``rules``; else
    ``american``) and the number of that line.

    >>> from perfectplay.yahtzee.ruleset import Category, Rules
    >>> mine = Rules("three-dice", (Category("chance", sum),), dice=3, upper_threshold=0)
    >>> _rules_line("rules three-dice\\ndice 123; rolls 0", mine)[0].name
    'three-dice'
    """
    from perfectplay.yahtzee.ruleset import rules as builtin

    for number, line in _content_lines(text):
        tokens = split_tokens(line)
        if tokens[0].lower() != "rules":
            break
        if len(tokens) < 2:
            raise InputError("expected 'rules NAME'", line=number)
        # A user's rules may have a name of several words ("one die").
        name = " ".join(tokens[1:])
        if rules is not None and name == " ".join(rules.name.split()):
            return rules, number  # the rule set given by name (a user's own too)
        try:
            named = builtin(name)
        except KeyError as exc:
            if rules is not None:  # a user's rules, named otherwise than the input says
                raise InputError(
                    f"the input is for rules {name!r}, not {rules.name!r} (the rules of "
                    "--rules or of the loaded table)",
                    line=number,
                ) from None
            raise InputError(str(exc.args[0]), line=number) from None
        if rules is not None and rules.name != named.name:
            raise InputError(
                f"the input is for rules {named.name!r}, not {rules.name!r} "
                "(the rules of --rules or of the loaded table)",
                line=number,
            )
        return rules or named, number
    return rules or builtin("american"), None


def parse_situation(text: str, game: ScorecardGame | Rules) -> Situation:
    """One situation (see the module docstring), checked against the rules of ``game``.

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> parse_situation("rolls 1; DICE 6 6 6 1 2; filled sixes=18", rules("american")).card.filled
    {'sixes': 18}
    >>> parse_situation("dice 66612; rolls 1; upper 6; filled ones", rules("american"))
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: the filled upper boxes cannot total 6
    """
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.solution import Card, Situation, situation_state

    if not isinstance(game, ScorecardGame):
        game = ScorecardGame(game)
    fields: dict[str, list[str]] = {}
    for part in text.replace("|", ";").split(";"):
        tokens = split_tokens(part)
        if not tokens:
            continue
        key = tokens[0].lower()
        rest = tokens[1:]
        if key in ("rolls", "rolls_left", "rolls-left"):
            if rest and rest[0].lower() == "left":
                rest = rest[1:]
            key = "rolls left"
        if key not in FIELDS:
            raise InputError(
                f"unknown field {quote_token(tokens[0])} (expected {', '.join(FIELDS)})"
            )
        if key in fields:
            raise InputError(f"field {key!r} is given twice")
        fields[key] = rest
    for required in ("dice", "rolls left"):
        if required not in fields:
            raise InputError(f"missing field {required!r} (e.g. 'dice 1 3 3 5 6; rolls left 2')")
    situation = Situation(
        Card(
            filled=_filled(fields.get("filled", []), game),
            upper=_number(fields, "upper", lo=0),
            kind_holds=_bonus(fields.get("bonus")),
            # Points so far below 0 only where a box can score below 0 (a user's
            # penalty box), as its filled points may.
            score=_number(fields, "score", lo=0 if int(game.cls_score.min()) >= 0 else None),
            saved=_number(fields, "saved", lo=0),
        ),
        _dice(fields["dice"], game),
        _number(fields, "rolls left", lo=0) or 0,
    )
    situation_state(game, situation)
    return situation


def _one(fields: dict[str, list[str]], key: str) -> str | None:
    if key not in fields:
        return None
    value = fields[key]
    if len(value) != 1:
        raise InputError(f"{key}: expected one value, got {len(value)}")
    return value[0]


def _number(fields: dict[str, list[str]], key: str, lo: int | None = None) -> int | None:
    token = _one(fields, key)
    if token is None:
        return None
    value = int_token(token)
    if value is None:
        raise InputError(f"{key}: expected an integer, got {quote_token(token)}")
    if lo is not None and value < lo:
        raise InputError(f"{key} must be at least {lo}, got {token}")
    if abs(value) > 10**9:
        raise InputError(f"{key} {quote_token(token)} is out of range")
    return value


def _bonus(value: list[str] | None) -> bool | None:
    if value is None:
        return None
    if len(value) != 1 or value[0].lower() not in _YES:
        shown = quote_token(" ".join(value))
        raise InputError(f"bonus: expected yes or no, got {shown}")
    return _YES[value[0].lower()]


def _dice(tokens: list[str], game: ScorecardGame) -> tuple[Any, ...]:
    lat = game.lattice
    n = lat.n_dice
    if len(tokens) == 1 and n > 1 and len(tokens[0]) == n:
        tokens = list(tokens[0])
    if len(tokens) != n:
        raise InputError(
            f"dice: expected {n} dice, got {len(tokens)}"
            + (f" ({quote_token(' '.join(tokens))})" if tokens else "")
        )
    faces = {str(label).lower(): label for label in lat.labels}
    out = []
    for token in tokens:
        if token.lower() not in faces:
            shown = ", ".join(map(str, lat.labels))
            raise InputError(
                f"dice: {quote_token(token)[1:-1]} is not a face of these dice ({shown})"
            )
        out.append(faces[token.lower()])
    return tuple(out)


def _filled(tokens: list[str], game: ScorecardGame) -> dict[str, int | None]:
    if tokens == ["-"]:
        return {}
    from perfectplay.yahtzee.ruleset import box_key

    names = {box_key(c.name): c.name for c in game.rules.categories}
    out: dict[str, int | None] = {}
    for token in tokens:
        name, sep, points = token.partition("=")
        box = names.get(box_key(name))
        if box is None:
            raise InputError(
                f"filled: {quote_token(name)} is not a box of {game.rules.name} "
                f"({', '.join(c.name for c in game.rules.categories)})"
            )
        if box in out:
            raise InputError(f"filled: box {box!r} is filled twice")
        if not sep:
            out[box] = None
            continue
        value = int_token(points)
        if value is None or abs(value) > 10**9:
            raise InputError(f"filled: {box}={quote_token(points)[1:-1]}: expected an integer")
        out[box] = value
    return out
