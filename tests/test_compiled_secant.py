"""Newton's step in the certified sweeps' value phase, on hand-made components whose
in-order sweep reads no old value but the root's: one sweep is then an affine map of
that one number (``G(v) = A * v[root] + c``) while the maxima keep their choices, and
one step along its derivative lands on its fixed point."""

from __future__ import annotations

import numpy as np
import pytest

from perfectplay.compiled import sweep
from perfectplay.compiled.components import components, slot_table


def _cycle(stay, exits, flips):
    """Positions ``0 -> 1 -> ... -> n - 1 -> 0`` (the search from 0 finishes them in
    reverse, so the move back to 0 is the one back edge, to the root): position ``i``
    moves on with chance ``stay[i]`` (the dice handed over where ``flips[i]``), else the
    game ends worth ``exits[i]`` to its mover. Returns the table in slot order, the
    component's slots and the values by slot, solved as a linear system."""
    n = len(stay)
    roll_ptr = np.arange(0, 2 * n + 1, 2, dtype=np.int64)
    roll_prob = np.array([x for p in stay for x in (p, 1.0 - p)])
    roll_const = np.array([x for e in exits for x in (-1.0, e)])  # a move, then an end
    move_ptr = np.array([0] + [x for i in range(n) for x in (i + 1, i + 1)], np.int64)
    move_code = np.array([2 * ((i + 1) % n) + int(flips[i]) for i in range(n)], np.int32)
    order, comp_ptr = components(roll_ptr, move_ptr, move_code)
    assert len(comp_ptr) == 2 and order[-1] == 0  # one component, its root last
    table = slot_table(order, roll_ptr, roll_prob, roll_const, move_ptr, move_code, 0.0, None)
    # v_i = stay_i * (flip ? 1 - v_next : v_next) + (1 - stay_i) * exit_i
    m = np.eye(n)
    rhs = np.empty(n)
    for i in range(n):
        s = -1.0 if flips[i] else 1.0
        m[i, (i + 1) % n] -= stay[i] * s
        rhs[i] = (1.0 - stay[i]) * exits[i] + (stay[i] if flips[i] else 0.0)
    value = np.linalg.solve(m, rhs)
    return table, value[order]


_STAY = [0.9, 0.95, 0.8, 0.99, 0.9]
_EXITS = [0.3, 0.9, 0.2, 0.6, 0.5]


def test_a_cycle_through_its_root_reads_one_old_value():
    table, _ = _cycle(_STAY, _EXITS, [False, True, False, False, True])
    _, others = sweep._slope_sweep(np.full(5, 0.5), np.empty(5), table, 0, 5)
    assert not others


def test_a_second_back_edge_reads_two():
    # 0 -> 1 -> 2 -> 0 and 2 -> 1, each with chance 1/2, else the game ends: position 2
    # reads 1, which comes after it in the sweep and before the root.
    roll_ptr = np.array([0, 2, 4, 6], np.int64)
    roll_prob = np.full(6, 0.5)
    roll_const = np.array([-1.0, 0.1, -1.0, 0.2, -1.0, 0.3])
    move_ptr = np.array([0, 1, 1, 2, 2, 4, 4], np.int64)
    move_code = np.array([2, 4, 0, 2], np.int32)
    order, comp_ptr = components(roll_ptr, move_ptr, move_code)
    assert len(comp_ptr) == 2 and order[-1] == 0
    table = slot_table(order, roll_ptr, roll_prob, roll_const, move_ptr, move_code, 0.0, None)
    _, others = sweep._slope_sweep(np.full(3, 0.5), np.empty(3), table, 0, 3)
    assert others
    # Newton's step does not apply: the values go on from the first sweep by the
    # geometric tail.
    v = np.full(3, 0.5)
    count = sweep._newton_values(v, table, 0, 3, 1e-14, 1000, np.empty(3))
    w = np.full(3, 0.5)
    sweep._value_sweep(w, table, 0, 3)
    assert count == 1 + sweep._values(w, table, 0, 3, 1e-14, 999, np.empty(3), None)
    assert (v == w).all()


def test_a_slope_sweep_carries_the_derivative_by_the_root():
    flips = [False, True, False, False, True]
    table, value = _cycle(_STAY, _EXITS, flips)
    v = np.full(5, 0.5)
    dv = np.empty(5)
    plain = v.copy()
    change, _ = sweep._slope_sweep(v, dv, table, 0, 5)
    assert change == sweep._value_sweep(plain, table, 0, 5)[0] and (v == plain).all()
    # Around the cycle the root's old value reaches it through every stay, each flip a
    # factor -1.
    factors = [-p if f else p for p, f in zip(_STAY, flips, strict=True)]
    assert dv[-1] == pytest.approx(np.prod(factors))


