"""A Yahtzee-family table played in the page: situations as the command line types them.

A state travels as the situation notation of ``perfectplay yahtzee advise``
(``dice 1 3 3 5 6; rolls left 2; filled ones=3``), parsed by
:func:`perfectplay.problems.yahtzee.instance.parse_situation` (the command line's checks)
and written back by :func:`situation_notation`. Values are the table's own
(:meth:`~perfectplay.yahtzee.solution.YahtzeeSolution.options`), so the page shows the
numbers ``perfectplay yahtzee advise`` prints.

What the library does not offer yet, and this module therefore computes from the
library's own tables and kernels, adding no rule of its own:

* the outcomes of a reroll with their probabilities (the lattice's ``keep_to_roll``);
* the card after a box is filled (:func:`card_after`): the points come from the scoring
  kernel :func:`perfectplay.yahtzee.kernels.box_values`, the one place that applies the
  bonus and joker rules, and the result is checked against the kernel's next state.

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.yahtzee.solution import Card, Situation
>>> rules = Rules("mini", (Category.upper(1, "ones"), Category("chance", sum)), dice=2,
...               faces=2, rolls=2, upper_threshold=0)
>>> import perfectplay
>>> table = perfectplay.solve(rules)
>>> now = Situation(Card(filled={"ones": 1}), dice=(1, 2), rolls_left=0)
>>> situation_notation(now)
'dice 1 2; rolls left 0; filled ones=1'
>>> card_notation(card_after(table, now, "chance"))
'filled ones=1 chance=3; score 4'
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from perfectplay.errors import InputError

if TYPE_CHECKING:
    from perfectplay.yahtzee.ruleset import Rules
    from perfectplay.yahtzee.solution import Card, Situation, YahtzeeSolution

__all__ = [
    "card_after",
    "card_notation",
    "outcomes",
    "parse_card",
    "situation_notation",
    "solve_once",
]


def card_notation(card: Card) -> str:
    """The card's fields in the situation notation (``filled ...; upper N; bonus yes;
    score N``), or ``filled -`` for an empty card."""
    parts = [
        "filled "
        + (" ".join(k if v is None else f"{k}={v}" for k, v in card.filled.items()) or "-")
    ]
    if card.upper is not None:
        parts.append(f"upper {card.upper}")
    if card.kind_holds is not None:
        parts.append(f"bonus {'yes' if card.kind_holds else 'no'}")
    if card.score is not None:
        parts.append(f"score {card.score}")
    return "; ".join(parts)


def parse_card(text: str) -> Card:
    """A card between turns in the situation notation without dice (``filled ones=3
    chance=20; score 23``; ``filled -``: the empty card). Only the fields' form is read
    here; :func:`~perfectplay.yahtzee.solution.card_state` checks them against the rules
    (the situation parser needs dice, and refuses a full card, which ends a game).

    >>> parse_card("filled ones=3 sixes; upper 21; bonus no; score 40")
    Card(filled={'ones': 3, 'sixes': None}, upper=21, kind_holds=False, score=40, saved=None)
    """
    from perfectplay.yahtzee.solution import Card

    fields: dict[str, list[str]] = {}
    for part in text.replace("|", ";").split(";"):
        key, *rest = part.split() or [""]
        if key.lower() not in ("filled", "upper", "bonus", "score"):
            raise InputError(f"unknown field {key[:30]!r} in a card (filled, upper, bonus, score)")
        fields[key.lower()] = rest
    filled: dict[str, int | None] = {}
    for token in fields.get("filled", ["-"]):
        name, sep, points = token.partition("=")
        if token != "-":
            filled[name] = _integer(points, name) if sep else None
    one = {k: v[0] if len(v) == 1 else "" for k, v in fields.items()}
    bonus = one.get("bonus", "").lower()
    if bonus not in ("", "yes", "no"):
        raise InputError(f"bonus: expected yes or no, not {bonus[:20]!r}")
    return Card(
        filled=filled,
        upper=_integer(one["upper"], "upper") if "upper" in one else None,
        kind_holds=None if not bonus else bonus == "yes",
        score=_integer(one["score"], "score") if "score" in one else None,
    )


def _integer(text: str, what: str) -> int:
    if not (text.isdigit() or (text[:1] == "-" and text[1:].isdigit())) or len(text) > 9:
        raise InputError(f"{what}: expected an integer, not {text[:20]!r}")
    return int(text)


def situation_notation(situation: Situation) -> str:
    """``situation`` as the command line reads it (the empty card's fields left out)."""
    head = f"dice {' '.join(map(str, situation.dice))}; rolls left {situation.rolls_left}"
    card = card_notation(situation.card)
    return head if card == "filled -" else f"{head}; {card}"


def outcomes(
    table: YahtzeeSolution, card: Card, kept: tuple[Any, ...], rolls_left: int
) -> list[tuple[Situation, float, tuple[Any, ...]]]:
    """Every situation that rolling the dice not in ``kept`` can give, with its probability
    and the dice rolled: ``(situation, probability, rolled)``, most likely first."""
    from perfectplay.yahtzee.solution import Situation

    lat = table.game.lattice
    k = lat.keep_index(kept)
    ptr, hands, weights = lat.keep_to_roll
    total = float(int(lat.face_weight.sum()) ** (lat.n_dice - len(kept)))
    out = []
    for e in range(int(ptr[k]), int(ptr[k + 1])):
        dice = lat.dice_of(int(hands[e]))
        rolled = list(dice)
        for d in kept:
            rolled.remove(d)
        out.append((Situation(card, dice, rolls_left), int(weights[e]) / total, tuple(rolled)))
    out.sort(key=lambda o: -o[1])
    return out


def card_after(table: YahtzeeSolution, situation: Situation, box: str) -> Card:
    """The card after scoring ``situation``'s dice (no rolls left) in ``box``: the box's
    points (a joker's value where the rules give one) and the score so far with every
    bonus earned; :class:`InputError` where the rules do not allow the box."""
    import numpy as np

    from perfectplay.yahtzee import kernels
    from perfectplay.yahtzee.cards import card_state, situation_state

    g = table.game
    rules = g.rules
    state, hand, so_far = situation_state(g, situation)
    if situation.rolls_left:
        raise InputError(f"score {box}: rerolls are left (roll or keep first)")
    try:
        c = rules.index(box)
    except KeyError as exc:
        raise InputError(str(exc.args[0])) from None
    mask, u, y = g.decode(state)
    zero, numbers = np.zeros(g.n_states), np.arange(g.n_states, dtype=np.float64)
    found = []
    for v in (zero, numbers):  # points (bonuses included), then points + next state number
        out = np.empty(max(g.n_categories, g.cls_score.shape[1]))
        kernels.box_values(out, v, mask, u, y, hand, g.arrays)
        found.append(out[c])
    if found[0] == -np.inf:
        raise InputError(f"score {box}: the rules do not allow this box now")
    points = int(found[0])
    next_u = g.decode(int(found[1]) - points)[1]
    kind = g.kind_box >= 0 and (mask >> g.kind_box) & 1 and hand in g.kind_hand.tolist()
    extra = rules.kind_bonus if kind and y == 1 else 0
    crossed = g.upper[c] and g.n_upper_values > 1 and u < g.threshold <= next_u
    own = points - extra - (g.bonus if crossed else 0)
    card = situation.card
    after = replace(
        card,
        filled={**card.filled, box: own},
        upper=None if card.upper is None else card.upper + (own if g.upper[c] else 0),
        kind_holds=None if c == g.kind_box else card.kind_holds,
        score=so_far + points,
    )
    if card_state(g, after)[0] != int(found[1]) - points:  # pragma: no cover - a kernel change
        raise RuntimeError(f"score {box}: the card after it disagrees with the scoring kernel")
    return after


def solve_once(rules: Rules, notify: Callable[[str], None] = lambda text: None) -> YahtzeeSolution:
    """The table of ``rules``, solved once however many processes ask at the same time: from
    the disk cache ``perfectplay yahtzee`` keeps when it is there, else solved under a
    lock on that cache (``notify`` hears of it), so that another server process asking
    meanwhile waits, then reads the table this one wrote. Without a cache (or a lock) the
    table is solved here."""
    from perfectplay.problems.yahtzee.solution import cache_path, solve
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.solution import fingerprint

    path = cache_path(fingerprint(ScorecardGame(rules)))
    try:
        import fcntl

        if path is None:
            raise OSError("no disk cache")
        path.parent.mkdir(parents=True, exist_ok=True)
        lock = open(path.with_suffix(".lock"), "a")  # noqa: SIM115 - closed below
    except (ImportError, OSError):  # Windows, no cache, a cache that cannot be written
        notify(f"solving {rules.name} rules (seconds)...")
        return solve(rules)
    with lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another process solving them: wait for its table
        if not path.is_file():
            notify(f"solving {rules.name} rules (seconds)...")
        return solve(rules)
