"""``solve_compiled``: explore a compiled model, then solve its layers from the last.

The layers run on the tier runner (:mod:`perfectplay.tiers`): each layer is one batch
(:func:`~perfectplay.compiled.layered.solve_layer`, which sweeps the whole layer and
writes its own files in the work directory), released once every layer it reaches is
finished. In process (``engine="threads"``) the layers run one after another, from the
last, each with the kernels' threads (a small game in its temporary directory runs its
layers in compiled runs instead: :func:`~perfectplay.compiled.layered.solve_layers`);
the ``processes`` and ``dask`` engines first find which layers each layer reaches (one
counting pass per layer, kept in ``reads.json``), so that layers that do not reach each
other run at once on different workers.

>>> from perfectplay.examples.pig_compiled import CompiledPig
>>> sol = solve_compiled(CompiledPig(goal=10))
>>> round(sol.value(), 10), sol.bound < 1e-12       # published 0.7094243225983
(0.7094243226, True)
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from perfectplay._util.atomic import write_bytes
from perfectplay._util.progress import Progress
from perfectplay._util.usermodules import USER_MODULE_PREFIX, same_module
from perfectplay.compiled.explore import explore
from perfectplay.compiled.kernels import Kernels, kernels_for
from perfectplay.compiled.layered import Settings, check_largest, solve_layer, solve_layers
from perfectplay.compiled.model import CompiledModel, raise_model_error
from perfectplay.compiled.solution import CompiledSolution
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import InputError, ModelError, WriteError
from perfectplay.tiers import Job, Plan, Store, Tier, TierDone, run

__all__ = ["LayerJob", "solve_compiled"]


def solve_compiled(
    model: CompiledModel,
    *,
    workdir: str | Path | None = None,
    tolerance: float = 1e-13,
    max_sweeps: int = 100_000,
    progress: bool = False,
    engine: str = "threads",
    scheduler: str | None = None,
    workers: int | None = None,
) -> CompiledSolution:
    """Solve ``model`` (a :class:`~perfectplay.compiled.model.CompiledModel`) and return
    its :class:`~perfectplay.compiled.solution.CompiledSolution`.

    The positions and values live in ``workdir`` (a temporary directory, removed with the
    solution, when omitted); given an existing one of the same model, the solve resumes
    from its finished layers. ``tolerance`` is the certified gap each layer adds between
    the bounds of its positions, beyond twice the error of the finished layers it reads
    (so along a long chain of layers the error can grow past half the tolerance: Pig to
    100 ends at 1.2e-12 with the default); the solution's ``bound`` is the certified
    error. ``engine``,
    ``scheduler`` and ``workers`` say where the layers run (see the module docstring);
    every engine writes the same values.
    """
    if not isinstance(model, CompiledModel):
        raise ModelError(f"solve_compiled needs a CompiledModel, not {type(model).__name__}")
    if not 0.0 < tolerance < 1.0:
        raise InputError(f"tolerance must be between 0 and 1, not {tolerance!r}")
    model.checked()
    owned = workdir is None
    path = Path(tempfile.mkdtemp(prefix="perfectplay-")) if owned else Path(str(workdir))
    # A temporary directory that only this process reads keeps what fits in memory.
    wd = Workdir(path, private=owned and engine == "threads").create()
    t0 = time.perf_counter()
    try:
        k = kernels_for(model)
        head = wd.header()
        if head is not None:
            _same_model(path, head, model)
        if head is None:
            head = explore(model, k, wd, progress)
        explored = time.perf_counter()
        if engine != "dask":  # a cluster's workers have their own memory
            check_largest(wd, model)
        settings = Settings(tolerance=tolerance, max_sweeps=max_sweeps)
        bar = Progress("solving layers", enabled=progress)
        layers = list(head["layers"])
        reads = _all_later(layers) if engine == "threads" else _layer_reads(wd, model, k, layers)
        plan = Plan(
            tuple(
                Tier(lid, int(n), reads=tuple(reads[lid]), split=False)
                for lid, n in zip(reversed(layers), reversed(head["sizes"]), strict=True)
            )
        )

        def on_tier(d: TierDone) -> None:
            bar.update(d.finished, "layers", total=len(layers))

        def silent(d: TierDone) -> None:
            pass

        # A solve in a temporary directory in this process reports as it always did; one
        # in a work directory or on other processes reports each layer, its disk and the
        # time left (the runner's lines).
        report = on_tier if owned and engine == "threads" else None

        def on_layers(finished: int) -> None:
            bar.update(finished, "layers", total=len(layers))

        # A small game in this process's own directory: its layers in runs of one
        # compiled call each (layered.solve_layers), no runner between them.
        small = engine == "threads" and wd.private and solve_layers(wd, model, settings, on_layers)
        if not small:
            job = LayerJob(model, path, settings)
            job.share(wd)
            run(
                plan,
                job,
                engine,
                # The layers keep their own records (LayerJob): a private directory,
                # which nothing resumes, needs no record of the runner's in it either.
                workdir=None if wd.private else path,
                scheduler=scheduler,
                workers=workers,
                on_tier=report if progress else silent,
            )
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


class LayerJob(Job):
    """One layer, one batch: :func:`solve_layer` in the work directory at ``path``,
    which writes the layer's values and then its ``done`` record (a layer with that
    record is finished, and skipped by a resumed solve)."""

    def __init__(self, model: CompiledModel, path: Path, settings: Settings) -> None:
        super().__init__()
        self.model, self.path, self.settings = model, path, settings

    def _reset(self) -> None:
        super()._reset()
        self._wd: Workdir | None = None

    def share(self, wd: Workdir) -> None:
        """Work in ``wd`` in this process (the solve's own: what it has read stays
        read); a copy of the job sent to another process opens the directory anew."""
        self._wd = wd

    def workdir(self) -> Workdir:
        if self._wd is None:
            self._wd = Workdir(self.path)
        return self._wd

    def identity(self) -> str:
        return f"compiled {type(self.model).__module__}:{type(self.model).__qualname__} " + (
            ",".join(str(int(x)) for x in self.model.params)
        )

    def same_identity(self, found: str) -> bool:
        # The model's file solved from the command line (perfectplay_user_race) and
        # imported by a script (race) is one model: "compiled MODULE:CLASS PARAMS".
        head, _, tail = found.partition(":")
        my_head, _, my_tail = self.identity().partition(":")
        prefix = "compiled "
        return (
            tail == my_tail
            and head.startswith(prefix)
            and same_module(head.removeprefix(prefix), my_head.removeprefix(prefix))
        )

    def batch_done(self, tier: int, start: int, stop: int, store: Store) -> bool:
        return self.tier_done(tier, store)

    def run_batch(self, tier: int, start: int, stop: int, store: Store) -> None:
        solve_layer(self.workdir(), self.model, tier, self.settings)

    def tier_done(self, tier: int, store: Store) -> bool:
        # The work directory reads a layer's record until it finds it (another process
        # may have finished the layer), then keeps it.
        return self.workdir().finished(tier) is not None

    def finish_tier(self, tier: int, items: int, store: Store) -> None:
        """Nothing to merge: the layer wrote its own files."""


def _same_model(path: Path, head: dict[str, Any], model: CompiledModel) -> None:
    """Refuse a work directory that holds the solve of another model, or of this one
    with other parameters, saying which."""
    module, _, name = str(head.get("class", "")).partition(":")
    if name != type(model).__qualname__ or not same_module(module, type(model).__module__):
        shown = str(head.get("class")).removeprefix(USER_MODULE_PREFIX)
        raise InputError(f"{path} holds the solve of another model ({shown})")
    if head.get("params") != [int(x) for x in model.params]:
        theirs = head.get("parameters") or head.get("params")
        raise InputError(
            f"{path} holds the solve of {model.name} with other parameters ({theirs}, not "
            f"{model.parameters() or [int(x) for x in model.params]}): give another directory"
        )


def _all_later(layers: list[int]) -> dict[int, list[int]]:
    """Each layer waits for the next one (so, in turn, for every later one): the order
    of a solve in one process, which needs no counting pass (found in one pass over the
    layers in order: a search per layer took 4 ms of Pig's 198).

    >>> _all_later([3, 1, 2])
    {1: [2], 2: [3], 3: []}
    """
    order = sorted(layers)
    return {lid: order[i + 1 : i + 2] for i, lid in enumerate(order)}


def _layer_reads(
    wd: Workdir, model: CompiledModel, k: Kernels, layers: list[int]
) -> dict[int, list[int]]:
    """The later layers each layer's moves reach (``reads.json``, counted once)."""
    path = wd.path / "reads.json"
    try:
        found = json.loads(path.read_text())
        return {int(a): [int(x) for x in b] for a, b in found.items()}
    except (FileNotFoundError, json.JSONDecodeError, AttributeError, ValueError):
        pass
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    all_layers = np.array(layers, np.int64)
    reads: dict[int, list[int]] = {}
    for lid in layers:
        keys = np.ascontiguousarray(wd.keys(lid))
        later = all_layers[all_layers > lid]
        used = np.zeros(later.size, np.int64)
        err = np.zeros(4, np.int64)
        n = keys.size
        k.count(
            keys, lid, p, model.max_rolls, model.max_moves, later, used,
            np.zeros(n, np.int64), np.zeros(n, np.int64), err,
        )  # fmt: skip
        raise_model_error(model, err)
        reads[lid] = [int(x) for x in later[used.astype(bool)]]
    try:
        write_bytes(path, json.dumps(reads).encode())
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    return reads


def _write_start_value(wd: Workdir, head: dict[str, Any]) -> None:
    """Record the start's value in the header. The start is in the first layer: the
    exploration begins there and never moves to a lower one."""
    if head.get("start_value") is None and head["layers"]:
        first = head["layers"][0]
        keys = wd.keys(first)
        i = int(np.searchsorted(keys, head["start"]))
        assert i < keys.size and int(keys[i]) == head["start"], "the start is in layer one"
        wd.write_header({**head, "start_value": float(wd.values(first)[i])})
