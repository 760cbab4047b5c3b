"""Enumerate a compiled model's positions layer by layer, in compiled code.

Play never moves to a lower layer, so layer ``L`` is complete once every lower layer has
been expanded: the layers are explored in ascending order, each from the states that
lower layers reached in it (its seeds), breadth-first within it by one compiled kernel
(``close_layer``: the model's functions, a queue and two open-addressing hash sets on
arrays, or for the layer's own positions the model's perfect index where it has one),
which returns the layer's positions and, each once, those it reaches in higher
layers, which wait as seeds of their own layer (a finished game is a value, never a
position). No Python object is made per position. Each finished layer is written as a
sorted ``int64`` array (``keys-L.npy``), which lookups binary-search.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from perfectplay._util.memory import format_bytes, recent_available_bytes, require
from perfectplay._util.progress import Progress
from perfectplay.compiled.kernels import Kernels
from perfectplay.compiled.model import (
    ERR_TOO_BIG,
    EXPLORE_BATCH,
    CompiledModel,
    raise_model_error,
)
from perfectplay.compiled.search import dense_span
from perfectplay.compiled.seeds import SeedStore
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import ResourceLimitError

__all__ = ["EXPLORE_BYTES", "explore"]

#: Bytes a position costs while its layer is explored: its place in the queue (8), in a
#: hash set at most half full (16, and 16 more while the set is doubled), the sorted copy
#: written out (8), with room for the seeds of later layers.
EXPLORE_BYTES = 64


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
    # The successors of a batch of positions wait in two arrays as long as the model's
    # declared sizes allow (a model may declare 65,536 throws of 65,536 moves each).
    most_successors = max(EXPLORE_BATCH * model.max_rolls * model.max_moves, 1024)
    require(
        16 * most_successors,
        f"{model.name}: exploring {EXPLORE_BATCH} positions at a time, with room for "
        f"max_rolls ({model.max_rolls:,}) x max_moves ({model.max_moves:,}) successors each,",
    )
    seeds = SeedStore()
    seeds.add(np.array([start], np.int64), k.layer(np.array([start], np.int64), p))
    layers: list[int] = []
    sizes: list[int] = []
    total = 0
    bar = Progress("exploring", enabled=progress)
    # Not deduplicated here: the kernel's hash set skips a seed seen twice.
    for lid, entry in iter(seeds.take, None):
        require(64 * entry.size, f"{model.name}: exploring layer {lid}")
        # The layer's search stops, in one line, where its positions would not fit (a
        # small game has hundreds of layers: the memory is not read again for each).
        budget = recent_available_bytes()
        most = max(1 << 16, budget // EXPLORE_BYTES)
        err = np.zeros(4, np.int64)
        # The last layer's size guesses this one's (layers of one game grow and shrink
        # slowly): its hash set is then made about the right size at once.
        guess = sizes[-1] if sizes else 0
        # By the perfect index where the layer's numbers are not far more than its
        # positions (as the solver judges it: search.dense_span).
        span = dense_span(int(k.layer_size(lid, p)), max(guess, entry.size))
        found, out_s, out_l = k.close_layer(
            entry, lid, p, model.max_rolls, model.max_moves, guess, err, span, most
        )
        if err[0] == ERR_TOO_BIG:
            raise ResourceLimitError(
                f"{model.name}: exploring layer {lid}: more than {int(err[3]):,} positions "
                f"do not fit in the {format_bytes(budget)} of memory available (about "
                f"{EXPLORE_BYTES} bytes a position while exploring)"
            )
        raise_model_error(model, err)
        # Timsort: a breadth-first search finds a layer's positions in long sorted runs
        # (five times as fast on Pig's layers as numpy's default, a third on Ur's).
        keys = np.sort(found, kind="stable")
        seeds.add(out_s, out_l)
        wd.write_keys(lid, keys)
        layers.append(lid)
        sizes.append(int(keys.size))
        total += int(keys.size)
        bar.update(total, "positions")
    head.update(layers=layers, sizes=sizes, explore_seconds=time.perf_counter() - t0)
    wd.write_header(head)
    bar.done(f"{total:,} positions")
    return head
