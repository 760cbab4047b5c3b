"""The certified sweeps' value phase on hand-made components: the signed extrapolation
(errors that alternate through a flip) and the checked box that certifies its values."""

from __future__ import annotations

import numpy as np

from perfectplay.compiled import sweep
from perfectplay.compiled.components import slot_table


def _self_flip(p_stay: float, exit_value: float):
    """One position that, with chance ``p_stay``, moves to itself with the dice handed
    over, else ends worth ``exit_value``: ``v = p (1 - v) + (1 - p) x``, so its errors
    alternate in sign sweep after sweep (factor ``-p``)."""
    roll_ptr = np.array([0, 2], np.int64)
    roll_prob = np.array([p_stay, 1.0 - p_stay])
    roll_const = np.array([-1.0, exit_value])  # the first outcome has no exit, the second
    move_ptr = np.array([0, 1, 1], np.int64)  # only the exit
    move_code = np.array([2 * 0 + 1], np.int32)  # to itself, flipped
    order = np.zeros(1, np.int32)  # one position, in its own slot
    table = slot_table(order, roll_ptr, roll_prob, roll_const, move_ptr, move_code, 0.0, None)
    value = (p_stay + (1.0 - p_stay) * exit_value) / (1.0 + p_stay)
    return table, value


def test_alternating_errors_are_extrapolated_the_right_way():
    table, value = _self_flip(0.9, 0.4)
    v = np.array([0.5])
    count = sweep._values(v, table, 0, 1, 1e-15, 1000, np.empty(1), None)
    # Plain sweeps shrink the error by 0.9 a sweep: some 300 to 1e-15. Extrapolated
    # with the sign of the factor, a few.
    assert 0 < count <= 12
    assert abs(v[0] - value) <= 1e-14


def test_the_checked_box_certifies_the_value():
    table, value = _self_flip(0.6, 0.25)
    lo, hi = np.zeros(1), np.ones(1)
    count = sweep._boxed(lo, hi, table, 0, 1, 1e-12, 1000, np.empty(1), None)
    assert count > 0  # a box passed: lo and hi are proven bounds
    assert lo[0] <= value <= hi[0] and hi[0] - lo[0] <= 1e-12
