"""Solving an instance, and the questions a player can ask the solution.

>>> sol = solve(["ABCDEP", "AEHOXU", "AISOLR", "ABCDEF", "ABCSCC"],
...             ["PARSE", "PAUSE", "PHASE", "POISE", "PROSE", "PULSE", "PURSE", "PEACE"])
>>> f"{sol.value:.9f}"
'9.677887141'
>>> best = sol.best_keep("PXRES")
>>> best.letters, best.keep, best.reroll
('PRES', (0, 2, 3, 4), (1,))
>>> sol.is_word("PEAEC"), sol.word_for("PEAEC"), sol.is_word("PEAES")
(True, 'PEACE', False)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from perfectplay.errors import InputError
from perfectplay.graphs.chance import ChanceSolution
from perfectplay.problems.alea.build import AleaGraph, _sorted_keys, build
from perfectplay.problems.alea.example import EXAMPLE_DICE, EXAMPLE_ROLL
from perfectplay.problems.alea.instance import FACES, Instance
from perfectplay.problems.alea.layout import DiceLayout
from perfectplay.results import ChanceResult
from perfectplay.solvers.retry import solve_retry

if TYPE_CHECKING:
    from perfectplay.results import ExactValues


@dataclass(frozen=True)
class Keep:
    """One way to play a roll: the dice kept, the dice rerolled, and what it is worth.

    Attributes:
        keep: input indices (0-based) of the dice kept, increasing (``str()`` and the
            command's ``--json`` number the dice from 1, as a person reads them).
        reroll: input indices (0-based) of the dice rolled again (never empty).
        letters: the symbols kept, in die order.
        expected_rolls: expected number of rolls still to come with optimal play after
            this choice, the reroll it starts with included.
        exact: the same as an exact fraction, when it was asked for.
    """

    keep: tuple[int, ...]
    reroll: tuple[int, ...]
    letters: str
    expected_rolls: float
    exact: Fraction | None = None

    def __str__(self) -> str:
        def dice(indices: tuple[int, ...]) -> str:
            return f"{'die' if len(indices) == 1 else 'dice'} {_numbers(indices)}"

        kept = f"keep {' '.join(self.letters)} ({dice(self.keep)})" if self.keep else "keep nothing"
        rerolled = f"reroll {dice(self.reroll)}" if self.reroll else "reroll nothing"
        return f"{kept}, {rerolled}: {self.expected_rolls:.9f} rolls"


def _numbers(indices: Iterable[int]) -> str:
    return " ".join(str(i + 1) for i in indices)


@dataclass(frozen=True)
class FirstRoll:
    """What the optimal player does after the first roll, over all first rolls.

    Attributes:
        word: probability that the first roll already spells a word.
        keep_counts: ``keep_counts[k]`` is the probability of keeping ``k`` dice (and
            rerolling the rest) after the first roll; with ``word`` they add up to 1.
        common_keeps: the most frequent kept symbol multisets (sorted letters, keeping
            nothing left out) with their probability, most frequent first.
    """

    word: float
    keep_counts: tuple[float, ...]
    common_keeps: tuple[tuple[str, float], ...]


def roll_symbols(dice: Sequence[str], roll: str | Sequence[str]) -> list[str]:
    """The symbols of a roll, one per die, checked against the dice.

    Spaces and commas are ignored and lowercase is read as uppercase.

    >>> roll_symbols(["ABCDEF", "123456"], "b, 6")
    ['B', '6']
    >>> roll_symbols(["ABCDEF", "123456"], "B7")
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: die 2 (123456) has no face '7'
    """
    if not isinstance(roll, str | Sequence) or not all(isinstance(s, str) for s in roll):
        raise InputError(f"a roll is a string of symbols, one per die, not {roll!r:.40}")
    text = roll if isinstance(roll, str) else "".join(roll)
    symbols = [ch for ch in text.upper() if not ch.isspace() and ch != ","]
    if len(symbols) != len(dice):
        raise InputError(
            f"a roll has one symbol per die ({len(dice)}), {''.join(symbols)!r} has {len(symbols)}"
        )
    for i, (s, die) in enumerate(zip(symbols, dice, strict=True)):
        if s not in die:
            raise InputError(f"die {i + 1} ({die}) has no face {s!r}")
    return symbols


class AleaSolution:
    """The optimal strategy of one instance and its queries.

    Build it with :func:`solve` (or :func:`solve_instance`). Rolls are strings of the
    symbols showing, one per die in input order (``"PXRES"``); spaces and commas are
    ignored and lowercase letters are read as uppercase.

    The solution is a :class:`~perfectplay.results.ChanceResult` (``result``, queried by
    node id) plus this problem's decoder: a roll's text to its node, a kept set to the dice.
    """

    def __init__(self, instance: Instance, graph: AleaGraph, chance: ChanceSolution) -> None:
        self.instance = instance
        self.graph = graph
        self.chance = chance
        self.result = ChanceResult(graph.graph, chance)

    def __repr__(self) -> str:
        dice = " ".join(self.instance.dice)
        return (
            f"<alea.AleaSolution {len(self.instance.dice)} dice ({dice}), "
            f"{self.instance.words.shape[0]:,} words: {self.value:.9f} rolls>"
        )

    # -- the answer ------------------------------------------------------------------
    @property
    def value(self) -> float:
        """Expected number of rolls with optimal play (``inf``: no word can be formed)."""
        return self.result.value()

    @property
    def possible(self) -> bool:
        """Whether some word can be formed at all."""
        return math.isfinite(self.value)

    def exact(self) -> ExactValues:
        """The policy's values in exact arithmetic, verified optimal (computed once).

        A near-tie that floating point decided the wrong way is repaired by exact policy
        improvement, so the result is optimal in exact arithmetic. The same as
        :meth:`exact_values`, the name a model's solution gives them (there, ``exact()``
        is the start's :class:`~fractions.Fraction`: here :meth:`exact_value`).
        """
        return self.result.exact()

    def exact_values(self) -> ExactValues:
        """Every node's exact value (:meth:`exact`, under the name
        :meth:`perfectplay.models.chance.ChanceModelSolution.exact_values` has).

        >>> solve(["123456"], ["6"]).exact_values().value
        Fraction(6, 1)
        """
        return self.exact()

    def exact_value(self) -> Fraction | None:
        """The expected number of rolls as a fraction (``None``: impossible).

        >>> solve(["123456"], ["6"]).exact_value()
        Fraction(6, 1)
        """
        return self.exact().value

    # -- rolls -----------------------------------------------------------------------
    def _digits(self, roll: str | Sequence[str]) -> tuple[list[str], list[int]]:
        """The roll's symbols (input order) and its digit at each layout position."""
        layout = self.graph.layout
        symbols = roll_symbols(layout.dice, roll)
        digits = [
            layout.symbols[p].index(layout.seen(symbols[i])) for p, i in enumerate(layout.order)
        ]
        return symbols, digits

    def _node(self, roll: str | Sequence[str]) -> tuple[list[str], int]:
        symbols, digits = self._digits(roll)
        canonical, _ = self.graph.layout.canonical_digits(digits)
        code = int(np.dot(canonical, self.graph.layout.radix))
        return symbols, int(self.graph.code_to_decision[code])

    def is_word(self, roll: str | Sequence[str]) -> bool:
        """Whether the roll's symbols can be arranged into a dictionary word."""
        return bool(self.graph.graph.terminal[self._node(roll)[1]])

    def word_for(self, roll: str | Sequence[str]) -> str | None:
        """A dictionary word the roll spells, or ``None``."""
        symbols, x = self._node(roll)
        if not self.graph.graph.goal[x]:
            return None
        key = _sorted_keys(np.frombuffer("".join(symbols).encode(), np.uint8)[None, :])[0]
        words = self.instance.words
        hit = np.flatnonzero(_sorted_keys(words) == key)
        return self.instance.word(int(hit[0]))

    def roll_value(self, roll: str | Sequence[str]) -> float:
        """Expected rolls still needed after this roll with optimal play (0 for a word)."""
        return self.result.value(self._node(roll)[1])

    def _keep(self, symbols: list[str], c: int, exact: bool) -> Keep:
        layout = self.graph.layout
        kept_digits = layout.digits(self.graph.kept_codes[c : c + 1])[0]
        # Match the kept symbols of each group of identical dice to the dice showing
        # them, lowest die first.
        keep: list[int] = []
        for g in sorted(set(layout.group)):
            members = [p for p in range(layout.d) if layout.group[p] == g]
            wanted = [
                layout.symbols[p][kept_digits[p]]
                for p in members
                if kept_digits[p] != layout.star[p]
            ]
            for i in sorted(layout.order[p] for p in members):
                if layout.seen(symbols[i]) in wanted:
                    wanted.remove(layout.seen(symbols[i]))
                    keep.append(i)
        keep.sort()
        return Keep(
            keep=tuple(keep),
            reroll=tuple(i for i in range(layout.d) if i not in keep),
            letters="".join(symbols[i] for i in keep),
            expected_rolls=float(self.chance.chance_value[c]),
            exact=self.exact().chance_value(c) if exact else None,
        )

    def options(self, roll: str | Sequence[str], exact: bool = False) -> list[Keep]:
        """Every way to play ``roll``, best first (empty when the roll is a word).

        Options of equal value keep the solver's choice first, then fewer rerolled dice.
        With ``exact=True`` each option also carries its exact value.

        >>> sol = solve(["AAAAAB", "AAAAAB"], ["BB"])
        >>> [(o.letters, round(o.expected_rolls, 6)) for o in sol.options("AB")]
        [('B', 6.0), ('', 8.727273), ('A', 9.272727)]
        """
        symbols, x = self._node(roll)
        # The result orders by value, the policy's choice first; fewer rerolled dice then
        # break the remaining ties (a stable sort keeps the rest).
        ranked = self.result.options(x)
        best = self.result.policy(x)
        keeps = [self._keep(symbols, o.choice, exact) for o in ranked]
        first = [o.choice != best for o in ranked]
        order = sorted(
            range(len(keeps)),
            key=lambda k: (keeps[k].expected_rolls, first[k], len(keeps[k].reroll)),
        )
        return [keeps[k] for k in order]

    def best_keep(self, roll: str | Sequence[str]) -> Keep | None:
        """The optimal play of ``roll``: ``None`` when it is already a word.

        When no word can ever be formed every option is worth ``inf``; the one returned
        then rerolls everything.
        """
        symbols, x = self._node(roll)
        if self.result.is_terminal(x):
            return None
        c = self.result.policy(x)
        if c is None:
            c = self.graph.keep_nothing
        return self._keep(symbols, c, exact=False)

    def roll_text(self, x: int) -> str:
        """The symbols of full-roll decision node ``x``, in input order of the dice."""
        layout = self.graph.layout
        digits = layout.digits(self.graph.full_codes[x : x + 1])[0]
        out = [""] * layout.d
        for p, i in enumerate(layout.order):
            shown = layout.symbols[p][digits[p]]
            # A blank stands for any useless face: show the die's first one.
            out[i] = next(c for c in layout.dice[i] if layout.seen(c) == shown)
        return "".join(out)

    # -- the first roll and the distribution ------------------------------------------
    def first_roll(self, top: int = 5) -> FirstRoll:
        """How first rolls are played: P(word at once), P(keep k dice), common keeps."""
        g, layout = self.graph.graph, self.graph.layout
        xs, ws = g.outcomes(self.graph.keep_nothing)
        total = float(FACES**layout.d)
        goal = g.goal[xs]
        best = self.chance.best_choice[xs[~goal]]
        weights = ws[~goal].astype(np.float64)
        weights, best = weights[best >= 0], best[best >= 0]
        digits = layout.digits(self.graph.kept_codes[best])
        star = np.asarray(layout.star, dtype=np.int8)
        counts = np.bincount((digits != star).sum(axis=1), weights=weights, minlength=layout.d + 1)
        symbols = layout.symbol_table()[np.arange(layout.d), digits]
        keys, inverse = np.unique(_sorted_keys(symbols), return_inverse=True)
        mass = np.bincount(inverse.reshape(-1), weights=weights, minlength=keys.shape[0])
        common: list[tuple[str, float]] = []
        for k in np.argsort(-mass, kind="stable"):
            letters = keys[k : k + 1].view(np.uint8).tobytes().replace(b"\0", b"").decode()
            if letters and len(common) < top:
                common.append((letters, float(mass[k] / total)))
        return FirstRoll(
            word=float(ws[goal].sum() / total),
            keep_counts=tuple(float(v / total) for v in counts),
            common_keeps=tuple(common),
        )

    def example_roll(self) -> str | None:
        """A first roll that is not a word, to show the strategy on (fixed, not random).

        The statement's P X R E S for its own dice (unless the dictionary makes it a
        word); otherwise a first roll drawn with a
        fixed seed among those on which the optimal player keeps some dice (or, if there
        are none, among those that are not words). ``None`` when every roll is a word.
        """
        if self.instance.dice == EXAMPLE_DICE and not self.is_word(EXAMPLE_ROLL):
            return EXAMPLE_ROLL
        g = self.graph.graph
        xs, ws = g.outcomes(self.graph.keep_nothing)
        live = ~g.goal[xs]
        if not live.any():
            return None
        keeps = live & (self.chance.best_choice[xs] != self.graph.keep_nothing)
        if keeps.any():
            live = keeps
        p = ws[live] / ws[live].sum()
        x = int(np.random.default_rng(2023).choice(xs[live], p=p))
        return self.roll_text(x)

    def distribution(self, k_max: int) -> np.ndarray:
        """``float64[k_max + 1]``: P(a word within ``k`` rolls) under the optimal policy.

        >>> solve(["123456"], ["6"]).distribution(2).round(4).tolist()
        [0.0, 0.1667, 0.3056]
        """
        return self.result.distribution(k_max)

    def quantile(self, q: float, limit: int = 1_000_000) -> int | None:
        """Smallest ``k <= limit`` with P(word within ``k`` rolls) >= ``q``."""
        return self.result.quantile(q, limit)

    def simulate(self, runs: int, seed: int = 0) -> np.ndarray:
        """Number of rolls of ``runs`` games played with the optimal policy (Monte Carlo)."""
        return self.result.simulate(runs, seed)

    # -- sizes -----------------------------------------------------------------------
    def sizes(self) -> dict[str, int]:
        """Node and edge counts of the solved graph."""
        g = self.graph.graph
        return {
            "decision_nodes": g.n_decision,
            "chance_nodes": g.n_chance,
            "choice_edges": int(g.choice_idx.shape[0]),
            "outcome_edges": int(g.outcome_idx.shape[0]),
        }


