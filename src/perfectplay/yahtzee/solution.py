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
>>> [(o.label, round(o.value, 3)) for o in sol.options(Situation(card, (2, 2, 3), rolls_left=0))]
[('score twos', 23.0), ('score chance', 18.163)]
>>> best = sol.options(Situation(card, (2, 2, 3), rolls_left=1))[0]
>>> best.label, best.action.keep, best.best
('keep 2 2', (2, 2), True)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from pathlib import Path
from typing import Any

import numpy as np

from perfectplay._util.atomic import atomic_writer
from perfectplay._util.jit import charge_interpreted
from perfectplay.errors import InputError, WriteError
from perfectplay.objectives import Objective
from perfectplay.results.options import Option, rank_options
from perfectplay.results.surface import Solution
from perfectplay.yahtzee.cards import Card, Situation, card_state, situation_state
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Rules
from perfectplay.yahtzee.ruleset import rules as builtin_rules

__all__ = [
    "Card",
    "Situation",
    "YahtzeeAction",
    "YahtzeeOption",
    "YahtzeeSolution",
    "card_state",
    "situation_state",
    "solve",
]

_MAGIC = b"perfectplay yahtzee table\n"
_FORMAT = 1


class YahtzeeAction(str):
    """What a player does in a Yahtzee situation, as the text a person reads and types
    (``"keep 3 3"``: keep those dice and reroll the rest; ``"score fives"``: fill a box),
    with ``keep`` (the faces kept) or ``box`` (the box's name) for programs.

    >>> a = YahtzeeAction.keeping((3, 3))
    >>> a, a.keep, a.box, a == "keep 3 3"
    ('keep 3 3', (3, 3), None, True)
    """

    keep: tuple[Any, ...] | None
    box: str | None

    @classmethod
    def keeping(cls, dice: tuple[Any, ...]) -> YahtzeeAction:
        action = cls("keep " + (" ".join(map(str, dice)) if dice else "nothing"))
        action.keep, action.box = dice, None
        return action

    @classmethod
    def scoring(cls, box: str) -> YahtzeeAction:
        action = cls(f"score {box}")
        action.keep, action.box = None, box
        return action


#: Options of a Yahtzee situation are the surface's :class:`Option` (their ``action`` a
#: :class:`YahtzeeAction`); the name is kept for one release.
YahtzeeOption = Option

#: What the Yahtzee family maximises: the expected final score, in points.
SCORE = Objective.score(unit="points")


