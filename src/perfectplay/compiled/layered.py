"""Solve a compiled model layer by layer, from the last layer to the first.

:func:`solve_layer` is the unit of work: it reads the layer's positions and the values
of the finished layers its moves reach (memory-mapped), builds the layer's successor
table (the only one in memory), cuts it into its strongly connected components
(:mod:`perfectplay.compiled.components`, its bounds and rows put in their order),
solves them one after the other to certified bounds (:mod:`perfectplay.compiled.sweep`)
and writes the layer's values, then its ``done`` record. A layer is one batch: its
components read each other's bounds in memory; the seam a tier runner (issue 21)
drives is ``solve_layer(workdir, model, layer_id)``, which reads only finished layers
and writes only its own files, so layers that do not reach each other may run at once
on different workers.

A small game solved in one process (:func:`solve_layers`: Pig's 198 layers of a few
thousand positions each) spends more time between its layers than in them when each is
a call from Python (the table's arrays, a dozen kernel calls, the records): its layers
run instead in one compiled loop (the kernels' ``solve_layers``) that calls, per layer,
the same kernels in the same order (fill, components, slot order, sweeps; no count: the
fill writes its pointers as it goes, into arrays with room for the most the model's
sizes allow, reserved once), its finished values held in the store that the fill reads.

Memory is estimated before the table is allocated and refused in one line when it
will not fit (:func:`perfectplay._util.memory.require`).
"""

from __future__ import annotations

import os
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numba
import numpy as np
from numba.core.errors import NumbaPerformanceWarning

from perfectplay._util.memory import available_bytes, format_bytes, require
from perfectplay.compiled import sweep as _sweep
from perfectplay.compiled.components import components, slot_layout, slot_moves, slot_rolls
from perfectplay.compiled.kernels import Kernels, kernels_for
from perfectplay.compiled.model import CompiledModel, raise_model_error
from perfectplay.compiled.search import (
    dense_span,
    directory_size,
    fill_directory,
    number_by_index,
    pair_by_index,
)
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import ModelError, ResourceLimitError

__all__ = [
    "LayerReport",
    "Settings",
    "check_largest",
    "layer_memory",
    "solve_layer",
    "solve_layers",
]

# numba dispatchers, typed loosely (their stubs do not know the kernels' arguments).
_solve_components: Any = _sweep.solve_components
_components: Any = components
_slot_layout: Any = slot_layout
_slot_rolls: Any = slot_rolls
_slot_moves: Any = slot_moves
_fill_directory: Any = fill_directory
_number_by_index: Any = number_by_index
_pair_by_index: Any = pair_by_index

# A component this large is swept in parallel (smaller ones run one after the other in
# one serial call: waking the threads costs more than their sweep).
_BIG_COMPONENT = _sweep.BIG_COMPONENT

# A game whose keys and values take at most this many bytes keeps its finished layers
# in memory as they are read (see _finished).
_STORE_BYTES = 256 << 20

# Bytes at the peak of a layer (while the table's rows are put in slot order), per
# outcome: probability (64 bits; 32 where they hold it exactly), best leaving value,
# move pointer (32 bits while they fit, old and new); per move within the layer: its
# code (32 bits), twice while it is copied; per position: outcome pointer (old and
# new), linear outcome pointer (components.slot_layout; a linear outcome takes less
# than the outcome counted for it), its slot, its share of the layer's directory, and
# the larger of what the search for components holds while it runs and the sweeps'
# arrays (both bounds, the values before the last sweep, a flag, the values written).
_PER_ROLL = 8 + 8 + 4 + 4
_PER_MOVE = 4 + 4
_PER_STATE = 4 + 4 + 4 + 4 + 4 + 41


@dataclass(frozen=True)
class Settings:
    """How layers are swept: the certified ``tolerance`` (largest gap ``U - L`` of a
    finished layer), the most ``max_sweeps`` and the sweeps without progress after which
    a layer is declared not to contract (``stall``)."""

    tolerance: float = 1e-13
    max_sweeps: int = 100_000
    stall: int = 200


