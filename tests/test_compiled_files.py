"""The compiled solve's files and explorer: what a work directory keeps open, reads
without numpy's header parser, leaves unwritten when private; the explorer's kernel
whatever its hash set's size and its seeds' repeats."""

from __future__ import annotations

import numpy as np
import pytest

from perfectplay.compiled import layered, load_compiled, solve_compiled
from perfectplay.compiled import workdir as workdir_module
from perfectplay.compiled.kernels import kernels_for
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import InputError, ResourceLimitError
from perfectplay.examples.pig_compiled import CompiledPig
from perfectplay.examples.ur import Ur


def test_arrays_are_read_once_read_only_and_equal(tmp_path):
    wd = Workdir(tmp_path).create()
    keys = np.array([3, 8, 21], np.int64)
    wd.write_keys(4, keys)
    wd.finish(4, np.array([0.25, 0.5, 1.0]), {"bound": 0.0})
    assert wd.keys(4) is wd.keys(4)  # kept as written
    other = Workdir(tmp_path)
    got = other.keys(4)
    assert got.tolist() == [3, 8, 21] and got.dtype == np.int64
    assert other.keys(4) is got and not got.flags.writeable
    assert other.values(4).tolist() == [0.25, 0.5, 1.0]
    assert other.finished(4) == {"bound": 0.0}


def test_large_arrays_are_memory_mapped(tmp_path, monkeypatch):
    monkeypatch.setattr(workdir_module, "SMALL_BYTES", 16)
    Workdir(tmp_path).create().write_keys(0, np.arange(100, dtype=np.int64))
    got = Workdir(tmp_path).keys(0)
    assert isinstance(got, np.memmap) and np.array_equal(got, np.arange(100))


def test_a_header_numpy_wrote_otherwise_is_read_by_numpy(tmp_path):
    np.save(tmp_path / "keys-0.npy", np.asfortranarray(np.arange(6).reshape(2, 3)))
    assert Workdir(tmp_path).keys(0).tolist() == [[0, 1, 2], [3, 4, 5]]


def test_a_truncated_array_is_one_line(tmp_path):
    Workdir(tmp_path).create().write_keys(0, np.arange(50, dtype=np.int64))
    path = tmp_path / "keys-0.npy"
    path.write_bytes(path.read_bytes()[:-8])
    with pytest.raises(InputError, match="keys-0.npy: corrupt array"):
        Workdir(tmp_path).keys(0)
    with pytest.raises(InputError, match="keys-1.npy is missing"):
        Workdir(tmp_path).keys(1)


def test_a_private_solve_writes_nothing_it_holds(monkeypatch):
    sol = solve_compiled(CompiledPig(goal=20))
    # Not even the tier runner's record of the job: nothing resumes a private solve.
    assert sol.workdir.private
    assert [p.name for p in sol.workdir.path.iterdir()] == []
    # Nothing held (a memory budget of 0): every array goes to the files, and the
    # values are the same.
    monkeypatch.setattr(workdir_module, "HOLD_BYTES", 0)
    spilled = solve_compiled(CompiledPig(goal=20))
    names = {p.name for p in spilled.workdir.path.iterdir()}
    assert {f"keys-{lid}.npy" for lid in spilled.layers} <= names
    assert "table.json" not in names and "tiers.json" not in names  # records stay in memory
    assert spilled.value() == sol.value()
    assert [spilled.value(s) for s in spilled.states()] == [sol.value(s) for s in sol.states()]


def test_a_user_workdir_is_a_table(tmp_path):
    sol = solve_compiled(CompiledPig(goal=20), workdir=tmp_path)
    assert not sol.workdir.private
    table = load_compiled(tmp_path)
    assert table.value() == sol.value() and table.n_positions == sol.n_positions
    assert table.head["start_value"] == sol.value()


@pytest.mark.parametrize("model", [Ur(pieces=2), CompiledPig(goal=30)], ids=["ur2", "pig30"])
def test_a_layer_is_the_same_whatever_its_set_size_and_seed_repeats(model):
    # A size guess far above the layer's makes the kernel prefetch from the start (a set
    # past its prefetch threshold); seeds given twice are taken once; a model's perfect
    # index (Pig's) finds the same positions as the hash set, with and without asking.
    k = kernels_for(model)
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    start = np.array([int(k.start(p))], np.int64)
    lid = int(k.layer(start, p)[0])
    span = max(int(k.layer_size(lid, p)), 0)
    twice = np.concatenate([start, start])
    found = []
    cases = ((start, 0, 0), (twice, 1 << 20, 0), (twice, 0, span), (start, 1 << 20, span))
    for seeds, size, by in cases:
        err = np.zeros(4, np.int64)
        got = k.close_layer(seeds, lid, p, model.max_rolls, model.max_moves, size, err, by)
        assert not err.any()
        found.append([np.sort(got[0]), *(a[np.lexsort((got[1], got[2]))] for a in got[1:])])
    assert found[0][0].size > 1 and np.unique(found[0][0]).size == found[0][0].size
    for other in found[1:]:
        for a, b in zip(found[0], other, strict=True):
            assert np.array_equal(a, b)


