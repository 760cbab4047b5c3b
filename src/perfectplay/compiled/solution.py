"""The solution of a compiled model, solved now or loaded from its table directory.

Values are looked up by binary search in each layer's sorted keys (no model needed);
the options of a position need the model's moves, so a table loaded without its model
answers values only and says so for the rest.
"""

from __future__ import annotations

import re
import shutil
import weakref
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from perfectplay._util.usermodules import USER_MODULE_PREFIX
from perfectplay.compiled.model import CompiledModel
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import (
    InputError,
    PerfectplayError,
    UnknownStateError,
    UnsupportedError,
    WriteError,
    short_repr,
)
from perfectplay.objectives import WIN_CHANCE, Objective
from perfectplay.results.options import Option, rank_options
from perfectplay.results.surface import Solution

__all__ = ["CompiledSolution", "load_compiled"]

SOLVER = "layered Gauss-Seidel, certified bounds"


class CompiledSolution(Solution):
    """Every position's winning chance for the mover (see :mod:`perfectplay.compiled`).

    A position is the model's ``int64`` state or the text its ``parse`` reads; the
    options of a position after a throw are asked for as ``(position, outcome)``.
    """

    kind = "stochastic"

    def __init__(self, wd: Workdir, model: CompiledModel | None, owned: bool = False) -> None:
        head = wd.header()
        if head is None:
            raise InputError(f"{wd.path}: no table header (the solve did not finish exploring)")
        self.workdir = wd
        self.model = model
        self.head = head
        self.layers: list[int] = list(head["layers"])
        self._keys = [wd.keys(lid) for lid in self.layers]
        self._values: list[np.ndarray] = []
        self.bound = 0.0
        for lid in self.layers:
            done = wd.finished(lid)
            if done is None:
                raise InputError(f"{wd.path}: layer {lid} is not solved")
            self._values.append(wd.values(lid))
            self.bound = max(self.bound, float(done["bound"]))
        self.explore_seconds = float(head.get("explore_seconds", 0.0))
        self.solve_seconds = 0.0
        if owned:  # a temporary directory lives as long as the solution
            weakref.finalize(self, shutil.rmtree, str(wd.path), True)

    # -- the surface ----------------------------------------------------------------------

    @property
    def name(self) -> str:
        return str(self.head["model"])

    @property
    def objective(self) -> Objective:
        return WIN_CHANCE

    @property
    def solver(self) -> str:
        return SOLVER

    @property
    def n_positions(self) -> int:
        """How many positions the table holds."""
        return int(sum(int(k.size) for k in self._keys))

    def value(self, state: Any = None) -> float:
        """The mover's winning chance at ``state`` (the start when omitted), known to
        :attr:`bound`."""
        s = self.position(state)
        if not self.layers:
            return float(self.head["start_value"])
        try:
            layer, idx = self._locate(s)
        except UnknownStateError:
            # The table holds the positions still in play; a finished game's value is
            # the rules' own (the Python-object models answer it too: Pig's (9, 0, 5)
            # to 10 is won).
            over = self._over(s)
            if over is None:
                raise
            return over
        return float(self._values[layer][idx])

    def _over(self, s: int) -> float | None:
        """The mover's value at ``s`` when the game is over there (``None`` otherwise, or
        without the model)."""
        if self.model is None:
            return None
        from perfectplay.compiled.kernels import kernels_for

        p = np.ascontiguousarray(self.model.params, dtype=np.int64)
        o = float(kernels_for(self.model).outcome(s, p))
        return o if o >= 0.0 else None

    def options(self, state: Any = None) -> list[Option]:
        """The moves after a throw, ``state = (position, outcome)`` (or the text
        ``"POSITION:OUTCOME"``), each with the mover's winning chance after it, best
        first; with one chance outcome (no dice) the position alone will do."""
        model = self._need_model("options")
        if isinstance(state, str) and ":" in state:
            text, _, throw = state.rpartition(":")
            try:
                state = (text, int(throw))
            except ValueError:
                raise InputError(f"{state!r}: the outcome after ':' is a number") from None
        if isinstance(state, tuple) and len(state) == 2:
            s, roll = self.position(state[0]), int(state[1])
        else:
            s, roll = self.position(state), None
        from perfectplay.compiled.kernels import kernels_for

        k = kernels_for(model)
        p = np.ascontiguousarray(model.params, dtype=np.int64)
        if float(k.outcome(s, p)) >= 0.0:
            return []
        weights, m, nexts, flips, over, _ = k.turn(s, p, model.max_rolls, model.max_moves)
        if roll is None:
            if weights.size != 1:
                raise InputError(
                    f"{model.name}: say which throw: options((position, outcome)), outcome "
                    f"0..{weights.size - 1}"
                )
            roll = 0
        if not 0 <= roll < weights.size:
            raise InputError(f"{model.name}: outcome {roll} is not 0..{weights.size - 1}")
        labels, values, states = [], [], []
        for j in range(int(m[roll])):
            t, f, o = int(nexts[roll, j]), int(flips[roll, j]), float(over[roll, j])
            v = o if o >= 0.0 else self.value(t)
            values.append(1.0 - v if f else v)
            labels.append(model.move_label(s, roll, j, t, f))
            states.append(t)
        return rank_options(labels, values, maximise=True, labels=labels, states=states)

    def layer_tables(self) -> Iterator[tuple[int, np.ndarray, np.ndarray]]:
        """Each layer's id, its positions (sorted ``int64`` states) and their values, in
        the order of :attr:`layers` (arrays, memory-mapped for a large table)."""
        yield from zip(self.layers, self._keys, self._values, strict=True)

    def states(self) -> Iterator[int]:
        for keys in self._keys:
            for s in keys:
                yield int(s)

    def save(self, path: str | Path, *, exact: bool = False, float32: bool = False) -> Path:
        """Write the table as a directory (the layout of
        :mod:`perfectplay.compiled.workdir`); ``float32`` halves the values' size."""
        if exact:
            raise UnsupportedError(f"{self.name}: a compiled solve has no exact values")
        out = Workdir(path)
        if out.path.resolve() == self.workdir.path.resolve():
            return out.path
        if out.path.exists() and not out.path.is_dir():
            raise WriteError(f"{out.path} is a file; a compiled table is saved as a directory")
        if out.path.exists() and any(out.path.iterdir()):
            raise InputError(f"{out.path} exists and is not empty; give a new directory")
        try:
            out.create()
        except OSError as exc:
            raise WriteError(f"cannot write {out.path}: {exc.strerror or exc}") from None
        for lid, keys, values in zip(self.layers, self._keys, self._values, strict=True):
            out.write_keys(lid, keys)
            done = self.workdir.finished(lid) or {}
            out.finish(lid, values.astype(np.float32) if float32 else values, done)
        out.write_header({k: v for k, v in self.head.items() if k not in ("format", "version")})
        return out.path

    # -- lookups ----------------------------------------------------------------------

    def _need_model(self, what: str) -> CompiledModel:
        if self.model is None:
            raise UnsupportedError(
                f"{self.name}: {what} needs the model's moves; load the table with its model"
            )
        return self.model

    def position(self, state: Any) -> int:
        """The model's integer state of ``state`` (an integer, the text its ``parse``
        reads, or ``None`` for the start)."""
        if state is None:
            return int(self.head["start"])
        if isinstance(state, str):
            if self.model is None:
                raise UnsupportedError(f"{self.name}: reading {state!r} needs the model")
            try:
                return int(self.model.parse(state))
            except (ValueError, PerfectplayError) as exc:
                # A state's number (the key of an exported row) reads as itself.
                if re.fullmatch(r"\s*-?\d{1,19}\s*", state):
                    return int(state)
                if isinstance(exc, PerfectplayError):
                    raise
                raise InputError(f"{self.name}: {exc}") from None
        if isinstance(state, int | np.integer) and not isinstance(state, bool):
            if not -(2**63) <= int(state) < 2**63:  # the kernels' states are int64
                raise InputError(
                    f"{self.name}: a position is an int64 state, not {short_repr(int(state))}"
                )
            return int(state)
        raise InputError(f"{self.name}: a position is an integer state or its text, not {state!r}")

    def _locate(self, s: int) -> tuple[int, int]:
        for i, keys in enumerate(self._keys):
            j = int(np.searchsorted(keys, s))
            if j < keys.size and int(keys[j]) == s:
                return i, j
        shown = self.model.describe(s) if self.model is not None else str(s)
        raise UnknownStateError(f"{shown} is not in the table of {self.name}")


