"""The kernels of a compiled model, as a template: :mod:`perfectplay.compiled.kernels`
writes a copy of this file with the seven names below bound to the model's functions.

Why a generated file: numba caches a compiled function on disk only when it is a
module-level function of a real file, and a kernel that calls the model's functions as
globals is compiled together with them (inlined, no call through a pointer). One file
per model (named by a hash of this template and of the model's source files) gives both:
the first solve of a model compiles for some seconds, later processes load the machine
code. The kernels never raise: each reports an error code with the offending state in
``err`` (:func:`perfectplay.compiled.model.raise_model_error` turns it into one line).
"""

# ruff: noqa
# mypy: ignore-errors
import numpy as np
from numba import njit, prange

from perfectplay.compiled.model import (
    ERR_BAD_FLIP,
    ERR_BAD_INDEX,
    ERR_BAD_OUTCOME,
    ERR_BAD_WEIGHT,
    ERR_EMPTY_STATE,
    ERR_LOWER_LAYER,
    ERR_NAN_OUTCOME,
    ERR_NO_MOVE,
    ERR_SAME_INDEX,
    ERR_TOO_MANY_MOVES,
    ERR_TOO_BIG,
    ERR_TOO_MANY_ROLLS,
    ERR_UNKNOWN_STATE,
    EXPLORE_BATCH,
)
from perfectplay.compiled.components import components, slot_table
from perfectplay.compiled.cycles import cycles
from perfectplay.compiled.hashset import EMPTY, new_set, prefetch, rehash, set_slot
from perfectplay.compiled.prefetch import prefetch_item
from perfectplay.compiled.search import (
    bucket_bits,
    fill_directory,
    find_in,
    find_layer,
    grow,
    number_by_index,
    pair_keys,
    pair_values,
)
from perfectplay.compiled.sweep import BUSY, OK, solve_run

start = outcome = rolls = moves = layer = index = layer_size = None  # MODEL FUNCTIONS

# The buffers the model writes hold twice the sizes it declares and some more: a model
# that writes a few entries too many is refused by the count it returns (one line)
# instead of overwriting memory; the declared size is (len - 8) // 2.


@njit(cache=True)
def buffers(max_rolls, max_moves):
    # What the model's functions write into: the weights, the next positions, the flips.
    w = np.empty(2 * max_rolls + 8, np.int64)
    nexts = np.empty(2 * max_moves + 8, np.int64)
    flips = np.empty(2 * max_moves + 8, np.int64)
    return w, nexts, flips


@njit(cache=True, _nrt=False)
def check_turn(s, p, w, nexts, flips, r, err):
    # The moves of outcome r, checked; -1 after writing err.
    m = moves(s, r, p, nexts, flips)
    if m < 1:
        err[0], err[1], err[2], err[3] = ERR_NO_MOVE, s, r, m
        return -1
    if m > (len(nexts) - 8) // 2:
        err[0], err[1], err[2], err[3] = ERR_TOO_MANY_MOVES, s, r, m
        return -1
    for j in range(m):
        if flips[j] != 0 and flips[j] != 1:
            err[0], err[1], err[2], err[3] = ERR_BAD_FLIP, s, r, flips[j]
            return -1
        if nexts[j] == EMPTY:  # would be taken for a free slot of the hash sets
            err[0], err[1], err[2], err[3] = ERR_EMPTY_STATE, s, r, 0
            return -1
    return m


@njit(cache=True, _nrt=False)
def check_rolls(s, p, w, err):
    nr = rolls(s, p, w)
    if nr < 1 or nr > (len(w) - 8) // 2:
        err[0], err[1], err[2], err[3] = ERR_TOO_MANY_ROLLS, s, 0, nr
        return -1
    for r in range(nr):
        if w[r] <= 0:
            err[0], err[1], err[2], err[3] = ERR_BAD_WEIGHT, s, r, w[r]
            return -1
    return nr


@njit(cache=True, _nrt=False)
def over(t, p, s, r, err):
    # The mover's value at t when the game is over there, -1.0 when it goes on,
    # -2.0 after writing err.
    o = outcome(t, p)
    if o > 1.0:
        err[0], err[1], err[2], err[3] = ERR_BAD_OUTCOME, t, r, int(min(o, 1e12) * 1e6)
        return -2.0
    if o != o:
        err[0], err[1], err[2], err[3] = ERR_NAN_OUTCOME, t, r, 0
        return -2.0
    return o if o >= 0.0 else -1.0


