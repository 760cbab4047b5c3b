"""One-player chance graphs held in compact arrays.

A chance graph has two kinds of node:

* a **decision** node is a situation in which the player chooses, at no cost, one of its
  *choices* (chance nodes), unless it is **terminal** (the game is over; it is worth
  ``terminal_value[x] / scale``, 0 for the *goals* of a race);
* a **chance** node is a roll: it costs ``cost[c] / scale`` (any sign; usually one
  roll) and lands on one of its *outcomes* (decision nodes) with probability
  ``weight / total weight``; integer weights keep every probability an exact rational.

With ``retry=True`` the graph also has the **retry rule**: after seeing the outcome of a
roll, the player may discard it and roll the same chance node again (paying its cost
again). Graphs in which every outcome of ``c`` lists ``c`` among its choices have that
rule already (:meth:`ChanceGraph.has_retry_property`); Yeetzhee-like games, where only the
last roll may be redone, set ``retry=True`` instead of listing the retry choice.

The outcome of a play is the sum of the costs paid plus the value of the terminal node
reached. The value of a node is the expected outcome under optimal play for the graph's
:class:`~perfectplay.objectives.Objective` (by default: minimise, so the value is the least
expected total cost to reach a goal); a node from which no policy reaches a terminal with
probability one is worth ``objective.endless`` (``inf`` by default).

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

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, cast

import numpy as np

from perfectplay._util.jit import compile_for
from perfectplay.graphs import _csr
from perfectplay.objectives import MIN_COST, Objective

__all__ = ["ANALYSIS_THRESHOLD", "ChanceGraph", "ChanceSolution"]

#: Graphs with fewer nodes plus edges run the analyses the graph caches (reverse
#: adjacency, safe set, end components, acyclic order) interpreted or vectorised unless
#: their kernels are already loaded (:func:`~perfectplay._util.jit.compile_for`).
ANALYSIS_THRESHOLD = 200_000


def _numerators(values: Sequence[Any], n: int) -> tuple[list[Fraction], int]:
    """Exact rationals of ``values`` and the lcm of their denominators."""
    fr = [Fraction(v) for v in values]
    if len(fr) != n:
        raise ValueError(f"expected {n} values, got {len(fr)}")
    scale = 1
    for f in fr:
        scale = math.lcm(scale, f.denominator)
    return fr, scale


class ChanceGraph:
    """A chance graph in CSR arrays (see the module docstring for the semantics).

    Attributes:
        terminal: ``bool[n_decision]``, terminal decision nodes (the play ends there).
        terminal_value: ``int64[n_decision]``, numerator of each terminal node's value
            (0 where not terminal); the value is ``terminal_value / scale``.
        choice_ptr, choice_idx: CSR from decision node ``x`` to its choices
            ``choice_idx[choice_ptr[x]:choice_ptr[x+1]]`` (chance node ids, ``int32``).
        outcome_ptr, outcome_idx, outcome_weight: CSR from chance node ``c`` to its outcomes
            (decision node ids, ``int32``) with positive ``int64`` weights.
        cost: ``int64[n_chance]``, numerator of the cost of each roll (any sign: each
            solver checks that its proof holds, see :func:`perfectplay.solvers.solve_chance`).
        start: the decision node the game starts in.
        retry: whether the retry rule holds implicitly (see module docstring).
        scale: the common positive denominator of terminal values and costs (1: integers).
        objective: what the player optimises (:data:`~perfectplay.objectives.MIN_COST`
            by default: least expected total cost).

    ``goal=`` is accepted for ``terminal=`` (terminal nodes worth 0, today's games) and
    :attr:`goal` reads :attr:`terminal`.

    A graph is prepared once for every solver that reads it: :meth:`arrays` casts the
    arrays to the kernels' dtypes once, and the analyses several solvers and their
    conditions need are computed on first use and kept (:meth:`has_retry_property`,
    :meth:`acyclic_order`, :meth:`end_components`, :meth:`safe_set`, and
    :meth:`reverse` unless a one-shot caller declines to keep it).
    """

    __slots__ = (
        "terminal", "terminal_value", "choice_ptr", "choice_idx", "outcome_ptr",
        "outcome_idx", "outcome_weight", "cost", "start", "retry", "scale", "objective",
        "_cache",
    )  # fmt: skip

    terminal: np.ndarray
    terminal_value: np.ndarray
    choice_ptr: np.ndarray
    choice_idx: np.ndarray
    outcome_ptr: np.ndarray
    outcome_idx: np.ndarray
    outcome_weight: np.ndarray
    cost: np.ndarray
    start: int
    retry: bool
    scale: int
    objective: Objective
    _cache: dict[str, Any]

    def __init__(
        self,
        terminal: np.ndarray | None = None,
        choice_ptr: np.ndarray | None = None,
        choice_idx: np.ndarray | None = None,
        outcome_ptr: np.ndarray | None = None,
        outcome_idx: np.ndarray | None = None,
        outcome_weight: np.ndarray | None = None,
        cost: np.ndarray | None = None,
        start: int = 0,
        retry: bool = False,
        *,
        goal: np.ndarray | None = None,
        terminal_value: np.ndarray | None = None,
        scale: int = 1,
        objective: Objective = MIN_COST,
    ) -> None:
        if (terminal is None) == (goal is None):
            raise TypeError("give exactly one of terminal= and goal=")
        term = terminal if terminal is not None else goal
        if any(a is None for a in (choice_ptr, choice_idx, outcome_ptr, outcome_idx,
                                    outcome_weight, cost)):  # fmt: skip
            raise TypeError("ChanceGraph needs every CSR array and cost")
        if terminal_value is None:
            terminal_value = np.zeros(len(term), np.int64)  # type: ignore[arg-type]
        setter = object.__setattr__
        for name, value in (
            ("terminal", term), ("terminal_value", terminal_value),
            ("choice_ptr", choice_ptr), ("choice_idx", choice_idx),
            ("outcome_ptr", outcome_ptr), ("outcome_idx", outcome_idx),
            ("outcome_weight", outcome_weight), ("cost", cost), ("start", start),
            ("retry", retry), ("scale", int(scale)), ("objective", objective), ("_cache", {}),
        ):  # fmt: skip
            setter(self, name, value)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ChanceGraph is immutable: cannot set {name}")

    def __reduce__(self) -> tuple[Any, ...]:
        # Immutable slots: pickle and copy rebuild through the constructor.
        fields = {name: getattr(self, name) for name in self.__slots__ if name != "_cache"}
        return (_rebuild, (fields,))

    def __repr__(self) -> str:
        return (
            f"ChanceGraph({self.n_decision:,} decision nodes, {self.n_chance:,} chance nodes, "
            f"{self.objective.describe()})"
        )

    @property
    def goal(self) -> np.ndarray:
        """Alias of :attr:`terminal` (the name of graphs whose terminals are all worth 0)."""
        return self.terminal

    @property
    def n_decision(self) -> int:
        return int(self.terminal.shape[0])

    @property
    def n_chance(self) -> int:
        return int(self.cost.shape[0])

    @property
    def n_edges(self) -> int:
        """Number of choice edges plus outcome edges."""
        return int(self.choice_idx.shape[0] + self.outcome_idx.shape[0])

    def nbytes(self) -> int:
        return sum(a.nbytes for a in self.arrays(values=True))

    def arrays(self, values: bool = False) -> tuple[np.ndarray, ...]:
        """The CSR arrays in the dtypes the kernels are compiled for, cast once and kept.

        ``(terminal, choice_ptr, choice_idx, outcome_ptr, outcome_idx, outcome_weight,
        cost)`` as ``bool, int64, int32, int64, int32, int64, int64``, contiguous, then
        with ``values=True`` ``terminal_value`` as ``int64``. Arrays that already match are
        passed through without a copy. One dtype signature means one compiled
        specialisation of each kernel, however a graph was built; kernels that need real
        values get them as ``float64`` from :meth:`float_values`.

        >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
        >>> [a.dtype.name for a in g.arrays()][:3], g.arrays() is g.arrays()
        (['bool', 'int64', 'int32'], True)
        """
        out = self._cache.get("arrays")
        if out is None:
            as_ = np.ascontiguousarray
            out = self._cache["arrays"] = (
                as_(self.terminal, np.bool_),
                as_(self.choice_ptr, np.int64),
                as_(self.choice_idx, np.int32),
                as_(self.outcome_ptr, np.int64),
                as_(self.outcome_idx, np.int32),
                as_(self.outcome_weight, np.int64),
                as_(self.cost, np.int64),
            )
        if not values:
            return out
        tv = self._cache.get("terminal_value")
        if tv is None:
            tv = self._cache["terminal_value"] = np.ascontiguousarray(self.terminal_value, np.int64)
        return (*out, tv)

    def float_values(self, oriented: bool = False) -> tuple[np.ndarray, np.ndarray]:
        """``(terminal values, costs)`` as ``float64`` (divided by :attr:`scale`), times
        ``objective.orient`` when ``oriented`` (the minimising form every solver uses)."""
        f = (self.objective.orient if oriented else 1) / self.scale
        tv = np.asarray(self.terminal_value, np.float64) * f
        cost = np.asarray(self.cost, np.float64) * f
        return tv, cost

    def has_terminal_values(self) -> bool:
        """Whether some terminal node is worth something else than 0."""
        return bool(np.any(self.terminal_value[self.terminal] != 0))

    def _compiled(self, compiled: bool | None, *kernels: Any) -> bool:
        if compiled is not None:
            return compiled
        size = self.n_decision + self.n_chance + self.n_edges
        return compile_for(size, ANALYSIS_THRESHOLD, *kernels)

    def reverse(self, *, compiled: bool | None = None, keep: bool = True) -> tuple[np.ndarray, ...]:
        """Reverse adjacency ``(rin_ptr, rin_c, rin_w, rch_ptr, rch_x)`` (see
        :func:`perfectplay.graphs._csr.chance_reverse`), cached on the graph unless
        ``keep=False`` (a one-shot solver on a large graph).

        >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
        >>> [a.tolist() for a in g.reverse()]
        [[0, 0, 1], [0], [1], [0, 1], [0]]
        """
        rev = self._cache.get("reverse")
        if rev is None:
            a = self.arrays()
            compiled = self._compiled(compiled, _csr._transpose)
            rev = _csr.chance_reverse(a[1], a[2], a[3], a[4], a[5], compiled=compiled)
            if keep:
                self._cache["reverse"] = rev
        return rev

    def safe_set(
        self,
        *,
        compiled: bool | None = None,
        reverse: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None,
    ) -> tuple[np.ndarray, np.ndarray]:
        """``(safe_d, safe_c)``: the decision and chance nodes from which some policy
        reaches a terminal node with probability one (with the retry rule a roll is safe
        as soon as one outcome is; see :func:`perfectplay.graphs._csr.safe_nodes`).
        Cached; ``reverse``: ``(rin_ptr, rin_c, rch_ptr, rch_x)`` if the caller has them
        (only the answer is kept, not a reverse adjacency made for it: that is the larger
        part of the memory of the exact verifier, which needs it for nothing else).

        >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], []], [[(1, 1), (2, 1)]])
        >>> [a.tolist() for a in g.safe_set(compiled=False)]
        [[False, True, False], [False]]
        """
        safe = self._cache.get("safe")
        if safe is None:
            a = self.arrays()
            compiled = self._compiled(compiled, _csr._safe_set)
            if reverse is None and "reverse" in self._cache:
                rin_ptr, rin_c, _, rch_ptr, rch_x = self._cache["reverse"]
                reverse = (rin_ptr, rin_c, rch_ptr, rch_x)
            elif reverse is None:
                rin_ptr, rin_c, _ = _csr.transpose(a[3], a[4], self.n_decision, edges=False,
                                                   compiled=compiled)  # fmt: skip
                rch_ptr, rch_x, _ = _csr.transpose(a[1], a[2], self.n_chance, edges=False,
                                                   compiled=compiled)  # fmt: skip
                reverse = (rin_ptr, rin_c, rch_ptr, rch_x)
            safe = self._cache["safe"] = _csr.safe_nodes(
                a[0], a[1], a[3], a[4], reverse, retry=self.retry, compiled=compiled
            )
        return safe

    def end_components(self, *, compiled: bool | None = None) -> tuple[np.ndarray, np.ndarray, int]:
        """``(dec_comp, chance_comp, n)``: the maximal end components (sets of nodes where
        a policy can keep the play for ever; the retry rule counts as a choice), ``-1``
        outside every one, computed once (:func:`perfectplay.graphs._csr.maximal_end_components`).

        >>> g = ChanceGraph.from_lists(   # 0 may roll 0 (back to 0 or 1) or 1 (to the goal 2)
        ...     [False, False, True], [[0, 1], [0], []], [[(0, 1), (1, 1)], [(2, 1)]])
        >>> d, c, n = g.end_components(compiled=False)
        >>> d.tolist(), c.tolist(), n
        ([0, 0, -1], [0, -1], 1)
        """
        ec = self._cache.get("end_components")
        if ec is None:
            a = self.arrays()
            compiled = self._compiled(compiled, _csr._tarjan, _csr._ec_prune)
            ec = self._cache["end_components"] = _csr.maximal_end_components(
                a[0], a[1], a[2], a[3], a[4], retry=self.retry, compiled=compiled
            )
        return ec

    def acyclic_order(self, *, compiled: bool | None = None) -> np.ndarray | None:
        """Every node (decision ids, then chance ids shifted by :attr:`n_decision`),
        successors first; ``None`` when the graph has a cycle (or the retry rule, which
        is one). Computed once (Kahn's algorithm,
        :func:`~perfectplay.graphs._csr.topological_order`).

        >>> g = ChanceGraph.from_lists([False, True], [[0], []], [[(1, 1)]])
        >>> g.acyclic_order(compiled=False).tolist()
        [1, 2, 0]
        """
        if self.retry:
            return None
        if "acyclic_order" not in self._cache:
            a = self.arrays()
            compiled = self._compiled(compiled, _csr._kahn)
            ptr, idx = _csr.combined(a[1], a[2], a[3], a[4])
            order, n = _csr.topological_order(ptr, idx, compiled=compiled)
            self._cache["acyclic_order"] = order[:n] if n == ptr.shape[0] - 1 else None
        order_: np.ndarray | None = self._cache["acyclic_order"]
        return order_

    def dead_ends(self) -> np.ndarray:
        """``bool[n_decision]``: the **dead ends**, non-terminal decision nodes without a
        choice. A play that reaches one stops without reaching a terminal: it is worth
        what a play that never ends is worth, ``objective.endless`` (``inf`` for a cost,
        the worst value for a score, 0 for a probability: the event did not happen).

        >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], []], [[(1, 1), (2, 1)]])
        >>> g.dead_ends().tolist()
        [False, False, True]
        """
        return cast(np.ndarray, ~self.terminal & (np.diff(self.choice_ptr) == 0))

    def finish_dead_ends(self) -> ChanceGraph:
        """The same graph with every dead end (:meth:`dead_ends`) a terminal worth
        ``objective.endless``; ``self`` when there is none or that value is infinite.

        Under a probability objective the two graphs have the same values and optimal
        policies node by node (a play stopped at a dead end is worth 0 like one that
        reaches a terminal worth 0), and the finished one is what the solvers' proofs and
        the exact verifier assume: a terminal, not a node that cannot end (worth ``inf``
        to them). A cost or a score keeps its dead ends: there they are worth the worst
        value, as a node that cannot end is. Computed once.

        >>> from perfectplay.objectives import Objective
        >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], []],
        ...     [[(1, 1), (2, 1)]], objective=Objective.probability())
        >>> g.finish_dead_ends().terminal.tolist(), g.finish_dead_ends().scale
        ([False, True, True], 1)
        """
        if "finished" not in self._cache:
            endless = self.objective.endless
            dead = None if math.isinf(endless) else self.dead_ends()
            done = None  # not the graph itself: no reference cycle through the cache
            if dead is not None and dead.any():
                fields = {n: getattr(self, n) for n in self.__slots__ if n != "_cache"}
                fields["terminal"] = self.terminal | dead
                value = Fraction(endless) * self.scale  # 0 for a probability
                fields["terminal_value"] = np.where(dead, int(value), self.terminal_value)
                done = ChanceGraph(**fields)
            self._cache["finished"] = done
        finished: ChanceGraph | None = self._cache["finished"]
        return self if finished is None else finished

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
        return cast(np.ndarray, csum[self.outcome_ptr[1:]] - csum[self.outcome_ptr[:-1]])

    def has_retry_property(self) -> bool:
        """True when every outcome ``x`` of every chance node ``c`` may choose ``c`` again.

        Terminal outcomes need no retry choice (nobody rerolls a finished game). Checked
        once, in one pass over the edges (:func:`~perfectplay.graphs._csr.retry_property`).
        """
        if self.retry:
            return True
        held = self._cache.get("retry_property")
        if held is None:
            held = self._cache["retry_property"] = self._explicit_retry()
        return bool(held)

    def _explicit_retry(self) -> bool:
        a = self.arrays()
        compiled = self._compiled(None, _csr._retry_property, _csr._transpose)
        return _csr.retry_property(a[0], a[1], a[2], a[3], a[4], compiled=compiled)

    def validate(self) -> None:
        """Check shapes, dtypes, index ranges and signs; raise ``ValueError`` if broken."""
        nd, nc = self.n_decision, self.n_chance
        if self.terminal.dtype != np.bool_:
            raise ValueError("terminal (goal) must be a bool array")
        if self.terminal_value.shape != (nd,):
            raise ValueError("terminal_value must have one entry per decision node")
        for name in ("terminal_value", "cost"):
            if not np.issubdtype(getattr(self, name).dtype, np.integer):
                raise ValueError(f"{name} must hold integer numerators (values times scale)")
        if not isinstance(self.objective, Objective):
            raise ValueError("objective must be a perfectplay.objectives.Objective")
        if self.scale <= 0:
            raise ValueError("scale must be a positive integer")
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
        if self.outcome_idx.size and (self.outcome_idx.min() < 0 or self.outcome_idx.max() >= nd):
            raise ValueError("outcome_idx out of range")
        if self.outcome_weight.shape != self.outcome_idx.shape:
            raise ValueError("outcome_weight and outcome_idx differ in length")
        if self.outcome_weight.size and self.outcome_weight.min() <= 0:
            raise ValueError("outcome weights must be positive")
        if nc and (np.diff(self.outcome_ptr) == 0).any():
            raise ValueError("a chance node has no outcomes")
        if not 0 <= self.start < nd:
            raise ValueError("start out of range")

    @classmethod
    def from_lists(
        cls,
        goal: Sequence[bool] | None = None,
        choices: Sequence[Sequence[int]] = (),
        outcomes: Sequence[Sequence[tuple[int, int]]] = (),
        start: int = 0,
        cost: Sequence[int | Fraction] | None = None,
        retry: bool = False,
        *,
        terminal: Sequence[bool] | None = None,
        terminal_value: Sequence[int | Fraction] | None = None,
        objective: Objective = MIN_COST,
    ) -> ChanceGraph:
        """Build a graph from Python lists (small graphs, tests, examples).

        ``goal`` is shorthand for ``terminal`` with every terminal worth 0. Terminal values
        and costs may be ints or :class:`~fractions.Fraction`; the graph's ``scale`` is the
        lcm of their denominators, so every value stays exact.

        >>> g = ChanceGraph.from_lists(
        ...     terminal=[False, True, True], terminal_value=[0, Fraction(1, 2), 3],
        ...     choices=[[0], [], []], outcomes=[[(1, 1), (2, 1)]], cost=[0],
        ... )
        >>> g.scale, g.terminal_value.tolist(), g.cost.tolist()
        (2, [0, 1, 6], [0])
        """
        if (terminal is None) == (goal is None):
            raise TypeError("give exactly one of goal= and terminal=")
        term = np.asarray(terminal if terminal is not None else goal, dtype=np.bool_)
        nd, nc = len(term), len(outcomes)
        tv, s1 = _numerators([0] * nd if terminal_value is None else terminal_value, nd)
        cs, s2 = _numerators([1] * nc if cost is None else cost, nc)
        scale = math.lcm(s1, s2)
        choice_ptr = np.zeros(len(choices) + 1, np.int64)
        choice_ptr[1:] = np.cumsum([len(c) for c in choices])
        choice_idx = np.array([c for cs_ in choices for c in cs_], np.int32)
        outcome_ptr = np.zeros(nc + 1, np.int64)
        outcome_ptr[1:] = np.cumsum([len(o) for o in outcomes])
        outcome_idx = np.array([x for os_ in outcomes for x, _ in os_], np.int32)
        outcome_weight = np.array([w for os_ in outcomes for _, w in os_], np.int64)
        tvals = np.array([int(v * scale) if t else 0 for v, t in zip(tv, term, strict=True)],
                         np.int64)  # fmt: skip
        g = cls(
            terminal=term,
            terminal_value=tvals,
            choice_ptr=choice_ptr,
            choice_idx=choice_idx,
            outcome_ptr=outcome_ptr,
            outcome_idx=outcome_idx,
            outcome_weight=outcome_weight,
            cost=np.array([int(c * scale) for c in cs], np.int64),
            start=int(start),
            retry=retry,
            scale=scale,
            objective=objective,
        )
        g.validate()
        return g


def _rebuild(fields: dict[str, Any]) -> ChanceGraph:
    return ChanceGraph(**fields)


@dataclass(frozen=True, eq=False)
class ChanceSolution:
    """Optimal values and an optimal policy of a :class:`ChanceGraph`.

    Attributes:
        graph: the solved graph.
        decision_value: ``float64[n_decision]``; the terminal value at terminals,
            ``objective.endless`` where no terminal is reachable almost surely.
        chance_value: ``float64[n_chance]``.
        best_choice: ``int32[n_decision]``, the chance node an optimal player picks
            (``-1`` at terminals and where no terminal is reachable almost surely).
        accept: ``bool[n_outcome_edges]``; for graphs with the retry rule, whether the
            policy keeps outcome edge ``e`` (``False``: roll the same chance node again).
            All ``True`` when the graph has no retry rule.
        method: the algorithm that produced it (``"label-setting"``,
            ``"policy-iteration"``; empty when built by hand).
    """

    graph: ChanceGraph
    decision_value: np.ndarray
    chance_value: np.ndarray
    best_choice: np.ndarray
    accept: np.ndarray
    method: str = ""

    @property
    def value(self) -> float:
        """Value of the start node."""
        return float(self.decision_value[self.graph.start])
