"""A rule set compiled to arrays: scores per hand and box, scorecard states, tiers.

:class:`ScorecardGame` is what the solver reads. A scorecard state is a number,
``((mask * n_upper_values + upper) * n_kind_values + kind) * n_saved_values + saved``:
``mask`` has bit ``c`` set when box ``c`` is filled, ``upper`` is the upper total capped
at the bonus threshold (0 when the rules have no upper bonus), ``kind`` is 1 when the
n-of-a-kind box holds a non-zero score (only tracked when the rules pay an extra
n-of-a-kind bonus), ``saved`` the throws carried into the turn (only with
``Rules.save_throws``; ``n_saved_values`` is 1 otherwise, so the numbering of the other
rule sets is the one without it). The number without ``saved`` is the state's *card*
(``state // n_saved_values``): the kernels read a card's saved throws as one stride.

>>> from perfectplay.yahtzee.ruleset import rules
>>> g = ScorecardGame(rules("american"))
>>> g.n_states, g.n_reachable, g.score.shape
(1048576, 536448, (13, 252))
>>> g.decode(g.state_index(0b1, 3, 0))
(1, 3, 0)
>>> m = ScorecardGame(rules("maxi-saved"))
>>> m.n_saved_values, m.max_saved(0), m.max_saved(19), m.saved_of(m.state_index(0b11, 5, 0, 4))
(41, 0, 38, 4)

The compiled kernels (:mod:`perfectplay.yahtzee.kernels` and those built on them) read
the game through one record, :class:`ScorecardArrays` (:attr:`ScorecardGame.arrays`,
built once per game), beside the turn lattice's own record
(:class:`~perfectplay.lattice.LatticeArrays`).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from perfectplay._util.memory import require
from perfectplay.errors import RulesError, short_repr
from perfectplay.lattice import TurnLattice
from perfectplay.yahtzee.ruleset import MAX_POINTS, Rules

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["JOKER_CODES", "ScorecardArrays", "ScorecardGame"]

#: How the kernels number :attr:`Rules.joker <perfectplay.yahtzee.ruleset.Rules.joker>`.
JOKER_CODES = {"none": 0, "free": 1, "forced": 2}


class ScorecardArrays(NamedTuple):
    """What the scorecard kernels read of a :class:`ScorecardGame`: one record of arrays
    and scalars (numba types it as a tuple; the interpreted kernels read the same fields).
    The fields are the game's attributes of the same names, plus ``kind_bonus`` and
    ``joker`` (:data:`JOKER_CODES`) of the rules, ``cls_t`` (``cls`` transposed, so a
    hand's classes are contiguous), ``is_kind`` (whether a hand is n of a kind) and
    ``n_saved_values`` (1 unless the rules save throws).

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> a = ScorecardGame(rules("american")).arrays
    >>> isinstance(a, ScorecardArrays), a.threshold, a.joker, int(a.is_kind.sum()), a.cls_t.shape
    (True, 63, 1, 6, (252, 13))
    """

    score: NDArray[np.int64]
    cls: NDArray[np.int64]
    cls_t: NDArray[np.int64]
    cls_score: NDArray[np.int64]
    n_cls: NDArray[np.int64]
    upper: NDArray[np.bool_]
    threshold: int
    bonus: int
    n_upper_values: int
    n_kind_values: int
    kind_box: int
    kind_bonus: int
    joker: int
    joker_score: NDArray[np.int64]
    face_box: NDArray[np.int64]
    kind_hand: NDArray[np.int64]
    is_kind: NDArray[np.bool_]
    n_saved_values: int


class ScorecardGame:
    """The arrays of one rule set (see the module docstring for the state numbering)."""

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        try:
            self.lattice = lat = TurnLattice(rules.dice, rules.faces, rules.rolls)
        except (TypeError, ValueError) as exc:
            raise RulesError(f"rules {rules.name!r}: {exc}") from None
        cats = rules.categories
        self.n_categories = n_cat = len(cats)
        hands = [lat.dice_of(h) for h in range(lat.n_hands)]
        score = np.zeros((n_cat, lat.n_hands), dtype=np.int64)
        for c, cat in enumerate(cats):
            for h, dice in enumerate(hands):
                shown = " ".join(map(str, dice))
                try:
                    v = cat.score(dice)
                except (Exception, SystemExit, GeneratorExit) as exc:
                    raise RulesError(
                        f"category {cat.name!r} failed for {shown}: {type(exc).__name__}: "
                        f"{short_repr(str(exc)) if len(str(exc)) > 60 else exc}"
                    ) from None
                if isinstance(v, bool) or not isinstance(v, int | np.integer):
                    raise RulesError(
                        f"category {cat.name!r} scored {short_repr(v)} for {shown}; "
                        "scores must be ints"
                    )
                if not -MAX_POINTS <= v <= MAX_POINTS:
                    raise RulesError(
                        f"category {cat.name!r} scored {short_repr(v)} for {shown}: out of "
                        f"range (at most {MAX_POINTS:,} either way)"
                    )
                score[c, h] = int(v)
        self.score = score
        # Each box's distinct scores ("classes"): the value of a box for a hand only
        # depends on its points, so the next-state lookups are done once per class.
        n_cls = np.zeros(n_cat, dtype=np.int64)
        cls = np.zeros((n_cat, lat.n_hands), dtype=np.int64)
        # sorted(set()) rather than np.unique, which imports numpy.ma (20 ms of a query's
        # start-up from a saved table)
        distinct = [np.array(sorted(set(score[c].tolist())), dtype=np.int64) for c in range(n_cat)]
        width = max(len(d) for d in distinct)
        cls_score = np.zeros((n_cat, width), dtype=np.int64)
        for c, d in enumerate(distinct):
            n_cls[c] = len(d)
            cls_score[c, : len(d)] = d
            cls[c] = np.searchsorted(d, score[c])
        self.cls, self.cls_score, self.n_cls = cls, cls_score, n_cls
        self.upper = np.array([c.is_upper for c in cats], dtype=np.bool_)
        if rules.has_upper_bonus:
            self.threshold, self.bonus = rules.upper_threshold, rules.upper_bonus
            if (score[self.upper] < 0).any():
                raise RulesError(
                    "upper boxes must not score negative points when there is an upper bonus"
                )
        else:
            self.threshold, self.bonus = 0, 0
        self.n_upper_values = self.threshold + 1
        self.kind_box = rules.index(rules.kind_box) if rules.kind_box is not None else -1
        self.n_kind_values = 2 if rules.kind_bonus > 0 else 1
        self.joker_score = np.array(
            [c.joker if c.joker is not None else -1 for c in cats], dtype=np.int64
        )
        if rules.joker == "none":
            self.joker_score[:] = -1
        face_box = np.full(lat.n_faces, -1, dtype=np.int64)
        for c, cat in enumerate(cats):
            if cat.is_upper and cat.face in lat.labels:
                face_box[lat.labels.index(cat.face)] = c
        self.face_box = face_box
        self.kind_hand = np.array(
            [lat.hand_index((label,) * rules.dice) for label in lat.labels], dtype=np.int64
        )
        if self.kind_box < 0:
            self.kind_hand = self.kind_hand[:0]
        # Saved throws: each turn leaves at most rolls - 1 unused (one throw is made), so a
        # turn after t turns carries at most (rolls - 1) * t; the full card is numbered for
        # every count the last turn can leave (its value is 0 whatever is left).
        self.n_saved_values = 1
        if rules.save_throws:
            most = (rules.rolls - 1) * n_cat
            if rules.max_saved is not None:
                most = min(most, rules.max_saved)
            self.n_saved_values = most + 1
        self.n_cards = (1 << n_cat) * self.n_upper_values * self.n_kind_values
        self.n_states = self.n_cards * self.n_saved_values

    @cached_property
    def arrays(self) -> ScorecardArrays:
        """The record the scorecard kernels read (see :class:`ScorecardArrays`)."""
        is_kind = np.zeros(self.lattice.n_hands, dtype=np.bool_)
        is_kind[self.kind_hand] = True
        return ScorecardArrays(
            score=self.score,
            cls=self.cls,
            cls_t=np.ascontiguousarray(self.cls.T),
            cls_score=self.cls_score,
            n_cls=self.n_cls,
            upper=self.upper,
            threshold=int(self.threshold),
            bonus=int(self.bonus),
            n_upper_values=int(self.n_upper_values),
            n_kind_values=int(self.n_kind_values),
            kind_box=int(self.kind_box),
            kind_bonus=int(self.rules.kind_bonus),
            joker=JOKER_CODES[self.rules.joker],
            joker_score=self.joker_score,
            face_box=self.face_box,
            kind_hand=self.kind_hand,
            is_kind=is_kind,
            n_saved_values=int(self.n_saved_values),
        )

    # --- numbering ----------------------------------------------------------------------

    def state_index(self, mask: int, upper: int, kind: int, saved: int = 0) -> int:
        """The number of a scorecard state (``upper`` capped at the threshold; ``saved``
        the throws carried into the turn, 0 unless the rules save throws)."""
        u = min(upper, self.threshold)
        card = (mask * self.n_upper_values + u) * self.n_kind_values + kind
        return card * self.n_saved_values + saved

    def decode(self, state: int) -> tuple[int, int, int]:
        """``(mask, upper, kind)`` of a state number (its card; :meth:`saved_of` gives the
        throws saved)."""
        card = state // self.n_saved_values
        kind = card % self.n_kind_values
        rest = card // self.n_kind_values
        return rest // self.n_upper_values, rest % self.n_upper_values, kind

    def saved_of(self, state: int) -> int:
        """The throws carried into the turn of a state number (0 unless the rules save
        throws)."""
        return state % self.n_saved_values

    def max_saved(self, filled: int) -> int:
        """The most throws a turn can carry with ``filled`` boxes filled (0 unless the rules
        save throws)."""
        return min(self.n_saved_values - 1, (self.rules.rolls - 1) * filled)

    # --- reachability -------------------------------------------------------------------

    @cached_property
    def upper_reach(self) -> np.ndarray:
        """``reach[mask, u]``: whether the filled upper boxes of ``mask`` can total ``u``
        (capped at the threshold); only the upper bits of ``mask`` matter."""
        n_u = self.n_upper_values
        upper_bits = [c for c in range(self.n_categories) if self.upper[c]]
        if n_u == 1:
            return np.ones((1 << self.n_categories, 1), dtype=np.bool_)
        require(
            ((1 << self.n_categories) + (1 << len(upper_bits))) * n_u,
            f"the reachable upper totals of {self.rules.name}",
        )
        sub = np.zeros((1 << len(upper_bits), n_u), dtype=np.bool_)
        sub[0, 0] = True
        for m in range(1, 1 << len(upper_bits)):
            low = m & -m
            i = low.bit_length() - 1
            c = upper_bits[i]
            prev = sub[m ^ low]
            for s in self.cls_score[c, : self.n_cls[c]]:
                s = int(s)
                if s >= 0:
                    shifted = np.zeros(n_u, dtype=np.bool_)
                    if s < n_u:
                        shifted[s:] = prev[: n_u - s]
                    # totals at or above the threshold all cap to it
                    shifted[-1] |= prev[max(0, n_u - 1 - s) :].any()
                    sub[m] |= shifted
        # full mask -> its upper sub-mask index
        masks = np.arange(1 << self.n_categories)
        idx = np.zeros_like(masks)
        for i, c in enumerate(upper_bits):
            idx |= ((masks >> c) & 1) << i
        return sub[idx]

    @cached_property
    def _card_tiers(self) -> list[np.ndarray]:
        """The reachable cards of each tier, sorted (without the saved throws)."""
        n_cat = self.n_categories
        masks = np.arange(1 << n_cat, dtype=np.int64)
        pop = np.zeros(len(masks), dtype=np.int64)
        for c in range(n_cat):
            pop += (masks >> c) & 1
        reach = self.upper_reach
        tiers = []
        for t in range(n_cat + 1):
            ms = masks[pop == t]
            mi, ui = np.nonzero(reach[ms])
            m, u = ms[mi], ui.astype(np.int64)
            # masks ascending, then totals ascending: the cards come out sorted
            base = (m * self.n_upper_values + u) * self.n_kind_values
            if self.n_kind_values == 2:
                # each card, then its twin with the kind flag where that box is filled:
                # still sorted, without sorting (a sort was a third of a solve's set-up)
                filled = ((m >> self.kind_box) & 1).astype(bool)
                pairs = np.stack((base, base + 1), axis=1)
                base = pairs[np.stack((np.ones_like(filled), filled), axis=1)]
            tiers.append(base)
        return tiers

    def tier_cards(self, filled: int) -> np.ndarray:
        """Every reachable card (a state number without the saved throws, see the module
        docstring) with ``filled`` boxes filled, sorted."""
        return self._card_tiers[filled]

    def tier_states(self, filled: int) -> np.ndarray:
        """Every reachable state with ``filled`` boxes filled, sorted; with saved throws each
        card with every count it can carry, consecutive (made on each call: the tiers of
        ``maxi-saved`` hold about 1.2 billion states, so they are not all kept)."""
        cards = self._card_tiers[filled]
        if self.n_saved_values == 1:
            return cards
        n = self.max_saved(filled) + 1
        require(len(cards) * n * 8, f"the states of tier {filled} of {self.rules.name}")
        counts = np.arange(n, dtype=np.int64)
        return (cards[:, None] * self.n_saved_values + counts[None, :]).ravel()

    def tier_size(self, filled: int) -> int:
        """The number of reachable states with ``filled`` boxes filled."""
        return len(self._card_tiers[filled]) * (self.max_saved(filled) + 1)

    @property
    def n_reachable(self) -> int:
        """Number of reachable scorecard states."""
        return sum(self.tier_size(t) for t in range(self.n_categories + 1))

    def is_reachable(self, state: int) -> bool:
        mask, u, kind = self.decode(state)
        if kind and not (mask >> self.kind_box) & 1:
            return False
        if self.saved_of(state) > self.max_saved(bin(mask).count("1")):
            return False
        return bool(self.upper_reach[mask, u])