@njit(cache=True, _nrt=False)
def successors(s, ls, p, w, nexts, flips, out_state, out_layer, base, err):
    """The positions that go on after ``s`` (of layer ``ls``), one per move of every
    outcome (a finished game is a value, not a position), with their layers, into
    ``out_*`` from ``base``; returns how many (-1: see ``err``)."""
    nr = check_rolls(s, p, w, err)
    if nr < 0:
        return -1
    k = 0
    for r in range(nr):
        m = check_turn(s, p, w, nexts, flips, r, err)
        if m < 0:
            return -1
        for j in range(m):
            t = nexts[j]
            o = over(t, p, s, r, err)
            if o == -2.0:
                return -1
            if o >= 0.0:
                continue
            lt = layer(t, p)
            if lt < ls:
                err[0], err[1], err[2], err[3] = ERR_LOWER_LAYER, s, r, t
                return -1
            out_state[base + k] = t
            out_layer[base + k] = lt
            k += 1
    return k


# A hash set this long (512 KiB) no longer stays in the fast caches: its probes are
# prefetched, for the successors of this many positions at a time (8: measured on Ur).
_PREFETCH_SLOTS = 1 << 16
_BATCH = EXPLORE_BATCH


# What close_steps stopped for: done (or an error in ``err``), or an array to grow
# before it goes on.
_DONE, _GROW_INSIDE, _GROW_QUEUE, _GROW_OUTSIDE, _GROW_OUT = 0, 1, 2, 3, 4


@njit(cache=True)
def close_layer(seeds, lid, p, max_rolls, max_moves, size, err, span=0, most=0):
    """Breadth-first search within layer ``lid`` from ``seeds`` (its positions reached
    from lower layers, maybe more than once): returns its positions (unsorted, each
    once) and the positions of higher layers it reaches, each once, with their layers.
    Where ``span`` (the layer's ``layer_size``) is not 0 the layer's positions are
    told apart by the model's perfect index, each written at its number in an array of
    ``span`` (a lookup is the index's arithmetic, no hash and no probe); else, and
    always for the higher layers' positions, by open addressing hash sets on arrays (no
    Python object, no numba dict; :mod:`perfectplay.compiled.hashset`), the inner one
    made for ``size`` positions (a guess: it grows as needed). An index out of the
    layer's range, or one that numbers two positions alike, is an error in ``err``; so
    is finding more than ``most`` positions, this layer's and the higher layers' together
    (what memory allows; 0: no limit), before anything is grown past it.

    The search itself is :func:`close_steps`, which allocates nothing: it stops where an
    array must grow, this function grows it and calls it again to go on from there."""
    w, nexts, flips = buffers(max_rolls, max_moves)
    cap = max(_BATCH * max_rolls * max_moves, 1024)
    succ = np.empty(cap, np.int64)
    succ_layer = np.empty(cap, np.int64)
    by_index = np.full(span, EMPTY, np.int64)
    inside = new_set(0 if span else max(size, len(seeds)))
    queue = np.empty(max(16, size, len(seeds)), np.int64)
    outside = new_set(1024)
    out_s = np.empty(1024, np.int64)
    out_l = np.empty(1024, np.int64)
    # (positions queued, positions of higher layers found, positions expanded, seeds
    # taken, successors in the batch, the next of them to add)
    state = np.zeros(6, np.int64)
    while True:
        why = close_steps(
            seeds, lid, p, w, nexts, flips, succ, succ_layer, by_index, inside, queue,
            outside, out_s, out_l, span, most, state, err,
        )  # fmt: skip
        if why == _DONE:
            break
        if why == _GROW_INSIDE:
            inside = rehash(inside)
        elif why == _GROW_QUEUE:
            queue = grow(queue)
        elif why == _GROW_OUTSIDE:
            outside = rehash(outside)
        else:
            out_s = grow(out_s)
            out_l = grow(out_l)
    n, m = state[0], state[1]
    return queue[:n], out_s[:m], out_l[:m]