def load_compiled(
    path: str | Path, model: CompiledModel | type[CompiledModel] | None = None
) -> CompiledSolution:
    """The table directory ``path`` as a :class:`CompiledSolution` (``model`` adds the
    options of every position and the reading of typed positions). ``model`` may be the
    model's class: the table's recorded parameters then rebuild the model (the class
    must be the one the table names; a table never imports a class by itself)."""
    wd = Workdir(path)
    head = wd.header()
    if head is None:
        raise InputError(f"{path}: not a perfectplay table")
    if isinstance(model, type):
        model = _rebuild(path, head, model)
    if model is not None and [int(x) for x in model.params] != head.get("params"):
        raise InputError(f"{path}: the table was solved with other parameters than {model.name}")
    return CompiledSolution(wd, model)


def _rebuild(path: str | Path, head: dict[str, Any], cls: type[CompiledModel]) -> CompiledModel:
    """The model of class ``cls`` that the table's header records (its ``parameters``)."""
    recorded = str(head.get("class", ""))
    if recorded.rpartition(":")[2] != cls.__qualname__:
        shown = recorded.removeprefix(USER_MODULE_PREFIX) or "another model"
        raise InputError(f"{path}: the table holds {shown}, not {cls.__name__}")
    parameters = head.get("parameters")
    if not isinstance(parameters, dict):
        raise InputError(f"{path}: the table records no parameters to rebuild its model")
    try:
        return cls(**parameters)
    except (TypeError, ValueError) as exc:
        raise InputError(f"{path}: its parameters do not rebuild {cls.__name__}: {exc}") from None
