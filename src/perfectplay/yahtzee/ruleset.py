"""Scorecard games as data: categories, the upper bonus, the extra-Yahtzee bonus, jokers.

A game of the Yahtzee family is a turn (roll the dice up to ``rolls`` times, keep any)
repeated once per category: after each turn the player fills one open box of the
scorecard with the score of the dice showing. :class:`Rules` says which boxes there are
and how each scores; everything else (the turn lattice, the tiers, the solver) is shared.

A category is a name and a function from the sorted dice to points:

>>> chance = Category("chance", sum)
>>> sixes = Category.upper(6, "sixes")
>>> sixes.score((2, 6, 6, 6, 1)), sixes.face
(18, 6)

A rule set in a few lines (three dice, three boxes, a bonus of 10 at an upper total of 8):

>>> mini = Rules("mini", (Category.upper(1, "ones"), Category.upper(2, "twos"), chance),
...              dice=3, faces=3, rolls=2, upper_threshold=8, upper_bonus=10)
>>> mini.n_categories, [c.name for c in mini.categories if c.is_upper]
(3, ['ones', 'twos'])

The built-in rule sets are in :data:`RULES` (``american``, ``american-forced-joker``,
``american-no-joker``, ``american-no-bonus``, ``yatzy``: five dice, solved in seconds) and
:data:`MAXI_RULES` (``maxi`` and ``maxi-saved``: Maxi Yatzy, six dice and 20 boxes, the
second with saved throws); :func:`rules` finds either. ``docs/yahtzee.md`` states each
one exactly.

With ``save_throws`` a turn may end with throws unused, and they are added to the next
turns' ``rolls`` (Maxi Yatzy's Swedish rule; ``max_saved`` caps the throws carried, when
a variant wants a cap):

>>> rules("maxi-saved").save_throws, rules("maxi-saved").max_saved, rules("maxi").n_categories
(True, None, 20)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfectplay.dice import Faces
from perfectplay.errors import RulesError, short_repr

__all__ = [
    "BUILTIN_RULES",
    "Category",
    "MAXI_RULES",
    "RULES",
    "Rules",
    "box_key",
    "full_house",
    "house",
    "n_of_a_kind",
    "pairs",
    "rules",
    "straight",
    "two_pairs",
]

JOKER_MODES = ("none", "free", "forced")


@dataclass(frozen=True)
class Category:
    """A box of the scorecard: ``score(dice)`` gives its points for a sorted hand.

    ``face`` is set for an upper-section box (its points count toward the upper total);
    ``joker`` is the score of an extra n-of-a-kind placed here as a joker (full house 25,
    straights 30 and 40 in American rules), ``None`` when the box has no joker value.
    """

    name: str
    score: Callable[[tuple[Any, ...]], int]
    face: Any = None
    joker: int | None = None
    label: str = ""

    @property
    def is_upper(self) -> bool:
        """Whether the points count toward the upper-section total."""
        return self.face is not None

    @property
    def title(self) -> str:
        """The display name (``label``, else the name with spaces)."""
        return self.label or self.name.replace("_", " ").capitalize()

    @classmethod
    def upper(cls, face: Any, name: str, label: str = "") -> Category:
        """The upper box of ``face``: the sum of the dice showing it.

        >>> Category.upper(3, "threes").score((1, 3, 3, 4, 5))
        6
        """
        return cls(name, _FaceSum(face), face=face, label=label)


@dataclass(frozen=True)
class _FaceSum:
    face: Any

    def __call__(self, dice: tuple[Any, ...]) -> int:
        return sum(d for d in dice if d == self.face)


@dataclass(frozen=True)
class n_of_a_kind:  # noqa: N801 - used like a function
    """At least ``n`` dice of one face: ``points`` if given, else the sum of all dice
    (American three/four of a kind), or ``n`` times the face with ``of_face=True``
    (Scandinavian pairs, three and four of a kind; the highest such face).

    >>> n_of_a_kind(3)((2, 2, 2, 5, 6)), n_of_a_kind(5, points=50)((4,) * 5)
    (17, 50)
    >>> n_of_a_kind(2, of_face=True)((1, 1, 5, 5, 6)), n_of_a_kind(4)((1, 2, 3, 3, 3))
    (10, 0)
    """

    n: int
    points: int | None = None
    of_face: bool = False

    def __call__(self, dice: tuple[Any, ...]) -> int:
        faces = [f for f, k in Counter(dice).items() if k >= self.n]
        if not faces:
            return 0
        if self.points is not None:
            return self.points
        return self.n * max(faces) if self.of_face else sum(dice)


@dataclass(frozen=True)
class full_house:  # noqa: N801
    """Three of one face and two of another (five of a kind is not, except as a joker):
    ``points``, or the sum of the dice when ``points`` is ``None``.

    >>> full_house(25)((2, 2, 3, 3, 3)), full_house(25)((3,) * 5), full_house()((1, 1, 6, 6, 6))
    (25, 0, 20)
    """

    points: int | None = None

    def __call__(self, dice: tuple[Any, ...]) -> int:
        if sorted(Counter(dice).values()) != [2, 3]:
            return 0
        return sum(dice) if self.points is None else self.points


@dataclass(frozen=True)
class straight:  # noqa: N801
    """``points`` when the dice show every face of one of ``runs`` (each a tuple of faces).

    >>> small = straight(30, ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6)))
    >>> small((1, 3, 4, 5, 6)), small((1, 2, 3, 5, 6))
    (30, 0)
    """

    points: int
    runs: tuple[tuple[Any, ...], ...]

    def __call__(self, dice: tuple[Any, ...]) -> int:
        have = set(dice)
        return self.points if any(set(run) <= have for run in self.runs) else 0


@dataclass(frozen=True)
class two_pairs:  # noqa: N801
    """Two pairs of different faces: twice each face (Scandinavian rules).

    >>> two_pairs()((1, 1, 4, 4, 6)), two_pairs()((2, 2, 2, 2, 5)), two_pairs()((3, 3, 5, 5, 5))
    (10, 0, 16)
    """

    def __call__(self, dice: tuple[Any, ...]) -> int:
        pairs = sorted(f for f, k in Counter(dice).items() if k >= 2)
        return 2 * (pairs[-1] + pairs[-2]) if len(pairs) >= 2 else 0


@dataclass(frozen=True)
class pairs:  # noqa: N801
    """``n`` pairs of different faces: twice each face, the ``n`` highest such faces (Maxi
    Yatzy's one, two and three pairs; a face shown four times is still one pair).

    >>> pairs(3)((2, 2, 5, 5, 6, 6)), pairs(2)((3, 3, 4, 4, 6, 6)), pairs(3)((4, 4, 4, 4, 6, 6))
    (26, 20, 0)
    """

    n: int

    def __call__(self, dice: tuple[Any, ...]) -> int:
        faces = sorted(f for f, k in Counter(dice).items() if k >= 2)
        return 2 * sum(faces[-self.n :]) if len(faces) >= self.n else 0


@dataclass(frozen=True)
class house:  # noqa: N801
    """``big`` dice of one face and ``small`` of another: the sum of those dice, for the
    best such choice when the dice allow several (Maxi Yatzy's full house 3+2, villa 3+3
    and tower 4+2; the dice outside the two groups do not count).

    >>> house(3, 2)((3, 4, 4, 6, 6, 6)), house(3, 3)((2, 2, 2, 5, 5, 5))
    (26, 21)
    >>> house(4, 2)((3, 3, 6, 6, 6, 6))
    30
    >>> house(3, 2)((2, 2, 2, 6, 6, 6)), house(3, 2)((5, 5, 5, 5, 5, 1)), house(4, 2)((2,) * 6)
    (22, 0, 0)
    """

    big: int
    small: int

    def __call__(self, dice: tuple[Any, ...]) -> int:
        counts = Counter(dice)
        best = 0
        for a, ka in counts.items():
            for b, kb in counts.items():
                if a != b and ka >= self.big and kb >= self.small:
                    best = max(best, self.big * a + self.small * b)
        return best


@dataclass(frozen=True)
class Rules:
    """A scorecard game: its categories, dice and bonuses.

    - ``upper_threshold``/``upper_bonus``: the bonus paid once the upper boxes total at
      least the threshold (no bonus when either is 0);
    - ``kind_box``: the name of the n-of-a-kind box (Yahtzee) that the extra bonus and the
      joker refer to; ``kind_bonus``: points for each further n-of-a-kind while that box
      holds a non-zero score;
    - ``joker``: ``"none"``, ``"free"`` (an extra n-of-a-kind may go in any open box and
      scores its ``Category.joker`` value there once the box of its face is filled, as
      Verhoeff 1999) or ``"forced"`` (the official placement: the upper box of its face if
      open, else any open box with a joker value or any other open non-upper box, with the
      joker values, else any open upper box);
    - ``save_throws``: a turn may end with throws unused (at least one throw is made), and
      they are added to the following turns' ``rolls`` (Maxi Yatzy's saved throws);
      ``max_saved`` caps the throws carried into a turn (``None``: no cap; the throws
      carried can reach ``(rolls - 1)`` per turn played).
    """

    name: str
    categories: tuple[Category, ...]
    dice: int = 5
    faces: Faces = 6
    rolls: int = 3
    upper_threshold: int = 63
    upper_bonus: int = 35
    kind_box: str | None = None
    kind_bonus: int = 0
    joker: str = "none"
    description: str = field(default="", compare=False)
    save_throws: bool = False
    max_saved: int | None = None

    def __post_init__(self) -> None:
        # The name goes into messages, headers and a saved table's check: one line of text.
        if not isinstance(self.name, str) or not self.name.strip() or "\n" in self.name:
            raise RulesError(f"a rule set's name is one line of text, not {short_repr(self.name)}")
        if not isinstance(self.categories, tuple | list):
            raise RulesError(
                f"categories must be a tuple of Category, not {short_repr(self.categories)}"
            )
        for c in self.categories:
            if not isinstance(c, Category):
                raise RulesError(f"categories must be Category objects, not {short_repr(c)}")
            if not isinstance(c.name, str) or not c.name.strip():
                raise RulesError(
                    f"a category's name must be a non-empty str, not {short_repr(c.name)}"
                )
        names = [c.name for c in self.categories]
        _check_names(names)
        if not names:
            raise RulesError("a scorecard needs at least one category")
        if len(names) > 20:
            raise RulesError(f"at most 20 categories are supported, not {len(names)}")
        if len(set(names)) != len(names):
            dup = next(n for n in names if names.count(n) > 1)
            raise RulesError(f"category {dup!r} is listed twice")
        if self.joker not in JOKER_MODES:
            raise RulesError(f"joker must be one of {', '.join(JOKER_MODES)}, not {self.joker!r}")
        if self.kind_box is not None and self.kind_box not in names:
            raise RulesError(f"kind_box {self.kind_box!r} is not a category")
        if (self.kind_bonus or self.joker != "none") and self.kind_box is None:
            raise RulesError("an extra n-of-a-kind bonus or a joker needs kind_box")
        for what in ("upper_threshold", "upper_bonus", "kind_bonus", "dice", "rolls"):
            v = getattr(self, what)
            if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                raise RulesError(f"{what} must be an int >= 0, not {short_repr(v)}")
        if not 1 <= self.dice <= 16 or not 1 <= self.rolls <= 100:
            raise RulesError(
                f"dice must be 1..16 and rolls 1..100, not {short_repr(self.dice)} and "
                f"{short_repr(self.rolls)}"
            )
        if not isinstance(self.save_throws, bool):
            raise RulesError(f"save_throws must be a bool, not {self.save_throws!r}")
        if self.max_saved is not None and (
            isinstance(self.max_saved, bool)
            or not isinstance(self.max_saved, int)
            or self.max_saved < 0
        ):
            raise RulesError(f"max_saved must be None or an int >= 0, not {self.max_saved!r}")
        if self.max_saved is not None and not self.save_throws:
            raise RulesError("max_saved needs save_throws=True")
        if self.upper_threshold > 10_000:
            raise RulesError(
                f"upper_threshold {short_repr(self.upper_threshold)} is too large (at most 10000)"
            )
        _check_points(self)
        _check_faces(self.faces)
        _check_upper_faces(self)

    @property
    def n_categories(self) -> int:
        return len(self.categories)

    @property
    def has_upper_bonus(self) -> bool:
        return (
            self.upper_threshold > 0
            and self.upper_bonus > 0
            and any(c.is_upper for c in self.categories)
        )

    def index(self, name: str) -> int:
        """Position of the category called ``name`` (``KeyError`` naming the known ones)."""
        for i, c in enumerate(self.categories):
            if c.name == name:
                return i
        raise KeyError(
            f"{name!r} is not a category of {self.name} "
            f"({', '.join(c.name for c in self.categories)})"
        )


#: The largest points a box, a joker or a bonus may give (the same bound as a box's score
#: in :class:`~perfectplay.yahtzee.game.ScorecardGame`): every total of a game (at most 20
#: boxes, a bonus per turn) then stays far inside the 32-bit points of the distribution's
#: kernels and the 64-bit scores of simulated games, and exact in a float's 53 bits.
MAX_POINTS = 10**6
#: The most faces a die may have (the turn lattice's own limit).
MAX_FACES = 64


def box_key(name: str) -> str:
    """How a situation's ``filled`` field matches a box: in any case, ``-`` and ``_``
    alike (``Full-House`` is ``full_house``), and a space in a box's name written as
    either (a situation separates its words by spaces, so ``twice max`` is filled as
    ``twice_max=12``). Two boxes of one rule set never share a key (:class:`Rules`
    refuses it), so the match cannot confuse them.

    >>> box_key("Full-House"), box_key("twice max")
    ('full_house', 'twice_max')
    """
    return "_".join(name.lower().replace("-", "_").split())


#: What a situation line uses to separate its fields and a box from its points, and to
#: start a comment: no box name may hold them.
_SITUATION_SYNTAX = ";|=#"


def _check_names(names: list[str]) -> None:
    seen: dict[str, str] = {}
    for name in names:
        bad = sorted(set(name) & set(_SITUATION_SYNTAX))
        if bad:
            # A situation could never name the box: these split its fields and points.
            raise ValueError(
                f"category {name!r}: a box's name cannot hold {' '.join(map(repr, bad))} "
                "(situations write 'filled NAME=POINTS; ...')"
            )
        other = seen.setdefault(box_key(name), name)
        if other != name:
            raise RulesError(
                f"categories {other!r} and {name!r} differ only in case or '-'/'_' "
                "(situations name boxes in any case)"
            )


def _check_points(rules: Rules) -> None:
    """Bonuses and joker values must be ints of at most :data:`MAX_POINTS`: larger ones
    would wrap around in the kernels' integer types (a bonus of 2**31 gave a wrong
    distribution, 2**61 a negative simulated mean) or spread a distribution over billions
    of scores."""
    for what in ("upper_bonus", "kind_bonus"):
        v = getattr(rules, what)
        if v > MAX_POINTS:
            raise RulesError(f"{what} {short_repr(v)} is too large (at most {MAX_POINTS:,})")
    for c in rules.categories:
        if c.joker is None:
            continue
        if isinstance(c.joker, bool) or not isinstance(c.joker, int):
            raise RulesError(
                f"category {c.name!r}: joker must be an int, not {short_repr(c.joker)}"
            )
        if not 0 <= c.joker <= MAX_POINTS:
            raise RulesError(
                f"category {c.name!r}: joker {short_repr(c.joker)} is out of range "
                f"(0 to {MAX_POINTS:,})"
            )


def _check_faces(faces: Faces) -> None:
    """An int number of faces must be 1..:data:`MAX_FACES`, checked before the faces are
    listed (``faces=10**100`` would list them for ever); a sequence of labels is checked
    by the lattice, which counts its distinct labels."""
    if isinstance(faces, int) and not isinstance(faces, bool) and not 1 <= faces <= MAX_FACES:
        raise RulesError(f"faces must be 1..{MAX_FACES}, not {short_repr(faces)}")


def _check_upper_faces(rules: Rules) -> None:
    """An upper box counts a face the dice show: ``Category.upper(7, ...)`` on six-sided
    dice always scored 0 and was taken silently (a typo in a rule file)."""
    faces = rules.faces
    try:
        shown = set(range(1, faces + 1)) if isinstance(faces, int) else set(faces)
        missing = [c for c in rules.categories if c.is_upper and c.face not in shown]
    except TypeError:  # unhashable labels: the lattice refuses them in its own words
        return
    if missing:
        c = missing[0]
        raise ValueError(
            f"category {c.name!r} counts face {c.face!r}, which the dice do not show "
            f"(faces {_faces_text(faces)})"
        )


def _faces_text(faces: Faces) -> str:
    if isinstance(faces, int):
        return f"1..{faces}"
    return ", ".join(map(repr, sorted(set(faces), key=repr)))


def _upper(labels: Sequence[str]) -> tuple[Category, ...]:
    return tuple(Category.upper(f, name) for f, name in enumerate(labels, start=1))


_UPPER = _upper(("ones", "twos", "threes", "fours", "fives", "sixes"))


def _american(name: str, joker: str, kind_bonus: int, description: str) -> Rules:
    jokers = joker != "none"
    lower = (
        Category("three_of_a_kind", n_of_a_kind(3)),
        Category("four_of_a_kind", n_of_a_kind(4)),
        Category("full_house", full_house(25), joker=25 if jokers else None),
        Category(
            "small_straight",
            straight(30, ((1, 2, 3, 4), (2, 3, 4, 5), (3, 4, 5, 6))),
            joker=30 if jokers else None,
        ),
        Category(
            "large_straight",
            straight(40, ((1, 2, 3, 4, 5), (2, 3, 4, 5, 6))),
            joker=40 if jokers else None,
        ),
        Category("yahtzee", n_of_a_kind(5, points=50)),
        Category("chance", sum),
    )
    return Rules(
        name,
        _UPPER + lower,
        upper_threshold=63,
        upper_bonus=35,
        kind_box="yahtzee",
        kind_bonus=kind_bonus,
        joker=joker,
        description=description,
    )


_YATZY = Rules(
    "yatzy",
    _UPPER
    + (
        Category("one_pair", n_of_a_kind(2, of_face=True)),
        Category("two_pairs", two_pairs()),
        Category("three_of_a_kind", n_of_a_kind(3, of_face=True)),
        Category("four_of_a_kind", n_of_a_kind(4, of_face=True)),
        Category("small_straight", straight(15, ((1, 2, 3, 4, 5),))),
        Category("large_straight", straight(20, ((2, 3, 4, 5, 6),))),
        Category("full_house", full_house()),
        Category("chance", sum),
        Category("yatzy", n_of_a_kind(5, points=50)),
    ),
    upper_threshold=63,
    upper_bonus=50,
    description="Scandinavian Yatzy: 15 boxes, 50 bonus at 63, distinct pairs, straights 1-5, 2-6",
)


def _maxi(name: str, save_throws: bool, description: str) -> Rules:
    """Maxi Yatzy as the Swedish rules state it (see ``docs/yahtzee.md`` for the source)."""
    lower = (
        Category("one_pair", pairs(1)),
        Category("two_pairs", pairs(2)),
        Category("three_pairs", pairs(3)),
        Category("three_of_a_kind", n_of_a_kind(3, of_face=True)),
        Category("four_of_a_kind", n_of_a_kind(4, of_face=True)),
        Category("five_of_a_kind", n_of_a_kind(5, of_face=True)),
        Category("small_straight", straight(15, ((1, 2, 3, 4, 5),))),
        Category("large_straight", straight(20, ((2, 3, 4, 5, 6),))),
        Category("full_straight", straight(21, ((1, 2, 3, 4, 5, 6),))),
        Category("full_house", house(3, 2)),
        Category("villa", house(3, 3)),
        Category("tower", house(4, 2)),
        Category("chance", sum),
        Category("maxi_yatzy", n_of_a_kind(6, points=100)),
    )
    return Rules(
        name,
        _UPPER + lower,
        dice=6,
        upper_threshold=84,
        upper_bonus=100,
        save_throws=save_throws,
        description=description,
    )


#: The five-dice rule sets by name (each has a published value; solved in seconds).
RULES: dict[str, Rules] = {
    r.name: r
    for r in (
        _american(
            "american",
            "free",
            100,
            "35 bonus at 63, 100 per extra Yahtzee, free joker (Verhoeff 1999)",
        ),
        _american(
            "american-forced-joker",
            "forced",
            100,
            "35 bonus at 63, 100 per extra Yahtzee, the official forced joker",
        ),
        _american(
            "american-no-joker", "none", 100, "35 bonus at 63, 100 per extra Yahtzee, no joker"
        ),
        _american(
            "american-no-bonus", "none", 0, "35 bonus at 63, no extra-Yahtzee bonus, no joker"
        ),
        _YATZY,
    )
}

#: Maxi Yatzy by name: six dice, 20 boxes, 100 bonus at 84; ``maxi-saved`` with saved
#: throws. Larger games (``maxi`` takes about 46 minutes on 2 cores and 1.8 GB to
#: solve), so they are kept apart from :data:`RULES`, which the advisor serves and
#: solves on demand.
MAXI_RULES: dict[str, Rules] = {
    r.name: r
    for r in (
        _maxi("maxi", False, "Maxi Yatzy: 6 dice, 20 boxes, 100 bonus at 84, no saved throws"),
        _maxi(
            "maxi-saved",
            True,
            "Maxi Yatzy: 6 dice, 20 boxes, 100 bonus at 84, unused throws saved for later turns",
        ),
    )
}

#: Every built-in rule set by name (:data:`RULES`, then :data:`MAXI_RULES`).
BUILTIN_RULES: dict[str, Rules] = {**RULES, **MAXI_RULES}


def rules(name: str) -> Rules:
    """The built-in rule set called ``name`` (``KeyError`` listing the names).

    >>> rules("american").kind_bonus, rules("yatzy").n_categories, rules("maxi").dice
    (100, 15, 6)
    """
    try:
        return BUILTIN_RULES[name]
    except KeyError:
        raise KeyError(f"unknown rules {name!r}; known: {', '.join(BUILTIN_RULES)}") from None