# Compiled without numba's reference counts (``_nrt=False``: it only reads and writes
# the arrays it is given): with them, its loop over the successors counted references
# to its arrays for every successor, atomic increments and decrements that took more of
# the time of a Pig solve than the search itself.
@njit(cache=True, _nrt=False)
def close_steps(
    seeds, lid, p, w, nexts, flips, succ, succ_layer, by_index, inside, queue, outside,
    out_s, out_l, span, most, state, err,
):  # fmt: skip
    """The search of :func:`close_layer`, from and into ``state``: returns ``_DONE``
    when the layer is closed (or ``err`` is set), else which array must grow before
    the successor ``state[5]`` of the batch can be added (nothing of it is written
    yet). The sets stay at most half full; a new position is refused past ``most``
    before any array grows for it."""
    n, m, i, taken, k, j0 = state[0], state[1], state[2], state[3], state[4], state[5]
    cap = len(succ)
    why = _DONE
    while True:
        if j0 >= k:  # the batch is added: make the next
            if not ((i < n or taken < len(seeds)) and err[0] == 0):
                break
            k = 0
            j0 = 0
            # A big set: the successors of a batch of queued positions are made and
            # their slots asked for before any is added, so that their waits on memory
            # overlap each other and the model's work (the queue's order is the same).
            big = max(len(inside), span) >= _PREFETCH_SLOTS
            if taken < len(seeds):
                # The seeds first, a buffer at a time, added as the successors are.
                k = min(cap, len(seeds) - taken)
                for j in range(k):
                    succ[j] = seeds[taken + j]
                    succ_layer[j] = lid
                taken += k
            else:
                stop = min(n, i + _BATCH) if big else i + 1
                while i < stop:
                    got = successors(queue[i], lid, p, w, nexts, flips, succ, succ_layer, k, err)
                    i += 1
                    if got < 0:
                        break
                    k += got
                if err[0] != 0:
                    break
            if big:
                for j in range(k):
                    t = succ[j]
                    if succ_layer[j] != lid:
                        prefetch(outside, t)
                    elif span == 0:
                        prefetch(inside, t)
                    else:
                        x = index(t, p)
                        if 0 <= x < span:
                            prefetch_item(by_index, x)
        j = j0
        while j < k:
            t = succ[j]
            if succ_layer[j] == lid:
                x = 0
                h = 0
                if span:
                    x = index(t, p)
                    if x < 0 or x >= span:
                        err[0], err[1], err[2], err[3] = ERR_BAD_INDEX, t, 0, x
                        break
                    v = by_index[x]
                    if v == t:
                        j += 1
                        continue
                    if v != EMPTY:
                        err[0], err[1], err[2], err[3] = ERR_SAME_INDEX, t, 0, v
                        break
                else:
                    h = set_slot(inside, t)
                    if inside[h] == t:
                        j += 1
                        continue
                if most and n + m >= most:
                    err[0], err[1], err[2], err[3] = ERR_TOO_BIG, t, 0, n + m
                    break
                if span == 0 and 2 * (n + 1) > len(inside):  # at most half full
                    why = _GROW_INSIDE
                    break
                if n == len(queue):
                    why = _GROW_QUEUE
                    break
                if span:
                    by_index[x] = t
                else:
                    inside[h] = t
                queue[n] = t
                n += 1
            else:
                h = set_slot(outside, t)
                if outside[h] != t:
                    if most and n + m >= most:
                        err[0], err[1], err[2], err[3] = ERR_TOO_BIG, t, 0, n + m
                        break
                    if 2 * (m + 1) > len(outside):
                        why = _GROW_OUTSIDE
                        break
                    if m == len(out_s):
                        why = _GROW_OUT
                        break
                    outside[h] = t
                    out_s[m] = t
                    out_l[m] = succ_layer[j]
                    m += 1
            j += 1
        j0 = j
        if why != _DONE or err[0] != 0:
            break
    state[0], state[1], state[2], state[3], state[4], state[5] = n, m, i, taken, k, j0
    return why


