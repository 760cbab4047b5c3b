"""Small core utilities: memory budget, canonical state index, lazy kernels, chance graph checks."""

from __future__ import annotations

import numpy as np
import pytest

from perfectplay._util import memory
from perfectplay._util.jit import helper, kernel
from perfectplay.errors import ResourceLimitError
from perfectplay.graphs.canonical import StateIndex, sorted_tuple
from perfectplay.graphs.chance import ChanceGraph


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


@helper
def _add_square(acc, x):
    acc[0] += x * x


@kernel
def _sum_squares_by_helper(xs):
    acc = np.zeros(1, np.int64)
    for x in xs:
        _add_square(acc, x)
    return acc[0]


def test_a_helper_runs_inside_compiled_and_interpreted_kernels(monkeypatch):
    monkeypatch.delenv("PERFECTPLAY_NO_JIT", raising=False)
    xs = np.arange(10, dtype=np.int64)
    assert _sum_squares_by_helper.run(xs, compiled=False) == 285
    assert _sum_squares_by_helper.run(xs, compiled=True) == 285
    # Called from Python (an interpreted kernel), the helper is its plain function.
    acc = np.zeros(1, np.int64)
    _add_square(acc, 3)
    assert acc[0] == 9 and _add_square.py_func is _add_square.__wrapped__


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


@kernel
def _fill_unset(value, remoteness):
    # The shape LLVM 20-22 miscompiles with AVX-512 masked stores (see jit's module).
    for v in range(len(value)):
        if value[v] == 0:
            value[v] = 2
            remoteness[v] = -1


@pytest.mark.parametrize("n", [17, 64, 765, 4099])
def test_compiled_masked_store_on_int8_is_correct(n):
    value = np.zeros(n, np.int8)
    value[::3] = 1
    remoteness = np.zeros(n, np.int32)
    _fill_unset(value, remoteness)
    assert np.bincount(value, minlength=3).tolist() == [0, (n + 2) // 3, n - (n + 2) // 3]
    assert (remoteness[value == 2] == -1).all() and (remoteness[value == 1] == 0).all()


def test_interpreted_budget_needs_time_and_a_repeated_kernel(monkeypatch):
    # A single instance (each kernel once, however long) stays interpreted; a process that
    # runs a kernel again after the budget prefers compiled kernels for all but tiny work.
    from perfectplay._util import jit

    monkeypatch.delenv("PERFECTPLAY_NO_JIT", raising=False)
    monkeypatch.setattr(jit, "_interpreted", [0.0, 0])
    monkeypatch.setattr(jit, "INTERPRETED_BUDGET", 0.0)
    double = jit.kernel(lambda x: 2 * x)
    assert double.run(1, compiled=False) == 2 and not jit.budget_spent()
    assert not jit.compile_for(5_000, 10**9)
    assert double.run(2, compiled=False) == 4 and jit.budget_spent()
    assert jit.compile_for(5_000, 10**9) and not jit.compile_for(10, 10**9)
    monkeypatch.setattr(jit, "INTERPRETED_BUDGET", 3600.0)  # time is the other condition
    assert not jit.budget_spent()


def test_a_repeated_kernel_compiles_an_instance_that_would_spend_the_budget(monkeypatch):
    # A file of instances: once a kernel ran interpreted, an instance whose interpreted
    # time alone would spend what is left of the budget runs compiled at once.
    from perfectplay._util import jit

    monkeypatch.delenv("PERFECTPLAY_NO_JIT", raising=False)
    monkeypatch.setattr(jit, "_interpreted", [0.0, 0])
    once = jit.kernel(lambda x: x)
    threshold = 100_000
    big = int(threshold * jit.INTERPRETED_BUDGET / jit._STARTUP_SECONDS) + 1
    assert not jit.compile_for(big, threshold, once)  # never run: the threshold rules
    once.run(1, compiled=False)
    assert once.repeated and jit.compile_for(big, threshold, once)
    assert not jit.compile_for(big // 2, threshold, once)


@pytest.mark.parametrize("n_targets", [1, 70, 65_536, 200_000])
def test_vectorised_transpose_equals_the_counting_sort(n_targets):
    from perfectplay.graphs._csr import _transpose, _transpose_numpy

    rng = np.random.default_rng(n_targets)
    n = 300
    ptr = np.zeros(n + 1, np.int64)
    np.cumsum(rng.integers(0, 8, n), out=ptr[1:])
    idx = rng.integers(0, n_targets, int(ptr[-1])).astype(np.int32)
    w = rng.integers(1, 9, idx.shape[0]).astype(np.int64)
    for weight, payload in ((w, 2), (None, 1), (None, 0)):
        got = _transpose_numpy(ptr, idx, n_targets, weight, payload == 1)
        want = _transpose.run(ptr, idx, n_targets, w if weight is not None else w[:0], payload,
                              compiled=False)  # fmt: skip
        for a, b in zip(got, want, strict=True):
            assert a.dtype == b.dtype and np.array_equal(a, b)
