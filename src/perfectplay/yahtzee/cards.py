"""Scorecards and situations as a player writes them, and their state numbers.

A :class:`Card` is a scorecard between turns, a :class:`Situation` a moment of a turn (the
card, the dice showing, the rerolls left); :func:`card_state` and :func:`situation_state`
turn them into the numbers the solved table is indexed by, checking on the way that the
rules can reach them. The solution, the simulation and the distribution all read states
through here.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from perfectplay.errors import InputError, UnsupportedError, short_repr
from perfectplay.yahtzee.game import ScorecardGame

__all__ = ["Card", "Situation", "card_state", "refuse_saved_throws", "situation_state"]


@dataclass(frozen=True)
class Card:
    """A scorecard between turns: the filled boxes with their points (``None`` when only
    the box is known to be filled), the upper total (derived from the upper boxes' points
    when ``None``), whether the n-of-a-kind box holds a non-zero score (derived from its
    points when ``None``), and the points scored so far (derived when ``None``: boxes plus
    any upper bonus; give it when some points are unknown or extra bonuses were earned),
    and, for rules that save throws, the throws carried into the turn (``None``: 0 for the
    card's value; a situation then only checks its throws left against the most the card
    can carry).

    >>> Card(filled={"sixes": 18, "yahtzee": 50}).filled["sixes"]
    18
    """

    filled: Mapping[str, int | None] = field(default_factory=dict)
    upper: int | None = None
    kind_holds: bool | None = None
    score: int | None = None
    saved: int | None = None


@dataclass(frozen=True)
class Situation:
    """A moment of a turn: the scorecard, the dice showing (face labels, any order) and how
    many rerolls are left (0 after the last roll; with saved throws, every throw still
    allowed this turn, the saved ones included)."""

    card: Card
    dice: tuple[Any, ...]
    rolls_left: int


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
    # A Python caller may pass anything: a wrong type is bad input, not an AttributeError.
    if not isinstance(card, Card):
        raise InputError(f"a scorecard of {rules.name} is a Card, not {short_repr(card)}")
    if not isinstance(card.filled, Mapping):
        raise InputError(
            f"a Card's filled boxes are a mapping {{box: points}}, not {short_repr(card.filled)}"
        )
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
    elif card.kind_holds and g.kind_box < 0:
        # 'bonus yes' under rules without the box (yatzy) was taken and ignored.
        raise InputError(
            f"{rules.name} rules have no n-of-a-kind box with a bonus, so the bonus state "
            "cannot be yes"
        )
    most = sum(
        int(g.cls_score[c, : g.n_cls[c]].max())
        for c in range(g.n_categories)
        if mask >> c & 1 and g.upper[c]
    )
    u = min(upper, g.threshold) if g.n_upper_values > 1 else 0
    if upper > most or not g.upper_reach[mask, u]:
        raise InputError(f"the filled upper boxes cannot total {upper}")
    saved = 0 if card.saved is None else card.saved
    if isinstance(saved, bool) or not isinstance(saved, int) or saved < 0:
        raise InputError(f"saved throws must be an int >= 0, not {card.saved!r}")
    if saved and not rules.save_throws:
        raise InputError(f"{rules.name} rules save no throws")
    if saved > g.max_saved(bin(mask).count("1")):
        raise InputError(
            f"{saved} throw{'s' * (saved != 1)} cannot be saved with "
            f"{bin(mask).count('1')} boxes filled (at most {g.max_saved(bin(mask).count('1'))})"
        )
    if card.score is not None:
        so_far = card.score
    else:
        unknown = any(v is None for v in card.filled.values())
        if unknown:
            so_far = 0
        else:
            so_far = points + (g.bonus if g.n_upper_values > 1 and upper >= g.threshold else 0)
    return g.state_index(mask, u, kind, saved), so_far


def refuse_saved_throws(game: ScorecardGame, what: str) -> None:
    """:class:`~perfectplay.errors.UnsupportedError` for ``what`` (a service that plays the
    policy: the simulation, the score distribution) under rules that save throws, whose
    policy those services do not follow yet."""
    if game.n_saved_values > 1:
        raise UnsupportedError(
            f"{game.rules.name}: {what} is not available for rules that save throws yet "
            "(the values and the advice are)"
        )


def situation_state(game: ScorecardGame, situation: Situation) -> tuple[int, int, int]:
    """``(state, hand, so_far)`` of a situation: the checks of :func:`card_state`, then the
    dice (as many as the rules roll, each a face) and the rolls left (``0 .. rolls - 1``),
    and that the card has an open box. With saved throws the rolls left go up to
    ``rolls - 1`` plus the throws the card carries (its ``saved``, else the most it can).

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> g = ScorecardGame(rules("american"))
    >>> situation_state(g, Situation(Card(), (6, 6, 1, 2, 3), rolls_left=2))[1:]
    (80, 0)
    >>> situation_state(g, Situation(Card(), (6, 6, 1, 2, 7), rolls_left=2))
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: dice: 7 is not a face of these dice (1, 2, 3, 4, 5, 6)
    """
    if not isinstance(situation, Situation):
        what = "a Card (between turns)" if isinstance(situation, Card) else short_repr(situation)
        raise InputError(
            f"a moment of a {game.rules.name} turn is a Situation(card, dice, rolls_left), "
            f"not {what}"
        )
    state, so_far = card_state(game, situation.card)
    if isinstance(situation.dice, str | bytes) or not isinstance(situation.dice, tuple | list):
        raise InputError(f"dice: a tuple of faces, not {short_repr(situation.dice)}")
    lat = game.lattice
    mask = game.decode(state)[0]
    if mask == (1 << game.n_categories) - 1:
        raise InputError("the scorecard is full: the game is over")
    try:
        hand = lat.hand_index(tuple(situation.dice))
    except ValueError as exc:
        raise InputError(f"dice: {exc}") from None
    r = situation.rolls_left
    most = lat.n_rolls - 1
    if game.n_saved_values > 1:
        carried = situation.card.saved
        most += game.max_saved(bin(mask).count("1")) if carried is None else carried
    if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r <= most:
        raise InputError(f"rolls left must be from 0 to {most}, not {r!r}")
    return state, hand, so_far


# Queries answered with the interpreted kernels (their time goes to the process-wide
# account of `_util.jit`, see YahtzeeSolution.options), and those kernels' modules.
