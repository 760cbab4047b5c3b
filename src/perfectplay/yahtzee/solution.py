"""Solved Yahtzee-family games: the value of every scorecard and every option.

:func:`solve` builds the table of a rule set by tiered backward induction
(:mod:`perfectplay.yahtzee.solver`); :class:`YahtzeeSolution` answers from it: the
optimal expected final score of the empty card, the expected remaining score of any
scorecard, and every option of a situation (which dice to keep before a reroll, which box
to fill after the last roll) with its expected final score, best first.

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> boxes = (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum))
>>> mini = Rules("mini", boxes, dice=3, faces=3, rolls=2, upper_threshold=5, upper_bonus=10)
>>> sol = solve(mini)
>>> round(sol.value(), 6)
22.589853
>>> card = Card(filled={"ones": 2})      # twos now make the upper total 6: the bonus
>>> [(o.action, round(o.value, 3)) for o in sol.options(Situation(card, (2, 2, 3), rolls_left=0))]
[('score twos', 23.0), ('score chance', 18.163)]
>>> sol.options(Situation(card, (2, 2, 3), rolls_left=1))[0].action
'keep 2 2'
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, NamedTuple

import numpy as np

from perfectplay._util.jit import charge_interpreted
from perfectplay.errors import InputError
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Rules
from perfectplay.yahtzee.ruleset import rules as builtin_rules

__all__ = [
    "Card",
    "Situation",
    "YahtzeeOption",
    "YahtzeeSolution",
    "card_state",
    "situation_state",
    "solve",
]

_MAGIC = b"perfectplay yahtzee table\n"
_FORMAT = 1


@dataclass(frozen=True)
class Card:
    """A scorecard between turns: the filled boxes with their points (``None`` when only
    the box is known to be filled), the upper total (derived from the upper boxes' points
    when ``None``), whether the n-of-a-kind box holds a non-zero score (derived from its
    points when ``None``), and the points scored so far (derived when ``None``: boxes plus
    any upper bonus; give it when some points are unknown or extra bonuses were earned).

    >>> Card(filled={"sixes": 18, "yahtzee": 50}).filled["sixes"]
    18
    """

    filled: Mapping[str, int | None] = field(default_factory=dict)
    upper: int | None = None
    kind_holds: bool | None = None
    score: int | None = None


@dataclass(frozen=True)
class Situation:
    """A moment of a turn: the scorecard, the dice showing (face labels, any order) and how
    many rerolls are left (0 after the last roll)."""

    card: Card
    dice: tuple[Any, ...]
    rolls_left: int


class YahtzeeOption(NamedTuple):
    """One option: ``"keep 3 3"`` (then reroll the rest) or ``"score fives"``; ``value`` is
    the expected final score after it under optimal play (the score so far included)."""

    action: str
    value: float
    keep: tuple[Any, ...] | None
    box: str | None


class YahtzeeSolution:
    """The solved table of one rule set (see the module docstring)."""

    def __init__(self, game: ScorecardGame, values: np.ndarray) -> None:
        self.game = game
        self.rules: Rules = game.rules
        self.values = values

    # --- values -------------------------------------------------------------------------

    def value(self, card: Card | None = None) -> float:
        """Expected final score under optimal play from the start of a turn with ``card``
        (the empty card by default; the score so far included)."""
        card = card or Card()
        state, so_far = self._state(card)
        return so_far + float(self.values[state])

    def options(self, situation: Situation) -> list[YahtzeeOption]:
        """Every option of ``situation`` with its expected final score, best first: the
        keeps (every distinct sub-multiset of the dice, keeping all included) while rerolls
        are left, the legal boxes after the last roll.

        The first queries of a process run the solver's own kernels as plain Python (a few
        milliseconds each, and no numba start-up); once they add up to
        :data:`~perfectplay._util.jit.INTERPRETED_BUDGET` seconds, or when a solve in this
        process has loaded the compiled kernels, the compiled ones answer (the time counts
        in the process-wide account of :func:`perfectplay._util.jit.budget_spent`)."""
        g = self.game
        lat = g.lattice
        state, hand, so_far = situation_state(g, situation)
        mask, u, y = g.decode(state)
        r = situation.rolls_left
        lk, sk = _kernels()
        t0 = time.perf_counter()
        arrays = g.arrays
        out: list[YahtzeeOption] = []
        if r == 0:
            vals = np.empty(max(g.n_categories, g.cls_score.shape[1]))
            sk.box_values(vals, self.values, mask, u, y, hand, arrays)
            for c, cat in enumerate(self.rules.categories):
                if vals[c] > -math.inf:
                    out.append(
                        YahtzeeOption(f"score {cat.name}", so_far + float(vals[c]), None, cat.name)
                    )
        else:
            final = np.zeros((lat.n_hands, 1))
            cv = np.empty(max(g.n_categories, g.cls_score.shape[1]))
            sk.final_values(final, 0, self.values, mask, u, y, arrays, cv)
            kv = lk.keep_values(np.ascontiguousarray(final[:, 0]), lat.arrays)[r - 1]
            for k in lat.keeps_of(hand):
                dice = lat.keep_dice(k)
                label = " ".join(map(str, dice)) if dice else "nothing"
                out.append(YahtzeeOption(f"keep {label}", so_far + float(kv[k]), dice, None))
        if not hasattr(sk.box_values, "py_func"):
            charge_interpreted(time.perf_counter() - t0, repeated=_queries[0] > 0)
            _queries[0] += 1
        out.sort(key=lambda o: -o.value)
        return out

    def best(self, situation: Situation) -> YahtzeeOption:
        """The best option of ``situation`` (the first of :meth:`options`)."""
        return self.options(situation)[0]

    # --- scorecards ---------------------------------------------------------------------

    def _state(self, card: Card) -> tuple[int, int]:
        """The state number of ``card`` and the points scored so far."""
        return card_state(self.game, card)

    # --- files --------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the table to ``path`` (a header naming the rules and their fingerprint, the
        values, a SHA-256 checksum); :meth:`load` refuses a file of other rules."""
        payload = np.ascontiguousarray(self.values, dtype="<f8").tobytes()
        header = {
            "format": _FORMAT,
            "rules": self.rules.name,
            "fingerprint": fingerprint(self.game),
            "states": int(self.values.shape[0]),
            "sha256": hashlib.sha256(payload).hexdigest(),
        }
        with open(path, "wb") as fh:
            fh.write(_MAGIC + json.dumps(header).encode() + b"\n" + payload)

    @classmethod
    def load(
        cls, path: str | os.PathLike[str], rules: Rules | str | None = None
    ) -> YahtzeeSolution:
        """Read a table written by :meth:`save` (the built-in rules it names, or ``rules``)."""
        try:
            with open(path, "rb") as fh:
                return cls._read(fh, str(path), rules)
        except OSError as exc:
            raise InputError(f"{path}: {exc.strerror or exc}") from None

    @classmethod
    def _read(cls, fh: Any, path: str, rules: Rules | str | None) -> YahtzeeSolution:
        # The magic first (a large file of something else is not read), then the header,
        # then the values straight into their array: no copy of the 8 MB payload.
        if fh.read(len(_MAGIC)) != _MAGIC:
            raise InputError(f"{path}: not a perfectplay yahtzee table")
        line = fh.readline(1 << 16)
        try:
            if not line.endswith(b"\n"):
                raise ValueError
            header = json.loads(line)
            if not isinstance(header, dict):
                raise ValueError
        except ValueError:
            raise InputError(f"{path}: corrupt header") from None
        if header.get("format") != _FORMAT:
            raise InputError(f"{path}: table format {header.get('format')!r}, expected {_FORMAT}")
        if rules is None:
            try:
                rules = builtin_rules(str(header.get("rules")))
            except KeyError:
                raise InputError(
                    f"{path}: made for rules {header.get('rules')!r}; pass those rules to load it"
                ) from None
        elif isinstance(rules, str):
            rules = builtin_rules(rules)
        game = ScorecardGame(rules)
        if header.get("fingerprint") != fingerprint(game):
            raise InputError(
                f"{path}: made for other rules ({header.get('rules')!r}), not {rules.name!r}"
            )
        size = os.fstat(fh.fileno()).st_size - fh.tell()
        if size != 8 * game.n_states or header.get("states") != game.n_states:
            raise InputError(f"{path}: truncated or corrupt table ({size} bytes of values)")
        values = np.empty(game.n_states, dtype="<f8")
        raw = values.data.cast("B")
        if fh.readinto(raw) != size:
            raise InputError(f"{path}: truncated table (the file changed while read)")
        if hashlib.sha256(raw).hexdigest() != header.get("sha256"):
            raise InputError(f"{path}: checksum mismatch (corrupt table)")
        return cls(game, values.astype(np.float64, copy=False))


