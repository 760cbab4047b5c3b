"""Playing a scorecard game in plain Python, deciding with ``YahtzeeSolution.options``.

An oracle for :mod:`perfectplay.yahtzee.simulate` and :mod:`perfectplay.yahtzee.distribution`:
the decisions are the advisor's (the first of the best options, the documented tie rule),
everything else is read from the rules here, independently of the compiled kernels: the
points of a box (its own score, the joker values, the extra n-of-a-kind bonus, the upper
bonus when the total crosses the threshold), the scorecard after it, and (in
:func:`exact_distribution`) the dice as ordered tuples with exact Fractions.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import product

from perfectplay.yahtzee.solution import Card, Situation


class Player:
    """The scorecard of one game: ``filled`` (box name -> its own points), ``upper``."""

    def __init__(self, solution, filled=None):
        self.sol = solution
        self.rules = solution.rules
        self.filled: dict[str, int] = dict(filled or {})

    def copy(self):
        p = Player(self.sol)
        p.filled = dict(self.filled)
        return p

    @property
    def upper(self):
        return sum(v for k, v in self.filled.items() if self._cat(k).is_upper)

    def _cat(self, name):
        return next(c for c in self.rules.categories if c.name == name)

    def key(self):
        """What the future depends on: the filled boxes, the capped upper total, whether the
        n-of-a-kind box holds points."""
        r = self.rules
        thr = r.upper_threshold if r.has_upper_bonus else 0
        kind = r.kind_bonus > 0 and self.filled.get(r.kind_box, 0) > 0
        return frozenset(self.filled), min(self.upper, thr), kind

    def card(self):
        # score=0: option values are then the remaining expectations the kernels compare
        return Card(filled=dict(self.filled), score=0)

    def decide(self, dice, rolls_left):
        return self.sol.options(Situation(self.card(), tuple(sorted(dice)), rolls_left))[0].action

    def score_box(self, name, dice):
        """Fill box ``name`` with ``dice``; return the points earned (bonuses included)."""
        r = self.rules
        cat = self._cat(name)
        dice = tuple(sorted(dice))
        points = cat.score(dice)
        extra = 0
        if (
            r.kind_box is not None
            and r.kind_box in self.filled
            and len(set(dice)) == 1
            and len(dice) == r.dice
        ):
            if r.kind_bonus and self.filled[r.kind_box] > 0:
                extra = r.kind_bonus
            face_box = next(
                (c.name for c in r.categories if c.is_upper and c.face == dice[0]), None
            )
            if r.joker == "free":
                active = face_box is None or face_box in self.filled
            else:
                active = r.joker == "forced" and name != face_box
            if active and cat.joker is not None:
                points = cat.joker
        bonus = 0
        if cat.is_upper and r.has_upper_bonus:
            before = self.upper
            if before < r.upper_threshold <= before + points:
                bonus = r.upper_bonus
        assert name not in self.filled
        self.filled[name] = points
        return points + extra + bonus


def _faces(rules):
    f = rules.faces
    return tuple(range(1, f + 1)) if isinstance(f, int) else tuple(f)


def turn_hands(player):
    """The distribution of the final hand (sorted tuple -> Fraction) of the advisor's turn."""
    faces = _faces(player.rules)
    n, rolls = player.rules.dice, player.rules.rolls
    memo: dict = {}

    def roll(kept, rolls_left):
        out: Counter = Counter()
        free = n - len(kept)
        p = Fraction(1, len(faces) ** free)
        for extra in product(faces, repeat=free):
            hand = tuple(sorted(kept + extra))
            for h, q in after(hand, rolls_left).items():
                out[h] += p * q
        return out

    def after(hand, rolls_left):
        if rolls_left == 0:
            return {hand: Fraction(1)}
        key = (hand, rolls_left)
        if key not in memo:
            keep = player.decide(hand, rolls_left).keep
            memo[key] = roll(tuple(keep), rolls_left - 1)
        return memo[key]

    return roll((), rolls - 1)


def exact_distribution(solution, filled=None, so_far=0):
    """The final score's distribution (score -> Fraction) under the advisor's decisions,
    every turn enumerated over ordered dice, from the card ``filled`` (box -> points) with
    ``so_far`` points already scored."""
    memo: dict = {}

    def remaining(player):
        if len(player.filled) == player.rules.n_categories:
            return {0: Fraction(1)}
        key = player.key()
        if key not in memo:
            out: Counter = Counter()
            for hand, p in turn_hands(player).items():
                box = player.decide(hand, 0).box
                nxt = player.copy()
                pts = nxt.score_box(box, hand)
                for s, q in remaining(nxt).items():
                    out[s + pts] += p * q
            memo[key] = dict(out)
        return memo[key]

    return {s + so_far: p for s, p in remaining(Player(solution, filled)).items()}


def play(solution, uniforms, filled=None, so_far=0):
    """One game from the card ``filled`` (``so_far`` points scored) with the dice drawn
    from ``uniforms[turn, roll, die]`` as :func:`perfectplay.yahtzee.simulate.simulate`
    draws them; its final score."""
    rules = solution.rules
    lat = solution.game.lattice
    weights = [int(w) for w in lat.face_weight]
    total = sum(weights)
    player = Player(solution, filled)
    score = so_far
    for turn in range(rules.n_categories - len(player.filled)):
        kept: tuple = ()
        hand: tuple = ()
        for roll in range(rules.rolls):
            if roll > 0:
                kept = tuple(player.decide(hand, rules.rolls - roll).keep)
            extra = []
            for d in range(rules.dice - len(kept)):
                x = uniforms[turn, roll, d] * total
                f, acc = 0, weights[0]
                while f < len(weights) - 1 and x >= acc:
                    f += 1
                    acc += weights[f]
                extra.append(lat.labels[f])
            hand = tuple(sorted(kept + tuple(extra)))
        score += player.score_box(player.decide(hand, 0).box, hand)
    return score
