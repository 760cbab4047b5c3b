"""A small game's layers solved in runs of one compiled call each
(:func:`perfectplay.compiled.layered.solve_layers`): the same values and records as one
:func:`~perfectplay.compiled.layered.solve_layer` per layer, a large layer among them
still solved alone, and kernel files named by every module compiled into them."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from perfectplay.compiled import kernels, layered, solve_compiled
from perfectplay.examples.pig_compiled import CompiledPig, CompiledPiglet
from perfectplay.examples.ur import Ur

_SAME = ("bound", "sweeps", "updates", "positions", "moves")


def _values(sol) -> np.ndarray:
    return np.concatenate([sol.workdir.values(lid) for lid in sol.layers])


@pytest.mark.parametrize(
    "model",
    [Ur(pieces=2), CompiledPig(goal=30), CompiledPiglet(goal=12)],
    ids=["ur2", "pig30", "piglet12"],
)
def test_one_call_gives_the_values_and_records_of_a_layer_at_a_time(model, tmp_path):
    fused = solve_compiled(model)  # a private directory: the small-game path
    alone = solve_compiled(model, workdir=tmp_path)  # a user's directory: a layer a batch
    assert fused.workdir.private and not alone.workdir.private
    assert fused.layers == alone.layers
    assert np.abs(_values(fused) - _values(alone)).max() <= 1e-12
    assert fused.value() == alone.value() and fused.bound == alone.bound
    for lid in fused.layers:
        mine, theirs = fused.workdir.finished(lid), alone.workdir.finished(lid)
        assert {k: mine[k] for k in _SAME} == {k: theirs[k] for k in _SAME}
        assert 0.0 <= mine["table_seconds"] <= mine["seconds"]


def test_a_large_layer_among_small_ones_is_solved_alone(monkeypatch, tmp_path):
    model = CompiledPig(goal=20)
    alone = solve_compiled(model, workdir=tmp_path)
    sizes = {lid: alone.workdir.keys(lid).size for lid in alone.layers}
    monkeypatch.setattr(layered, "_BIG_COMPONENT", 150)
    big = sorted(lid for lid, n in sizes.items() if n >= 150)
    assert big and len(big) < len(sizes)
    seen: list[int] = []
    solve_layer = layered.solve_layer

    def spy(wd, model, layer, settings):
        seen.append(layer)
        return solve_layer(wd, model, layer, settings)

    monkeypatch.setattr(layered, "solve_layer", spy)
    mixed = solve_compiled(model)
    assert sorted(seen) == big
    assert np.abs(_values(mixed) - _values(alone)).max() <= 1e-12
    assert abs(mixed.value() - alone.value()) <= 1e-12


def test_kernel_names_hash_every_module_compiled_into_them():
    # numba checks a cached kernel against its own file only: a module the kernels call
    # into that is not hashed into their name would be loaded stale after it changed.
    # Module-level imports only: one inside a function (model.py's error messages import
    # diagnose.py when they are written) brings nothing compiled into the kernels.
    here = Path(kernels.__file__).parent
    todo, found = ["_kernel_template.py"], set()
    while todo:
        tree = ast.parse((here / todo.pop()).read_text())
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                "perfectplay.compiled."
            ):
                name = node.module.rsplit(".", 1)[1] + ".py"
                if name not in found:
                    found.add(name)
                    todo.append(name)
    assert found == set(kernels._DEPENDS)