@dataclass(frozen=True)
class LayerReport:
    """What solving one layer took and proved."""

    layer: int
    positions: int
    moves: int
    sweeps: int
    bound: float
    seconds: float


def layer_memory(
    model: CompiledModel, positions: int, moves: int | None = None, *, spill: bool = False
) -> int:
    """Bytes the successor table of a layer of ``positions`` needs (``moves`` within the
    layer when known, else the most the model's sizes allow); with ``spill``, when the
    arrays put in slot order wait in a file while they are copied (no second copy of the
    moves in memory).

    >>> from perfectplay.examples.ur import Ur
    >>> full = layer_memory(Ur(), 1000, 13_000)
    >>> full - layer_memory(Ur(), 1000, 13_000, spill=True) == 4 * 13_000
    True
    """
    rolls = positions * model.max_rolls
    if moves is None:
        moves = rolls * model.max_moves
    per_move = _PER_MOVE - 4 if spill else _PER_MOVE
    return positions * _PER_STATE + rolls * _PER_ROLL + moves * per_move


def check_largest(wd: Workdir, model: CompiledModel) -> None:
    """Refuse at once, in one line, a solve whose largest unfinished layer cannot fit even
    the least its table needs (:func:`solve_layer` checks the same before it counts the
    layer's moves): a user learns it now, not after the smaller layers ran for hours."""
    head = wd.header()
    assert head is not None, "explore first"
    left = [
        (int(n), int(lid))
        for lid, n in zip(head["layers"], head["sizes"], strict=True)
        if wd.finished(int(lid)) is None
    ]
    if left:
        n, lid = max(left)
        require(
            layer_memory(model, n, 0),  # the least: no moves within it yet
            f"{model.name}: layer {lid} ({n:,} positions, the largest)",
        )


def _spilled(wd: Workdir, arr: np.ndarray, spill: bool) -> np.ndarray:
    """``arr``, or with ``spill`` the same numbers in a file of ``wd`` mapped into memory
    (the caller drops ``arr``: its memory is then the page cache's, which the kernel may
    reclaim). The file is removed at once: the mapping outlives its name, and a killed
    solve leaves nothing behind."""
    if not spill:
        return arr
    path = wd.path / f".spill.{os.getpid()}.tmp"
    try:
        arr.tofile(path)
        # Copy-on-write: the same array type as in memory, so the kernels compiled for
        # it serve (nothing is ever written).
        return np.memmap(path, dtype=arr.dtype, mode="c", shape=arr.shape)
    except OSError as exc:
        raise ResourceLimitError(
            f"{path}: cannot hold {format_bytes(arr.nbytes)} while a layer is relaid: {exc}"
        ) from None
    finally:
        path.unlink(missing_ok=True)


