"""The solved game: values, the optimal rule for each grouping, and reports."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from perfectplay.errors import InputError
from perfectplay.graphs.chance import ChanceSolution
from perfectplay.problems.yeetzhee.build import YeetzheeGraph
from perfectplay.problems.yeetzhee.instance import Instance, _as_int, check_instance
from perfectplay.results import ChanceResult, is_tie

if TYPE_CHECKING:
    from perfectplay.results import ExactValues


class Outcome(NamedTuple):
    """What the next die can do from a grouping, and whether optimal play keeps it.

    ``joins`` is the size of the group whose value the die repeats (0: a value not kept
    yet); ``faces`` is how many of the ``m`` faces do that; ``keep`` is the optimal
    policy's decision; ``alive`` is False when keeping the die would make the target
    unreachable; ``tie`` is True when keeping and rerolling are worth the same (within
    float rounding), so either decision is optimal.
    """

    joins: int
    faces: int
    keep: bool
    alive: bool
    tie: bool = False

    def describe(self) -> str:
        """The outcome in words, e.g. ``'a value kept twice (2/6)'`` (without the fraction)."""
        if self.joins == 0:
            return "a new value"
        times = {1: "once", 2: "twice"}.get(self.joins, f"{self.joins} times")
        return f"a value kept {times}"


class Rule(NamedTuple):
    """The optimal rule at one grouping: expected rolls to go and each outcome's fate."""

    kept: tuple[int, ...]
    expected: float
    outcomes: tuple[Outcome, ...]


def _grouping_text(kept: Iterable[int]) -> str:
    sizes = [str(s) for s in kept if s]
    return " ".join(sizes) if sizes else "-"