def symmetry_counts(
    dice: Sequence[str], useful: frozenset[str] | None = None
) -> dict[str, tuple[int, int]]:
    """Full rolls and kept sets (keep-nothing included) under each symmetry setting.

    With ``useful`` (see :func:`~perfectplay.problems.alea.build.useful_symbols`) the
    ``"all"`` entry also merges the faces that no formable word uses.

    >>> symmetry_counts(["AAAAAA", "AAAAAA"])["none"], symmetry_counts(["AAAAAA"] * 2)["both"]
    ((36, 13), (1, 2))
    >>> symmetry_counts(["ABCDEF", "ABCDEF"], frozenset("A"))["all"]  # ??, ?A, AA; kept: ?, A, -
    (3, 3)
    """
    out = {}
    for name, faces, dice_ in (
        ("none", False, False),
        ("faces", True, False),
        ("dice", False, True),
        ("both", True, True),
    ):
        full, kept = DiceLayout.of(tuple(dice), faces, dice_).canonical_states()
        out[name] = (int(full.shape[0]), int(kept.shape[0]))
    full, kept = DiceLayout.of(tuple(dice), useful=useful).canonical_states()
    out["all"] = (int(full.shape[0]), int(kept.shape[0]))
    return out


def solve_instance(
    instance: Instance, merge_faces: bool = True, merge_dice: bool = True
) -> AleaSolution:
    """Solve a parsed instance (see :func:`solve`)."""
    graph = build(instance, merge_faces=merge_faces, merge_dice=merge_dice)
    return AleaSolution(instance, graph, solve_retry(graph.graph))


def solve(
    dice: Sequence[str],
    words: Iterable[str],
    *,
    merge_faces: bool = True,
    merge_dice: bool = True,
) -> AleaSolution:
    """Solve a game: ``dice`` are strings of 6 face symbols, ``words`` the dictionary.

    Symbols are ``A``-``Z`` and ``0``-``9``; every word has one symbol per die. The two
    flags switch off the symmetries (the values do not change, only the work).

    >>> sol = solve(["AAAAAA", "BBBBBB"], ["AB"])
    >>> sol.value, sol.exact_value()
    (1.0, Fraction(1, 1))
    >>> solve(["ABCDEF", "GHI234"], ["AB"]).possible
    False
    """
    return solve_instance(
        Instance.from_strings(dice, words), merge_faces=merge_faces, merge_dice=merge_dice
    )
