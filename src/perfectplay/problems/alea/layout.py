"""How rolls are numbered: dice, merged faces and the canonical order of identical dice.

A die with a repeated symbol rolls that symbol with a weight: ``ABCSCC`` has four
distinct symbols, and ``C`` comes up with weight 3 out of 6. So each die is described by
its *distinct* symbols (its *digits* ``0 .. k-1``) and their multiplicities, plus one more
digit ``k`` (the *star*) for "not kept, about to be rerolled".

Dice with the same multiset of faces are interchangeable: a roll in which two of them
swap their symbols is the same situation. The layout puts identical dice next to each
other (a *group*) and calls a state *canonical* when the digits inside every group are
non-decreasing, stars last. A state is numbered by its digits in mixed radix (``k + 1``
per die), so every number is below ``prod(k + 1) <= 7**d`` and a dense lookup table from
number to node id stays small.

Both merges can be switched off (to measure what they buy, and in tests, to check that
they change no value).

>>> lay = DiceLayout.of(("ABCSCC", "AEHOXU", "ABCSCC"))
>>> lay.order, lay.group, lay.symbols[0], lay.mult[0]
((0, 2, 1), (0, 0, 2), 'ABCS', (1, 1, 3, 1))
>>> lay.n_codes
175
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from math import prod

import numpy as np

#: The merged face of the symbols no formable word uses (not a symbol of the input).
BLANK = "?"


@dataclass(frozen=True)
class DiceLayout:
    """Positions of the dice in a state and the meaning of their digits.

    Attributes:
        dice: the dice in input order.
        order: ``order[p]`` is the input index of the die at position ``p``.
        group: ``group[p]`` is the first position of ``p``'s group of identical dice.
        symbols: the symbols of the die at position ``p``, one per digit.
        mult: how many faces show each digit's symbol.
        radix: place value of position ``p`` in a state number.
    """

    dice: tuple[str, ...]
    order: tuple[int, ...]
    group: tuple[int, ...]
    symbols: tuple[str, ...]
    mult: tuple[tuple[int, ...], ...]
    radix: tuple[int, ...]
    merge_faces: bool = True
    merge_dice: bool = True
    useful: frozenset[str] | None = None

    def seen(self, symbol: str) -> str:
        """The symbol a face shows in this layout (:data:`BLANK` for a useless one)."""
        if self.useful is None or symbol in self.useful:
            return symbol
        return BLANK

    @classmethod
    def of(
        cls,
        dice: tuple[str, ...],
        merge_faces: bool = True,
        merge_dice: bool = True,
        useful: frozenset[str] | None = None,
    ) -> DiceLayout:
        """Layout of ``dice`` with the chosen symmetries.

        With ``merge_faces``, faces whose symbol is not in ``useful`` (symbols that no
        formable word contains) become one :data:`BLANK` face: which useless symbol shows
        never matters, and dice that differ only in useless symbols become identical.

        >>> lay = DiceLayout.of(("ABCXYZ", "ABCDEF"), useful=frozenset("AB"))
        >>> lay.symbols, lay.mult, lay.group
        (('?AB', '?AB'), ((4, 1, 1), (4, 1, 1)), (0, 0))
        """
        if useful is not None and merge_faces:
            dice_seen = tuple("".join(c if c in useful else BLANK for c in die) for die in dice)
        else:
            dice_seen = tuple(dice)
        faces = []
        for die in dice_seen:
            if merge_faces:
                counts = sorted(Counter(die).items())
                faces.append(("".join(s for s, _ in counts), tuple(n for _, n in counts)))
            else:
                faces.append(("".join(sorted(die)), (1,) * len(die)))
        order = tuple(sorted(range(len(dice)), key=lambda i: faces[i]))
        group: list[int] = []
        for p, i in enumerate(order):
            same = merge_dice and p > 0 and faces[order[p - 1]] == faces[i]
            group.append(group[p - 1] if same else p)
        radix = [1]
        for i in order[:-1]:
            radix.append(radix[-1] * (len(faces[i][0]) + 1))
        return cls(
            dice=tuple(dice),
            order=order,
            group=tuple(group),
            symbols=tuple(faces[i][0] for i in order),
            mult=tuple(faces[i][1] for i in order),
            radix=tuple(radix),
            merge_faces=merge_faces,
            merge_dice=merge_dice,
            useful=useful if merge_faces else None,
        )

    @property
    def d(self) -> int:
        return len(self.dice)

    @property
    def star(self) -> tuple[int, ...]:
        """The digit meaning "rerolled" at each position (its number of distinct symbols)."""
        return tuple(len(s) for s in self.symbols)

    @property
    def n_codes(self) -> int:
        """Size of the state-number space (canonical or not)."""
        return prod(k + 1 for k in self.star)

    @property
    def all_star(self) -> int:
        """Number of the state in which every die is rerolled (keep nothing)."""
        return self.n_codes - 1

    def digits(self, codes: np.ndarray) -> np.ndarray:
        """``int8[len(codes), d]``: the digits of each state number."""
        codes = np.asarray(codes, dtype=np.int64)
        out = np.empty((codes.shape[0], self.d), dtype=np.int8)
        for p, (r, k) in enumerate(zip(self.radix, self.star, strict=True)):
            out[:, p] = (codes // r) % (k + 1)
        return out

    def encode(self, digits: np.ndarray) -> np.ndarray:
        """State numbers of rows of digits (inverse of :meth:`digits`)."""
        return np.asarray(digits, dtype=np.int64) @ np.asarray(self.radix, dtype=np.int64)

    def canonical_states(self) -> tuple[np.ndarray, np.ndarray]:
        """``(full, kept)``: sorted numbers of the canonical full rolls and kept sets.

        Full rolls have no star; kept sets have at least one (keep-nothing is the last).
        """
        codes = np.arange(self.n_codes, dtype=np.int64)
        dig = self.digits(codes)
        ok = np.ones(codes.shape[0], dtype=np.bool_)
        for p in range(1, self.d):
            if self.group[p] == self.group[p - 1]:
                ok &= dig[:, p - 1] <= dig[:, p]
        full = (dig < np.asarray(self.star, dtype=np.int8)).all(axis=1)
        return codes[ok & full], codes[ok & ~full]

    def symbol_table(self) -> np.ndarray:
        """``uint8[d, 7]``: ASCII code of digit ``j`` at position ``p`` (0 for the star)."""
        table = np.zeros((self.d, 7), dtype=np.uint8)
        for p, s in enumerate(self.symbols):
            table[p, : len(s)] = np.frombuffer(s.encode("ascii"), dtype=np.uint8)
        return table

    def mult_table(self) -> np.ndarray:
        """``int64[d, 7]``: faces showing digit ``j`` at position ``p``."""
        table = np.zeros((self.d, 7), dtype=np.int64)
        for p, m in enumerate(self.mult):
            table[p, : len(m)] = m
        return table

    def canonical_digits(self, digits: list[int]) -> tuple[list[int], list[int]]:
        """Sort digits inside each group; also return which position each one came from.

        >>> DiceLayout.of(("AB1234", "AB1234")).canonical_digits([5, 2])
        ([2, 5], [1, 0])
        """
        src = list(range(self.d))
        for start in sorted(set(self.group)):
            members = [p for p in range(self.d) if self.group[p] == start]
            members.sort(key=lambda p: (digits[p], p))
            for slot, p in zip(range(start, start + len(members)), members, strict=True):
                src[slot] = p
        return [digits[p] for p in src], src