def test_newton_lands_on_the_fixed_point_of_an_affine_sweep():
    # Plain sweeps shrink the error by 0.9 * 0.95 * 0.8 * 0.99 * 0.9 = 0.61 a sweep: some
    # 70 to 1e-14, and the extrapolation of their geometric tail needs three sweeps for a
    # steady ratio, then one to see the values settled. One sweep gives the slope of the
    # affine map, its step lands on the fixed point (up to rounding), and a second sweep
    # finds nothing left to change.
    for flips in ([False] * 5, [False, True, False, False, False], [True] * 5):
        table, value = _cycle(_STAY, _EXITS, flips)
        v = np.full(5, 0.5)
        assert sweep._newton_values(v, table, 0, 5, 1e-14, 1000, np.empty(5)) == 2
        assert np.abs(v - value).max() <= 1e-14
        v = np.full(5, 0.5)
        assert sweep._values(v, table, 0, 5, 1e-14, 1000, np.empty(5), None) >= 5


def _with_a_choice():
    """The cycle of five positions where position 2 may also stop at 0.5 instead of
    moving on: a maximum whose choice from the start of 1/2 (moving on) is not the one at
    the fixed point, so the sweep is affine by pieces. Returns the table, the slot of
    the position it moves on to, and the values by slot (plain sweeps, to the end)."""
    table, _ = _cycle(_STAY, _EXITS, [False] * 5)
    lin_ptr, lin_prob, lin_code, roll_ptr, roll_prob, roll_const, eps, move_ptr, move_code = table
    slot = 2  # the order is 4, 3, 2, 1, 0: position 2 in slot 2
    assert lin_ptr[slot + 1] - lin_ptr[slot] == 1  # its move on is a linear outcome
    # The same table with that outcome as a maximum over the move on and a stop at 0.5.
    k = lin_ptr[slot]
    new_lin_ptr = lin_ptr.copy()
    new_lin_ptr[slot + 1 :] -= 1
    new_lin_prob = np.delete(lin_prob, k)
    new_lin_code = np.delete(lin_code, k)
    r = roll_ptr[slot]
    new_roll_ptr = roll_ptr.copy()
    new_roll_ptr[slot + 1 :] += 1
    new_roll_prob = np.insert(roll_prob, r, lin_prob[k])
    new_roll_const = np.insert(roll_const, r, 0.5)
    m = move_ptr[r]
    new_move_ptr = np.insert(move_ptr, r + 1, m + 1)
    new_move_ptr[r + 2 :] += 1
    new_move_code = np.insert(move_code, m, lin_code[k])
    table = (
        new_lin_ptr, new_lin_prob, new_lin_code, new_roll_ptr, new_roll_prob,
        new_roll_const, eps, new_move_ptr, new_move_code,
    )  # fmt: skip
    value = np.full(5, 0.5)
    for _ in range(2000):
        sweep._value_sweep(value, table, 0, 5)
    return table, slot - 1, value


def test_newton_follows_a_choice_that_changes():
    table, on, value = _with_a_choice()
    v = np.full(5, 0.5)
    moving_on = v.copy()
    sweep._value_sweep(moving_on, table, 0, 5)
    assert moving_on[on] > 0.5 > value[on]  # the choice changes
    count = sweep._newton_values(v, table, 0, 5, 1e-14, 1000, np.empty(5))
    assert 2 < count <= 4
    assert np.abs(v - value).max() <= 1e-14


def test_the_start_of_the_root_is_a_guess_only():
    # From the root's value the first step lands on the fixed point; from a start whose
    # sweep makes another choice (1/2, 1) it takes more sweeps; the box certifies the
    # same values either way.
    table, _, value = _with_a_choice()
    counts = []
    for start in (value[-1], 0.0, 1.0, -1.0):  # -1: no guess, 1/2
        lo, hi = np.zeros(5), np.ones(5)
        counts.append(sweep._boxed(lo, hi, table, 0, 5, 1e-12, 1000, np.empty(5), None, start))
        assert (lo <= value + 1e-15).all() and (value - 1e-15 <= hi).all()
        assert (hi - lo).max() <= 1e-12
    assert counts[0] == 3 and counts[2] > 3 and counts[3] > 3


def test_the_box_around_the_newton_values_certifies_them():
    table, value = _cycle(_STAY, _EXITS, [False, True, False, False, True])
    lo, hi = np.zeros(5), np.ones(5)
    count = sweep._boxed(lo, hi, table, 0, 5, 1e-12, 1000, np.empty(5), None)
    assert count == 3  # two sweeps of values, one check of the box
    assert (lo <= value).all() and (value <= hi).all() and (hi - lo).max() <= 1e-12