def solve_layer(
    wd: Workdir, model: CompiledModel, layer: int, settings: Settings = Settings()
) -> LayerReport:
    """Solve layer ``layer`` of the explored model in ``wd`` (every higher layer it
    reaches finished) and write its values; see the module docstring."""
    t0 = time.perf_counter()
    head = wd.header()
    assert head is not None, "explore first"
    k = kernels_for(model)
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    keys = np.ascontiguousarray(wd.keys(layer))
    n = keys.size
    all_layers = np.array(head["layers"], np.int64)
    later = all_layers[all_layers > layer]
    require(layer_memory(model, n, 0), f"{model.name}: layer {layer}")
    n_rolls = np.zeros(n, np.int64)
    n_moves = np.zeros(n, np.int64)
    used = np.zeros(later.size, np.int64)
    err = np.zeros(4, np.int64)
    # One thread for a small layer's parallel kernels: waking the pool costs more than
    # the work (and much more on a loaded machine).
    with _threads(1 if n < 50_000 else int(numba.get_num_threads())):
        k.count(
            keys, layer, p, model.max_rolls, model.max_moves, later, used, n_rolls, n_moves, err
        )
        raise_model_error(model, err)
        n_in = int(n_moves.sum())
        # The positions by the model's perfect index, if any, are held while the table is
        # filled (counted as if at the peak).
        span = dense_span(int(k.layer_size(layer, p)), n)
        # Where the copies of the relayout do not fit, the arrays copied wait in a file.
        spill = layer_memory(model, n, n_in) + 8 * span > available_bytes()
        need = layer_memory(model, n, n_in, spill=spill) + 8 * span
        require(need, f"{model.name}: the successor table of layer {layer} ({n:,} positions)")
        reach = later[used.astype(bool)]
        finished, eps = _finished(wd, model, k, layer, reach)
        # Pointers of 32 bits while they fit: a third less memory for the table.
        n_r = int(n_rolls.sum())
        ptr_type = np.int32 if max(n_r, n_in) < (1 << 31) - 1 else np.int64
        roll_ptr = np.zeros(n + 1, ptr_type)
        roll_ptr[1:] = np.cumsum(n_rolls)
        move_ptr = np.zeros(n_r + 1, ptr_type)
        starts = np.zeros(n + 1, np.int64)
        starts[1:] = np.cumsum(n_moves)
        move_ptr[roll_ptr] = starts
        del n_rolls, n_moves, starts
        roll_prob: np.ndarray = np.empty(n_r, np.float64)
        roll_const = np.empty(n_r, np.float64)
        # 2 * index + flip fits 32 bits below a billion positions: half the memory traffic
        # of every sweep.
        move_code = np.empty(n_in, np.int32 if n < 1 << 30 else np.int64)
        table = (roll_ptr, roll_prob, roll_const, move_ptr, move_code)
        where = _by_index(model, k, keys, span)
        kdir = np.empty(0 if span else directory_size(n), np.int64)
        if not span:
            _fill_directory(keys, 0, n, kdir, 0)
        k.fill(keys, kdir, where, layer, p, model.max_rolls, model.max_moves, finished, table, err)
    raise_model_error(model, err)
    del finished, table, kdir, where
    # Chances that 32 bits hold exactly (a few coins or binary dice: k / 2^m) are kept
    # so: the same numbers in half the memory.
    narrow = roll_prob.astype(np.float32)
    if np.array_equal(narrow, roll_prob):
        roll_prob = narrow
    del narrow
    # The layer's components; its bounds are kept per slot in their order, and so are
    # the table's rows: the steps of components.slot_table, one array at a time (the
    # copy of the largest is the peak; the exit values last: they tell the linear
    # outcomes apart while the others are copied).
    order, comp_ptr = _components(roll_ptr, move_ptr, move_code)
    new = _slot_layout(order, roll_ptr, move_ptr, roll_const, True)
    lin_ptr, new_roll, new_move = new
    old = _spilled(wd, roll_prob, spill)
    del roll_prob
    lin_prob, roll_prob = _slot_rolls(
        order, roll_ptr, move_ptr, roll_const, lin_ptr, new_roll, old, True, True
    )
    old = _spilled(wd, move_code, spill)
    del move_code
    lin_code, move_code = _slot_moves(order, (roll_ptr, move_ptr, roll_const), new, old, True)
    old = _spilled(wd, roll_const, spill)
    del roll_const
    _, roll_const = _slot_rolls(order, roll_ptr, move_ptr, old, lin_ptr, new_roll, old, False, True)
    del old, new
    roll_ptr, move_ptr = new_roll, new_move
    del new_roll, new_move
    lo = np.zeros(n, np.float64)
    hi = np.ones(n, np.float64)
    t_table = time.perf_counter()
    n_sweeps, updates, gap = _sweep_to_bound(
        model,
        layer,
        settings,
        lo,
        hi,
        (lin_ptr, lin_prob, lin_code, roll_ptr, roll_prob, roll_const, eps, move_ptr, move_code),
        comp_ptr,
    )
    del lin_ptr, lin_prob, lin_code, roll_ptr, roll_prob, roll_const, move_ptr, move_code
    values = np.empty(n, np.float64)
    # Clipped: a chance is in [0, 1], and the bounds' sums of probabilities may round a
    # value a few ulps outside (-1e-16), which readers must not take for "no value".
    values[order] = np.clip((lo + hi) * 0.5, 0.0, 1.0)
    bound = gap * 0.5
    seconds = time.perf_counter() - t0
    wd.finish(
        layer,
        values,
        {
            "bound": bound,
            "sweeps": n_sweeps,
            "updates": updates,
            "seconds": seconds,
            "table_seconds": t_table - t0,
            "positions": n,
            "moves": n_in,
        },
    )
    return LayerReport(layer, n, n_in, n_sweeps, bound, seconds)


