"""Ahead-of-time twins of kernels: loaded without importing numba.

A command that solves in a few milliseconds still pays numba's start-up on every run:
importing numba and loading its registries before the first cached kernel loads (about
0.4 s, most of ``perfectplay yeetzhee``'s wall time). A kernel declared with
``@kernel(ahead=True)`` avoids it: the first process that runs it compiled builds, from
the same Python source, an extension module holding the kernel for the argument types of
that call (numba's ahead-of-time compiler, :mod:`numba.pycc`; a C compiler is needed),
and later processes load that module with :mod:`importlib` alone, as cheap as importing
any small extension. numba's AOT modules do not import numba when they load.

A twin is kept per kernel, per *key* (the argument types, as :func:`arg_key` writes them)
and per *digest* of everything its machine code depends on: the source files of the
kernel and of the helpers it calls, the values of the globals they read, this module,
the Python ABI and numpy's version. Changing any of these names a new file; old ones are
simply never loaded again. Twins live in :func:`twin_dir`, beside numba's own cache when
``NUMBA_CACHE_DIR`` is set.

When no twin fits and none can be built (no C compiler, a read-only cache, a failed build:
remembered in a ``.failed`` file so that it is tried once), :class:`~perfectplay._util.jit.Kernel`
runs numba's JIT dispatcher as before, so results never depend on which path ran: both
compile the same source with the same flags (numba's defaults, no ``fastmath``). Set
``PERFECTPLAY_NO_AHEAD=1`` to use the JIT dispatcher only.

>>> import numpy as np
>>> arg_key((np.zeros(3, np.int32), 2.0, True))
'<i4:1:C:w|float|bool'
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager as ContextManager
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path
from types import ModuleType
from typing import Any

__all__ = ["TwinSet", "arg_key", "twin_dir"]


def twin_dir() -> Path:
    """Where twins live: ``$NUMBA_CACHE_DIR/perfectplay-ahead`` when numba's cache has a
    folder of its own, else ``$XDG_CACHE_HOME/perfectplay/ahead`` (``~/.cache`` by
    default).

    >>> twin_dir().name in {"perfectplay-ahead", "ahead"}
    True
    """
    numba_dir = os.environ.get("NUMBA_CACHE_DIR")
    if numba_dir:
        return Path(numba_dir) / "perfectplay-ahead"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "perfectplay" / "ahead"


def arg_key(args: tuple[Any, ...]) -> str:
    """The argument types a twin is built for, in words that need no numba: an array as
    ``dtype:ndim:layout:writeable`` (numba types a read-only or a strided array
    differently), anything else by its type's name (an ``int`` past 64 bits by
    ``bigint``: numba would type it as ``uint64``)."""
    np = sys.modules.get("numpy")  # not imported: no argument is an array
    parts = []
    for a in args:
        if np is not None and isinstance(a, np.ndarray):
            flags = a.flags
            layout = "C" if flags.c_contiguous else "F" if flags.f_contiguous else "A"
            aligned = "" if flags.aligned else ":u"
            access = "w" if flags.writeable else "r"
            parts.append(f"{a.dtype.str}:{a.ndim}:{layout}:{access}{aligned}")
        elif type(a) is int and not -(2**63) <= a < 2**63:
            parts.append("bigint")
        else:
            parts.append(type(a).__name__)
    return "|".join(parts)


def _reached(func: Callable[..., Any], seen: dict[int, Any], frozen: list[str]) -> None:
    """Add to ``seen`` ``func`` and the helpers and kernels it calls, transitively (the
    globals of its code that are compiled functions of :mod:`~perfectplay._util.jit`),
    and to ``frozen`` the other globals it reads: numba compiles their values into the
    machine code, and a constant imported from another file changes no source read here.
    """
    py = getattr(func, "py_func", func)
    if id(py) in seen:
        return
    seen[id(py)] = py
    names = set(py.__code__.co_names)
    for const in py.__code__.co_consts:  # nested code (a closure, a generator)
        if hasattr(const, "co_names"):
            names.update(const.co_names)
    for name in sorted(names):
        if name not in py.__globals__:
            continue  # an attribute or a builtin
        value = py.__globals__[name]
        if callable(value) and hasattr(value, "py_func") and hasattr(value, "dispatcher"):
            _reached(value, seen, frozen)
        elif hasattr(value, "tobytes"):  # an array (or a numpy scalar): its bytes
            frozen.append(f"{name}={value.dtype}{value.shape}{value.tobytes().hex()}")
        elif isinstance(value, ModuleType):
            frozen.append(f"{name}={getattr(value, '__file__', value.__name__)}")
        elif _plain(value):
            frozen.append(f"{name}={value!r}")
        else:  # a function or class: by name (its repr may hold its address)
            made = f"{getattr(value, '__module__', '')}.{getattr(value, '__qualname__', '')}"
            frozen.append(f"{name}:{type(value).__qualname__}:{made}")


def _plain(value: Any) -> bool:
    """Whether ``repr(value)`` is the same in every process (constants, tuples of them)."""
    if isinstance(value, tuple):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (bool, int, float, complex, str, bytes))


def source_digest(func: Callable[..., Any]) -> str:
    """A digest of what a twin of ``func`` is made from (see the module docstring).

    >>> len(source_digest(arg_key))
    64
    """
    import numpy as np

    seen: dict[int, Any] = {}
    frozen: list[str] = []
    _reached(func, seen, frozen)
    files = sorted({str(sys.modules[py.__module__].__file__) for py in seen.values()})
    h = hashlib.sha256()
    for part in (sys.version, EXTENSION_SUFFIXES[0], np.__version__, *files, *frozen):
        h.update(part.encode() + b"\0")
    for name in [*files, __file__]:
        h.update(Path(name).read_bytes())
    return h.hexdigest()


class TwinSet:
    """The twins of one kernel: loaded on first use, built when missing.

    ``func`` is the kernel's Python source, ``label`` its dotted name (the files' names
    hold it), ``prepare`` a context in which numba is ready (its value), entered only to
    build (it says on stderr that a compile is under way).
    """

    def __init__(
        self, func: Callable[..., Any], label: str, prepare: Callable[[], ContextManager[Any]]
    ) -> None:
        self.func = func
        self.label = label
        self.prepare = prepare
        self._digest: str | None = None
        self._loaded: dict[str, Callable[..., Any] | None] = {}
        self._seen = False
        self._lock = threading.Lock()

    @property
    def digest(self) -> str:
        if self._digest is None:
            self._digest = source_digest(self.func)[:20]
        return self._digest

    def _stem(self, key: str) -> str:
        # A module name: letters, digits and underscores; the key by its hash.
        kh = hashlib.sha256(key.encode()).hexdigest()[:12]
        return f"pp_{self.label.replace('.', '_')}_{self.digest}_{kh}"

    def _path(self, key: str) -> Path:
        return twin_dir() / (self._stem(key) + EXTENSION_SUFFIXES[0])

    def available(self) -> bool:
        """Whether some twin of this source is on disk or loaded (a directory listing,
        until one is seen): calling the kernel compiled likely costs no numba start-up.

        >>> TwinSet(arg_key, "demo.none", contextlib.nullcontext).available()
        False
        """
        if os.environ.get("PERFECTPLAY_NO_AHEAD"):
            return False
        if self._seen or any(self._loaded.values()):
            return True
        prefix = f"pp_{self.label.replace('.', '_')}_{self.digest}_"
        try:
            names = os.listdir(twin_dir())
        except OSError:
            return False
        # Once seen, a twin stays (a process asks before every solve).
        self._seen = any(n.startswith(prefix) and n.endswith(EXTENSION_SUFFIXES[0]) for n in names)
        return self._seen

    def entry(self, args: tuple[Any, ...]) -> Callable[..., Any] | None:
        """The compiled twin for ``args``: loaded, or built now; ``None`` when there is
        none and none can be built (the caller runs numba's JIT then)."""
        if os.environ.get("PERFECTPLAY_NO_AHEAD"):
            return None
        key = arg_key(args)
        if key in self._loaded:
            return self._loaded[key]
        with self._lock:
            if key not in self._loaded:
                self._loaded[key] = self._load(key) or self._build(key, args)
        return self._loaded[key]

    def _load(self, key: str) -> Callable[..., Any] | None:
        path = self._path(key)
        if not path.exists():
            return None
        spec = importlib.util.spec_from_file_location(self._stem(key), path)
        if spec is None or spec.loader is None:
            return None
        try:
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
        except ImportError:  # a file another numpy or Python left: build again
            return None
        run: Callable[..., Any] = module.run
        return run

    def _build(self, key: str, args: tuple[Any, ...]) -> Callable[..., Any] | None:
        path = self._path(key)
        failed = path.with_suffix(".failed")
        if failed.exists():
            return None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError:
            return None
        if not os.access(path.parent, os.W_OK):
            return None
        try:
            with self.prepare() as numba, _scratch(path.parent) as tmp:
                _compile(numba, self.func, self._stem(key), args, tmp)
                built = tmp / path.name
                if not built.exists():  # pycc names it by the running Python's suffix
                    raise OSError(f"numba.pycc wrote no {path.name}")
                os.replace(built, path)
        except Exception as exc:  # no compiler, a typing error: say why once, run the JIT
            with contextlib.suppress(OSError):
                failed.write_text(f"{type(exc).__name__}: {exc}\n")
            return None
        return self._load(key)


@contextlib.contextmanager
def _scratch(parent: Path) -> Iterator[Path]:
    """A temporary folder beside the twins (the finished file is renamed into place)."""
    tmp = Path(tempfile.mkdtemp(prefix=".build-", dir=parent))
    try:
        yield tmp
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _compile(
    numba: Any, func: Callable[..., Any], name: str, args: tuple[Any, ...], out: Path
) -> None:
    """Compile ``func`` for the types of ``args`` into the extension module ``name`` in
    ``out``, exported as ``run`` (its return type inferred, as the JIT does)."""
    import warnings

    signature: Any = importlib.import_module("numba.core.typing").signature
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba.pycc is deprecated (it still works)
        cc: Any = importlib.import_module("numba.pycc").CC(name)
        cc.output_dir = str(out)
        cc.verbose = False
        cc.export("run", signature(None, *(numba.typeof(a) for a in args)))(func)
        # Whatever the compiler driver prints goes to stderr: stdout is the command's answer.
        with contextlib.redirect_stdout(sys.stderr):
            cc.compile()
