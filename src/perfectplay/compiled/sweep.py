"""Certified in-place sweeps over one layer's successor table.

The value of a position for the mover is ``V(s) = sum_r P(r) max_m v_m`` where a move
that keeps the mover gives ``V(t)`` and one that hands the dice over gives ``1 - V(t)``.
Because of that ``1 - V`` the operator is not monotone in ``V`` alone, but it is in the
pair of bounds ``(L, U)``:

    L(s) <- sum_r P(r) max_m (flip ? 1 - U(t) : L(t)),
    U(s) <- sum_r P(r) max_m (flip ? 1 - L(t) : U(t)).

Started from ``L = 0`` and ``U = 1``, the least and greatest values a position can have,
every update keeps ``L <= V* <= U`` for *every* fixed point ``V*`` (induction: each
update applies a monotone map to bounds), so the two meet only when the value is
certain, and their gap is the error bound reported. The updates are in place
(Gauss-Seidel) and run in parallel over chunks of the layer; that is sound because any
order of such updates keeps the invariant (a chunk may read a neighbour's older bound,
which is still a bound). A layer whose play can go on for ever with some probability
under some pair of strategies has several fixed points: its gap stops shrinking and the
solver says so instead of stopping early. (An outcome with one move within the layer
and no move out of it, such as every throw of Pig's die, is kept apart as *linear*,
:func:`perfectplay.compiled.components.slot_layout`: its term is that move's bound,
the maximum over one move, written without the maximum.)

**Components.** A layer is solved one strongly connected component at a time
(:mod:`perfectplay.compiled.components`), in reverse topological order: every move of a
component's positions stays in it or reaches a component already solved (or a finished
layer). Sweeping one component while the others stand still is one particular order of
the updates above, so the invariant holds whatever the order; the order only makes it
fast: a component's moves out of it read bounds that are already as tight as they will
get, so it converges as fast as its own cycles allow, and a position on no cycle (a
component of one, without a move to itself) is solved in one update. Within a
component the sweeps run forward in the order its depth-first search finished, so one
sweep carries values along the whole tree of the search. A component is done when its
largest gap is within ``target``; one whose gap stops shrinking is accepted when the
gap is within ``accept`` (what the layer promises), else the layer does not contract.

**Values first, then a certified box.** Where the component provably ends (below), its
fixed point is unique, and the solver need not carry two bounds down from ``0`` and
``1``: it iterates plain values ``v`` (one number a position, half the memory traffic)
with in-place sweeps, accelerated by extrapolating their geometric tail (Aitken: ``v +
(v - v_prev) * rho / (1 - rho)``, ``rho`` the steady shrink factor of the changes,
signed: where the errors alternate, through a flip, so does the step; or by Newton's
step, below), which proves nothing and need not. It starts from ``1/2`` everywhere (but
at the root of a serial component, below), with no bound sweep first: its first sweep in
the search's finishing order is as good a start. Then it *checks* the box ``B = [v - d,
v + d]`` (``d`` half the target gap, first): one bound update of every position in
order, from ``B``, must land inside the position's own interval. If so, the sweep ``G``
(a continuous map, with the exits' true values anywhere in their proven bounds, by
monotony) maps ``B`` into itself, so it has a fixed point in ``B`` (Brouwer), which is
the value of the game (the only fixed point), and it lies in the updated box too: those
are proven bounds, tightened further by ordinary bound sweeps where needed. A box that
fails is made wider (the target on each side, then four times that), widened to hold
what the check found and checked again, a few times; if it still fails the component
starts over from ``0`` and ``1`` with bound sweeps alone (the box never replaces proven
bounds unchecked). A box the target wide that passes leaves the component done: on Pig
to 100 every one passes, where a box twice as wide left four to nine bound sweeps
closing the gap onto what the exits force.

**Newton's step where a sweep reads one old value.** In the search's finishing order a
position's moves within its component go to positions before it, updated already in the
sweep, or back to positions the search had open; where every such move goes to one
position, the root (the last slot: on Pig, a component is a score pair and its only way
back is a bust to the root), one sweep is a function of the root's old value alone:
``G(v) = A * v[root] + c`` while the maxima keep their choices. The sweep then also
carries the derivative of each new value by that old value (:func:`_slope_sweep`, which
also finds whether the sweep read another old value): ``A``, whose last entry ``rho`` is
the slope of the root's new value by its old one, and the values step to ``G(v) + A *
(G(v)[root] - v[root]) / (1 - rho)``, where the root's new value would equal its old:
the fixed point itself, exactly (up to rounding), when the choices there are those of
the sweep. Where they are not, the sweep is affine by pieces and the steps reach the
piece of the fixed point within a few sweeps (Newton's method on a function affine by
pieces). Only the root's start matters to the first sweep (the other positions are
updated before they are read), and it starts on the line through the values of the roots
of the two components solved before it (:func:`solve_run`; their score pairs are
neighbours on Pig), not at ``1/2``. A component takes 3 to 6 updates a position on Pig
to 100 (3.2 on average, one of them the check of the box: 85% of the positions take 3,
two sweeps of values and the check), where the extrapolation of the geometric tail took
6 to 12 (9.0 on average) and bound sweeps from ``0`` and ``1`` take 15 to 80 (33 on
average); a sweep of values carries one number a position (and its derivative) instead
of two bounds. A component read back at several positions (most of the Royal Game of
Ur's; its first sweep finds it) extrapolates the geometric tail as above from that
sweep on, and so does one swept in parallel (whose chunks read each other's old values)
from the start.

Uniqueness: a component *provably ends* when no set ``S`` of its positions lets the
players (both choosing for that purpose) stay in ``S`` for ever, that is when the
largest ``S`` in which every outcome of every position has a move into ``S`` is empty
(:func:`_ends`, computed by removing positions until none is left, or the component is
not extrapolated). Then from every position, whatever the moves, play leaves the
component within ``N`` turns (its size) with probability at least ``p^N`` (``p`` the
least outcome probability), so ``N`` updates shrink the distance of any two solutions
by ``1 - p^N < 1``: the fixed point is unique. Pig and the Royal Game of Ur end in this
sense in every component. A component that does not provably end is solved by bound
sweeps from ``0`` and ``1`` alone, whose gap then also shows whether its value is unique.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit, prange

from perfectplay.compiled.prefetch import prefetch_item

__all__ = [
    "BIG_COMPONENT",
    "BUSY",
    "MAXED",
    "OK",
    "STALLED",
    "solve_big",
    "solve_components",
    "solve_run",
]

#: How a component ended: certified, out of sweeps, or its gap stopped shrinking.
OK, MAXED, STALLED = 0, 1, 2
#: What a run of small layers on two threads stopped for (the kernels' ``solve_layers``):
#: the machine is too busy for them; the layers left go on in one thread.
BUSY = 3

#: A component this large is swept in parallel (smaller ones run one after the other in
#: one serial call: waking the threads costs more than their sweep).
BIG_COMPONENT = 50_000

# Extrapolate values only when their changes shrink by a factor below this, steady to
# 0.01 and to this share of what is left below 1 (a factor near 1 must be known
# closely: the step is rho / (1 - rho) times the last change), and at most once in this
# many sweeps.
_RHO_MAX = 0.9995
_RHO_STEADY = 0.1
_RHO_EVERY = 3
# Values are converged for the box check when a sweep changes none by more than this
# share of the target; a box is checked (and widened where it failed) this many times,
# then boxes this many times wider, in turn.
_SETTLED = 0.01
_CHECKS = 4
_BOXES = 2
# A sweep asks for the bounds (or values) that the moves of the position this many
# slots ahead name, while it updates this one (:mod:`perfectplay.compiled.prefetch`):
# the reads of a big layer miss the caches, and overlapping them made a sweep of the
# Royal Game of Ur 1.7 times as fast (2 to 16 ahead measured; 4 was best).
_AHEAD = 4
# ... but only in a layer this large: the bounds of a smaller one stay in the caches,
# and the hint rereads each row's moves for nothing (a third of the time of a sweep of
# Pig's layers). A small component of a large layer still asks: its moves out of it
# read the bounds of other components anywhere in the layer.
_FETCH_FROM = 1 << 14


# The sweeps index their tables by unsigned integers (slots, pointers and move codes are
# never negative): numba wraps a negative signed index around from the array's end, a
# test and a select on every read, and without them a Pig 100 solve's sweeps took a
# quarter less time (paired runs). The arithmetic is the same, so are the values.
_U1 = np.uint64(1)


@njit(cache=True)
def _fetch_until(n: int, a: int, b: int) -> int:
    """The first slot of ``a .. b - 1`` whose sweep asks for nothing ahead, in a layer of
    ``n`` positions (:data:`_AHEAD`, :data:`_FETCH_FROM`)."""
    return b - _AHEAD if n >= _FETCH_FROM else a


@njit(cache=True, inline="always")
def _fetch(x: Any, table: Any, q: int) -> None:
    """Ask for the entries of ``x`` that the moves of row ``q`` name (a hint)."""
    lin_ptr, _, lin_code, roll_ptr, _, _, _, move_ptr, move_code = table
    for j in range(lin_ptr[q], lin_ptr[q + 1]):
        prefetch_item(x, lin_code[j] >> 1)
    for j in range(move_ptr[roll_ptr[q]], move_ptr[roll_ptr[q + 1]]):
        prefetch_item(x, move_code[j] >> 1)


@njit(cache=True, inline="always")
def _bounds(lo: Any, hi: Any, table: Any, i: int) -> Any:
    """The bounds of position ``i`` that one update gives, ``(low, high)``, unwritten.
    ``table`` is the layer's successor table in slot order ``(lin_ptr, lin_prob,
    lin_code, roll_ptr, roll_prob, roll_const, eps, move_ptr, move_code)``
    (:func:`perfectplay.compiled.components.slot_table`): first the row's linear
    outcomes (one move within the layer, no exit: a probability and a move each), then
    its others, where ``roll_const`` is the best value of an outcome's moves that leave
    the layer (-1: none), known to ``eps``; a move within the layer is ``2 * index +
    flip``. A linear outcome is the same term as an outcome of one move and no exit,
    without the maximum."""
    lin_ptr, lin_prob, lin_code, roll_ptr, roll_prob, roll_const, eps, move_ptr, move_code = table
    low = 0.0
    high = 0.0
    one = _U1
    u = np.uint64(i)
    for j in range(np.uint64(lin_ptr[u]), np.uint64(lin_ptr[u + one])):
        code = np.uint64(lin_code[j])
        t = code >> one
        w = lin_prob[j]
        if code & one:
            low += w * (1.0 - hi[t])
            high += w * (1.0 - lo[t])
        else:
            low += w * lo[t]
            high += w * hi[t]
    for r in range(np.uint64(roll_ptr[u]), np.uint64(roll_ptr[u + one])):
        k = roll_const[r]
        bl = -1.0
        bh = -1.0
        if k >= 0.0:
            bl = max(k - eps, 0.0)
            bh = min(k + eps, 1.0)
        for j in range(np.uint64(move_ptr[r]), np.uint64(move_ptr[r + one])):
            code = np.uint64(move_code[j])
            t = code >> one
            if code & one:
                vl = 1.0 - hi[t]
                vh = 1.0 - lo[t]
            else:
                vl = lo[t]
                vh = hi[t]
            if vl > bl:
                bl = vl
            if vh > bh:
                bh = vh
        low += roll_prob[r] * bl
        high += roll_prob[r] * bh
    return low, high


@njit(cache=True, inline="always")
def _update(lo: Any, hi: Any, table: Any, i: int) -> Any:
    """Update both bounds of the position in slot ``i`` in place; returns its gap."""
    low, high = _bounds(lo, hi, table, i)
    # Two bounds of one value: keep the better of the old and the new (rounding could
    # otherwise step a bound back by an ulp).
    if low > lo[i]:
        lo[i] = low
    if high < hi[i]:
        hi[i] = high
    return hi[i] - lo[i]


@njit(cache=True)
def _sweep(lo: Any, hi: Any, table: Any, a: int, b: int) -> float:
    """Update the positions in slots ``a .. b - 1`` in order; returns the largest gap
    after."""
    g = 0.0
    ahead = _fetch_until(len(lo), a, b)
    for q in range(a, b):
        if q < ahead:
            _fetch(lo, table, q + _AHEAD)
            _fetch(hi, table, q + _AHEAD)
        g = max(g, _update(lo, hi, table, q))
    return g


@njit(cache=True, parallel=True)
def _sweep_par(lo: Any, hi: Any, table: Any, a: int, b: int) -> float:
    """:func:`_sweep` over 64 chunks of the slots at once, each chunk in order (sound in
    any order: module docstring)."""
    chunks = 64
    n = b - a
    gaps = np.zeros(chunks)
    for c in prange(chunks):
        gaps[c] = _sweep(lo, hi, table, a + c * n // chunks, a + (c + 1) * n // chunks)
    return float(gaps.max())


@njit(cache=True)
def _judge(g: float, target: float, accept: float, best: Any, count: int, most: int) -> int:
    """After ``count`` sweeps of a component with gap ``g``: -1 to go on, else how it
    ended. ``best`` holds ``[smallest gap so far, sweeps since, stall limit]``."""
    if g <= target:
        return OK
    if g < best[0] * (1.0 - 1e-9):
        best[0] = g
        best[1] = 0.0
    else:
        best[1] += 1.0
        if best[1] >= best[2]:
            return OK if g <= accept else STALLED
    if count >= most:
        return MAXED
    return -1


@njit(cache=True)
def _ends(table: Any, a: int, b: int, inside: Any) -> bool:
    """Whether the component in slots ``a .. b - 1`` provably ends (module docstring): removes
    positions with an outcome whose moves all leave the positions left, in passes (in
    the search's finishing order most go in the first), up to 64 passes (then it is not
    proven)."""
    lin_ptr, _, lin_code, roll_ptr, _, _, _, move_ptr, move_code = table
    one = _U1
    ua = np.uint64(a)
    n = np.uint64(b - a)
    for q in range(a, b):
        inside[q] = True
    left = b - a
    for _ in range(64):
        removed = False
        for q in range(a, b):
            u = np.uint64(q)
            if not inside[u]:
                continue
            for j in range(np.uint64(lin_ptr[u]), np.uint64(lin_ptr[u + one])):
                t = np.uint64(lin_code[j]) >> one
                if not (t - ua < n and inside[t]):  # below ``a`` wraps around
                    inside[u] = False
                    removed = True
                    left -= 1
                    break
            if not inside[u]:
                continue
            for r in range(np.uint64(roll_ptr[u]), np.uint64(roll_ptr[u + one])):
                stays = False
                for j in range(np.uint64(move_ptr[r]), np.uint64(move_ptr[r + one])):
                    t = np.uint64(move_code[j]) >> one
                    if t - ua < n and inside[t]:
                        stays = True
                        break
                if not stays:
                    inside[u] = False
                    removed = True
                    left -= 1
                    break
        if left == 0 or not removed:
            break
    for q in range(a, b):
        inside[q] = False
    return left == 0


@njit(cache=True, inline="always")
def _value(v: Any, table: Any, i: int) -> float:
    """One update of the plain value of the position whose moves are row ``i`` (the
    exits at their midpoint ``roll_const``; see :func:`_bounds`)."""
    lin_ptr, lin_prob, lin_code, roll_ptr, roll_prob, roll_const, _, move_ptr, move_code = table
    total = 0.0
    one = _U1
    u = np.uint64(i)
    for j in range(np.uint64(lin_ptr[u]), np.uint64(lin_ptr[u + one])):
        code = np.uint64(lin_code[j])
        x = v[code >> one]
        if code & one:
            x = 1.0 - x
        total += lin_prob[j] * x
    for r in range(np.uint64(roll_ptr[u]), np.uint64(roll_ptr[u + one])):
        best = roll_const[r]
        for j in range(np.uint64(move_ptr[r]), np.uint64(move_ptr[r + one])):
            code = np.uint64(move_code[j])
            x = v[code >> one]
            if code & one:
                x = 1.0 - x
            if x > best:
                best = x
        total += roll_prob[r] * best
    return total


@njit(cache=True)
def _value_sweep(v: Any, table: Any, a: int, b: int) -> Any:
    """Update the values of slots ``a .. b - 1`` in order; returns the largest change
    (signed) and the slot that had it."""
    d = 0.0
    at = a
    ahead = _fetch_until(len(v), a, b)
    for q in range(a, b):
        if q < ahead:
            _fetch(v, table, q + _AHEAD)
        x = _value(v, table, q)
        if abs(x - v[q]) > abs(d):
            d = x - v[q]
            at = q
        v[q] = x
    return d, at


@njit(cache=True, parallel=True)
def _value_sweep_par(v: Any, table: Any, a: int, b: int) -> Any:
    """:func:`_value_sweep` over 64 chunks at once (values prove nothing: any order)."""
    chunks = 64
    n = b - a
    ds = np.zeros(chunks)
    ats = np.zeros(chunks, np.int64)
    for c in prange(chunks):
        ds[c], ats[c] = _value_sweep(v, table, a + c * n // chunks, a + (c + 1) * n // chunks)
    best = int(np.abs(ds).argmax())
    return float(ds[best]), int(ats[best])


# The state of an iteration of values for :func:`_progress`: the smallest change so far,
# the sweeps since it shrank, the change of the sweep before the last step (0: none to
# judge) and whether steps may still be taken (1.0) or not (0.0).
_BEST, _SINCE, _BEFORE, _STEPS = 0, 1, 2, 3


@njit(cache=True)
def _progress(d: float, count: int, settled: float, track: Any) -> int:
    """The stop rule of :func:`_values` and :func:`_newton_values`, after sweep ``count``
    changed no value by more than ``d``: ``count`` when the values settled, ``-count``
    when the change stopped shrinking (by 0.1% in 50 sweeps), else 0 to go on. A step
    (an extrapolation) after which a sweep changes more than the one before it was the
    last (``track``, see above)."""
    if d <= settled:
        return count
    if d < track[_BEST] * 0.999:
        track[_BEST] = d
        track[_SINCE] = 0.0
    else:
        track[_SINCE] += 1.0
        if track[_SINCE] > 50.0:
            return -count
    if track[_BEFORE] > 0.0:
        track[_STEPS] = 1.0 if d < track[_BEFORE] else 0.0
        track[_BEFORE] = 0.0
    return 0


@njit(cache=True)
def _track() -> Any:
    """A fresh state for :func:`_progress`."""
    track = np.zeros(4)
    track[_BEST] = np.inf
    track[_STEPS] = 1.0
    return track


@njit(cache=True)
def _values(
    v: Any, table: Any, a: int, b: int, settled: float, most: int, prev: Any, parallel: Any
) -> int:
    """Iterate the plain values ``v`` of slots ``a .. b - 1`` until a sweep changes none
    by more than ``settled``, extrapolating their tail (module docstring); returns the
    sweeps, or ``-sweeps`` when they did not settle within ``most`` (or stopped
    shrinking). The shrink factor ``rho`` is signed: the change of the position that
    changed most in one sweep, against its change in the sweep after. Where a flip turns
    ``v`` into ``1 - v`` (a position that reaches itself through the other player's
    turn) the errors alternate in sign, ``rho`` is negative and the step goes the other
    way. An extrapolation after which a sweep changes more than the one before it was
    the last."""
    last = 1.0
    at = a  # the slot that changed most in the last sweep, by ``last_at``
    last_at = 0.0
    rho_last = 2.0
    rho_used = 2.0  # the factor of the last extrapolation
    wait = 0
    track = _track()
    for count in range(1, most + 1):
        if track[_STEPS] and wait <= 1:  # an extrapolation may follow this sweep
            for q in range(a, b):
                prev[q - a] = v[q]
        before_at = v[at]
        if parallel is not None:
            signed, top = _value_sweep_par(v, table, a, b)
        else:
            signed, top = _value_sweep(v, table, a, b)
        d = abs(signed)
        done = _progress(d, count, settled, track)
        if done:
            return done
        rho = d / last
        if (v[at] - before_at) * last_at < 0.0:
            rho = -rho
        at, last_at = top, signed
        wait -= 1
        # Steady: the same factor twice running, or once the factor of the last
        # extrapolation (the same tail: one ratio confirms it).
        near = min(0.01, _RHO_STEADY * (1.0 - rho))
        steady = abs(rho - rho_last) < near or abs(rho - rho_used) < near
        if track[_STEPS] and wait <= 0 and count >= 3 and rho < _RHO_MAX and steady:
            track[_BEFORE] = d
            rho_used = rho
            f = rho / (1.0 - rho)
            for q in range(a, b):
                v[q] = min(max(v[q] + (v[q] - prev[q - a]) * f, 0.0), 1.0)
            wait = _RHO_EVERY
            # the next ratio straddles the jump: skip it
            last, rho_last = 1.0, 2.0
            continue
        last, rho_last = d, rho
    return -most


@njit(cache=True)
def _slope_sweep(v: Any, dv: Any, table: Any, a: int, b: int) -> Any:
    """:func:`_value_sweep` of slots ``a .. b - 1``, carrying the derivative of each
    new value by the old value of the root (the last slot) in ``dv`` (a float per slot
    of the component: where the sweep reads no other old value, the slope of its affine
    piece, the choices of the maxima held); returns the largest change (signed) and
    whether the sweep read the old value of another slot of the component."""
    lin_ptr, lin_prob, lin_code, roll_ptr, roll_prob, roll_const, _, move_ptr, move_code = table
    one = _U1
    ua = np.uint64(a)
    n = np.uint64(b - a)
    root = np.uint64(b - 1)
    others = False
    dv[b - a - 1] = 1.0  # the root's old value, by itself
    d = 0.0
    ahead = _fetch_until(len(v), a, b)
    for q in range(a, b):
        if q < ahead:
            _fetch(v, table, q + _AHEAD)
        u = np.uint64(q)
        total = 0.0
        slope = 0.0
        for j in range(np.uint64(lin_ptr[u]), np.uint64(lin_ptr[u + one])):
            code = np.uint64(lin_code[j])
            t = code >> one
            x = v[t]
            dx = 0.0
            if t - ua < n:  # within the component (a slot below ``a`` wraps around)
                dx = dv[t - ua]
                if u <= t < root:
                    others = True
            if code & one:
                x = 1.0 - x
                dx = -dx
            total += lin_prob[j] * x
            slope += lin_prob[j] * dx
        for r in range(np.uint64(roll_ptr[u]), np.uint64(roll_ptr[u + one])):
            best = roll_const[r]
            dbest = 0.0
            for j in range(np.uint64(move_ptr[r]), np.uint64(move_ptr[r + one])):
                code = np.uint64(move_code[j])
                t = code >> one
                x = v[t]
                if code & one:
                    x = 1.0 - x
                within = t - ua < n
                if within and u <= t < root:
                    others = True
                if x > best:
                    best = x
                    dbest = 0.0
                    if within:
                        dbest = -dv[t - ua] if code & one else dv[t - ua]
            total += roll_prob[r] * best
            slope += roll_prob[r] * dbest
        if abs(total - v[q]) > abs(d):
            d = total - v[q]
        v[q] = total
        dv[q - a] = slope
    return d, others


@njit(cache=True)
def _newton_values(v: Any, table: Any, a: int, b: int, settled: float, most: int, dv: Any) -> int:
    """:func:`_values` by Newton's step (module docstring), where the sweep of slots
    ``a .. b - 1`` reads no old value but the root's (the last slot): each sweep also
    gives the derivative ``dv`` of every new value by the root's old one, and the values
    step along it to where the root's new value would equal its old. Where the first
    sweep read another old value, :func:`_values` goes on from it. Returns the sweeps,
    or ``-sweeps`` when they did not settle within ``most`` (or stopped shrinking);
    ``dv`` is a float per slot of the component. A step after which a sweep changes
    more than the one before it was the last."""
    r = b - 1
    track = _track()
    for count in range(1, most + 1):
        yr = v[r]
        signed, others = _slope_sweep(v, dv, table, a, b)
        if others:  # not one old value: the geometric tail, from this sweep on
            more = _values(v, table, a, b, settled, most - 1, dv, None)
            return more + 1 if more > 0 else more - 1
        d = abs(signed)
        done = _progress(d, count, settled, track)
        if done:
            return done
        rho = dv[r - a]  # the root's new value by its old one, signed (a flip: negative)
        if track[_STEPS] and -_RHO_MAX < rho < _RHO_MAX:
            step = (v[r] - yr) / (1.0 - rho)  # the root's fixed point less its old value
            track[_BEFORE] = d
            for q in range(a, b):
                v[q] = min(max(v[q] + dv[q - a] * step, 0.0), 1.0)
    return -most


@njit(cache=True)
def _check_box(lo: Any, hi: Any, table: Any, a: int, b: int) -> bool:
    """One bound update of slots ``a .. b - 1`` in order from the box in ``lo``, ``hi``
    (module docstring): whether every update lands inside its own interval, which it
    then replaces; where one does not, the interval is widened to hold the update and
    as much again beyond (the next box to check)."""
    ok = True
    ahead = _fetch_until(len(lo), a, b)
    for q in range(a, b):
        if q < ahead:
            _fetch(lo, table, q + _AHEAD)
            _fetch(hi, table, q + _AHEAD)
        low, high = _bounds(lo, hi, table, q)
        if low >= lo[q] and high <= hi[q]:
            lo[q], hi[q] = low, high
        else:
            ok = False
            dl = max(lo[q] - low, 0.0)
            dh = max(high - hi[q], 0.0)
            lo[q] = max(min(lo[q], low) - dl, 0.0)
            hi[q] = min(max(hi[q], high) + dh, 1.0)
    return ok


@njit(cache=True)
def _boxed(
    lo: Any,
    hi: Any,
    table: Any,
    a: int,
    b: int,
    target: float,
    most: int,
    prev: Any,
    parallel: Any,
    start: float = -1.0,
) -> int:
    """Values, then a checked box (module docstring): proven bounds of slots ``a .. b -
    1`` in ``lo``, ``hi`` and the sweeps it took, or ``-sweeps`` with the component back
    at ``0`` and ``1`` when no box passed. The first box is the target wide, checked
    once: when it passes, the component is done (on Pig it does, every time, where a
    wider box left four to nine bound sweeps to close the gap down to the target, the
    bounds of the exits taking most of it). When it fails, the box is as wide as the
    target on each side, then four times that (a box hardly wider than what the exits
    force can fail on rounding). The values of a serial component take Newton's steps
    where they can (:func:`_newton_values`), the root starting at ``start`` where that
    is a value (else at ``1/2``)."""
    for q in range(a, b):
        lo[q] = 0.5 * (lo[q] + hi[q])  # lo holds the values while they are iterated
    settled = _SETTLED * target
    if parallel is None:
        if start >= 0.0:
            # Where Newton's steps apply, only the root's start matters to the first
            # sweep (it alone is read before it is updated): the value of a similar
            # position is a better guess than 1/2.
            lo[b - 1] = start
        count = _newton_values(lo, table, a, b, settled, most, prev)
    else:
        count = _values(lo, table, a, b, settled, most, prev, parallel)
    if count > 0:
        for q in range(a, b):
            prev[q - a] = lo[q]
        # The narrow box only where a check that fails is cheap: a big component's
        # check is a serial sweep of both bounds, and on the Royal Game of Ur the
        # narrow box fails.
        wide = parallel is not None
        half = target if wide else 0.5 * target
        checks = _CHECKS if wide else 1
        for _ in range(_BOXES if wide else _BOXES + 1):
            for q in range(a, b):
                lo[q] = max(prev[q - a] - half, 0.0)
                hi[q] = min(prev[q - a] + half, 1.0)
            for _ in range(checks):
                count += 1
                if _check_box(lo, hi, table, a, b):
                    return count
            half = target if checks == 1 else 4.0 * half
            checks = _CHECKS
    for q in range(a, b):
        lo[q] = 0.0
        hi[q] = 1.0
    return -abs(count)


@njit(cache=True)
def _solve_component(
    lo: Any,
    hi: Any,
    table: Any,
    a: int,
    b: int,
    limits: Any,
    inside: Any,
    prev: Any,
    parallel: Any,
    start: float = -1.0,
) -> Any:
    """Solve the component in slots ``a .. b - 1`` until its gap is within the target:
    where the component provably ends, values and a checked box first, then bound sweeps
    until the gap is within the target (one, on a position on no cycle) (module
    docstring); returns ``(status, sweeps)``. ``inside`` is a
    False flag per slot, ``prev`` a float per slot of the component, ``start`` a guess
    at the root's value for Newton's steps (-1: none, :func:`_boxed`); the sweeps run over
    chunks at once unless ``parallel`` is ``None`` (the box check is one serial sweep:
    its proof is about one map, the sweep in order). ``None`` also keeps the threads'
    sweeps out of the compiled code (numba drops a branch on an argument's being
    ``None`` before it compiles): :func:`solve_run` never needs them."""
    target, accept, stall, most = limits
    best = np.array([np.inf, 0.0, stall])
    count = 0
    if b - a > 1 and _ends(table, a, b, inside):
        # Straight to values: a first bound sweep would only start them off (one value
        # sweep does that for half the work).
        more = _boxed(lo, hi, table, a, b, target, int(most), prev, parallel, start)
        count = abs(more)
        if more > 0:  # the checked box may be within the target already
            g = 0.0
            for q in range(a, b):
                g = max(g, hi[q] - lo[q])
            status = _judge(g, target, accept, best, count, int(most))
            if status >= 0:
                return status, count
    while True:
        if parallel is not None:
            g = _sweep_par(lo, hi, table, a, b)
        else:
            g = _sweep(lo, hi, table, a, b)
        count += 1
        status = _judge(g, target, accept, best, count, int(most))
        if status >= 0:
            return status, count


@njit(cache=True)
def solve_run(lo: Any, hi: Any, table: Any, comp_ptr: Any, c0: int, c1: int, limits: Any) -> Any:
    """Solve components ``c0 .. c1 - 1`` one after the other, serially (see the module
    docstring). Component ``c`` holds slots ``comp_ptr[c] .. comp_ptr[c + 1] - 1``, the
    bounds ``lo``, ``hi`` are per slot, the moves of slot ``q`` are row ``q`` of
    the table and name their targets by slot; ``limits`` is ``(target, accept, stall,
    most)``. Returns ``(status, component, most sweeps of one, position updates, largest
    gap)``; a status other than :data:`OK` stops at the component that had it."""
    inside = np.zeros(len(lo), np.bool_)
    size = 1
    for c in range(c0, c1):
        size = max(size, comp_ptr[c + 1] - comp_ptr[c])
    prev = np.empty(size)
    most_sweeps = 0
    updates = 0
    worst = 0.0
    # The values of the roots of the last two components of several positions (-1: none
    # yet), and the guess at the next one's: on from them in a line (module docstring).
    root0 = root1 = start = -1.0
    for c in range(c0, c1):
        a = comp_ptr[c]
        b = comp_ptr[c + 1]
        status, count = _solve_component(lo, hi, table, a, b, limits, inside, prev, None, start)
        if b - a > 1:
            root0, root1 = root1, 0.5 * (lo[b - 1] + hi[b - 1])
            start = root1 if root0 < 0.0 else min(max(2.0 * root1 - root0, 0.0), 1.0)
        updates += count * (b - a)
        most_sweeps = max(most_sweeps, count)
        if status != OK:
            for q in range(a, b):
                worst = max(worst, hi[q] - lo[q])
            return status, c, most_sweeps, updates, worst
    return OK, c1, most_sweeps, updates, worst


@njit(cache=True, parallel=True)
def solve_big(lo: Any, hi: Any, table: Any, a: int, b: int, limits: Any) -> Any:
    """Solve the one large component in slots ``a .. b - 1`` as :func:`solve_run` solves a
    small one, each sweep in parallel over chunks of it (each chunk in order); returns
    ``(status, sweeps, largest gap, position updates)``."""
    n = b - a
    inside = np.zeros(len(lo), np.bool_)
    prev = np.empty(n)
    status, count = _solve_component(lo, hi, table, a, b, limits, inside, prev, True)
    g = 0.0
    for q in range(a, b):
        g = max(g, hi[q] - lo[q])
    return status, count, g, count * n


@njit(cache=True, parallel=True)
def solve_components(lo: Any, hi: Any, table: Any, comp_ptr: Any, limits: Any) -> Any:
    """Solve every component of a layer (``comp_ptr``, as :func:`solve_run` reads it) in
    reverse topological order: each run of components smaller than
    :data:`BIG_COMPONENT` in one :func:`solve_run`, each larger one by
    :func:`solve_big`. Returns ``(status, component, most sweeps of one, position
    updates, gap)``: a status other than :data:`OK` stops at the component that had it,
    ``gap`` its largest (else 0)."""
    n_comp = len(comp_ptr) - 1
    most = 0
    updates = 0
    c = 0
    while c < n_comp:
        if comp_ptr[c + 1] - comp_ptr[c] >= BIG_COMPONENT:
            status, sweeps, g, up = solve_big(lo, hi, table, comp_ptr[c], comp_ptr[c + 1], limits)
            at = c + 1 if status == OK else c
        else:
            stop = c
            while stop < n_comp and comp_ptr[stop + 1] - comp_ptr[stop] < BIG_COMPONENT:
                stop += 1
            status, at, sweeps, up, g = solve_run(lo, hi, table, comp_ptr, c, stop, limits)
        most = max(most, sweeps)
        updates += up
        if status != OK:
            return status, at, most, updates, g
        c = at
    return OK, n_comp, most, updates, 0.0
