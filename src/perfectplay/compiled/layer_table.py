"""One layer's successor table solved in one compiled call: its components, its rows
put in slot order, its sweeps (what :func:`perfectplay.compiled.layered.solve_layer`
does step by step from Python, for a layer too small to need more than one thread).

The compiled loop over the layers of a small game (``solve_layers`` in the kernels,
driven by :func:`perfectplay.compiled.layered.solve_layers`) calls it once a layer, so
that no Python runs between layers; the steps are the same kernels in the same order
(:mod:`perfectplay.compiled.components`, :func:`perfectplay.compiled.sweep.solve_run`),
so the values are the same.

>>> import numpy as np
>>> # One position whose coin either wins (the exit, value 1) or passes the dice to the
>>> # opponent in the same position: V = 1/2 + 1/2 (1 - V), so V = 2/3.
>>> roll_ptr = np.array([0, 2], np.int32)
>>> move_ptr = np.array([0, 0, 1], np.int32)
>>> prob, const = np.array([0.5, 0.5]), np.array([1.0, -1.0])
>>> values = np.empty(1)
>>> status, sweeps, updates, gap = solve_table(
...     roll_ptr, prob, const, move_ptr, np.array([1], np.int32), 0.0,
...     (5e-14, 1e-13, 200.0, 1000), values)
>>> status == OK, round(float(values[0]), 12), gap <= 1e-13
(True, 0.666666666667, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from perfectplay.compiled.components import components, slot_layout, slot_moves, slot_rolls
from perfectplay.compiled.sweep import OK, solve_run

__all__ = ["OK", "solve_table"]


# Not cached on its own: it is compiled into the kernels' ``solve_layers`` (cached under
# a name that hashes this file and the modules it calls), and numba checks a cached
# function against its own file only, so a cache of it could hold an older sweep.
@njit
def solve_table(
    roll_ptr: Any,
    roll_prob: Any,
    roll_const: Any,
    move_ptr: Any,
    move_code: Any,
    eps: float,
    limits: Any,
    values: Any,
) -> Any:
    """Solve the layer whose table is ``(roll_ptr, roll_prob, roll_const, move_ptr,
    move_code)`` (moves name positions; the exits known to ``eps``) to the ``limits`` of
    :func:`~perfectplay.compiled.sweep.solve_run`, all of its components one after the
    other, and write the midpoints of the bounds into ``values`` (position order).
    Returns ``(status, most sweeps of a component, position updates, largest gap)``;
    ``values`` is written only when the status is :data:`OK`."""
    order, comp_ptr = components(roll_ptr, move_ptr, move_code)
    new_roll, new_move = slot_layout(order, roll_ptr, move_ptr)
    prob = slot_rolls(order, roll_ptr, new_roll, roll_prob)
    const = slot_rolls(order, roll_ptr, new_roll, roll_const)
    codes = slot_moves(order, roll_ptr, move_ptr, new_roll, new_move, move_code)
    n = len(order)
    lo = np.zeros(n)
    hi = np.ones(n)
    table = (new_roll, prob, const, eps, new_move, codes)
    status, _, sweeps, updates, worst = solve_run(
        lo, hi, table, comp_ptr, 0, len(comp_ptr) - 1, limits
    )
    if status != OK:
        return status, sweeps, updates, worst
    gap = 0.0
    for q in range(n):
        values[order[q]] = (lo[q] + hi[q]) * 0.5
        gap = max(gap, hi[q] - lo[q])
    return OK, sweeps, updates, gap