def card_state(game: ScorecardGame, card: Card) -> tuple[int, int]:
    """The state number of ``card`` and the points scored so far; :class:`InputError` for
    a card the rules cannot reach (the one place these checks live: the situation parser
    of ``perfectplay yahtzee`` calls it before solving).

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> g = ScorecardGame(rules("american"))
    >>> state, so_far = card_state(g, Card(filled={"sixes": 24, "chance": 20}))
    >>> g.decode(state)[1], so_far
    (24, 44)
    >>> card_state(g, Card(filled={"ones": None}, upper=9))
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: the filled upper boxes cannot total 9
    """
    g, rules = game, game.rules
    mask = 0
    points = 0
    upper = 0
    upper_known = True
    for name, pts in card.filled.items():
        try:
            c = rules.index(name)
        except KeyError as exc:
            raise InputError(str(exc.args[0])) from None
        if mask >> c & 1:
            raise InputError(f"box {name!r} is filled twice")
        mask |= 1 << c
        if pts is None:
            upper_known &= not rules.categories[c].is_upper
            continue
        if isinstance(pts, bool) or not isinstance(pts, int):
            raise InputError(f"box {name!r}: points must be an int, not {pts!r}")
        if pts not in set(g.cls_score[c, : g.n_cls[c]].tolist()) and not (
            g.joker_score[c] == pts and g.kind_box >= 0
        ):
            raise InputError(f"box {name!r} cannot score {pts} under {rules.name} rules")
        points += pts
        if rules.categories[c].is_upper:
            upper += pts
    if card.upper is not None:
        if isinstance(card.upper, bool) or not isinstance(card.upper, int) or card.upper < 0:
            raise InputError(f"the upper total must be an int >= 0, not {card.upper!r}")
        if upper_known and card.upper != upper:
            raise InputError(
                f"the upper total {card.upper} does not match the upper boxes ({upper})"
            )
        upper = card.upper
    elif not upper_known:
        raise InputError("give the upper total: an upper box is filled without its points")
    kind = 0
    if g.n_kind_values == 2 and mask >> g.kind_box & 1:
        held = rules.categories[g.kind_box].name
        pts = card.filled.get(held)
        if card.kind_holds is not None:
            kind = int(card.kind_holds)
            if pts is not None and kind != int(pts > 0):
                raise InputError(
                    f"the {held} box holds {pts}, so the bonus state cannot be "
                    f"{'yes' if kind else 'no'}"
                )
        elif pts is None:
            raise InputError(f"say whether the {held} box holds its points or 0")
        else:
            kind = int(pts > 0)
    elif card.kind_holds and g.kind_box >= 0 and not mask >> g.kind_box & 1:
        raise InputError(
            f"the {rules.categories[g.kind_box].name} box is open, so it holds no bonus yet"
        )
    most = sum(
        int(g.cls_score[c, : g.n_cls[c]].max())
        for c in range(g.n_categories)
        if mask >> c & 1 and g.upper[c]
    )
    u = min(upper, g.threshold) if g.n_upper_values > 1 else 0
    if upper > most or not g.upper_reach[mask, u]:
        raise InputError(f"the filled upper boxes cannot total {upper}")
    if card.score is not None:
        so_far = card.score
    else:
        unknown = any(v is None for v in card.filled.values())
        if unknown:
            so_far = 0
        else:
            so_far = points + (g.bonus if g.n_upper_values > 1 and upper >= g.threshold else 0)
    return g.state_index(mask, u, kind), so_far