@njit(cache=True)
def count_range(keys, lid, p, max_rolls, max_moves, fin_layers, used, n_rolls, n_moves, e, a, b):
    """:func:`count` of the states ``keys[a:b]`` (in the calling thread), its error in
    ``e``."""
    w, nexts, flips = buffers(max_rolls, max_moves)
    for i in range(a, b):
        s = keys[i]
        nr = check_rolls(s, p, w, e)
        if nr < 0:
            return
        inner = 0
        for r in range(nr):
            m = check_turn(s, p, w, nexts, flips, r, e)
            if m < 0:
                return
            for j in range(m):
                t = nexts[j]
                o = over(t, p, s, r, e)
                if o == -2.0:
                    return
                if o >= 0.0:
                    continue
                lt = layer(t, p)
                if lt == lid:
                    inner += 1
                elif lt < lid:
                    e[0], e[1], e[2], e[3] = ERR_LOWER_LAYER, s, r, t
                    return
                else:
                    pos = find_layer(fin_layers, lt)
                    if pos < 0:
                        e[0], e[1], e[2], e[3] = ERR_UNKNOWN_STATE, s, r, t
                        return
                    used[pos] = 1
        n_rolls[i] = nr
        n_moves[i] = inner


@njit(cache=True, parallel=True)
def count(keys, lid, p, max_rolls, max_moves, fin_layers, used, n_rolls, n_moves, err):
    """Per state of the layer ``keys`` (layer id ``lid``): its outcomes and its moves
    within the layer; marks in ``used`` the finished layers it reaches."""
    n = len(keys)
    chunks = min(n, 64)
    for c in prange(chunks):
        e = np.zeros(4, np.int64)
        a, b = c * n // chunks, (c + 1) * n // chunks
        count_range(keys, lid, p, max_rolls, max_moves, fin_layers, used, n_rolls, n_moves, e, a, b)
        if e[0] != 0:
            for q in range(4):
                err[q] = e[q]


@njit(cache=True, _nrt=False)
def find_by_index(keys, where, t, p):
    """The position of ``t`` in ``keys`` by its perfect index (``where``: the positions
    by index, -1 where none), or -1."""
    i = index(t, p)
    if i < 0 or i >= len(where):
        return -1
    g = where[i]
    if g < 0 or keys[g] != t:
        return -1
    return g


@njit(cache=True)
def fill_range(
    keys, kdir, where, lid, p, max_rolls, max_moves, finished, table, used, e, a, b, later
):
    """:func:`fill` of the states ``keys[a:b]`` (in the calling thread), its error in
    ``e``; marks in ``used`` the finished layers (by their place in ``finished``) that
    the moves reach. Each position writes where its outcomes end (``roll_ptr[i + 1]``)
    and each outcome where its moves end, so that a fill from the first position needs
    only ``roll_ptr[0]`` and ``move_ptr[0]`` (no counting pass first: ``solve_layers``),
    into arrays with room for the most that the model's sizes allow.

    ``later`` is ``(place, outcomes, refs, count)``: the moves into the layer at
    ``place`` in ``finished`` (-1: none), whose keys are there but whose values are not
    yet (``solve_layers`` solves it meanwhile), are not read but listed, outcome ``q``
    and ``4 * ref + 2 * by_pair + flip`` (where its value will be), for
    :func:`apply_later`; the outcome's exit value is at least 0 meanwhile, which every
    value is. ``count[0]`` counts them; ``count[1]`` becomes 1 (and the fill stops)
    when they do not fit."""
    fin_layers, fin_ptr, fin_keys, fin_value, fin_dptr, fin_dirs, fin_iptr, fin_pairs = finished
    fin_pair_values = fin_pairs.view(np.float64)
    roll_ptr, roll_prob, roll_const, move_ptr, move_code = table
    w, nexts, flips = buffers(max_rolls, max_moves)
    for i in range(a, b):
        s = keys[i]
        nr = check_rolls(s, p, w, e)
        if nr < 0:
            return
        total = 0.0
        for r in range(nr):
            total += w[r]
        k = move_ptr[roll_ptr[i]]
        for r in range(nr):
            q = roll_ptr[i] + r
            roll_prob[q] = w[r] / total
            m = check_turn(s, p, w, nexts, flips, r, e)
            if m < 0:
                return
            best = -1.0
            for j in range(m):
                t = nexts[j]
                o = over(t, p, s, r, e)
                if o == -2.0:
                    return
                if o >= 0.0:
                    v = 1.0 - o if flips[j] else o
                    if v > best:
                        best = v
                    continue
                lt = layer(t, p)
                if lt == lid:
                    if len(where):
                        idx = find_by_index(keys, where, t, p)
                    else:
                        idx = find_in(keys, kdir, 0, t)
                    if idx < 0:
                        e[0], e[1], e[2], e[3] = ERR_UNKNOWN_STATE, s, r, t
                        return
                    move_code[k] = 2 * idx + flips[j]
                    k += 1
                else:
                    pos = find_layer(fin_layers, lt)
                    if pos < 0 or lt < lid:  # (found by the count where there is one)
                        code = ERR_LOWER_LAYER if lt < lid else ERR_UNKNOWN_STATE
                        e[0], e[1], e[2], e[3] = code, s, r, t
                        return
                    used[pos] = 1
                    lo, hi = fin_iptr[pos], fin_iptr[pos + 1]
                    v = -1.0
                    ref = -1
                    if hi > lo:
                        x = index(t, p)
                        if 0 <= x < hi - lo and fin_pairs[2 * (lo + x)] == t:
                            v = fin_pair_values[2 * (lo + x) + 1]
                            ref = 4 * (2 * (lo + x) + 1) + 2
                    else:
                        idx = find_in(fin_keys, fin_dirs, fin_dptr[pos], t)
                        if idx >= 0:
                            v = fin_value[idx]
                            ref = 4 * idx
                    if pos == later[0] and ref >= 0:
                        c = later[3][0]
                        if c >= len(later[1]):
                            later[3][1] = 1
                            return
                        later[1][c] = q
                        later[2][c] = ref + flips[j]
                        later[3][0] = c + 1
                        v = 0.0
                    elif v < 0.0:
                        e[0], e[1], e[2], e[3] = ERR_UNKNOWN_STATE, s, r, t
                        return
                    elif flips[j]:
                        v = 1.0 - v
                    if v > best:
                        best = v
            roll_const[q] = best
            move_ptr[q + 1] = k
        # (the value the count's pointers hold where they were counted first)
        roll_ptr[i + 1] = roll_ptr[i] + nr


