"""The explorer's seed store against a dictionary of lists, as the explorer uses it:
each layer taken, lowest first, hands over the states it reaches in higher layers."""

from __future__ import annotations

import numpy as np
import pytest

from perfectplay.compiled import seeds as seeds_module
from perfectplay.compiled.seeds import SeedStore


def _reference(chunks: list[tuple[int, np.ndarray, np.ndarray]]) -> list[tuple[int, list[int]]]:
    """The layers taken and their seeds (sorted), from a plain dictionary."""
    waiting: dict[int, list[int]] = {}
    out = []
    pending = list(chunks)
    while True:
        if pending and (not waiting or pending[0][0] <= min(waiting)):
            _, states, layers = pending.pop(0)
            for s, lid in zip(states.tolist(), layers.tolist(), strict=True):
                waiting.setdefault(lid, []).append(s)
            continue
        if not waiting:
            return out
        lid = min(waiting)
        out.append((lid, sorted(waiting.pop(lid))))


@pytest.mark.parametrize("merge", [256, 3])
@pytest.mark.parametrize("wide", [False, True])
@pytest.mark.parametrize("seed", range(6))
def test_seed_store_matches_a_dictionary(
    seed: int, wide: bool, merge: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(seeds_module, "MERGE_CHUNKS", merge)
    rng = np.random.default_rng(seed)
    # Chunk i is handed over after layer i is taken, reaching layers above i: nearby
    # ones (counted into order) or, with ``wide``, some far apart (sorted by numpy).
    chunks = []
    for i in range(40):
        n = int(rng.integers(0, 300))
        layers = i + 1 + rng.integers(0, 12, n)
        if wide and n:
            layers[rng.random(n) < 0.1] = 2**62 - int(rng.integers(0, 3))
        states = rng.integers(-(2**63), 2**63 - 1, n, dtype=np.int64)
        chunks.append((i, states, layers.astype(np.int64)))
    store = SeedStore()
    store.add(np.array([42], np.int64), np.array([0], np.int64))
    got = []
    pending = list(chunks)
    while (taken := store.take()) is not None:
        lid, seeds = taken
        got.append((lid, sorted(seeds.tolist())))
        # The chunks of the layers taken so far (the store's rule: never below them).
        while pending and pending[0][0] <= lid:
            _, states, layers = pending.pop(0)
            store.add(states, layers)
    # The chunks handed over: those of layers up to the last taken.
    taken_layers = {lid for lid, _ in got}
    assert got == _reference(
        [(-1, np.array([42], np.int64), np.array([0], np.int64))]
        + [c for c in chunks if c[0] <= max(taken_layers)]
    )
    assert [lid for lid, _ in got] == sorted(lid for lid, _ in got)


def test_seed_store_reclaims_consumed_room() -> None:
    """Seeds taken are not kept: a long run of layers holds about what waits."""
    store = SeedStore()
    store.add(np.array([0], np.int64), np.array([0], np.int64))
    lid = 0
    while lid < 2000:
        taken = store.take()
        assert taken is not None
        lid, seeds = taken
        store.add(np.arange(100, dtype=np.int64) + lid, np.full(100, lid + 1, np.int64))
    assert seeds.tolist() == list(range(lid - 1, lid + 99))
    assert len(store._buf) <= 1024


def test_seed_store_merges_a_layer_reached_from_many() -> None:
    """A far layer reached with the same states from a thousand layers waits in at most
    MERGE_CHUNKS copies of each (more than a layer's list of arrays would hold)."""
    store = SeedStore()
    store.add(np.array([0], np.int64), np.array([0], np.int64))
    same = np.arange(50, dtype=np.int64)
    for lid in range(1000):
        taken = store.take()
        assert taken is not None and taken[0] == lid
        states = np.concatenate([same, [lid]])
        store.add(states, np.array([5000] * 50 + [lid + 1], np.int64))
        assert store._waiting <= 50 * (seeds_module.MERGE_CHUNKS + 1) + 1
    store.take()  # layer 1000
    taken = store.take()
    assert taken is not None and taken[0] == 5000
    assert set(taken[1].tolist()) == set(same.tolist())
    assert taken[1].size <= 50 * (seeds_module.MERGE_CHUNKS + 1)
    assert store.take() is None
