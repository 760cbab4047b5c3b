"""FiveHundredEleven's game graph over positions ``(memory, cards played)``.

See :mod:`perfectplay.problems.fivehundredeleven` for why forgetting which cards were
played loses nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from perfectplay.graphs.game import GameGraph, Outcome
from perfectplay.problems.fivehundredeleven.instance import FULL, Instance


@dataclass(frozen=True, eq=False)
class Model:
    """The game graph of an instance and what each position means.

    Attributes:
        graph: positions ``(memory, played)`` in CSR form, start ``(0, 0)`` = id 0.
        memory: ``int64[n]``, the memory of each position.
        played: ``int64[n]``, the number of cards played before it.
    """

    instance: Instance
    graph: GameGraph
    memory: Any
    played: Any


def build(instance: Instance) -> Model:
    """The ``(memory, played)`` game graph of ``instance`` (see the module docstring).

    Positions are numbered by memory, then by cards played; every move goes to a larger
    id, so the retrograde solver's acyclic path finishes each position in one visit.
    """
    import numpy as np

    cards = np.asarray(instance.cards, dtype=np.int64)
    values = np.unique(cards)
    # subsets[m]: cards whose bits all lie in m (sum over submasks, one bit at a time).
    subsets = np.bincount(cards, minlength=FULL + 1)
    for b in range(9):
        view = subsets.reshape(-1, 2, 1 << b)
        view[:, 1, :] += view[:, 0, :]
    # fewest[m]: fewest cards whose OR is m, by breadth-first search over ORs (-1: never).
    fewest = np.full(FULL + 1, -1, np.int64)
    fewest[0] = 0
    frontier = np.zeros(1, np.int64)
    depth = 0
    while frontier.size:
        depth += 1
        seen = np.zeros(FULL + 1, np.bool_)
        seen[frontier[:, None] | values[None, :]] = True
        frontier = np.flatnonzero(seen & (fewest < 0))
        fewest[frontier] = depth
    mems = np.flatnonzero(fewest >= 0)  # ascending, mems[0] == 0
    k = mems.size
    slot = np.full(FULL + 1, -1, np.int64)
    slot[mems] = np.arange(k)
    lo = fewest[mems]
    hi = subsets[mems]
    sizes = hi - lo + 1
    base = np.cumsum(sizes) - sizes
    # The moves of memory m, the same for every t: the distinct memories m | x over cards x
    # that are not subsets of m, then m itself (a pass). The move to memory j from (m, t)
    # goes to (j, t + 1), id base[j] + t + 1 - lo[j]; a pass is just the case j = m.
    after = mems[:, None] | values[None, :]
    after = np.where(after != mems[:, None], after, FULL + 1)
    after.sort(axis=1)
    keep = after <= FULL
    keep[:, 1:] &= after[:, 1:] != after[:, :-1]
    full_row = mems == FULL
    after = np.concatenate([after, mems[:, None]], axis=1)
    keep = np.concatenate([keep, ~full_row[:, None]], axis=1)
    width = keep.sum(axis=1)  # moves of each memory, pass included (0 at memory 511)
    target = slot[after[keep]]  # row by row
    shift = base[target] - lo[target] + 1
    first = np.cumsum(width) - width

    total = int(sizes.sum())
    node_mem = np.repeat(np.arange(k), sizes)
    node_t = lo[node_mem] + np.arange(total) - base[node_mem]
    node_width = width[node_mem]
    edge_start = np.cumsum(node_width) - node_width
    move = np.arange(int(node_width.sum())) - np.repeat(edge_start - first[node_mem], node_width)
    children = shift[move] + np.repeat(node_t, node_width)
    # No pass once every subset card is played: drop the last move of each memory's last t.
    last = base + sizes - 1
    no_pass = last[~full_row]
    children = np.delete(children, edge_start[no_pass] + node_width[no_pass] - 1)
    degree = node_width
    degree[no_pass] -= 1
    indptr = np.zeros(total + 1, np.int64)
    np.cumsum(degree, out=indptr[1:])
    terminal = np.zeros(total, np.int8)
    terminal[node_mem == k - 1] = Outcome.WIN if full_row[-1] else 0
    graph = GameGraph(indptr, children.astype(np.int32), terminal, 0)
    return Model(instance, graph, mems[node_mem], node_t)