def situation_state(game: ScorecardGame, situation: Situation) -> tuple[int, int, int]:
    """``(state, hand, so_far)`` of a situation: the checks of :func:`card_state`, then the
    dice (as many as the rules roll, each a face) and the rolls left (``0 .. rolls - 1``),
    and that the card has an open box.

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> g = ScorecardGame(rules("american"))
    >>> situation_state(g, Situation(Card(), (6, 6, 1, 2, 3), rolls_left=2))[1:]
    (80, 0)
    >>> situation_state(g, Situation(Card(), (6, 6, 1, 2, 7), rolls_left=2))
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: dice: 7 is not a face of these dice (1, 2, 3, 4, 5, 6)
    """
    state, so_far = card_state(game, situation.card)
    lat = game.lattice
    mask = game.decode(state)[0]
    if mask == (1 << game.n_categories) - 1:
        raise InputError("the scorecard is full: the game is over")
    try:
        hand = lat.hand_index(tuple(situation.dice))
    except ValueError as exc:
        raise InputError(f"dice: {exc}") from None
    r = situation.rolls_left
    if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < lat.n_rolls:
        raise InputError(f"rolls left must be from 0 to {lat.n_rolls - 1}, not {r!r}")
    return state, hand, so_far


# Queries answered with the interpreted kernels (their time goes to the process-wide
# account of `_util.jit`, see YahtzeeSolution.options), and those kernels' modules.
_queries = [0]
_interpreted: list[Any] = []