class YahtzeeSolution(Solution):
    """The solved table of one rule set (see the module docstring): a
    :class:`~perfectplay.results.surface.Solution` whose states are a :class:`Card` (the
    start of a turn) or a :class:`Situation` (dice showing), valued in expected final
    score (the score so far included)."""

    kind = "scorecard"

    def __init__(self, game: ScorecardGame, values: np.ndarray) -> None:
        self.game = game
        self.rules: Rules = game.rules
        self.values = values

    @property
    def name(self) -> str:
        return self.rules.name

    @property
    def objective(self) -> Objective:
        return SCORE

    @property
    def solver(self) -> str:
        return "tiered backward induction over the turn lattice"

    def states(self) -> Any:
        """Every scorecard between turns that the table values, as a :class:`Card` (filled
        boxes without their points, the upper total, whether the n-of-a-kind box scored),
        in table order."""
        names = [c.name for c in self.rules.categories]
        saves = self.game.n_saved_values > 1
        for state in range(self.game.n_states):
            mask, u, y = self.game.decode(state)
            filled: dict[str, int | None] = {n: None for i, n in enumerate(names) if mask >> i & 1}
            saved = self.game.saved_of(state) if saves else None
            yield Card(filled=filled, upper=int(u), kind_holds=bool(y), score=0, saved=saved)

    def distribution(self, k_max: int | None = None) -> Any:
        """The exact distribution of the final score from the empty card
        (:func:`~perfectplay.yahtzee.distribution.score_distribution`; ``k_max`` is not
        needed: the support is finite)."""
        from perfectplay.yahtzee.distribution import score_distribution

        return score_distribution(self)

    def simulate(self, runs: int, seed: int = 0) -> Any:
        """``runs`` seeded games from the empty card
        (:func:`~perfectplay.yahtzee.simulate.simulate`)."""
        from perfectplay.yahtzee.simulate import simulate

        return simulate(self, runs, seed)

    # --- values -------------------------------------------------------------------------

    def value(self, state: Card | Situation | None = None) -> float:
        """Expected final score under optimal play from the start of a turn with a
        :class:`Card` (the empty card by default), or from a :class:`Situation` (its best
        option's value); the score so far included."""
        if isinstance(state, Situation):
            return float(self.options(state)[0].value)
        card = state or Card()
        number, so_far = self._state(card)
        return so_far + float(self.values[number])

    def options(self, situation: Situation | None = None) -> list[Option]:
        """Every option of ``situation`` with its expected final score, best first: the
        keeps (every distinct sub-multiset of the dice, keeping all included) while rerolls
        are left, the legal boxes after the last roll; under rules that save throws the
        boxes too while throws are left (stopping carries them into the next turn).

        The first queries of a process run the solver's own kernels as plain Python (a few
        milliseconds each, and no numba start-up); once they add up to
        :data:`~perfectplay._util.jit.INTERPRETED_BUDGET` seconds, or when a solve in this
        process has loaded the compiled kernels, the compiled ones answer (the time counts
        in the process-wide account of :func:`perfectplay._util.jit.budget_spent`)."""
        if situation is None:  # value() is the start's, but the start is a Card
            raise InputError(
                f"{self.name}: options are a Situation's (the card, the dice showing, the "
                "rolls left); a turn starts with a roll, not a choice"
            )
        g = self.game
        lat = g.lattice
        state, hand, so_far = situation_state(g, situation)
        mask, u, y = g.decode(state)
        r = situation.rolls_left
        lk, sk = _kernels()
        t0 = time.perf_counter()
        arrays = g.arrays
        actions: list[YahtzeeAction] = []
        values: list[float] = []
        saves = g.n_saved_values > 1
        if saves and r > 0:
            kv = sk.saved_keep_values(self.values, mask, u, y, r, arrays, lat.arrays)
            for k in lat.keeps_of(hand):
                actions.append(YahtzeeAction.keeping(lat.keep_dice(k)))
                values.append(so_far + float(kv[k]))
        if r == 0 or saves:
            vals = np.empty(max(g.n_categories, g.cls_score.shape[1]))
            table = self.values[min(r, g.n_saved_values - 1) :: g.n_saved_values]
            sk.box_values(vals, table, mask, u, y, hand, arrays)
            for c, cat in enumerate(self.rules.categories):
                if vals[c] > -math.inf:
                    actions.append(YahtzeeAction.scoring(cat.name))
                    values.append(so_far + float(vals[c]))
        else:
            final = np.zeros((lat.n_hands, 1))
            cv = np.empty(max(g.n_categories, g.cls_score.shape[1]))
            sk.final_values(final, 0, self.values, mask, u, y, arrays, cv)
            kv = lk.keep_values(np.ascontiguousarray(final[:, 0]), lat.arrays)[r - 1]
            for k in lat.keeps_of(hand):
                actions.append(YahtzeeAction.keeping(lat.keep_dice(k)))
                values.append(so_far + float(kv[k]))
        if not hasattr(sk.box_values, "py_func"):
            charge_interpreted(time.perf_counter() - t0, repeated=_queries[0] > 0)
            _queries[0] += 1
        return rank_options(actions, values, maximise=True, labels=[str(a) for a in actions])

    # --- scorecards ---------------------------------------------------------------------

    def _state(self, card: Card) -> tuple[int, int]:
        """The state number of ``card`` and the points scored so far."""
        return card_state(self.game, card)

    # --- files --------------------------------------------------------------------------

    def save(self, path: str | os.PathLike[str], *, exact: bool = False) -> Path:
        """Write the table to ``path`` (a header naming the rules and their fingerprint, the
        values, a SHA-256 checksum), whole or not at all; :meth:`load` refuses a file of
        other rules. The values are floats: ``exact`` is refused."""
        if exact:
            from perfectplay.errors import UnsupportedError

            raise UnsupportedError(f"{self.name}: a Yahtzee table holds float values only")
        payload = np.ascontiguousarray(self.values, dtype="<f8").tobytes()
        header = {
            "format": _FORMAT,
            "rules": self.rules.name,
            "fingerprint": fingerprint(self.game),
            "states": int(self.values.shape[0]),
            "sha256": hashlib.sha256(payload).hexdigest(),
        }
        try:
            with atomic_writer(path) as fh:
                fh.write(_MAGIC + json.dumps(header).encode() + b"\n" + payload)
        except OSError as exc:
            raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
        return Path(path)

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
        except (ValueError, RecursionError):  # RecursionError: a deeply nested header
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
            if header.get("rules") == rules.name:
                # Same name, other content: a user's rules edited since the table was
                # saved ("made for 'x', not 'x'" told nothing).
                raise InputError(
                    f"{path}: made for another version of rules {rules.name!r} (they have "
                    "changed since the table was saved: solve them again)"
                )
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
        if np.isinf(values).any():  # a forged file with a checksum to match (NaN marks the
            # scorecards no play reaches; no solve writes an infinite expected score)
            raise InputError(f"{path}: forged table (infinite values)")
        return cls(game, values.astype(np.float64, copy=False))


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
            # saved throws only where the rules save them: the other rule sets keep the
            # fingerprint (and the cached tables) they had before saved throws existed
            + ([["saved", game.n_saved_values]] if game.n_saved_values > 1 else [])
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
