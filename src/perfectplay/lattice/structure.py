"""The turn lattice's structure: every situation of "roll n dice up to r times, keep any,
then score".

Many dice games share one turn: roll all the dice, keep any of them, roll the rest, up to
``rolls`` rolls, then score the dice showing. Because the dice are interchangeable, a
roll is a multiset (a *hand*: 252 of them for five six-sided dice) and so is a keep (462
sub-multisets, from keeping nothing to keeping a whole hand). :class:`TurnLattice` holds
those multisets once as arrays, with exact weights, and evaluates a turn for many
scorecards at once: given the value of ending the turn on each hand, it returns the
expected value of the turn under optimal keeping (and, on demand, every keep's value).

The evaluation never expands "keep K, roll the rest" into its outcomes. Rolling the free
dice one at a time gives the same distribution, so a keep's value is the weighted mean
over one more die: ``E[K] = sum_f p_f E[K + f]`` for ``|K| < n``, with ``E[hand]`` the
value of the hand. The best keep of a hand is the best sub-multiset, found the same way:
``M[K] = max(E[K], max_f M[K - f])``. One reroll then costs about ``6 x 210 + 5 x 462``
operations instead of the 4,368 keep-to-roll transitions (Glenn 2006, "An optimal
strategy for Yahtzee", CS-TR-0002, counts the 1,681 situations of a turn; the
one-die recursion is folklore of the fast Yahtzee solvers). The transitions are still
available as arrays (:meth:`TurnLattice.keep_to_roll`, :meth:`TurnLattice.roll_to_keep`)
for models and tests that want them.

>>> lat = TurnLattice(dice=5, faces=6, rolls=3)
>>> lat.n_hands, lat.n_keeps, lat.n_situations
(252, 462, 1681)
>>> import numpy as np
>>> five = (lat.hands.max(axis=1) == 5).astype(float)   # 1 for five of a kind
>>> round(float(lat.evaluate(five)), 7)                  # the best chance of a Yahtzee in a turn
0.0460286

Faces are ``1..faces`` for an int, or labels with repeats (a label listed twice weighs
twice, as in :mod:`perfectplay.dice`): ``TurnLattice(1, (1, 1, 2), rolls=1)`` is a die
showing 1 with probability 2/3.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from functools import cached_property
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import Any

import numpy as np

from perfectplay.dice import Faces, _face_weights
from perfectplay.errors import InputError
from perfectplay.lattice.arrays import LatticeArrays

__all__ = ["TurnLattice"]

#: Largest lattice built (keeps); 8 dice with 10 faces has 43,758.
MAX_KEEPS = 200_000


def _multisets(n_faces: int, size: int) -> list[tuple[int, ...]]:
    """Count vectors of every multiset of ``size`` faces, lexicographic by sorted faces."""
    out = []
    for combo in combinations_with_replacement(range(n_faces), size):
        counts = [0] * n_faces
        for f in combo:
            counts[f] += 1
        out.append(tuple(counts))
    return out


class TurnLattice:
    """Hands, keeps and their transitions for ``dice`` dice with ``faces`` and ``rolls`` rolls.

    Attributes (all numpy arrays, read-only by convention):

    - ``labels``: the face labels, sorted; ``face_weight`` their exact integer weights.
    - ``hands``: ``int8[H, F]``, face counts of every hand (sorted multiset of ``dice`` faces).
    - ``keeps``: ``int8[K, F]``, every sub-multiset by size, then as the hands; the last ``H``
      keeps are the hands in the same order (keeping every die): keep ``K - H + h`` is hand
      ``h``.
    - ``hand_weight``: exact weights of a first roll (orderings times face weights, summing to
      ``weight_total``); ``hand_prob`` the same as floats.
    - ``add``: ``int32[K, F]``, the keep with one more die showing ``f`` (-1 for a full hand).
    - ``remove``: ``int32[K, F]``, the keep with one die ``f`` fewer (-1 when none shows ``f``).
    - ``arrays``: what the compiled kernels read, one record
      (:class:`~perfectplay.lattice.arrays.LatticeArrays`).

    >>> lat = TurnLattice(dice=2, faces=2, rolls=2)
    >>> [lat.dice_of(h) for h in range(lat.n_hands)], lat.hand_weight.tolist()
    ([(1, 1), (1, 2), (2, 2)], [1, 2, 1])
    >>> lat.keep_index((2,)), lat.keep_index((1, 2)) == lat.n_keeps - lat.n_hands + 1
    (2, True)
    """

    def __init__(self, dice: int = 5, faces: Faces = 6, rolls: int = 3) -> None:
        if isinstance(dice, bool) or not isinstance(dice, int) or not 1 <= dice <= 16:
            raise InputError(f"dice must be an int in 1..16, not {dice!r}")
        if isinstance(rolls, bool) or not isinstance(rolls, int) or not 1 <= rolls <= 100:
            raise InputError(f"rolls must be an int in 1..100, not {rolls!r}")
        pairs = _face_weights(faces)
        if len(pairs) > 64:
            raise InputError(f"at most 64 distinct faces, not {len(pairs)}")
        self.n_dice, self.n_rolls, self.n_faces = dice, rolls, len(pairs)
        self.labels: tuple[Any, ...] = tuple(label for label, _ in pairs)
        self.face_weight = np.array([w for _, w in pairs], dtype=np.int64)
        self.weight_total = int(self.face_weight.sum()) ** dice
        n_keeps = sum(_count_multisets(self.n_faces, k) for k in range(dice + 1))
        if n_keeps > MAX_KEEPS:
            raise InputError(
                f"{dice} dice with {self.n_faces} faces have {n_keeps:,} keeps; at most "
                f"{MAX_KEEPS:,} are supported"
            )
        by_size = [_multisets(self.n_faces, k) for k in range(dice + 1)]
        keeps = [c for level in by_size for c in level]
        index = {c: i for i, c in enumerate(keeps)}
        self.keeps = np.array(keeps, dtype=np.int8).reshape(len(keeps), self.n_faces)
        self.hands = self.keeps[len(keeps) - len(by_size[-1]) :]
        self.n_keeps, self.n_hands = len(keeps), len(by_size[-1])
        self._index = index
        self.keep_size = self.keeps.sum(axis=1).astype(np.int8)
        add = np.full((self.n_keeps, self.n_faces), -1, dtype=np.int32)
        remove = np.full((self.n_keeps, self.n_faces), -1, dtype=np.int32)
        for i, c in enumerate(keeps):
            for f in range(self.n_faces):
                if sum(c) < dice:
                    add[i, f] = index[c[:f] + (c[f] + 1,) + c[f + 1 :]]
                if c[f] > 0:
                    remove[i, f] = index[c[:f] + (c[f] - 1,) + c[f + 1 :]]
        self.add, self.remove = add, remove
        weights = [int(w) for w in self.face_weight]
        self.hand_weight = np.array(
            [
                factorial(dice)
                // prod(factorial(k) for k in c)
                * prod(w**k for w, k in zip(weights, c, strict=False))
                for c in by_size[-1]
            ],
            dtype=object if self.weight_total >= 2**62 else np.int64,
        )
        self.hand_prob = np.array(
            [float(Fraction(int(w), self.weight_total)) for w in self.hand_weight]
        )
        self.face_prob = self.face_weight / float(self.face_weight.sum())

    @cached_property
    def arrays(self) -> LatticeArrays:
        """The record the compiled kernels read (:mod:`perfectplay.lattice.kernels`),
        built once.

        >>> TurnLattice(dice=2, faces=2, rolls=2).arrays.hand_prob.tolist()
        [0.25, 0.5, 0.25]
        """
        return LatticeArrays(self.add, self.remove, self.face_prob, self.hand_prob, self.n_rolls)

    @property
    def n_situations(self) -> int:
        """Distinct situations of a turn: hands with each number of rolls left, plus keeps
        before each reroll, plus the start (Glenn's count: 1,681 for 5 dice, 3 rolls)."""
        return self.n_hands * self.n_rolls + self.n_keeps * (self.n_rolls - 1) + 1

    # --- naming hands and keeps -------------------------------------------------------

    def counts(self, dice: Sequence[Any]) -> tuple[int, ...]:
        """Face counts of a multiset of face labels; ``ValueError`` for an unknown label."""
        where = {label: i for i, label in enumerate(self.labels)}
        counts = [0] * self.n_faces
        for d in dice:
            if d not in where:
                raise ValueError(
                    f"{d!r} is not a face of these dice ({', '.join(map(str, self.labels))})"
                )
            counts[where[d]] += 1
        return tuple(counts)

    def keep_index(self, dice: Sequence[Any]) -> int:
        """Index of the keep (any number of dice up to ``dice``) made of these face labels.

        >>> TurnLattice(2, 2).keep_index(())
        0
        """
        c = self.counts(dice)
        if sum(c) > self.n_dice:
            raise ValueError(f"{len(dice)} dice, but the game has {self.n_dice}")
        return self._index[c]

    def hand_index(self, dice: Sequence[Any]) -> int:
        """Index of the hand showing these face labels (exactly ``n_dice`` of them).

        >>> TurnLattice(5).hand_index((6, 6, 6, 6, 6))
        251
        """
        if len(dice) != self.n_dice:
            raise ValueError(f"a hand has {self.n_dice} dice, not {len(dice)}")
        return self.keep_index(dice) - (self.n_keeps - self.n_hands)

    def dice_of(self, hand: int) -> tuple[Any, ...]:
        """The sorted face labels of hand ``hand``."""
        return self.keep_dice(self.n_keeps - self.n_hands + hand)

    def keep_dice(self, keep: int) -> tuple[Any, ...]:
        """The sorted face labels of keep ``keep``."""
        return tuple(self.labels[f] for f, k in enumerate(self.keeps[keep]) for _ in range(int(k)))

    def keeps_of(self, hand: int) -> list[int]:
        """Every keep that hand ``hand`` allows (its sub-multisets), smallest first."""
        c = self.hands[hand]
        ok = (self.keeps <= c).all(axis=1)
        return np.flatnonzero(ok).tolist()

    # --- transitions as arrays --------------------------------------------------------

    @cached_property
    def keep_to_roll(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """CSR ``(ptr, hand, weight)``: keeping ``k`` and rolling the other dice gives hand
        ``hand[ptr[k]:ptr[k+1]]`` with exact weight ``weight`` out of
        ``face_total ** (dice - |k|)`` (4,368 transitions for five six-sided dice).

        >>> ptr, hand, weight = TurnLattice(5).keep_to_roll
        >>> int(ptr[-1]), int(weight[ptr[0]:ptr[1]].sum()) == 6**5
        (4368, True)
        """
        ptr = [0]
        hands: list[int] = []
        weights: list[int] = []
        base = self.n_keeps - self.n_hands
        fw = [int(w) for w in self.face_weight]
        for k in range(self.n_keeps):
            kept = tuple(int(x) for x in self.keeps[k])
            free = self.n_dice - sum(kept)
            for extra in _multisets(self.n_faces, free):
                h = self._index[tuple(a + b for a, b in zip(kept, extra, strict=False))] - base
                hands.append(h)
                weights.append(
                    factorial(free)
                    // prod(factorial(e) for e in extra)
                    * prod(w**e for w, e in zip(fw, extra, strict=False))
                )
            ptr.append(len(hands))
        return (
            np.array(ptr, dtype=np.int64),
            np.array(hands, dtype=np.int32),
            np.array(weights, dtype=np.int64),
        )

    @cached_property
    def roll_to_keep(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR ``(ptr, keep)``: the keeps hand ``h`` allows are ``keep[ptr[h]:ptr[h+1]]``.

        >>> ptr, keep = TurnLattice(5).roll_to_keep
        >>> int(ptr[-1]), int(ptr[1] - ptr[0])      # transitions; a hand of five equal dice
        (4368, 6)
        """
        lists = [self.keeps_of(h) for h in range(self.n_hands)]
        ptr = np.cumsum([0] + [len(x) for x in lists]).astype(np.int64)
        return ptr, np.array([k for x in lists for k in x], dtype=np.int32)

    # --- evaluation ---------------------------------------------------------------------

    def evaluate(self, final: Any) -> Any:
        """Expected value of the turn under optimal keeping, given ``final[..., h]``, the
        value of ending the turn on hand ``h`` (after scoring it as well as possible).

        ``final`` has shape ``(H,)`` (one scorecard; a float is returned) or ``(B, H)`` (a
        batch; an array of ``B`` values), evaluated by a compiled kernel in parallel over the
        batch.

        >>> lat = TurnLattice(dice=1, faces=6, rolls=2)
        >>> float(lat.evaluate(np.arange(1.0, 7.0)))   # reroll 1-3, keep 4-6: (3 * 3.5 + 15) / 6
        4.25
        """
        from perfectplay.lattice.kernels import evaluate_batch

        arr = np.ascontiguousarray(final, dtype=np.float64)
        if arr.shape[-1:] != (self.n_hands,) or arr.ndim not in (1, 2):
            raise ValueError(
                f"final values must have shape (H,) or (B, H), H = {self.n_hands}, not {arr.shape}"
            )
        batch = arr.reshape(-1, self.n_hands)
        out = evaluate_batch(batch, self.arrays)
        return float(out[0]) if arr.ndim == 1 else out

    def keep_values(self, final: Any) -> np.ndarray:
        """Every keep's value before each reroll: ``out[r - 1, k]`` is the expected value of
        keeping ``k`` and rolling the other dice when ``r`` rolls are left after this one
        (``r = 1 .. rolls - 1``); the value of hand ``h`` with ``r`` rolls left is the best
        ``out[r - 1, k]`` over the keeps ``k`` of ``h`` (keeping every die included).

        >>> lat = TurnLattice(dice=1, faces=6, rolls=2)
        >>> lat.keep_values(np.arange(1.0, 7.0))[0].tolist()
        [3.5, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        """
        from perfectplay.lattice.kernels import keep_values

        arr = np.ascontiguousarray(final, dtype=np.float64)
        if arr.shape != (self.n_hands,):
            raise ValueError(f"final values must have shape ({self.n_hands},), not {arr.shape}")
        out: np.ndarray = keep_values(arr, self.arrays)
        return out

    def __repr__(self) -> str:
        return f"TurnLattice(dice={self.n_dice}, faces={self.labels!r}, rolls={self.n_rolls})"


def _count_multisets(n_faces: int, size: int) -> int:
    return factorial(n_faces + size - 1) // (factorial(size) * factorial(n_faces - 1))
