"""Two-player zero-sum games with dice between moves (stochastic games), in CSR arrays.

A *position* is a decision of the player to move. Its choices are *chance nodes*, owned
by that position alone; a chance node lists outcomes ``(target, weight, passes)``: the
next position, an integer weight (probabilities up to a common factor) and whether the
turn passes to the other player. Positions are **mover-relative**: the value of a
position is the winning chance of whoever moves there (a tie counts one half), so an
outcome that passes the turn contributes ``1 - v(target)``, one that keeps it ``v(target)``
(Pig: a bust sends ``(mine, theirs, turn)`` to ``(theirs, mine, 0)`` with the turn passed).

The value is the fixed point of the Bellman equation of a simple stochastic game
(A. Condon, *The complexity of stochastic games*, Information and Computation 96(2), 1992)
written from the mover's side:
``v(p) = max over choices c of sum(w * (1 - v(t) if passes else v(t))) / sum(w)``;
terminal positions have fixed values, and play that never ends is worth ``draw_value``
to both players. Values are stored as integer numerators over a common ``scale``
(``scale=2`` holds win 2, tie 1, lose 0), so exact arithmetic needs no floats.

>>> g = StochasticGraph.from_lists(     # 0: roll a coin (heads wins, tails passes) or stop
...     terminal=[False, True, True], terminal_value=[0, 1, 0], scale=1, draw_value=0,
...     choices=[[[(1, 1, False), (0, 1, True)], [(2, 1, False)]], [], []])
>>> g.n_positions, g.n_chance, g.n_outcomes
(3, 2, 3)
>>> from perfectplay.solvers.stochastic import solve_stochastic
>>> sol = solve_stochastic(g)
>>> round(float(sol.value[0]), 9), int(sol.best_choice[0])      # v = 1/2 + (1 - v)/2
(0.666666667, 0)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import numpy as np

from perfectplay.errors import ModelError

__all__ = ["StochasticGraph", "StochasticSolution"]


@dataclass(eq=False)
class StochasticGraph:
    """Positions, chance nodes and outcomes of a stochastic two-player game.

    Attributes:
        terminal: ``bool[n]``: the game is over; the position's choices are ignored.
        terminal_value: ``int64[n]``: numerator of the mover's value of a terminal position.
        scale: the common denominator of ``terminal_value`` and ``draw_value``.
        draw_value: numerator of the value of endless play to each player (``scale // 2``,
            one half, by default; another value is consistent only where no endless play
            passes the turn, since values are the mover's).
        choice_ptr: ``int64[n + 1]``: the chance nodes of ``p`` are
            ``choice_ptr[p]:choice_ptr[p + 1]``.
        outcome_ptr: ``int64[n_chance + 1]``: the outcomes of chance node ``c``.
        target: ``int32[n_outcomes]``; weight: ``int64[n_outcomes]`` (positive);
        passes: ``bool[n_outcomes]``: the turn passes to the other player.
        start: the first position.

    >>> StochasticGraph.from_lists([True], [[]], terminal_value=[1], scale=2).draw_value
    1
    """

    terminal: np.ndarray
    terminal_value: np.ndarray
    choice_ptr: np.ndarray
    outcome_ptr: np.ndarray
    target: np.ndarray
    weight: np.ndarray
    passes: np.ndarray
    scale: int = 2
    draw_value: int | None = None
    start: int = 0
    cache: dict[str, Any] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        if self.scale <= 0:
            raise ModelError(f"scale must be positive, not {self.scale}")
        if self.draw_value is None:
            if self.scale % 2:
                raise ModelError("an odd scale needs an explicit draw_value")
            self.draw_value = self.scale // 2
        n = self.terminal.shape[0]
        if self.choice_ptr.shape[0] != n + 1 or int(self.choice_ptr[-1]) != self.n_chance:
            raise ModelError("choice_ptr does not match the chance nodes")
        if int(self.outcome_ptr[-1]) != self.target.shape[0]:
            raise ModelError("outcome_ptr does not match the outcomes")
        if self.target.shape[0] and (self.target.min() < 0 or self.target.max() >= n):
            raise ModelError("an outcome leads to a position that does not exist")
        if self.weight.shape[0] and self.weight.min() <= 0:
            raise ModelError("outcome weights must be positive integers")
        tv = self.terminal_value[self.terminal]
        if tv.shape[0] and (tv.min() < 0 or tv.max() > self.scale):
            raise ModelError(f"terminal values must lie in 0..scale ({self.scale})")
        if not 0 <= int(self.draw_value) <= self.scale:
            raise ModelError(f"draw_value must lie in 0..scale ({self.scale})")

    @property
    def n_positions(self) -> int:
        return int(self.terminal.shape[0])

    @property
    def n_chance(self) -> int:
        return int(self.outcome_ptr.shape[0] - 1)

    @property
    def n_outcomes(self) -> int:
        return int(self.target.shape[0])

    @classmethod
    def from_lists(
        cls,
        terminal: Sequence[bool],
        choices: Sequence[Sequence[Sequence[tuple[int, int, bool]]]],
        *,
        terminal_value: Sequence[int] | None = None,
        scale: int = 2,
        draw_value: int | None = None,
        start: int = 0,
    ) -> StochasticGraph:
        """Build from Python lists: ``choices[p]`` lists chance nodes, each a list of
        ``(target, weight, passes)``.

        >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, True)]], []])
        >>> g.target.tolist(), g.passes.tolist()
        ([1], [True])
        """
        n = len(terminal)
        choice_ptr = np.zeros(n + 1, np.int64)
        outcome_ptr = [0]
        flat: list[tuple[int, int, bool]] = []
        for p in range(n):
            cs = choices[p] if p < len(choices) else []
            choice_ptr[p + 1] = choice_ptr[p] + len(cs)
            for c in cs:
                flat.extend((int(t), int(w), bool(f)) for t, w, f in c)
                outcome_ptr.append(len(flat))
        tv = [0] * n if terminal_value is None else list(terminal_value)
        return cls(
            terminal=np.asarray(terminal, np.bool_),
            terminal_value=np.asarray(tv, np.int64),
            choice_ptr=choice_ptr,
            outcome_ptr=np.asarray(outcome_ptr, np.int64),
            target=np.asarray([t for t, _, _ in flat], np.int32),
            weight=np.asarray([w for _, w, _ in flat], np.int64),
            passes=np.asarray([f for _, _, f in flat], np.bool_),
            scale=scale,
            draw_value=draw_value,
            start=start,
        )

    def chance_value(self, c: int, values: Any) -> Any:
        """The mover's value of chance node ``c`` given position values (floats or
        Fractions: the arithmetic follows them).

        >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, True), (0, 1, False)]], []])
        >>> g.chance_value(0, [Fraction(1, 3), Fraction(1, 4)])
        Fraction(13, 24)
        """
        lo, hi = int(self.outcome_ptr[c]), int(self.outcome_ptr[c + 1])
        total = 0
        acc: Any = 0
        for e in range(lo, hi):
            w = int(self.weight[e])
            v = values[int(self.target[e])]
            acc += w * (1 - v if self.passes[e] else v)
            total += w
        if isinstance(acc, Fraction) or isinstance(acc, int):
            return Fraction(acc, total)
        return acc / total

    def position_adjacency(self) -> tuple[np.ndarray, np.ndarray]:
        """CSR ``(ptr, idx)`` of positions to the positions their outcomes reach
        (chance nodes of a position are contiguous, so this is a view of ``target``).

        >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, True)]], []])
        >>> [a.tolist() for a in g.position_adjacency()]
        [[0, 1, 1], [1]]
        """
        return self.outcome_ptr[self.choice_ptr], self.target


@dataclass(eq=False)
class StochasticSolution:
    """Values and best choices of a :class:`StochasticGraph`.

    Attributes:
        value: ``float64[n]``, the mover's winning chance at each position.
        best_choice: ``int64[n]``, the chance node chosen (``-1``: terminal or stuck).
        bound: a bound on ``|value - true value|``: half the final gap of interval
            iteration, plus the 1e-12 tolerance of the strategy check in components
            where play can go on for ever (``endless``).
        method: the algorithm that ran.
        sweeps: total Gauss-Seidel sweeps over all components.
        endless: ``bool[n]``, positions whose component needed the endless-play fallback.

    >>> g = StochasticGraph.from_lists([False, True], [[[(1, 1, True)]], []],
    ...                                terminal_value=[0, 0])
    >>> from perfectplay.solvers.stochastic import solve_stochastic
    >>> sol = solve_stochastic(g)
    >>> isinstance(sol, StochasticSolution), sol.value.tolist()
    (True, [1.0, 0.0])
    """

    graph: StochasticGraph
    value: np.ndarray
    best_choice: np.ndarray
    bound: float
    method: str
    sweeps: int = 0
    endless: np.ndarray | None = None

    @property
    def start_value(self) -> float:
        return float(self.value[self.graph.start])