def solve_layers(
    wd: Workdir,
    model: CompiledModel,
    settings: Settings = Settings(),
    on_layers: Callable[[int], None] | None = None,
) -> bool:
    """Solve every layer of a small game (its store fits :data:`_STORE_BYTES`) in the
    explored ``wd``, from the last, with no Python between layers: each run of layers
    smaller than :data:`_BIG_COMPONENT` (none can hold a component that needs the
    threads) is one compiled call (the kernels' ``solve_layers``: per layer the same
    fill and sweeps as :func:`solve_layer`, without its count; two threads take turns,
    one building a layer's table while the other solves the layer above, unless the
    machine is too busy for them), its values held in the
    store that the layers below it read; a larger layer is :func:`solve_layer`'s. Each
    layer ends as :func:`solve_layer` ends it (its values and record in ``wd``), and
    ``on_layers`` hears how many are finished after each step. Returns ``False``, having
    done nothing, for a larger game (the layers are then one :func:`solve_layer` each).
    """
    k = kernels_for(model)
    store = _store(wd, model, k)
    if store is None:
        return False
    head = wd.header()
    assert head is not None
    found, bounds = store
    ids, ptr = found[0], found[1]
    sizes = np.diff(ptr)
    small = sizes < _BIG_COMPONENT
    if small.any():
        # The most the model's sizes allow: the compiled call fills arrays this large,
        # reserved once, instead of counting each layer's moves first; two sets of them
        # (one layer is built while the one above it is solved), each with its list of
        # moves into the layer above (16 bytes a move, twice the positions).
        n = int(sizes[small].max())
        need = 2 * (layer_memory(model, n) + 8 * n + 32 * n)
        require(need, f"{model.name}: the successor tables of two layers ({n:,} positions)")
    for i in np.flatnonzero(small).tolist():  # their own keys, for their own lookups
        found[2][ptr[i] : ptr[i + 1]] = wd.keys(int(ids[i]))
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    run = (float(settings.tolerance), float(settings.stall), int(settings.max_sweeps))
    stats = np.zeros((ids.size, 4))
    ticks = np.zeros((ids.size, 4), np.int64)
    err = np.zeros(4, np.int64)
    last = ids.size - 1
    while last >= 0:
        if not small[last]:
            solve_layer(wd, model, int(ids[last]), settings)
            last -= 1
        else:
            first = last
            while first > 0 and small[first - 1]:
                first -= 1
            # The layers solve_layer finished that the store does not hold yet (it loads
            # only what a layer reaches, as the run now may).
            for j in (last + 1 + np.flatnonzero(np.isnan(bounds[last + 1 :]))).tolist():
                bounds[j] = _bound(wd, model, int(ids[first]), int(ids[j]))
                _load(wd, model, k, int(ids[j]), j, found)
            t0 = time.perf_counter()
            threads, top = _pipeline_threads(), last
            while True:
                with warnings.catch_warnings(), _threads(threads):
                    # numba notes each loop of the kernel that it did not make
                    # parallel: all but the one meant to be (see the kernels).
                    warnings.simplefilter("ignore", NumbaPerformanceWarning)
                    at, status = k.solve_layers(
                        found, bounds, first, top, p, model.max_rolls, model.max_moves, run,
                        stats, ticks, err, threads,
                    )  # fmt: skip
                if status != _sweep.BUSY:
                    break
                threads, top = 1, at  # the layers above ``at`` are finished
            seconds = time.perf_counter() - t0
            if at >= 0:
                raise_model_error(model, err)
                _refuse(model, int(ids[at]), settings, status, stats[at, 2], int(stats[at, 0]))
            _record(wd, found, stats, ticks, first, last, seconds)
            last = first - 1
        if on_layers is not None:
            on_layers(ids.size - 1 - last)
    return True


