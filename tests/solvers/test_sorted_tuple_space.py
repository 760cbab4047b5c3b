"""SortedTupleSpace: dense ranks of sorted tuples under per-position caps."""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from perfectplay.graphs.canonical import SortedTupleSpace


def _all_sorted(bounds):
    top = max(bounds, default=0)
    return [
        t
        for t in itertools.product(range(top + 1), repeat=len(bounds))
        if list(t) == sorted(t) and all(x <= b for x, b in zip(t, bounds, strict=True))
    ]


def test_agrees_with_enumeration_on_random_caps():
    rng = random.Random(5)
    for _ in range(300):
        k = rng.randint(0, 5)
        bounds = [rng.randint(0, 5) for _ in range(k)]
        space = SortedTupleSpace(bounds)
        truth = _all_sorted(bounds)
        index = {t: i for i, t in enumerate(truth)}
        assert len(space) == space.size == len(truth)
        for dtype in (np.int8, np.int64):
            rows = space.rows(dtype)
            assert rows.dtype == dtype and [tuple(r) for r in rows.tolist()] == truth
        rows = space.rows()
        assert space.rank_rows(rows).tolist() == list(range(len(truth)))
        assert [space.rank(t) for t in truth] == list(range(len(truth)))
        assert [space.unrank(i) for i in range(len(truth))] == truth
        inc = space.incremented_ranks(rows)
        for i, t in enumerate(truth):
            for j in range(k):
                bumped = list(t)
                bumped[j] += 1
                assert inc[i, j] == index.get(tuple(bumped), -1)


def test_membership_and_errors():
    space = SortedTupleSpace([3, 1])  # caps tighten to suffix minima: (1, 1)
    assert space.bounds == (1, 1)
    assert (0, 1) in space and (1, 0) not in space and (2, 2) not in space and (0,) not in space
    with pytest.raises(ValueError, match="not a sorted tuple"):
        space.rank((1, 0))
    with pytest.raises(ValueError, match="out of range"):
        space.unrank(3)
    with pytest.raises(ValueError, match="non-negative"):
        SortedTupleSpace([-1])
    with pytest.raises(ValueError, match="cannot hold"):
        SortedTupleSpace([200]).rows(np.int8)


def test_huge_space_counts_exactly_but_refuses_64_bit_ranks():
    space = SortedTupleSpace([50] * 50)
    assert space.size == 100891344545564193334812497256  # C(100, 50)
    assert space.rank(space.unrank(space.size - 1)) == space.size - 1
    with pytest.raises(OverflowError):
        len(space)
    with pytest.raises(OverflowError):
        space.rank_rows(np.zeros((1, 50), np.int64))