@njit(cache=True, parallel=True)
def fill(keys, kdir, where, lid, p, max_rolls, max_moves, finished, table, err):
    """The successor table of the layer ``keys`` (``kdir`` its directory, or ``where``
    its positions by perfect index when it is not empty): per outcome its probability,
    the best value of its moves that leave the layer (``roll_const``; -1: none) and its
    moves within the layer, as ``2 * index + flip``. ``finished`` is the finished layers
    it reaches ``(ids, pointers, keys, values, directory offsets, directories, index
    offsets, pairs by index)``, the last the key and the value (its bits) side by side
    at twice a number of the layer's perfect index (one cache line for both; ``EMPTY``
    where no position has the number), which ``fin_pair_values`` reads as floats; a
    layer with an empty index range is found by its directory. ``table`` is the arrays
    to fill."""
    n = len(keys)
    chunks = min(n, 64)
    used = np.zeros(len(finished[0]), np.int64)  # known from the count
    for c in prange(chunks):
        e = np.zeros(4, np.int64)
        a, b = c * n // chunks, (c + 1) * n // chunks
        later = (-1, np.empty(0, np.int64), np.empty(0, np.int64), np.zeros(2, np.int64))
        fill_range(
            keys, kdir, where, lid, p, max_rolls, max_moves, finished, table, used, e, a, b, later
        )
        if e[0] != 0:
            for q in range(4):
                err[q] = e[q]


# solve_layers's one parallel loop is its two halves of a step; the rest of it runs in
# the calling thread. The arrays it and the halves make come from the helpers below, so
# that parallel=True makes nothing else of theirs run on threads. (A kernel compiled
# without parallel=True that reached parallel kernels, loaded from the cache in a later
# process, crashed in them: numba issues 4807 and 8578; so did Ur after Pig in three
# processes here.)
@njit(cache=True)
def zeros(n, like):
    # n zeros of the type of ``like``
    out = np.empty(n, type(like))
    for i in range(n):
        out[i] = 0
    return out


@njit(cache=True)
def full(n, x):
    out = np.empty(n)
    for i in range(n):
        out[i] = x
    return out


@njit(cache=True)
def apply_later(roll_const, outcomes, refs, values_all, pairs):
    """The exit values that :func:`fill_range` listed (``outcomes``, ``refs``) instead
    of reading them, read now that their layer is solved: each outcome's best exit
    value becomes at least the listed move's (the fill left it at least 0)."""
    pair_values = pairs.view(np.float64)
    for c in range(len(outcomes)):
        ref = refs[c]
        at = ref >> 2
        v = pair_values[at] if ref & 2 else values_all[at]
        if ref & 1:
            v = 1.0 - v
        q = outcomes[c]
        if v > roll_const[q]:
            roll_const[q] = v