@dataclass(frozen=True, eq=False)
class Solution:
    """Optimal play of one Yeetzhee game.

    A *grouping* describes the kept dice by the sizes of their groups of equal values, in
    any order (``(2, 1)``: one value twice and another once); which values they are does
    not matter. The solution is a :class:`~perfectplay.results.ChanceResult` (``result``,
    queried by node id: a node is a grouping's rank) plus this decoder of groupings.

    >>> from perfectplay.problems.yeetzhee import solve
    >>> sol = solve(3, 6, [1, 2])
    >>> round(sol.value, 9), round(sol.expected([1]), 9), sol.expected([3])
    (4.7, 3.7, inf)
    >>> [(o.describe(), o.faces, o.keep) for o in sol.rule([1, 1]).outcomes]
    [('a value kept once', 2, True), ('a new value', 4, False)]
    >>> sol.exact_value(), sol.exact()[0]
    (Fraction(47, 10), Fraction(47, 10))
    """

    n: int
    m: int
    groups: tuple[int, ...]
    model: YeetzheeGraph = field(repr=False)
    chance: ChanceSolution = field(repr=False)

    def __repr__(self) -> str:
        return (
            f"<yeetzhee.Solution n={self.n} m={self.m} groups={self.groups}: "
            f"{self.value:.9f} rolls, {self.n_groupings:,} groupings>"
        )

    @property
    def value(self) -> float:
        """Expected number of rolls from the start under optimal play (``inf``: impossible)."""
        return self.result.value()

    @cached_property
    def result(self) -> ChanceResult:
        return ChanceResult(self.model.graph, self.chance)

    @property
    def n_groupings(self) -> int:
        """Number of groupings that can still reach the target (the graph's live states)."""
        return int(self.model.rows.shape[0])

    def _rank(self, kept: Iterable[int]) -> int | None:
        if isinstance(kept, str | bytes) or not isinstance(kept, Iterable):
            raise InputError(f"a grouping is a list of group sizes, not {kept!r:.40}")
        sizes = sorted(v for v in (_as_int(s, "a group size") for s in kept) if v != 0)
        k = len(self.groups)
        if any(s < 0 for s in sizes) or len(sizes) > k:
            return None
        padded = (0,) * (k - len(sizes)) + tuple(sizes)
        return self.model.space.rank(padded) if padded in self.model.space else None

    def expected(self, kept: Iterable[int]) -> float:
        """Expected rolls still to come from a grouping (``inf`` if it cannot reach the target)."""
        r = self._rank(kept)
        return math.inf if r is None else self.result.value(r)

    def rule(self, kept: Iterable[int]) -> Rule:
        """The optimal rule for the next die from a grouping; outcomes by the group they join
        (new value last)."""
        r = self._rank(kept)
        if r is None:
            raise InputError(f"grouping {_grouping_text(kept)} cannot reach the target")
        row = self.model.rows[r]
        sizes = tuple(int(s) for s in row if s)
        if r == self.model.target:
            return Rule(sizes, 0.0, ())
        here = self.result.value(r)
        g = self.model.graph
        lo, hi = int(g.outcome_ptr[r]), int(g.outcome_ptr[r + 1])
        edge_of = {int(g.outcome_idx[e]): e for e in range(lo, hi)}
        outcomes = []
        counts: dict[int, int] = {}
        for s in sizes:
            counts[s] = counts.get(s, 0) + 1
        options = [(s, c) for s, c in sorted(counts.items())]
        options.append((0, self.m - len(sizes)))
        for joins, faces in options:
            if faces <= 0:
                continue
            after = list(row)
            j = max(i for i, v in enumerate(after) if v == joins) if joins in after else -1
            if j >= 0:
                after[j] += 1
            alive = j >= 0 and tuple(after) in self.model.space
            keep = tie = False
            if alive:
                succ = self.model.space.rank(after)
                keep = bool(self.chance.accept[edge_of[succ]])
                tie = is_tie(self.result.value(succ), here)
            outcomes.append(Outcome(joins, faces, keep, alive, tie))
        return Rule(sizes, here, tuple(outcomes))

    def reachable(self) -> np.ndarray:
        """Ranks of the groupings optimal play can reach from the start, by dice kept.

        Keeping a die adds one to the dice kept, so one numpy pass per number of dice
        finds them all.
        """
        g, rows = self.model.graph, self.model.rows
        s = rows.shape[0]
        if not math.isfinite(self.value):
            return np.zeros(1, np.int64)
        dice = rows.sum(axis=1)
        src = np.repeat(np.arange(s - 1), np.diff(g.outcome_ptr))
        kept = self.chance.accept & (g.outcome_idx < s)
        src, dst = src[kept], g.outcome_idx[kept]
        seen = np.zeros(s, np.bool_)
        seen[0] = True
        for d in range(self.n):
            layer = seen[src] & (dice[src] == d)
            seen[dst[layer]] = True
        ranks = np.flatnonzero(seen)
        return ranks[np.argsort(dice[ranks], kind="stable")]

    def explain(self, digits: int = 9, table_digits: int = 6) -> str:
        """The optimal rule in words for every grouping optimal play can reach: the
        expected rolls with ``digits`` decimals, those of the table with ``table_digits``."""
        m = self.m
        head = (
            f"Yeetzhee: {self.n} dice with {m} faces each, target groups "
            f"{_grouping_text(self.groups)}.\n"
            f"Expected rolls with optimal play: {self.value:.{digits}f}.\n"
        )
        if not math.isfinite(self.value):
            return head + (
                f"The target needs {len(self.groups)} distinct values but a die has only "
                f"{m} faces: it can never be reached.\n"
            )
        head += (
            "\nKept dice are shown by the sizes of their groups of equal values ('1 2': one\n"
            "value once and another twice). For every grouping that optimal play reaches: the\n"
            "dice still to roll, the expected rolls still to come, and which values of the\n"
            f"next die to keep or to reroll (how many of the {m} faces show each; 'cannot\n"
            "fit': keeping it would make the target unreachable; 'either': keeping and\n"
            "rerolling are worth the same).\n\n"
        )
        table = [("kept", "to go", "expected", "keep the die if it shows", "reroll it if it shows")]
        for r in self.reachable().tolist():
            if r == self.model.target:
                continue
            rule = self.rule(self.model.rows[r])
            # A tie is shown as a keep: rerolling gains nothing and costs a roll now.
            keep = [
                f"{o.describe()} ({o.faces}/{m}{', either' if o.tie else ''})"
                for o in rule.outcomes
                if o.keep or o.tie
            ]
            drop = [
                f"{o.describe()} ({o.faces}/{m}{'' if o.alive else ', cannot fit'})"
                for o in rule.outcomes
                if not (o.keep or o.tie)
            ]
            table.append(
                (
                    _grouping_text(rule.kept),
                    str(self.n - sum(rule.kept)),
                    f"{rule.expected:.{table_digits}f}",
                    ", ".join(keep) or "-",
                    ", ".join(drop) or "-",
                )
            )
        widths = [max(len(row[i]) for row in table) for i in range(4)]
        lines = []
        for row in table:
            cells = [row[0].ljust(widths[0]), row[1].rjust(widths[1]), row[2].rjust(widths[2])]
            cells += [row[3].ljust(widths[3]), row[4]]
            lines.append("  ".join(cells).rstrip())
        return head + "\n".join(lines) + "\n"

    @property
    def _exact(self) -> ExactValues:
        return self.result.exact()

    def exact(self) -> ExactValues:
        """Exact values of every grouping (:class:`~perfectplay.results.ExactValues`; the
        same as :meth:`exact_values`, the name a model's solution gives them, whose
        ``exact()`` is the start's :class:`~fractions.Fraction`, here :meth:`exact_value`),
        with the policy verified optimal in rational arithmetic.

        Two options whose values differ by less than float rounding may be ordered wrongly
        by the float solver (it happens on the official data); the core then repairs the
        policy by exact policy improvement before verifying, so the values are the true
        optimum (:meth:`exact_policy` holds the repaired rules). Raises
        :class:`~perfectplay.analysis.exact.VerificationError` if verification still fails.
        Computed once.
        """
        return self._exact

    def exact_values(self) -> ExactValues:
        """Every grouping's exact value (:meth:`exact`, under the name
        :meth:`perfectplay.models.chance.ChanceModelSolution.exact_values` has).

        >>> from perfectplay.problems.yeetzhee import solve
        >>> solve(3, 6, [1, 2]).exact_values().value
        Fraction(47, 10)
        """
        return self._exact

    def exact_value(self) -> Fraction | None:
        """The expected rolls as an exact fraction, verified optimal (``None``: the target
        cannot be reached); see :meth:`exact`."""
        return self._exact.value

    def exact_policy(self) -> Solution:
        """This game with the policy :meth:`exact` verified, near-ties repaired, and the
        values rounded from the exact fractions: its :meth:`rule` and :meth:`explain`
        show exactly optimal decisions, and a tie is an exact tie.

        >>> from perfectplay.problems.yeetzhee import solve
        >>> solve(3, 6, [1, 2]).exact_policy().value
        4.7
        """
        return dataclasses.replace(self, chance=self._exact.solution)

    def distribution(self, k_max: int) -> np.ndarray:
        """``float64[k_max + 1]``: entry ``k`` is P(target reached within ``k`` rolls)."""
        return self.result.distribution(k_max)

    def simulate(self, runs: int, seed: int = 0) -> np.ndarray:
        """Rolls used in ``runs`` simulated games under optimal play (``int64[runs]``)."""
        return self.result.simulate(runs, seed)


def solve(n: int, m: int, groups: Iterable[int]) -> Solution:
    """Solve ``n`` dice with ``m`` faces and target group sizes ``groups`` (any order).

    Raises :class:`~perfectplay.errors.InputError` (a ``ValueError``) for sizes that are
    not positive integers summing to ``n``, and
    :class:`~perfectplay.errors.ResourceLimitError` when the groupings would not fit in
    memory. A target with more groups than faces gets the value ``inf``. The graph has the
    retry property, so :func:`~perfectplay.solvers.solve_chance` runs label-setting.

    >>> solve(3, 6, (2, 1)).value
    4.7
    """
    from perfectplay.problems.yeetzhee.build import build
    from perfectplay.solvers import solve_chance

    sizes = check_instance(n, m, groups)
    model = build(int(n), int(m), sizes)
    return Solution(n=int(n), m=int(m), groups=sizes, model=model, chance=solve_chance(model.graph))


def solve_instance(instance: Instance) -> Solution:
    """Solve a parsed :class:`~perfectplay.problems.yeetzhee.instance.Instance`."""
    return solve(instance.n, instance.m, instance.groups)