#: Where Linux says how many threads are running now (the fourth field: ``running/all``),
#: read this many times.
_LOADAVG = "/proc/loadavg"
_SAMPLES = 3


def _pipeline_threads() -> int:
    """The threads for the kernels' ``solve_layers``: numba's, or 1 when no processor is
    idle now (``/proc/loadavg``'s count of running threads, this one included, is
    already as many as this process may use): two threads that take turns on a busy
    machine wait for each other, and a Pig solve beside one busy process took 0.23 s on
    two threads, 0.15 s on one (0.105 s on two of an idle machine)."""
    n = int(numba.get_num_threads())
    try:
        cpus = len(os.sched_getaffinity(0))
        running = cpus
        for i in range(_SAMPLES):  # the least of a few looks: a daemon's blip is no load
            if i:
                time.sleep(0.0003)
            with open(_LOADAVG) as fh:
                running = min(running, int(fh.read().split()[3].split("/")[0]))
    except (OSError, ValueError, IndexError, AttributeError):  # not Linux: trust numba
        return n
    return n if cpus - running >= 1 else 1


@contextmanager
def _threads(n: int) -> Iterator[None]:
    """numba's threads limited to ``n`` while the block runs (one: a parallel loop then
    runs in the calling thread without waking the others)."""
    before = numba.get_num_threads()
    numba.set_num_threads(min(n, before))
    try:
        yield
    finally:
        numba.set_num_threads(before)


def _record(
    wd: Workdir,
    found: tuple[np.ndarray, ...],
    stats: np.ndarray,
    ticks: np.ndarray,
    first: int,
    last: int,
    seconds: float,
) -> None:
    """Finish the layers ``first .. last`` that one compiled call solved (their values
    in the store ``found``) as :func:`solve_layer` finishes a layer, the call's
    ``seconds`` shared out by the cycles each layer's two steps took (its build and its
    solve, ``ticks``; they ran beside the neighbours' steps, so the shares add up to the
    call's time rather than each being a stretch of the clock), by positions where the
    processor has no cycle counter."""
    ids, ptr, values = found[0], found[1], found[3]
    build = (ticks[first : last + 1, 1] - ticks[first : last + 1, 0]).astype(np.float64)
    solve = (ticks[first : last + 1, 3] - ticks[first : last + 1, 2]).astype(np.float64)
    total = float((build + solve).sum())
    share = np.diff(ptr)[first : last + 1].astype(np.float64)
    for i in range(last, first - 1, -1):
        n = int(ptr[i + 1] - ptr[i])
        k = i - first
        if total > 0:
            took = seconds * (build[k] + solve[k]) / total
            table = seconds * build[k] / total
        else:
            took = seconds * n / share.sum()
            table = 0.0
        wd.finish(
            int(ids[i]),
            values[ptr[i] : ptr[i + 1]],
            {
                "bound": 0.5 * float(stats[i, 2]),
                "sweeps": int(stats[i, 0]),
                "updates": int(stats[i, 1]),
                "seconds": float(took),
                "table_seconds": float(table),
                "positions": n,
                "moves": int(stats[i, 3]),
            },
        )


