"""The core's lexicographic search, on a toy model with a brute-force twin.

The toy: arrange a multiset of letters so that no two neighbours are equal, and find the
lexicographically first arrangement. Its exact oracle is the k-letter form of the die
maker's lemma (every letter ``Y`` needs ``2 left[Y] <= n + [Y != last]``), and it has the
window property, so it exercises greedy steps, jumps and (with a weaker oracle) backtracking.
"""

from __future__ import annotations

import random

import pytest

from perfectplay.errors import ModelError, ResourceLimitError
from perfectplay.solvers.lexpath import LexPath, search


class Letters:
    """State: (index of the last letter or -1, letters still to place per letter)."""

    exact = True

    def __init__(self, counts, exact_oracle=True):
        self.moves = "abcdefgh"[: len(counts)]
        self.counts = tuple(counts)
        self.exact = exact_oracle
        self.calls = 0

    def start(self):
        return -1, self.counts

    def successor(self, state, m):
        last, left = state
        if m == last or left[m] == 0:
            return None
        return m, left[:m] + (left[m] - 1,) + left[m + 1 :]

    def feasible(self, state):
        self.calls += 1
        last, left = state
        if min(left) < 0:
            return False
        if not self.exact:  # only necessary: accepts dead ends, so the search must backtrack
            return True
        n = sum(left)
        return all(2 * c <= n + (i != last) for i, c in enumerate(left))

    def is_goal(self, state):
        return not any(state[1])

    def shape(self, state):
        return state[0]

    def repeat(self, state, earlier, times):
        last, left = state
        return last, tuple(a + times * (a - b) for a, b in zip(left, earlier[1], strict=True))


class NoJumps(Letters):
    """The same model without the optional jump hooks."""

    def __getattribute__(self, name):
        if name in ("shape", "repeat"):
            raise AttributeError(name)
        return super().__getattribute__(name)


def brute_force(counts):
    """Lexicographically first valid arrangement by plain enumeration, or None."""
    letters = "abcdefgh"
    best = None

    def rec(prefix, left):
        nonlocal best
        if best is not None:
            return
        if not any(left):
            best = prefix
            return
        for i, c in enumerate(left):  # in alphabetical order: the first complete one wins
            if c and (not prefix or prefix[-1] != letters[i]):
                rec(prefix + letters[i], left[:i] + (c - 1,) + left[i + 1 :])

    rec("", tuple(counts))
    return best


def random_counts(rng, k, total):
    counts = [0] * k
    for _ in range(total):
        counts[rng.randrange(k)] += 1
    return counts


def test_docstring_example():
    path = search(Letters([2, 3]), (-1, (2, 3)))
    assert path is not None and path.text() == "babab" and path.complete


@pytest.mark.parametrize("seed", range(4))
def test_agrees_with_brute_force(seed):
    rng = random.Random(seed)
    impossible = 0
    for _ in range(120):
        k = rng.randint(1, 4)
        counts = random_counts(rng, k, rng.randint(0, 9))
        if rng.random() < 0.3:  # skewed multisets, often impossible
            counts[0] += rng.randint(1, 5)
        expected = brute_force(counts)
        impossible += expected is None
        for model in (Letters(counts), NoJumps(counts), Letters(counts, exact_oracle=False)):
            path = search(model, model.start())
            if expected is None:
                assert path is None, counts
                continue
            assert path is not None and path.text() == expected, (counts, model)
            assert path.length == len(expected) and model.is_goal(path.final)
            if model.exact:
                assert path.stats.backtracks == 0
    assert impossible > 10


def test_inexact_oracle_really_backtracks():
    model = Letters([2, 3], exact_oracle=False)
    path = search(model, model.start())
    assert path is not None and path.text() == brute_force([2, 3]) == "babab"
    assert path.stats.backtracks > 0
    model = Letters([1, 3], exact_oracle=False)  # impossible: found out by exhausting the tree
    assert brute_force([1, 3]) is None and search(model, model.start()) is None


def test_exact_oracle_is_linear_and_jumps_agree():
    rng = random.Random(7)
    for _ in range(20):
        k = rng.randint(2, 5)
        counts = [rng.randint(0, 400) for _ in range(k)]
        slow = search(NoJumps(counts), (-1, tuple(counts)))
        fast = search(Letters(counts), (-1, tuple(counts)))
        if slow is None:
            assert fast is None
            continue
        assert fast is not None and fast.text() == slow.text()
        n = sum(counts)
        # one oracle call per move tried at most: linear in the length
        assert slow.stats.oracle_calls <= 1 + k * n and slow.stats.backtracks == 0
        assert fast.stats.steps + fast.stats.jumped_moves == n


def test_jumps_make_huge_answers_cheap():
    counts = (10**9, 10**9 + 1, 3)
    model = Letters(counts)
    path = search(model, model.start())
    assert path is not None and path.length == sum(counts)
    assert path.stats.oracle_calls < 500
    head = search(NoJumps(counts), (-1, counts), stop=6)
    assert path.text(1, 6) == head.text(1, 6) == "ababab"
    text_end = path.text(path.length - 9)
    assert len(text_end) == 10 and all(x != y for x, y in zip(text_end, text_end[1:], strict=False))
    # the compact path still spells a valid arrangement, run by run
    seen = {}
    prev = ""
    for pattern, times in path.runs:
        for ch in pattern:
            seen[ch] = seen.get(ch, 0) + times
        block = pattern * min(times, 2)
        joined = prev[-1:] + block
        assert all(x != y for x, y in zip(joined, joined[1:], strict=False))
        prev = block
    assert (seen.get("a"), seen.get("b"), seen.get("c")) == counts


def test_stop_gives_a_prefix():
    counts = [40, 41, 7]
    full = search(Letters(counts), (-1, tuple(counts)))
    for stop in (1, 5, 30, 87):
        part = search(Letters(counts), (-1, tuple(counts)), stop=stop)
        assert part is not None and part.length >= stop
        assert part.text(1, stop) == full.text(1, stop)
        assert part.complete == (part.length == full.length)


def test_infeasible_start():
    assert search(Letters([3]), (-1, (3,))) is None


def test_lying_oracle_is_reported():
    class Liar(Letters):
        def feasible(self, state):
            return sum(state[1]) != 1  # claims feasible but the last letter is unreachable

    with pytest.raises(ModelError, match="not exact"):
        search(Liar([2, 1]), (-1, (2, 1)))


def test_node_budget():
    model = Letters([30, 3, 3, 3], exact_oracle=False)  # impossible; the oracle cannot tell
    with pytest.raises(ResourceLimitError):
        search(model, model.start(), max_nodes=50)


def test_text_slices_match_the_materialised_string():
    rng = random.Random(3)
    for _ in range(200):
        runs = [
            ("".join(rng.choice("ENSW") for _ in range(rng.randint(1, 4))), rng.randint(1, 6))
            for _ in range(rng.randint(0, 5))
        ]
        full = "".join(p * t for p, t in runs)
        path = LexPath(runs, len(full), None)
        assert path.text() == full
        first = rng.randint(1, len(full) + 1)
        last = rng.randint(first - 1, len(full))
        assert path.text(first, last) == full[first - 1 : last]
    with pytest.raises(ValueError):
        LexPath([("E", 2)], 2, None).text(0, 1)