def _kernels() -> tuple[Any, Any]:
    """``(lattice kernels, scorecard kernels)``: the compiled kernel modules once a solve
    has loaded them or the interpreted queries have spent the budget, else their
    interpreted copies (one query then costs milliseconds instead of numba's start-up)."""
    import sys

    from perfectplay._util.jit import budget_spent, interpreted_modules

    compiled = "perfectplay.yahtzee.kernels" in sys.modules
    if compiled or budget_spent():
        import perfectplay.lattice.kernels as lattice_kernels
        import perfectplay.yahtzee.kernels as kernels

        return lattice_kernels, kernels
    if not _interpreted:
        _interpreted.extend(
            interpreted_modules("perfectplay.lattice.kernels", "perfectplay.yahtzee.kernels")
        )
    return _interpreted[0], _interpreted[1]


def fingerprint(game: ScorecardGame) -> str:
    """A SHA-256 of everything the values depend on (scores, dice, bonuses, joker)."""
    r = game.rules
    h = hashlib.sha256()
    h.update(
        json.dumps(
            [
                r.dice,
                [str(x) for x in game.lattice.labels],
                game.lattice.face_weight.tolist(),
                r.rolls,
                game.threshold,
                game.bonus,
                game.kind_box,
                r.kind_bonus,
                r.joker,
                game.upper.tolist(),
                game.joker_score.tolist(),
            ]
        ).encode()
    )
    h.update(np.ascontiguousarray(game.score, dtype="<i8").tobytes())
    return h.hexdigest()


def solve(rules: Rules | str | ScorecardGame = "american") -> YahtzeeSolution:
    """Solve a rule set (a :class:`Rules`, a built-in name, or one already compiled to a
    :class:`ScorecardGame`) by tiered backward induction.

    >>> from perfectplay.yahtzee.ruleset import Category, Rules
    >>> one_roll = Rules("chance", (Category("chance", sum),), dice=2, rolls=1, upper_threshold=0)
    >>> round(solve(one_roll).value(), 9)          # two dice rolled once
    7.0
    """
    from perfectplay.yahtzee.solver import solve_all

    if isinstance(rules, str):
        rules = builtin_rules(rules)
    game = rules if isinstance(rules, ScorecardGame) else ScorecardGame(rules)
    return YahtzeeSolution(game, solve_all(game))