def _finished(
    wd: Workdir, model: CompiledModel, k: Kernels, layer: int, reach: np.ndarray
) -> tuple[tuple[np.ndarray, ...], float]:
    """The finished layers ``reach`` as the fill kernel reads them, ``(layer ids,
    pointers, keys, values, directory offsets, directories, index offsets, key and value
    pairs by index)`` side by side (a directory per layer:
    :mod:`perfectplay.compiled.search`; the pairs by the model's perfect index where it
    has one, one cache line a lookup: see the fill kernel),
    and the largest bound among them
    (values read from them are known to that much). A game small enough
    (:data:`_STORE_BYTES`) keeps every layer it has read in one store on the work
    directory, so that the many layers of a game like Pig, each of which reaches a
    hundred others, copy each finished layer once instead of once per layer that reads
    it (with their bounds, so that a layer asks for the records of the new ones only)."""
    store = _store(wd, model, k)
    if store is not None:
        found, bounds = store
        at = np.searchsorted(found[0], reach)
        for i in at[np.isnan(bounds[at])].tolist():
            lid = int(found[0][i])
            bounds[i] = _bound(wd, model, layer, lid)
            _load(wd, model, k, lid, i, found)
        return found, float(bounds[at].max()) if at.size else 0.0
    eps = max((_bound(wd, model, layer, int(lid)) for lid in reach), default=0.0)
    sizes = [wd.keys(int(lid)).size for lid in reach]
    spans = _spans(model, k, reach, sizes)
    need = _FINISHED_BYTES * sum(sizes) + 16 * sum(spans)
    require(need, f"{model.name}: the finished layers layer {layer} reads")
    found = _slices(reach, sizes, spans)
    for i, lid in enumerate(reach):
        _load(wd, model, k, int(lid), i, found)
    return found, eps


def _store(
    wd: Workdir, model: CompiledModel, k: Kernels
) -> tuple[tuple[np.ndarray, ...], np.ndarray] | None:
    """The store of every layer of a game small enough (:data:`_STORE_BYTES`), made
    on first use and kept on the work directory: ``(room, bounds)``, the room of
    :func:`_slices` for all the layers and the bound of each layer read into it so far
    (NaN: not yet read); ``None`` for a larger game."""
    head = wd.header()
    assert head is not None
    total = int(sum(head["sizes"]))
    if _FINISHED_BYTES * total > _STORE_BYTES:
        return None
    if wd.cache.get("finished") is None:
        ids = np.array(head["layers"], np.int64)
        sizes = [int(x) for x in head["sizes"]]
        spans = _spans(model, k, ids, sizes)
        need = _FINISHED_BYTES * total + 16 * sum(spans)
        require(need, f"{model.name}: the values of its finished layers")
        wd.cache["finished"] = (_slices(ids, sizes, spans), np.full(len(ids), np.nan))
    store: tuple[tuple[np.ndarray, ...], np.ndarray] = wd.cache["finished"]
    return store


def _spans(model: CompiledModel, k: Kernels, ids: np.ndarray, sizes: list[int]) -> list[int]:
    """How many numbers of each layer's perfect index to hold (0: found by directory)."""
    p = model.params
    return [dense_span(int(k.layer_size(lid, p)), n) for lid, n in zip(ids, sizes, strict=True)]


def _bound(wd: Workdir, model: CompiledModel, layer: int, lid: int) -> float:
    """The bound of finished layer ``lid``, which ``layer`` reaches (a layer not yet
    solved is a :class:`ModelError`)."""
    done = wd.finished(lid)
    if done is None:
        raise ModelError(f"{model.name}: layer {layer} reaches layer {lid}, not yet solved")
    return float(done["bound"])


# Bytes per position of a finished layer held for the fill kernel: its key, its value and
# its share of the layer's directory (at most half an entry).
_FINISHED_BYTES = 8 + 8 + 4


def _slices(ids: np.ndarray, sizes: list[int], spans: list[int]) -> tuple[np.ndarray, ...]:
    """Room for the finished layers ``ids`` of ``sizes`` positions and ``spans`` numbers
    of their perfect indexes (0: none), side by side: ``(ids, pointers, keys, values,
    directory offsets, directories, index offsets, key and value pairs by index)``."""
    ptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=ptr[1:])
    dptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(
        [0 if m else directory_size(n) for n, m in zip(sizes, spans, strict=True)], out=dptr[1:]
    )
    iptr = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(spans, out=iptr[1:])
    total = int(ptr[-1])
    return (
        ids,
        ptr,
        np.empty(total, np.int64),
        np.empty(total, np.float64),
        dptr,
        np.zeros(int(dptr[-1]), np.int64),
        iptr,
        np.empty(2 * int(iptr[-1]), np.int64),
    )