# One layer's buffers in solve_layers, two sets of them: (roll_ptr, prob, const,
# move_ptr, codes, order, comp_ptr, where, listed outcomes, listed refs, used, meta);
# meta is (positions, components, listed count, listed overflow, error code and its
# three numbers).
@njit(cache=True)
def layer_buffers(room, room_rolls, max_moves, span, listed, n_layers):
    meta = zeros(8, 0)
    return (
        np.empty(room + 1, np.int32),
        np.empty(room_rolls),
        np.empty(room_rolls),
        np.empty(room_rolls + 1, np.int32),
        np.empty(room_rolls * max_moves, np.int32),
        np.empty(room, np.int32),
        np.empty(room + 1, np.int64),
        np.empty(span, np.int64),
        np.empty(listed, np.int64),
        np.empty(listed, np.int64),
        zeros(n_layers, 0),
        meta,
    )


@njit(cache=True)
def build_layer(li, defer, found, p, max_rolls, max_moves, buf, ticks):
    """The first half of a layer's work in :func:`solve_layers`: the successor table of
    layer ``li`` (its place in ``found``) into ``buf`` (:func:`layer_buffers`), its moves
    into the layer at place ``defer`` listed rather than read (:func:`fill_range`), its
    components, and its keys where the layers below look them up (their values come
    when it is solved). An error goes to ``buf``'s meta (``meta[3]``: the list did not
    fit, nothing else done)."""
    ids, ptr, keys_all, values_all, dptr, dirs, iptr, pairs = found
    roll_ptr, prob, const, move_ptr, codes, order, comp_ptr, where_all, lq, lref, used, meta = buf
    ticks[li, 0] = cycles()
    a, b = ptr[li], ptr[li + 1]
    n = b - a
    keys = keys_all[a:b]
    meta[0] = n
    meta[2] = meta[3] = meta[4] = 0
    err = np.zeros(4, np.int64)
    roll_ptr[0] = 0
    move_ptr[0] = 0
    span = iptr[li + 1] - iptr[li]
    where = where_all[:span]
    kdir = np.empty(0, np.int64)
    if span:
        number_by_index(keys, index_of(keys, p), where, err)
    else:
        kdir = np.empty((1 << bucket_bits(n)) + 4, np.int64)
        fill_directory(keys, 0, n, kdir, 0)
    count = np.zeros(2, np.int64)
    if err[0] == 0:
        table = (roll_ptr[: n + 1], prob, const, move_ptr, codes)
        later = (defer, lq, lref, count)
        fill_range(
            keys,
            kdir,
            where,
            ids[li],
            p,
            max_rolls,
            max_moves,
            found,
            table,
            used,
            err,
            0,
            n,
            later,
        )
    meta[2], meta[3] = count[0], count[1]
    if err[0] != 0 or count[1]:
        meta[4], meta[5], meta[6], meta[7] = err[0], err[1], err[2], err[3]
        return
    n_r = roll_ptr[n]
    o, c = components(roll_ptr[: n + 1], move_ptr[: n_r + 1], codes[: move_ptr[n_r]])
    order[:n] = o
    comp_ptr[: len(c)] = c
    meta[1] = len(c) - 1
    if span:
        pair_keys(keys, where, pairs, iptr[li])
    else:
        fill_directory(keys_all, a, b, dirs, dptr[li])
    ticks[li, 1] = cycles()


