"""Small core utilities: memory budget, canonical state index, lazy kernels, chance graph checks."""

from __future__ import annotations

import numpy as np
import pytest

from perfectplay import memory
from perfectplay.core.canonical import StateIndex, sorted_tuple
from perfectplay.core.chance_graph import ChanceGraph
from perfectplay.core.jit import kernel
from perfectplay.errors import ResourceLimitError


def test_memory_limit_from_environment(monkeypatch):
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "1M")
    assert memory.available_bytes() == 1 << 20
    memory.require(1000, "small")
    with pytest.raises(ResourceLimitError, match="big table needs about 2.0 MiB"):
        memory.require(2 << 20, "big table")
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "lots")
    with pytest.raises(ResourceLimitError):
        memory.available_bytes()


def test_state_index_merges_symmetric_states():
    idx = StateIndex(canonical=sorted_tuple)
    assert idx.add([2, 1]) == (0, True)
    assert idx.add((1, 2)) == (0, False)
    assert idx.get([2, 1]) == 0 and idx.get([3]) is None
    assert [2, 1] in idx and [3] not in idx
    plain = StateIndex()
    assert plain.add("a") == (0, True) and plain.add("b") == (1, True) and len(plain) == 2


@kernel
def _sum_squares(xs):
    s = 0
    for x in xs:
        s += x * x
    return s


def test_kernel_compiled_and_interpreted_agree():
    xs = np.arange(10, dtype=np.int64)
    assert _sum_squares(xs) == _sum_squares.run(xs, compiled=False) == 285


def test_chance_graph_validation():
    g = ChanceGraph.from_lists(
        goal=[False, True, False], choices=[[0], [], [0]], outcomes=[[(1, 1), (2, 5)]]
    )
    assert g.has_retry_property()
    assert g.total_weight().tolist() == [6]
    with pytest.raises(ValueError, match="positive"):
        ChanceGraph.from_lists(goal=[False, True], choices=[[0], []], outcomes=[[(1, 0)]])
    with pytest.raises(ValueError, match="out of range"):
        ChanceGraph.from_lists(goal=[False, True], choices=[[1], []], outcomes=[[(1, 1)]])
    no_retry = ChanceGraph.from_lists(
        goal=[False, True, False], choices=[[0], [], []], outcomes=[[(1, 1), (2, 1)]]
    )
    assert not no_retry.has_retry_property()
