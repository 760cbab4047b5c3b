"""The compiled kernels of one compiled model: exploration and the successor table.

The kernels (:mod:`perfectplay.compiled._kernel_template`) call the model's own njit
functions, so they are made per model: a copy of the template whose seven model names
are imported from the model's modules is written to a cache directory, under a name
hashed from the template and the model's source files, and imported; numba then caches
its machine code beside it, so only the first solve of a model (or of an edited one)
compiles. A model whose functions cannot be imported by name (defined in ``__main__`` or
a notebook) gets the same kernels compiled in memory, once per process.

numba itself is made ready by :mod:`perfectplay.compiled` as the rest of perfectplay
makes it (:func:`perfectplay._util.jit._import_numba`: the collector paused while it
loads, SciPy not imported behind it, on AVX-512 machines code without AVX-512, which
LLVM miscompiles), which works only before anything else imports numba: a model's
module takes its decorator from here (:func:`njit`) rather than from numba, whose
import a formatter sorts before perfectplay's.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import inspect
import os
import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, TypeVar, overload

from perfectplay._util.jit import _import_numba
from perfectplay.compiled.diagnose import Guarded, StartGuarded
from perfectplay.compiled.model import CompiledModel

__all__ = ["Kernels", "kernel_dir", "kernels_for", "njit"]

_F = TypeVar("_F", bound=Callable[..., Any])
_NAMES = ("start", "outcome", "rolls", "moves", "layer", "index", "layer_size")
_TEMPLATE = Path(__file__).with_name("_kernel_template.py")
# The modules of this package whose compiled functions the kernels call (directly or
# through each other).
_DEPENDS = (
    "components.py",
    "cycles.py",
    "hashset.py",
    "model.py",
    "prefetch.py",
    "search.py",
    "sweep.py",
)
_MARK = "start = outcome = rolls = moves = layer = index = layer_size = None  # MODEL FUNCTIONS"


@dataclass(frozen=True)
class Kernels:
    """The compiled kernels of one model class (see the template for each)."""

    start: Any
    outcome: Any
    layer: Any
    close_layer: Any
    count: Any
    fill: Any
    turn: Any
    index: Any
    layer_size: Any
    solve_layers: Any


_MADE: dict[tuple[int, ...], tuple[tuple[Any, ...], Kernels]] = {}
# Per model object: a layered solve asks once per layer, and finding a model's functions
# inspects its class.
_OF_MODEL: weakref.WeakKeyDictionary[CompiledModel, Kernels] = weakref.WeakKeyDictionary()


@overload
def njit(fn: _F, /) -> _F: ...


@overload
def njit(**options: Any) -> Callable[[_F], _F]: ...


def njit(fn: Any = None, /, **options: Any) -> Any:
    """``numba.njit``, numba imported the way perfectplay imports it (see the module
    docstring): a model's module that takes its decorator from here starts faster and
    compiles for the same CPU features as every other kernel of perfectplay. Used bare
    (``@njit``) or with numba's options (``@njit(cache=True)``), as numba's own.

    >>> @njit(cache=False)
    ... def twice(x):
    ...     return 2 * x
    >>> @njit
    ... def thrice(x):
    ...     return 3 * x
    >>> twice(21), thrice(14), hasattr(twice, "py_func")
    (42, 42, True)
    """
    decorate = _import_numba().njit(**options)
    return decorate if fn is None else decorate(fn)


def kernels_for(model: CompiledModel) -> Kernels:
    """The kernels of ``model``'s functions (made once per process)."""
    try:
        return _OF_MODEL[model]
    except (KeyError, TypeError):  # TypeError: a model that cannot be a key
        pass
    kernels = _kernels_of(model.functions() + model.index_functions())
    with contextlib.suppress(TypeError):
        _OF_MODEL[model] = kernels
    return kernels


def _kernels_of(fns: tuple[Any, ...]) -> Kernels:
    key = tuple(id(f) for f in fns)
    made = _MADE.get(key)
    if made is None:
        module = _generated(fns) or _in_memory(fns)

        def guard(kernel: Any) -> Guarded:
            return Guarded(kernel, _NAMES, fns)

        kernels = Kernels(
            StartGuarded(module.start_of, _NAMES, fns),
            *map(
                guard,
                (
                    module.outcome_of,
                    module.layer_of,
                    module.close_layer,
                    module.count,
                    module.fill,
                    module.turn,
                    module.index_of,
                    module.layer_size_of,
                    module.solve_layers,
                ),
            ),
        )
        made = (fns, kernels)  # the functions are kept so that their ids stay theirs
        _MADE[key] = made
    return made[1]


def kernel_dir() -> Path:
    """Where generated kernel files live: ``$PERFECTPLAY_KERNEL_DIR``, else
    ``$XDG_CACHE_HOME/perfectplay/kernels`` (``~/.cache`` by default)."""
    env = os.environ.get("PERFECTPLAY_KERNEL_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "perfectplay" / "kernels"


def _importable(fn: Any) -> tuple[str, str] | None:
    """``(module, name)`` when ``fn`` can be imported by name from a file, else ``None``."""
    py = getattr(fn, "py_func", fn)
    module = sys.modules.get(py.__module__)
    if module is None or module.__name__ == "__main__" or not getattr(module, "__file__", None):
        return None
    if getattr(module, py.__name__, None) is not fn:
        return None
    return module.__name__, py.__name__


def _generated(fns: tuple[Any, ...]) -> ModuleType | None:
    names = [_importable(f) for f in fns]
    if any(n is None for n in names):
        return None
    template = _TEMPLATE.read_text()
    digest = hashlib.sha256(template.encode())
    # numba's cache of a kernel checks the kernel's own file only, not the files of the
    # functions compiled into it: the compiled modules it calls are part of the name,
    # so that a changed sweep is never loaded as the old machine code.
    for dep in _DEPENDS:
        digest.update(_TEMPLATE.with_name(dep).read_bytes())
    lines = []
    for alias, found in zip(_NAMES, names, strict=True):
        assert found is not None
        mod, name = found
        lines.append(f"from {mod} import {name} as {alias}")
        digest.update(f"{mod}.{name}".encode())
        digest.update(Path(inspect.getfile(sys.modules[mod])).read_bytes())
    name = "perfectplay_kernels_" + digest.hexdigest()[:20]
    path = kernel_dir() / f"{name}.py"
    try:
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            from perfectplay._util.atomic import write_bytes

            write_bytes(path, template.replace(_MARK, "\n".join(lines)).encode())
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            return None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except OSError:  # a read-only home: compile in memory instead
        return None
    return module


def _in_memory(fns: tuple[Any, ...]) -> ModuleType:
    module = ModuleType("perfectplay_kernels_in_memory")
    vars(module).update(zip(_NAMES, fns, strict=True))
    source = _TEMPLATE.read_text().replace(_MARK, "").replace("cache=True", "cache=False")
    exec(compile(source, str(_TEMPLATE), "exec"), vars(module))  # noqa: S102
    return module
