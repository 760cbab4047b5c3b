"""Brute-force twin of the scorecard solver (:mod:`perfectplay.yahtzee.solver`), in
exact Fractions, written from the rules text (the docstrings of ``yahtzee/ruleset.py`` and
issue 13), not from the solver.

Everything here is the literal game, one die at a time:

* a roll is an *ordered* tuple of dice, every tuple equally likely (a face label listed
  twice in ``Rules.faces`` simply appears twice in the list of faces a die can show);
* a keep is a set of dice *positions*; the dice at the other positions are rolled again
  (every ordered outcome of those positions), up to ``rolls - 1`` times per turn; keeping
  every position is allowed (it passes a reroll);
* after the last roll the dice go in one open box (the hand handed to a category's scoring
  function is sorted, as ``Category.score`` expects);
* the state between turns is (filled boxes, upper total, whether the n-of-a-kind box holds
  non-zero points) with the upper total kept exact (``cap_upper=False``) or capped at the
  threshold (``cap_upper=True``, which the rules allow: the bonus only asks whether the
  total reached the threshold);
* value of a state = expected points still to come (boxes, the upper bonus when the total
  first reaches the threshold, the extra n-of-a-kind bonus), by plain recursion with a
  memo.

The rules as read here (an *extra n-of-a-kind* is a roll with every die showing one face
while the n-of-a-kind box ``kind_box`` is filled):

* the extra bonus ``kind_bonus`` is paid when an extra n-of-a-kind is scored (wherever it
  goes) while the n-of-a-kind box holds non-zero points;
* ``joker="none"``: the extra n-of-a-kind goes in any open box with its ordinary points;
* ``joker="free"`` (Verhoeff): any open box; while the upper box of its face is open the
  points are the ordinary ones, once that box is filled (or when the card has no upper box
  for that face) a box with a joker value scores the joker value instead;
* ``joker="forced"`` (the official rule): the upper box of its face if that box exists and
  is open (ordinary points), else any open non-upper box with joker values where a box has
  one, else any open upper box with its ordinary points.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product

__all__ = ["ScorecardTwin"]


class ScorecardTwin:
    """Exact values of a reduced scorecard game (a :class:`Rules` of 2-3 boxes, 2-3 dice).

    States are ``(filled, upper, holds)``: a frozenset of box indices, the upper total, and
    ``None`` (n-of-a-kind box open or no such box) or whether that box holds non-zero points.
    """

    def __init__(self, rules, cap_upper: bool = True) -> None:
        self.rules = rules
        f = rules.faces
        self.faces = list(range(1, f + 1)) if isinstance(f, int) else list(f)
        self.n = rules.dice
        self.cats = list(rules.categories)
        self.upper_boxes = [i for i, c in enumerate(self.cats) if c.face is not None]
        self.bonus_on = bool(rules.upper_threshold and rules.upper_bonus and self.upper_boxes)
        self.threshold = rules.upper_threshold
        self.kind = (
            None
            if rules.kind_box is None
            else next(i for i, c in enumerate(self.cats) if c.name == rules.kind_box)
        )
        self.cap_upper = cap_upper
        self.rolls_out = {m: list(product(self.faces, repeat=m)) for m in range(self.n + 1)}
        self.positions = [
            tuple(i for i in range(self.n) if (s >> i) & 1) for s in range(1 << self.n)
        ]
        self._values: dict = {}
        self._turns: dict = {}

    # --- the rules ------------------------------------------------------------------

    def start(self):
        return (frozenset(), 0, None)

    def is_over(self, state) -> bool:
        return len(state[0]) == len(self.cats)

    def _face_box(self, face):
        for c in self.upper_boxes:
            if self.cats[c].face == face:
                return c
        return None

    def placements(self, state, dice):
        """``[(box, points scored now, next state)]`` for ordered ``dice`` in ``state``."""
        filled, upper, holds = state
        hand = tuple(sorted(dice))
        open_boxes = [c for c in range(len(self.cats)) if c not in filled]
        extra_kind = self.kind is not None and self.kind in filled and len(set(dice)) == 1
        joker = self.rules.joker
        chosen: list[tuple[int, int]] = []  # (box, points in the box)
        if not extra_kind:
            chosen = [(c, self.cats[c].score(hand)) for c in open_boxes]
        else:
            fb = self._face_box(dice[0])
            fb_open = fb is not None and fb not in filled
            if joker == "none" or (joker == "free" and fb_open):
                chosen = [(c, self.cats[c].score(hand)) for c in open_boxes]
            elif joker == "free":
                chosen = [(c, self._joker_points(c, hand)) for c in open_boxes]
            elif fb_open:  # forced
                chosen = [(fb, self.cats[fb].score(hand))]
            else:
                lower = [c for c in open_boxes if self.cats[c].face is None]
                if lower:
                    chosen = [(c, self._joker_points(c, hand)) for c in lower]
                else:
                    chosen = [(c, self.cats[c].score(hand)) for c in open_boxes]
        extra = self.rules.kind_bonus if extra_kind and holds else 0
        out = []
        for c, pts in chosen:
            gain = pts + extra
            new_upper = upper
            if c in self.upper_boxes:
                new_upper = upper + pts
                if self.bonus_on and upper < self.threshold <= new_upper:
                    gain += self.rules.upper_bonus
                if not self.bonus_on:
                    new_upper = 0
                elif self.cap_upper:
                    new_upper = min(new_upper, self.threshold)
            new_holds = (pts > 0) if c == self.kind else holds
            out.append((c, gain, (filled | {c}, new_upper, new_holds)))
        return out

    def _joker_points(self, c, hand):
        j = self.cats[c].joker
        return self.cats[c].score(hand) if j is None else j

    # --- values -------------------------------------------------------------------

    def value(self, state) -> Fraction:
        """Expected points still to come from the start of a turn in ``state``."""
        if state in self._values:
            return self._values[state]
        if self.is_over(state):
            v = Fraction(0)
        else:
            w = self._turn(state)
            first = self.rolls_out[self.n]
            v = sum((w[self.rules.rolls - 1][d] for d in first), Fraction(0)) / len(first)
        self._values[state] = v
        return v

    def box_values(self, state, dice) -> dict:
        """``{box name: points now + value of the next state}`` after the last roll."""
        return {
            self.cats[c].name: gain + self.value(nxt)
            for c, gain, nxt in self.placements(state, dice)
        }

    def _final(self, state, dice) -> Fraction:
        return max(self.box_values(state, dice).values())

    def _turn(self, state):
        """``w[k][dice]``: value of ordered ``dice`` showing with ``k`` rerolls left."""
        if state in self._turns:
            return self._turns[state]
        all_dice = self.rolls_out[self.n]
        w = [{d: self._final(state, d) for d in all_dice}]
        for _ in range(1, self.rules.rolls):
            prev = w[-1]
            w.append({d: max(self._keep_value(prev, d).values()) for d in all_dice})
        self._turns[state] = w
        return w

    def _keep_value(self, prev, dice):
        """``{kept positions: mean of prev over rolling the other positions}``."""
        out = {}
        for pos in self.positions:
            free = [i for i in range(self.n) if i not in pos]
            total = Fraction(0)
            outs = self.rolls_out[len(free)]
            for roll in outs:
                d = list(dice)
                for i, x in zip(free, roll, strict=True):
                    d[i] = x
                total += prev[tuple(d)]
            out[pos] = total / len(outs)
        return out

    def keep_values(self, state, dice, rerolls_left: int) -> dict:
        """``{sorted kept faces: value}`` for ordered ``dice`` showing with ``rerolls_left``
        rerolls still allowed (>= 1); every set of positions keeping the same faces must
        have the same value (checked)."""
        w = self._turn(state)
        by_pos = self._keep_value(w[rerolls_left - 1], tuple(dice))
        out: dict = {}
        for pos, v in by_pos.items():
            key = tuple(sorted(dice[i] for i in pos))
            if key in out and out[key] != v:
                raise AssertionError(f"keeps of the same faces {key} differ: {out[key]} {v}")
            out[key] = v
        return out

    def reachable(self):
        """Every state reachable from the empty card, with its value."""
        seen = {self.start()}
        stack = [self.start()]
        while stack:
            s = stack.pop()
            if self.is_over(s):
                continue
            for d in self.rolls_out[self.n]:
                for _, _, nxt in self.placements(s, d):
                    if nxt not in seen:
                        seen.add(nxt)
                        stack.append(nxt)
        return {s: self.value(s) for s in seen}
