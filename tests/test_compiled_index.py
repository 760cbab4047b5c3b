"""The perfect index a compiled model may declare (``index`` and ``layer_size``): the
same values as without it, to the last bit, and a wrong index refused in one line."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from perfectplay.compiled import solve_compiled
from perfectplay.errors import ModelError
from perfectplay.examples import pig_compiled
from perfectplay.examples.pig_compiled import CompiledPig, CompiledPiglet


class Unindexed(CompiledPig):
    """Pig without its perfect index: found by hash sets and directories."""

    index = None
    layer_size = None


def _values(sol) -> np.ndarray:
    return np.concatenate([sol.workdir.values(lid) for lid in sol.layers])


@pytest.mark.parametrize("goal", [10, 30])
def test_pig_gives_the_same_values_with_and_without_its_index(goal):
    a, b = solve_compiled(CompiledPig(goal=goal)), solve_compiled(Unindexed(goal=goal))
    assert a.n_positions == b.n_positions
    assert np.array_equal(_values(a), _values(b))
    assert a.value() == b.value() and a.bound == b.bound


@pytest.mark.parametrize("goal", [1, 2, 10, 37])
def test_the_pig_index_numbers_each_layer_once(goal):
    for model in (CompiledPig(goal=goal), CompiledPiglet(goal=goal)):
        p = model.params
        for layer in range(2 * goal):
            size = pig_compiled.pig_layer_size(layer, p)
            seen = sorted(
                pig_compiled.pig_index(model.pack(mine, layer - mine, turn, pending), p)
                for mine in range(max(0, layer - goal + 1), min(layer, goal - 1) + 1)
                for turn in range(goal - mine)
                for pending in (False, True)
            )
            assert seen == list(range(size)), (goal, layer)


@njit(cache=True)
def twice_index(s, p):
    return pig_compiled.pig_index(s, p) // 2  # a position and its roll share a number


@njit(cache=True)
def short_size(layer, p):
    return max(pig_compiled.pig_layer_size(layer, p) - 1, 0)


class SameIndex(CompiledPig):
    index = twice_index


class ShortIndex(CompiledPig):
    layer_size = short_size


class HalfIndex(CompiledPig):
    layer_size = None


def test_a_wrong_index_is_refused_in_one_line():
    with pytest.raises(ModelError, match=r"^SameIndex: state .*index\(\) gives it the number of"):
        solve_compiled(SameIndex(goal=10))
    with pytest.raises(ModelError, match=r"^ShortIndex: state .*outside its layer's") as got:
        solve_compiled(ShortIndex(goal=10))
    assert "\n" not in str(got.value)
    with pytest.raises(ModelError, match="needs both index and layer_size"):
        solve_compiled(HalfIndex(goal=10))
