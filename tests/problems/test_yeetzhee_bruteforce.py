"""Yeetzhee against an independent brute force over ORDERED dice outcomes.

The twin below knows nothing of groupings, symmetry, ranks, the chance-graph core or the
prefix rule: its state is the sequence of values kept so far, and at every state it tries
every subset of the m possible next values as "the values I keep" (the analysis' test set 1
method), solving x = 1 + (1 - p) x + sum p_i e_i for each subset. Only the goal test (the
final value counts, sorted, equal the target sizes) touches the rules.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from fractions import Fraction
from functools import cache

import pytest

from perfectplay.problems.yeetzhee import solve

INF = math.inf


def brute_force(n: int, m: int, groups, exact: bool = False):
    """Value of every ordered sequence of kept values: dict sequence -> expected rolls."""
    target = sorted(groups)
    one = Fraction(1) if exact else 1.0

    @cache
    def value(seq: tuple[int, ...]):
        if len(seq) == n:
            return 0 * one if sorted(Counter(seq).values()) == target else INF
        after = [value(seq + (v,)) for v in range(m)]
        finite = [a for a in after if a != INF]
        best = INF
        # Keeping an outcome of infinite value can never help; every other subset is tried.
        for r in range(1, len(finite) + 1):
            for kept in itertools.combinations(finite, r):
                x = (one * m + sum(kept)) / len(kept)  # (1 + sum (1/m) e_i) / (r/m)
                if x < best:
                    best = x
        return best

    value(())
    return {seq: value(seq) for seq in _sequences(n, m)}


def _sequences(n: int, m: int):
    for length in range(n + 1):
        yield from itertools.product(range(m), repeat=length)


def _partitions(n: int, largest: int | None = None):
    largest = n if largest is None else largest
    if n == 0:
        yield ()
        return
    for first in range(min(n, largest), 0, -1):
        for rest in _partitions(n - first, first):
            yield (first, *rest)


def _check(n: int, m: int, groups) -> int:
    sol = solve(n, m, groups)
    twin = brute_force(n, m, groups)
    for seq, expected in twin.items():
        sizes = list(Counter(seq).values())
        got = sol.expected(sizes)
        if expected == INF:
            assert got == INF, (n, m, groups, seq, got)
        else:
            assert got == pytest.approx(expected, rel=1e-9, abs=1e-9), (n, m, groups, seq)
    return len(twin)


ALL_SMALL = [(n, m, p) for n in range(1, 6) for m in range(1, 6) for p in _partitions(n)]


def test_every_instance_with_n_m_at_most_5():
    # All 90 distinct instances with N, M <= 5 (K > M included: the value is inf), so any
    # random sample of that range is covered; every ordered state is compared, not only
    # the start.
    assert len(ALL_SMALL) == 90
    states = sum(_check(n, m, p) for n, m, p in ALL_SMALL)
    assert states > 20_000


def test_random_instances_up_to_six():
    # 200 random draws (fixed seed) from the test set 1 range, N, M <= 6, where the ordered
    # state space stays small enough for the twin.
    rng = random.Random(20200712)
    done = 0
    while done < 200:
        n, m = rng.randint(1, 6), rng.randint(1, 6)
        if m**n > 1300:
            continue
        # Random composition of n, sorted into group sizes.
        cuts = sorted(rng.sample(range(1, n), rng.randint(0, n - 1)))
        sizes = [b - a for a, b in zip([0, *cuts], [*cuts, n], strict=True)]
        rng.shuffle(sizes)
        _check(n, m, sizes)
        done += 1


@pytest.mark.parametrize(
    "n,m,groups",
    [(3, 6, (1, 2)), (4, 3, (2, 2)), (4, 4, (1, 1, 2)), (5, 2, (2, 3)), (3, 3, (1, 1, 1))],
)
def test_exact_fraction_equals_exact_brute_force(n, m, groups):
    sol = solve(n, m, groups)
    truth = brute_force(n, m, groups, exact=True)[()]
    exact = sol.exact_value()
    assert isinstance(exact, Fraction) and exact == truth
    assert float(exact) == pytest.approx(sol.value, rel=1e-12)