def test_a_large_layer_by_its_perfect_index_is_the_same_as_by_the_hash_set():
    # Pig to 400's layer 399 numbers some 160,000 positions: past the prefetch
    # threshold, so that both ways ask for their slots ahead (the index's array, the
    # growing hash set).
    model = CompiledPig(goal=400)
    k = kernels_for(model)
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    lid = 399
    span = int(k.layer_size(lid, p))
    assert span >= 1 << 16
    seeds = np.array([model.pack(200, 199, 0), model.pack(0, 399, 0)], np.int64)
    found = []
    for by in (0, span):
        err = np.zeros(4, np.int64)
        got = k.close_layer(seeds, lid, p, model.max_rolls, model.max_moves, 0, err, by)
        assert not err.any()
        found.append([np.sort(got[0]), *(a[np.lexsort((got[1], got[2]))] for a in got[1:])])
    assert found[0][0].size > 1000
    for a, b in zip(*found, strict=True):
        assert np.array_equal(a, b)


def test_a_layer_relaid_through_a_file_is_the_same(tmp_path, monkeypatch):
    # Where the copies of the relayout would not fit, the arrays copied wait in a file
    # (removed at once); the values come out bit for bit the same.
    model = Ur(pieces=2)
    sol = solve_compiled(model)
    monkeypatch.setattr(layered, "available_bytes", lambda: 0)
    written: list[str] = []
    real = layered._spilled

    def spy(wd: Workdir, arr: np.ndarray, spill: bool) -> np.ndarray:
        out = real(wd, arr, spill)
        written.append(str(spill))
        assert isinstance(out, np.memmap) and np.array_equal(out, arr)
        return out

    monkeypatch.setattr(layered, "_spilled", spy)
    spilled = solve_compiled(model, workdir=tmp_path)
    assert written and set(written) == {"True"}
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]
    for lid in sol.layers:
        assert sol.workdir.values(lid).tobytes() == spilled.workdir.values(lid).tobytes()


def test_a_spill_that_cannot_be_written_is_one_line(tmp_path, monkeypatch):
    def full(*args: object, **kwargs: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(layered, "available_bytes", lambda: 0)
    monkeypatch.setattr(np, "memmap", full)
    with pytest.raises(ResourceLimitError, match=r"\.spill\..*No space left on device"):
        solve_compiled(Ur(pieces=1), workdir=tmp_path)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".spill")]


def test_a_largest_layer_that_cannot_fit_is_refused_before_any_layer_runs(tmp_path, monkeypatch):
    # Ur with 2 pieces: its largest layer (9,696 positions) needs about 1.6 MiB at least.
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "200K")
    with pytest.raises(ResourceLimitError, match=r"layer \d+ \(9,696 positions, the largest\)"):
        solve_compiled(Ur(pieces=2), workdir=tmp_path)
    names = [p.name for p in tmp_path.iterdir()]
    assert "table.json" in names and not [n for n in names if n.startswith("done-")]


def test_the_search_and_its_helpers_count_no_references():
    # The explorer's search and the helpers that it and the fill call for every position
    # and successor are compiled without numba's reference counts (they allocate
    # nothing): with them, each call and each pass of the loop over a batch counted
    # references to every array in reach, atomic increments and decrements that took
    # 45% of a Pig 100 solve's samples (perf), more than the search itself.
    import sys

    k = kernels_for(CompiledPig(goal=10))
    module = sys.modules[k.close_layer._fn.py_func.__module__]
    names = ("close_steps", "successors", "check_rolls", "check_turn", "over", "find_by_index")
    for name in names:
        assert getattr(module, name).targetoptions.get("_nrt") is False, name
    # ... and the layer they find is the same from a queue and sets grown from their
    # least sizes, step by step (the search stops, its arrays grow, it goes on).
    model = CompiledPig(goal=60)
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    seeds = np.array([model.pack(m, 59 - m, 0) for m in range(60)], np.int64)
    got = []
    for size in (0, 1 << 14):
        err = np.zeros(4, np.int64)
        found = k.close_layer(seeds, 59, p, model.max_rolls, model.max_moves, size, err, 0)
        assert not err.any()
        got.append([found[0], *(a[np.lexsort((found[1], found[2]))] for a in found[1:])])
    assert got[0][0].size > 1000 and got[0][1].size > 1024  # grown past the first sizes
    assert np.array_equal(np.sort(got[0][0]), np.sort(got[1][0]))
    assert np.array_equal(got[0][0], got[1][0])  # the same breadth-first order
    for a, b in zip(got[0][1:], got[1][1:], strict=True):
        assert np.array_equal(a, b)