def _load(
    wd: Workdir, model: CompiledModel, k: Kernels, lid: int, i: int, found: tuple[Any, ...]
) -> None:
    """Copy finished layer ``lid`` into slice ``i`` of ``found`` (:func:`_slices`) and
    write its directory, or its keys and values by index."""
    _, ptr, keys, values, dptr, dirs, iptr, pairs = found
    a, b = int(ptr[i]), int(ptr[i + 1])
    keys[a:b] = wd.keys(lid)
    values[a:b] = wd.values(lid)
    if iptr[i + 1] > iptr[i]:
        mine = _by_index(model, k, keys[a:b], int(iptr[i + 1] - iptr[i]))
        _pair_by_index(keys[a:b], values[a:b], mine, pairs, int(iptr[i]))
    else:
        _fill_directory(keys, a, b, dirs, int(dptr[i]))


def _by_index(model: CompiledModel, k: Kernels, keys: np.ndarray, span: int) -> np.ndarray:
    """The positions of a layer (``keys``) by the model's perfect index, -1 at a number
    no position has (an empty array when ``span``, the index's size, is 0); an index out
    of range or numbering two positions alike is a :class:`ModelError`."""
    where = np.empty(span, np.int64)
    if span:
        err = np.zeros(4, np.int64)
        _number_by_index(keys, k.index(keys, model.params), where, err)
        raise_model_error(model, err)
    return where


def _sweep_to_bound(
    model: CompiledModel,
    layer: int,
    settings: Settings,
    lo: np.ndarray,
    hi: np.ndarray,
    table: tuple[Any, ...],
    comp_ptr: np.ndarray,
) -> tuple[int, int, float]:
    """Solve the layer's strongly connected components (component ``c`` is the slots
    ``comp_ptr[c] .. comp_ptr[c + 1] - 1``, the table's rows in slot order) in reverse
    topological order (:mod:`perfectplay.compiled.sweep`) until every gap is within the
    tolerance; returns
    ``(most sweeps of a component, position updates, largest gap)``. A component whose
    gap stops shrinking above the tolerance, or the sweep limit, is a
    :class:`ModelError` saying so (never an early stop)."""
    n = lo.size
    if n == 0:
        return 0, 0, 0.0
    # Values read from finished layers are known to eps only: the gap cannot close below
    # twice that. A component aims at half the layer's own tolerance above it, so that
    # the components after it, which read its bounds, still close within the layer's
    # (the bounds stay bounds whatever the targets; the reported bound is the gap, which
    # includes what was inherited).
    inherited = 2.0 * float(table[6])
    accept = settings.tolerance + inherited
    limits = (
        0.5 * settings.tolerance + inherited,
        accept,
        float(settings.stall),
        settings.max_sweeps,
    )
    with warnings.catch_warnings():
        # Compiled with parallel=True for its cache's sake (see the kernels' solve_layers):
        # its own loop is serial, the threads are solve_big's.
        warnings.simplefilter("ignore", NumbaPerformanceWarning)
        status, _, most, updates, g = _solve_components(lo, hi, table, comp_ptr, limits)
    _refuse(model, layer, settings, status, g, int(most))
    return int(most), int(updates), float((hi - lo).max())


def _refuse(
    model: CompiledModel, layer: int, settings: Settings, status: int, gap: float, sweeps: int
) -> None:
    """The :class:`ModelError` of a layer whose sweeps ended with ``status`` (the gap
    they left and the most sweeps a component took); nothing when it is OK."""
    if status == _sweep.STALLED:
        raise ModelError(
            f"{model.name}: layer {layer} does not contract: the bounds stay {gap:.3g} "
            f"apart after {sweeps:,} sweeps (play can go on for ever with some "
            "probability, so the value is not unique)"
        )
    if status == _sweep.MAXED:
        raise ModelError(
            f"{model.name}: layer {layer} was not certified within "
            f"{settings.max_sweeps:,} sweeps (bounds {gap:.3g} apart; raise max_sweeps)"
        )


def describe_memory(nbytes: int) -> str:
    """``nbytes`` for a person."""
    return format_bytes(nbytes)