@njit(cache=True)
def solve_built(li, found, bounds, buf, tol, stall, most, stats, ticks, status):
    """The second half of a layer's work in :func:`solve_layers`: the exit values
    :func:`build_layer` listed, then its sweeps (to the settings' tolerance, ``eps``
    above what the finished layers it reads are known to); its values and bound go
    into the store for the layers below, its status into ``status[0]``."""
    ids, ptr, keys_all, values_all, dptr, dirs, iptr, pairs = found
    roll_ptr, prob, const, move_ptr, codes, order, comp_ptr, where_all, lq, lref, used, meta = buf
    ticks[li, 2] = cycles()
    n = meta[0]
    n_r = roll_ptr[n]
    n_in = move_ptr[n_r]
    apply_later(const, lq[: meta[2]], lref[: meta[2]], values_all, pairs)
    # The bounds of the finished layers its moves reach.
    eps = 0.0
    for j in range(li + 1, len(ids)):
        if used[j]:
            eps = max(eps, bounds[j])
            used[j] = 0
    inherited = 2.0 * eps
    limits = (0.5 * tol + inherited, tol + inherited, stall, most)
    a, b = ptr[li], ptr[li + 1]
    vals = values_all[a:b]
    # The rows in slot order (components.slot_table, which solve_layer takes one array
    # at a time), then the components one after the other: sweep.solve_components,
    # which on a layer as small as these (none holds a component for the threads) is
    # one solve_run (called directly: compiling the threads' sweeps for nothing would
    # add a third to a cold start).
    table = slot_table(
        order[:n], roll_ptr[: n + 1], prob[:n_r], const[:n_r], move_ptr[: n_r + 1],
        codes[:n_in], eps, None,
    )  # fmt: skip
    lo = full(n, 0.0)
    hi = full(n, 1.0)
    st, _, sweeps, updates, worst = solve_run(lo, hi, table, comp_ptr, 0, meta[1], limits)
    gap = worst
    if st == OK:
        gap = 0.0
        for q in range(n):
            # Clipped as in layered.solve_layer: rounding may leave a value a few ulps
            # outside [0, 1].
            vals[order[q]] = min(1.0, max(0.0, (lo[q] + hi[q]) * 0.5))
            gap = max(gap, hi[q] - lo[q])
    stats[li, 0], stats[li, 1], stats[li, 2], stats[li, 3] = sweeps, updates, gap, n_in
    status[0] = st
    if st == OK:
        bounds[li] = 0.5 * gap
        span = iptr[li + 1] - iptr[li]
        if span:  # the values beside the keys that build_layer wrote
            pair_values(vals, where_all[:span], pairs, iptr[li])
    ticks[li, 3] = cycles()


# The two threads of solve_layers wait for each other once a layer: on a machine busy
# with other work one of them is often off the processor meanwhile, and a step takes far
# longer than its longer half (a Pig solve 2 to 5 times as long as in one thread). After
# this many steps in a row that took half as long again as their longer half (and this
# many cycles, some 50 microseconds, more), or where a half started that much late (its
# thread was off the processor: the halves' own spans then count the wait too), the
# rest of the layers are solved in the calling thread alone, the same steps in turn.
# (In a row: a single slow step, such as the first touches of the buffers, is no sign
# of a busy machine.) It returns for that: only the caller can take numba's second
# thread away (a kernel that does is not cached), which a busy machine's one-thread
# steps need (else each wakes the idle thread for nothing and waits for it).
_STRIKES = 4
_SLACK = 150_000


