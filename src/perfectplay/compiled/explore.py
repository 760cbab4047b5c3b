"""Enumerate a compiled model's positions layer by layer, in compiled code.

Play never moves to a lower layer, so layer ``L`` is complete once every lower layer has
been expanded: the layers are explored in ascending order, each from the states that
lower layers reached in it (its seeds), breadth-first within it. Each round expands a
frontier in a compiled kernel, which returns the successors that go on (a finished game
is a value, never a position) with their layers; the new ones of this layer become the
next frontier (sorted, deduplicated, set difference with the known ones), the others
wait as seeds of their own layer. No Python object is made per position: every step is
a NumPy array operation or a kernel. Each finished layer is written as a sorted ``int64``
array (``keys-L.npy``), which lookups binary-search.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.compiled.kernels import Kernels
from perfectplay.compiled.model import CompiledModel, raise_model_error
from perfectplay.compiled.workdir import Workdir

__all__ = ["explore"]

#: Frontier states expanded per kernel call (bounds the successor buffer).
CHUNK_MOVES = 1 << 24


def explore(
    model: CompiledModel, k: Kernels, wd: Workdir, progress: bool = False
) -> dict[str, Any]:
    """Explore ``model`` into ``wd`` and return the header written (see
    :mod:`perfectplay.compiled.workdir`)."""
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    start = int(k.start(p))
    t0 = time.perf_counter()
    head: dict[str, Any] = {
        "model": model.name,
        "class": f"{type(model).__module__}:{type(model).__qualname__}",
        "parameters": model.parameters(),
        "params": [int(x) for x in p],
        "start": start,
    }
    if k.outcome(start, p) >= 0.0:  # over before it starts: nothing to solve
        head.update(layers=[], sizes=[], start_value=float(k.outcome(start, p)))
        wd.write_header(head)
        return head
    seeds: dict[int, list[np.ndarray]] = {}
    first = int(k.layer(np.array([start], np.int64), p)[0])
    seeds[first] = [np.array([start], np.int64)]
    layers: list[int] = []
    sizes: list[int] = []
    total = 0
    bar = Progress("exploring", enabled=progress)
    per_state = max(1, model.max_rolls * model.max_moves)
    while seeds:
        lid = min(seeds)
        known = np.unique(np.concatenate(seeds.pop(lid)))
        frontier = known
        while frontier.size:
            chunk = max(1, CHUNK_MOVES // per_state)
            fresh: list[np.ndarray] = []
            for a in range(0, frontier.size, chunk):
                part = frontier[a : a + chunk]
                cap = part.size * per_state
                require(16 * cap, f"{model.name}: exploring layer {lid}")
                out_state = np.empty(cap, np.int64)
                out_layer = np.empty(cap, np.int64)
                err = np.zeros(4, np.int64)
                n = k.expand(part, p, model.max_rolls, model.max_moves, out_state, out_layer, err)
                raise_model_error(model, err)
                succ, lay = out_state[:n], out_layer[:n]
                same = lay == lid
                fresh.append(succ[same])
                _add_seeds(seeds, succ[~same], lay[~same])
            new = np.unique(np.concatenate(fresh))
            new = new[~_member(new, known)]
            known = np.union1d(known, new)
            frontier = new
            bar.update(total + known.size, "positions")
        wd.write_keys(lid, known)
        layers.append(lid)
        sizes.append(int(known.size))
        total += int(known.size)
    head.update(layers=layers, sizes=sizes, explore_seconds=time.perf_counter() - t0)
    wd.write_header(head)
    bar.done(f"{total:,} positions")
    return head


def _member(xs: np.ndarray, sorted_keys: np.ndarray) -> np.ndarray:
    """Whether each of ``xs`` is in ``sorted_keys``."""
    if sorted_keys.size == 0:
        return np.zeros(xs.size, bool)
    pos = np.searchsorted(sorted_keys, xs)
    pos[pos == sorted_keys.size] = 0
    return sorted_keys[pos] == xs


def _add_seeds(seeds: dict[int, list[np.ndarray]], states: np.ndarray, layers: np.ndarray) -> None:
    """File states reached in higher layers under their layer, deduplicated per call."""
    if not states.size:
        return
    order = np.argsort(layers, kind="stable")
    states, layers = states[order], layers[order]
    cuts = np.flatnonzero(np.diff(layers)) + 1
    for part_s, part_l in zip(np.split(states, cuts), np.split(layers, cuts), strict=True):
        lid = int(part_l[0])
        got = seeds.setdefault(lid, [])
        got.append(part_s)
        if len(got) > 256:  # keep the waiting lists short
            seeds[lid] = [np.unique(np.concatenate(got))]
