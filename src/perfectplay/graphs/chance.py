"""One-player chance graphs held in compact arrays.

A chance graph has two kinds of node:

* a **decision** node is a situation in which the player chooses, at no cost, one of its
  *choices* (chance nodes), unless it is a **goal** (value 0, the game is over);
* a **chance** node is a roll: it costs ``cost[c]`` (a positive integer, usually one
  roll) and lands on one of its *outcomes* (decision nodes) with probability
  ``weight / total weight``; integer weights keep every probability an exact rational.

With ``retry=True`` the graph also has the **retry rule**: after seeing the outcome of a
roll, the player may discard it and roll the same chance node again (paying its cost
again). Graphs in which every outcome of ``c`` lists ``c`` among its choices have that
rule already (:meth:`ChanceGraph.has_retry_property`); Yeetzhee-like games, where only the
last roll may be redone, set ``retry=True`` instead of listing the retry choice.

The value of a node is the minimal expected total cost to reach a goal; a node from which
no goal can be reached has value ``inf``.

Example: one die, goal "roll a six", any other face may be rerolled::

    >>> import numpy as np
    >>> g = ChanceGraph.from_lists(
    ...     goal=[False, True, False],           # 0: start, 1: six, 2: other face
    ...     choices=[[0], [], [0]],              # start and "other" roll the die (chance 0)
    ...     outcomes=[[(1, 1), (2, 5)]],         # chance 0: six with weight 1, other with 5
    ...     start=0,
    ... )
    >>> g.n_decision, g.n_chance, g.has_retry_property()
    (3, 1, True)
    >>> from perfectplay.solvers.retry import solve_retry
    >>> sol = solve_retry(g)
    >>> isinstance(sol, ChanceSolution), sol.value    # six rolls on average
    (True, 6.0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = ["ChanceGraph", "ChanceSolution"]


@dataclass(frozen=True, eq=False)
class ChanceGraph:
    """A chance graph in CSR arrays (see the module docstring for the semantics).

    Attributes:
        goal: ``bool[n_decision]``, goal decision nodes (value 0, no choices used).
        choice_ptr, choice_idx: CSR from decision node ``x`` to its choices
            ``choice_idx[choice_ptr[x]:choice_ptr[x+1]]`` (chance node ids, ``int32``).
        outcome_ptr, outcome_idx, outcome_weight: CSR from chance node ``c`` to its outcomes
            (decision node ids, ``int32``) with positive ``int64`` weights.
        cost: ``int64[n_chance]``, positive cost of each roll.
        start: the decision node the game starts in.
        retry: whether the retry rule holds implicitly (see module docstring).
    """

    goal: np.ndarray
    choice_ptr: np.ndarray
    choice_idx: np.ndarray
    outcome_ptr: np.ndarray
    outcome_idx: np.ndarray
    outcome_weight: np.ndarray
    cost: np.ndarray
    start: int
    retry: bool = False

    @property
    def n_decision(self) -> int:
        return int(self.goal.shape[0])

    @property
    def n_chance(self) -> int:
        return int(self.cost.shape[0])

    @property
    def n_edges(self) -> int:
        """Number of choice edges plus outcome edges."""
        return int(self.choice_idx.shape[0] + self.outcome_idx.shape[0])

    def nbytes(self) -> int:
        return sum(
            a.nbytes
            for a in (
                self.goal,
                self.choice_ptr,
                self.choice_idx,
                self.outcome_ptr,
                self.outcome_idx,
                self.outcome_weight,
                self.cost,
            )
        )

    def arrays(self) -> tuple[np.ndarray, ...]:
        """The CSR arrays in the dtypes the kernels are compiled for.

        ``(goal, choice_ptr, choice_idx, outcome_ptr, outcome_idx, outcome_weight, cost)``
        as ``bool, int64, int32, int64, int32, int64, int64``, contiguous; arrays that
        already match are passed through without a copy. One dtype signature means one
        compiled specialisation of each kernel, however a graph was built.
        """
        as_ = np.ascontiguousarray
        return (
            as_(self.goal, np.bool_),
            as_(self.choice_ptr, np.int64),
            as_(self.choice_idx, np.int32),
            as_(self.outcome_ptr, np.int64),
            as_(self.outcome_idx, np.int32),
            as_(self.outcome_weight, np.int64),
            as_(self.cost, np.int64),
        )

    def choices(self, x: int) -> np.ndarray:
        """Chance node ids that decision node ``x`` may choose."""
        return self.choice_idx[self.choice_ptr[x] : self.choice_ptr[x + 1]]

    def outcomes(self, c: int) -> tuple[np.ndarray, np.ndarray]:
        """``(decision ids, weights)`` of chance node ``c``."""
        lo, hi = self.outcome_ptr[c], self.outcome_ptr[c + 1]
        return self.outcome_idx[lo:hi], self.outcome_weight[lo:hi]

    def total_weight(self) -> np.ndarray:
        """``int64[n_chance]``: sum of outcome weights of each chance node."""
        csum = np.concatenate(([0], np.cumsum(self.outcome_weight, dtype=np.int64)))
        return csum[self.outcome_ptr[1:]] - csum[self.outcome_ptr[:-1]]

    def has_retry_property(self) -> bool:
        """True when every outcome ``x`` of every chance node ``c`` may choose ``c`` again.

        Goal outcomes need no retry choice (nobody rerolls a finished game).
        """
        if self.retry:
            return True
        # Vectorised: every (outcome, chance) pair must also be a (decision, choice) pair.
        nc = np.int64(self.n_chance)
        owner = np.repeat(np.arange(nc), np.diff(self.outcome_ptr))
        live = ~self.goal[self.outcome_idx]
        wanted = self.outcome_idx[live].astype(np.int64) * nc + owner[live]
        chooser = np.repeat(np.arange(self.n_decision, dtype=np.int64), np.diff(self.choice_ptr))
        offered = chooser * nc + self.choice_idx
        return bool(np.isin(wanted, offered).all())

    def validate(self) -> None:
        """Check shapes, dtypes, index ranges and positivity; raise ``ValueError`` if broken."""
        nd, nc = self.n_decision, self.n_chance
        if self.goal.dtype != np.bool_:
            raise ValueError("goal must be a bool array")
        for name, ptr, n, idx in (
            ("choice", self.choice_ptr, nd, self.choice_idx),
            ("outcome", self.outcome_ptr, nc, self.outcome_idx),
        ):
            if ptr.shape != (n + 1,) or ptr[0] != 0 or ptr[-1] != idx.shape[0]:
                raise ValueError(f"{name}_ptr has the wrong shape or ends")
            if n and np.any(np.diff(ptr) < 0):
                raise ValueError(f"{name}_ptr is not non-decreasing")
        if self.choice_idx.size and (self.choice_idx.min() < 0 or self.choice_idx.max() >= nc):
            raise ValueError("choice_idx out of range")
        if self.outcome_idx.size and (
            self.outcome_idx.min() < 0 or self.outcome_idx.max() >= nd
        ):
            raise ValueError("outcome_idx out of range")
        if self.outcome_weight.shape != self.outcome_idx.shape:
            raise ValueError("outcome_weight and outcome_idx differ in length")
        if self.outcome_weight.size and self.outcome_weight.min() <= 0:
            raise ValueError("outcome weights must be positive")
        if nc and (np.diff(self.outcome_ptr) == 0).any():
            raise ValueError("a chance node has no outcomes")
        if nc and self.cost.min() <= 0:
            raise ValueError("costs must be positive")
        if not 0 <= self.start < nd:
            raise ValueError("start out of range")

    @classmethod
    def from_lists(
        cls,
        goal: Sequence[bool],
        choices: Sequence[Sequence[int]],
        outcomes: Sequence[Sequence[tuple[int, int]]],
        start: int = 0,
        cost: Sequence[int] | None = None,
        retry: bool = False,
    ) -> ChanceGraph:
        """Build a graph from Python lists (small graphs, tests, examples)."""
        choice_ptr = np.zeros(len(choices) + 1, np.int64)
        choice_ptr[1:] = np.cumsum([len(c) for c in choices])
        choice_idx = np.array([c for cs in choices for c in cs], np.int32)
        outcome_ptr = np.zeros(len(outcomes) + 1, np.int64)
        outcome_ptr[1:] = np.cumsum([len(o) for o in outcomes])
        outcome_idx = np.array([x for os_ in outcomes for x, _ in os_], np.int32)
        outcome_weight = np.array([w for os_ in outcomes for _, w in os_], np.int64)
        g = cls(
            goal=np.asarray(goal, dtype=np.bool_),
            choice_ptr=choice_ptr,
            choice_idx=choice_idx,
            outcome_ptr=outcome_ptr,
            outcome_idx=outcome_idx,
            outcome_weight=outcome_weight,
            cost=np.ones(len(outcomes), np.int64) if cost is None else np.asarray(cost, np.int64),
            start=int(start),
            retry=retry,
        )
        g.validate()
        return g


@dataclass(frozen=True, eq=False)
class ChanceSolution:
    """Optimal values and an optimal policy of a :class:`ChanceGraph`.

    Attributes:
        graph: the solved graph.
        decision_value: ``float64[n_decision]``; 0 at goals, ``inf`` where no goal is reachable.
        chance_value: ``float64[n_chance]``.
        best_choice: ``int32[n_decision]``, the chance node an optimal player picks
            (``-1`` at goals and where the value is ``inf``).
        accept: ``bool[n_outcome_edges]``; for graphs with the retry rule, whether the
            policy keeps outcome edge ``e`` (``False``: roll the same chance node again).
            All ``True`` when the graph has no retry rule.
    """

    graph: ChanceGraph
    decision_value: np.ndarray
    chance_value: np.ndarray
    best_choice: np.ndarray
    accept: np.ndarray

    @property
    def value(self) -> float:
        """Value of the start node."""
        return float(self.decision_value[self.graph.start])