@njit(cache=True, parallel=True)
def solve_layers(
    found, bounds, first, last, p, max_rolls, max_moves, settings, stats, ticks, err, threads
):
    """Solve the layers ``last`` down to ``first`` of the store ``found`` (the layers
    ``(ids, pointers, keys, values, directory offsets, directories, index offsets, pairs
    by index)`` of :mod:`perfectplay.compiled.layered`, every key there, the layers after
    ``last`` solved, with their bounds in ``bounds``), each as ``solve_layer`` does
    but for the count (the fill writes the pointers as it goes: :func:`fill_range`),
    in two halves, one thread each, staggered: while one thread solves a layer
    (:func:`solve_built`) the other builds the layer below it (:func:`build_layer`: its
    table and components, which need only finished layers, its moves into the layer
    being solved listed and read when that is done). Each layer's values and bound go
    into the store for the layers below it. ``settings`` is ``(tolerance, stall,
    max_sweeps)``; ``stats[i]`` gets layer ``i``'s ``(sweeps, updates, gap, moves)``
    and ``ticks[i]`` the cycle counts at the start and end of its build and of its
    solve; with fewer than two ``threads`` (numba's) the steps run in turn from the
    start. Returns ``(layer, status)``: the layer where a model error (``err``) or a
    status other than ``OK`` stopped it, or ``(-1, OK)``; ``BUSY`` when the steps on two
    threads were slow too often (:data:`_STRIKES`), every layer above the one returned
    finished: the caller goes on from it in one thread."""
    ids, ptr = found[0], found[1]
    tol, stall, most = settings
    # Two sets of the table's arrays, made once with room for the most that the largest
    # layer's outcomes and moves could need (what layered.solve_layers reserved), filled
    # from the first position on (fill_range: no counting pass) and cut to what was
    # written.
    room = 0
    span = 0
    for li in range(first, last + 1):
        room = max(room, ptr[li + 1] - ptr[li])
        span = max(span, found[6][li + 1] - found[6][li])
    room_rolls = room * max_rolls
    listed = 2 * room + 64
    b0 = layer_buffers(room, room_rolls, max_moves, span, listed, len(ids))
    b1 = layer_buffers(room, room_rolls, max_moves, span, listed, len(ids))
    status = zeros(1, 0)
    strikes = 0 if threads > 1 else _STRIKES  # (no more strikes: one thread)
    # (no layer to list moves into: a variable, as typed as the layer the loop lists
    # into, so that numba compiles build_layer once, not also for the constant -1)
    none = first - first - 1
    ready = False  # whether layer li is built (into its set of buffers)
    li = last
    while li >= first:
        buf = b1 if li % 2 else b0
        other = b0 if li % 2 else b1
        meta = buf[11]
        if ready and meta[3]:  # more moves into the layer above than its list held
            ready = False
        two = ready and meta[4] == 0 and li > first and strikes < _STRIKES
        # One parallel loop for every step, its halves the only calls of build_layer
        # and solve_built: numba compiles a kernel that calls them outside the loop
        # too for seconds longer. Two halves at once: the other thread builds layer
        # li - 1, its moves into layer li listed; else one thread does all in turn.
        halves = 2 if two else 1
        t0 = cycles()
        for t in prange(halves):
            if t == 0:
                if not ready:
                    build_layer(li, none, found, p, max_rolls, max_moves, buf, ticks)
                if meta[4] == 0:
                    solve_built(li, found, bounds, buf, tol, stall, most, stats, ticks, status)
                    if not two and li > first and status[0] == OK:
                        build_layer(li - 1, none, found, p, max_rolls, max_moves, other, ticks)
            else:
                build_layer(li - 1, li, found, p, max_rolls, max_moves, other, ticks)
        wall = cycles() - t0
        if meta[4] != 0:
            err[0], err[1], err[2], err[3] = meta[4], meta[5], meta[6], meta[7]
            return li, OK
        if status[0] != OK:
            return li, status[0]
        if two:
            work = max(ticks[li, 3] - ticks[li, 2], ticks[li - 1, 1] - ticks[li - 1, 0])
            late = max(ticks[li, 2], ticks[li - 1, 0]) - t0  # a half that waited to start
            slow = wall > work + work // 2 + _SLACK or late > _SLACK
            strikes = strikes + 1 if slow else 0
            if strikes >= _STRIKES:
                return li - 1, BUSY
        ready = True
        li -= 1
    return -1, OK


@njit(cache=True)
def turn(s, p, max_rolls, max_moves):
    """One state's outcomes and moves for Python (queries): weights, and per outcome
    its moves' next states, flips and values when the game is over there."""
    w, nexts, flips = buffers(max_rolls, max_moves)
    err = np.zeros(4, np.int64)
    nr = check_rolls(s, p, w, err)
    nr = max(nr, 0)
    m_out = np.zeros(nr, np.int64)
    t_out = np.zeros((nr, max_moves), np.int64)
    f_out = np.zeros((nr, max_moves), np.int64)
    o_out = np.zeros((nr, max_moves), np.float64)
    for r in range(nr):
        m = check_turn(s, p, w, nexts, flips, r, err)
        if m < 0:
            break
        m_out[r] = m
        for j in range(m):
            t_out[r, j] = nexts[j]
            f_out[r, j] = flips[j]
            o_out[r, j] = over(nexts[j], p, s, r, err)
    return w[:nr].copy(), m_out, t_out, f_out, o_out, err


@njit(cache=True)
def start_of(p):
    return start(p)


@njit(cache=True)
def outcome_of(s, p):
    return outcome(s, p)


@njit(cache=True)
def layer_of(states, p):
    out = np.empty(len(states), np.int64)
    for i in range(len(states)):
        out[i] = layer(states[i], p)
    return out


@njit(cache=True)
def index_of(states, p):
    out = np.empty(len(states), np.int64)
    for i in range(len(states)):
        out[i] = index(states[i], p)
    return out


@njit(cache=True)
def layer_size_of(lid, p):
    return layer_size(lid, p)
