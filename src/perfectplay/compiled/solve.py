"""``solve_compiled``: explore a compiled model, then solve its layers from the last.

>>> from perfectplay.examples.pig_compiled import CompiledPig
>>> sol = solve_compiled(CompiledPig(goal=10))
>>> round(sol.value(), 10), sol.bound < 1e-12       # published 0.7094243225983
(0.7094243226, True)
"""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from perfectplay._util.progress import Progress
from perfectplay.compiled.explore import explore
from perfectplay.compiled.kernels import kernels_for
from perfectplay.compiled.layered import Settings, solve_layer
from perfectplay.compiled.model import CompiledModel
from perfectplay.compiled.solution import CompiledSolution
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import InputError, ModelError

__all__ = ["solve_compiled"]


def solve_compiled(
    model: CompiledModel,
    *,
    workdir: str | Path | None = None,
    tolerance: float = 1e-13,
    max_sweeps: int = 100_000,
    progress: bool = False,
) -> CompiledSolution:
    """Solve ``model`` (a :class:`~perfectplay.compiled.model.CompiledModel`) and return
    its :class:`~perfectplay.compiled.solution.CompiledSolution`.

    The positions and values live in ``workdir`` (a temporary directory, removed with the
    solution, when omitted); given an existing one of the same model, the solve resumes
    from its finished layers. ``tolerance`` is the certified gap between the bounds of
    every position (the reported error is half of it, plus rounding).
    """
    if not isinstance(model, CompiledModel):
        raise ModelError(f"solve_compiled needs a CompiledModel, not {type(model).__name__}")
    if not 0.0 < tolerance < 1.0:
        raise InputError(f"tolerance must be between 0 and 1, not {tolerance!r}")
    model.checked()
    owned = workdir is None
    path = Path(tempfile.mkdtemp(prefix="perfectplay-")) if owned else Path(str(workdir))
    wd = Workdir(path).create()
    t0 = time.perf_counter()
    try:
        k = kernels_for(model)
        head = wd.header()
        if head is not None and (head.get("class"), head.get("params")) != (
            f"{type(model).__module__}:{type(model).__qualname__}",
            [int(x) for x in model.params],
        ):
            raise InputError(f"{path} holds the solve of another model ({head.get('model')})")
        if head is None:
            head = explore(model, k, wd, progress)
        explored = time.perf_counter()
        settings = Settings(tolerance=tolerance, max_sweeps=max_sweeps)
        bar = Progress("solving layers", enabled=progress)
        layers = list(head["layers"])
        for done, lid in enumerate(reversed(layers)):
            if wd.finished(lid) is None:
                solve_layer(wd, model, lid, settings)
            bar.update(done + 1, "layers", total=len(layers))
        bar.done()
        _write_start_value(wd, head)
    except BaseException:
        if owned:
            shutil.rmtree(path, ignore_errors=True)
        raise
    sol = CompiledSolution(wd, model, owned=owned)
    sol.explore_seconds = explored - t0
    sol.solve_seconds = time.perf_counter() - explored
    return sol


def _write_start_value(wd: Workdir, head: dict[str, Any]) -> None:
    if head.get("start_value") is None and head["layers"]:
        sol = CompiledSolution(wd, None)
        wd.write_header({**head, "start_value": sol.value(head["start"])})
