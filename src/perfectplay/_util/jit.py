"""Compiled kernels with a lazy numba import.

Importing numba costs about 0.3 s, more than a small instance takes to solve in plain
Python. A function decorated with :func:`kernel` is an ordinary Python function until it
is first called with ``compiled=True`` (the default); then numba is imported and the
function is compiled with ``cache=True``, so later processes load the machine code from
the on-disk cache instead of compiling again.

Callers that know an instance is tiny may run the same source uncompiled, which keeps one
algorithm in one place::

    >>> @kernel
    ... def total(xs):
    ...     s = 0
    ...     for x in xs:
    ...         s += x
    ...     return s
    >>> total.run([1, 2, 3], compiled=False)
    6
    >>> isinstance(total, Kernel), total.py_func([4, 5])
    (True, 9)

A step that several kernels (or one kernel twice) share is a :func:`helper`: a plain
function when an interpreted kernel calls it, numba's compiled twin inside a compiled
kernel (numba types the helper object as its dispatcher, so the calling kernel still
loads from the on-disk cache; a dispatcher passed as an argument would not).
A kernel declared ``@kernel(ahead=True)`` is also compiled ahead of time, from the same
source, into an extension module that later processes load without importing numba
(:mod:`perfectplay._util.ahead`): for kernels of commands over sooner than numba starts.
Set ``PERFECTPLAY_NO_JIT=1`` to run every kernel uncompiled (debugging, coverage).
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast, overload

if TYPE_CHECKING:
    from perfectplay._util.ahead import TwinSet

__all__ = [
    "INTERPRETED_BUDGET",
    "Helper",
    "Kernel",
    "budget_spent",
    "charge_interpreted",
    "compile_for",
    "helper",
    "interpreted_modules",
    "interpreted_seconds",
    "kernel",
    "work_ahead",
]

#: Seconds of interpreted kernel time after which a process that runs the same kernel
#: again counts as solving many instances: from then on :func:`compile_for` pays numba's
#: start-up for all but trivial work. A file of a hundred small instances thus runs its
#: first few interpreted (instant answers for a sample) and the rest compiled, without a
#: knob in any signature, while a single instance (each kernel once, however long) stays
#: interpreted.
INTERPRETED_BUDGET = 0.05

# Seconds spent in kernels run as plain Python, and how many of those calls repeated a
# kernel already run that way in this process.
_interpreted = [0.0, 0]
# Once the budget is spent, only trivial work stays interpreted: the process has shown it
# runs many kernels, so numba's start-up is paid once and each later call is cheap.
_SPENT_THRESHOLD = 200
# Seconds a process pays for numba's start-up: importing it and loading a cached kernel.
# A kernel's ``threshold`` is the size whose interpreted run costs about as much.
_STARTUP_SECONDS = 0.4


# Items of kernel work a caller said lie ahead (see work_ahead).
_ahead = [0]


@contextmanager
def work_ahead(items: int) -> Iterator[None]:
    """Within the block, :func:`compile_for` knows that about ``items`` items of work
    (nodes plus edges, its unit of size) lie ahead, and when that is more than a kernel's
    threshold it answers as if the interpreted budget were spent: all but trivial work
    runs compiled.

    A command that reads a file of many instances before solving them knows their total:
    when it is worth numba's start-up, the instances run compiled from the first instead
    of the first few spending the interpreted budget before the rest compile anyway. A
    total below the thresholds changes nothing (a sample's few small cases stay
    interpreted).

    >>> with work_ahead(10**7):
    ...     compile_for(1000, 5000)
    True
    >>> _ahead[0]          # the promise ends with the block
    0
    """
    before = _ahead[0]
    _ahead[0] = items
    try:
        yield
    finally:
        _ahead[0] = before


def budget_spent() -> bool:
    """Whether this process has run enough interpreted kernels to prefer compiled ones.

    >>> isinstance(budget_spent(), bool)
    True
    """
    return _interpreted[0] >= INTERPRETED_BUDGET and _interpreted[1] > 0


def charge_interpreted(seconds: float, repeated: bool) -> None:
    """Add to the process's account of interpreted kernel time (what :func:`budget_spent`
    reads) work that ran outside a :class:`Kernel`, such as the modules of
    :func:`interpreted_modules`; ``repeated`` says the same work already ran that way.

    >>> charge_interpreted(0.0, repeated=False)
    """
    _interpreted[0] += seconds
    _interpreted[1] += repeated


def interpreted_seconds() -> float:
    """Seconds this process has spent running kernels uncompiled.

    >>> interpreted_seconds() >= 0.0
    True
    """
    return _interpreted[0]


def _import_numba() -> Any:
    """Import numba and make it ready to load kernels, once a process, as cheaply as it goes.

    * The collector is paused meanwhile (:func:`~perfectplay._util.collector.heavy_imports`):
      numba's modules and registries are some 100,000 objects it would scan again and again.
    * numba's target context is initialised here, inside that pause, rather than by the
      first kernel loaded: that is where numba imports the rest of itself (its
      implementations of numpy, ``numba.np.arraymath`` and some forty more modules).
    * SciPy is not loaded (it is not a dependency of perfectplay): ``import numba`` imports
      it only to check its version, and ``numba.np.arraymath`` imports ``scipy.linalg``
      only to probe for a BLAS that chooses how ``np.correlate``/``np.convolve`` compile
      (about 0.2 s when SciPy happens to be installed). Hiding the modules not yet
      imported during those imports gives the answers of a clean install; SciPy is
      importable again right after, and numba's linear algebra (``np.dot``,
      ``np.linalg``) finds it as usual. ``PERFECTPLAY_NUMBA_BLAS_PROBE=1`` keeps numba's
      own probe.
    """
    if _numba_ready:
        return _numba_ready[0]
    with _numba_lock:  # threads of a tier engine may load their first kernels together
        if not _numba_ready:
            _numba_ready.append(_prepare_numba())
    return _numba_ready[0]


def _prepare_numba() -> Any:
    from perfectplay._util.collector import heavy_imports

    hidden = []
    if not os.environ.get("PERFECTPLAY_NUMBA_BLAS_PROBE"):
        hidden = [name for name in ("scipy", "scipy.linalg") if name not in sys.modules]
    with heavy_imports():
        if "numba" not in sys.modules:
            _avoid_avx512_miscompile()
            _short_omp_spin()
        for name in hidden:
            sys.modules[name] = None  # type: ignore[assignment]
        try:
            import numba
            import numpy.ma  # noqa: F401  (numba's typeof of an array reads it, on first call)
            from numba.core.registry import cpu_target

            cpu_target.target_context.refresh()
        finally:
            for name in hidden:
                del sys.modules[name]
        _type_helpers_as_dispatchers()
        _notice_before_compiling()
        # numba's disk cache names the module of a user's file as first loaded, which
        # may be perfectplay's name for it (``perfectplay solve FILE.py``): see there.
        from perfectplay._util.usermodules import install

        install()
    return numba


# numba, once _import_numba has made it ready.
_numba_ready: list[Any] = []
_numba_lock = threading.Lock()


#: Printed on stderr before the first compile of a process (a cache miss, not a load from
#: the on-disk cache), when progress reports are on: the ``perfectplay`` command, not ``-q``.
COMPILE_NOTICE = (
    "perfectplay: compiling the kernels this command needs (about 5 to 30 s, the first "
    "time only); later runs load them from the cache"
)
_notice = {"listening": False, "shown": False}


def _notice_before_compiling() -> None:
    """Listen (once) for numba's compile events, which fire only when no cached machine
    code fits, and print :data:`COMPILE_NOTICE` at the first, so that the first run's
    wait is not silent. The library stays silent unless progress is on."""
    if _notice["listening"]:
        return
    from numba.core import event

    from perfectplay._util.progress import notice

    class Notice(event.Listener):
        def on_start(self, _event: Any) -> None:
            if not _notice["shown"]:
                _notice["shown"] = notice(COMPILE_NOTICE)

        def on_end(self, _event: Any) -> None:
            pass

    cast(Any, event).register("numba:compile", Notice())
    _notice["listening"] = True


@contextmanager
def _numba_for_twin() -> Iterator[Any]:
    """numba, made ready, for building an ahead-of-time twin (:mod:`perfectplay._util.ahead`),
    after :data:`COMPILE_NOTICE` if this process has not shown it yet (the build compiles
    the kernel as the JIT would, and takes as long)."""
    from perfectplay._util.progress import notice

    numba = _import_numba()
    if not _notice["shown"]:
        _notice["shown"] = notice(COMPILE_NOTICE)
    yield numba


def _short_omp_spin() -> None:
    """Let GNU OpenMP's idle threads spin briefly (10,000 turns, tens of microseconds)
    before they sleep, instead of its default 300,000.

    A compiled model's small layers are solved by two threads in step, one parallel
    region a layer (:func:`perfectplay.compiled.layered.solve_layers`): on a machine
    busy with other work, a thread that finished its half and spun for the other's
    took the processor that other needed, and a Pig solve took 0.9 s instead of 0.12 s
    (with a short spin: 0.12 s; serially: 0.17 s). The environment variable is read
    when numba first loads the OpenMP library, after this; a user's
    ``GOMP_SPINCOUNT`` or ``OMP_WAIT_POLICY`` is kept.
    """
    if "OMP_WAIT_POLICY" not in os.environ:
        os.environ.setdefault("GOMP_SPINCOUNT", "10000")


def _avoid_avx512_miscompile() -> None:
    """Compile for the host CPU without its AVX-512 features.

    LLVM 20-22 (llvmlite 0.49-0.50) miscompile masked vector stores on AVX-512 machines: a
    loop as plain as ``if v[i] == 0: v[i] = 2; r[i] = -1`` over an ``int8`` and an
    ``int32`` array writes the wrong lanes (llvm/llvm-project#174871 is the same family),
    and the retrograde solver then labels positions 0. AVX2 code is as fast for these
    graph kernels. A user who sets ``NUMBA_CPU_NAME`` or ``NUMBA_CPU_FEATURES`` keeps
    their choice; numba keys its on-disk cache by the feature string, so older cached
    machine code is never reused.
    """
    if os.environ.get("NUMBA_CPU_NAME") or os.environ.get("NUMBA_CPU_FEATURES"):
        return
    try:
        import llvmlite.binding as llvm

        features = llvm.get_host_cpu_features()
    except Exception:  # an llvmlite without the query: leave numba's default
        return
    if not any(on and name.startswith("avx512") for name, on in features.items()):
        return
    os.environ["NUMBA_CPU_FEATURES"] = ",".join(
        ("+" if on and not name.startswith("avx512") else "-") + name
        for name, on in sorted(features.items())
    )


class _Compilable:
    """A Python function and its numba twin, compiled (or loaded from the on-disk cache)
    on first use: what :class:`Kernel` and :class:`Helper` share."""

    def __init__(self, func: Callable[..., Any], **options: Any) -> None:
        self.py_func = func
        self.options = options
        self._dispatcher: Any = None
        self.__doc__ = func.__doc__
        self.__name__ = func.__name__
        self.__wrapped__ = func

    def dispatcher(self) -> Any:
        """The numba dispatcher (compiling or loading from cache on first use)."""
        if self._dispatcher is None:
            numba = _import_numba()
            self._dispatcher = numba.njit(cache=True, **self.options)(self.py_func)
        return self._dispatcher


class Kernel(_Compilable):
    """A Python function with a lazily compiled numba twin (see the module docstring).

    ``ahead=True``: the compiled twin is also built ahead of time, into an extension
    module later processes load without importing numba (:mod:`perfectplay._util.ahead`);
    for a kernel whose command is over in less time than numba's start-up.
    """

    def __init__(self, func: Callable[..., Any], *, ahead: bool = False, **options: Any) -> None:
        super().__init__(func, **options)
        self._interpreted_calls = 0
        self._twins: TwinSet | None = None
        if ahead:
            if options:
                raise ValueError("an ahead-of-time kernel is compiled with numba's defaults")
            from perfectplay._util.ahead import TwinSet

            self._twins = TwinSet(func, f"{func.__module__}.{func.__name__}", _numba_for_twin)

    @property
    def repeated(self) -> bool:
        """Whether this kernel already ran interpreted in this process."""
        return self._interpreted_calls > 0

    @property
    def loaded(self) -> bool:
        """Whether the compiled twin is in memory, or an ahead-of-time one on disk, so
        calling it costs no numba start-up."""
        if self._dispatcher is not None:
            return True
        return self._twins is not None and self._twins.available()

    def run(self, *args: Any, compiled: bool = True) -> Any:
        if compiled and not os.environ.get("PERFECTPLAY_NO_JIT"):
            if self._twins is not None:
                twin = self._twins.entry(args)
                if twin is not None:
                    return twin(*args)
            return self.dispatcher()(*args)
        t0 = time.perf_counter()
        try:
            return self.py_func(*args)
        finally:
            _interpreted[0] += time.perf_counter() - t0
            _interpreted[1] += self._interpreted_calls > 0
            self._interpreted_calls += 1

    def __call__(self, *args: Any) -> Any:
        return self.run(*args)

    def __repr__(self) -> str:
        return f"<kernel {self.py_func.__module__}.{self.__name__}>"


class Helper(_Compilable):
    """A function kernels call: itself from Python, its compiled twin inside numba (the
    dispatcher is compiled into the kernels that call it)."""

    def __call__(self, *args: Any) -> Any:
        return self.py_func(*args)

    def __repr__(self) -> str:
        return f"<kernel helper {self.py_func.__module__}.{self.__name__}>"


def helper(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Decorator for a step kernels share: ``@helper`` or ``@helper(boundscheck=False)``.

    >>> @helper
    ... def bump(xs, i):
    ...     xs[i] += 1
    >>> @kernel
    ... def bump_all(xs):
    ...     for i in range(len(xs)):
    ...         bump(xs, i)
    ...     return xs
    >>> bump_all.run([1, 2], compiled=False), isinstance(bump, Helper)
    ([2, 3], True)
    """
    if func is None:
        return lambda f: Helper(f, **options)
    return Helper(func, **options)


_helpers_typed = [False]


def _type_helpers_as_dispatchers() -> None:
    """Teach numba (once) that a :class:`Helper` met as a global is its dispatcher."""
    if _helpers_typed[0]:
        return
    from numba.extending import typeof_impl

    @typeof_impl.register(Helper)
    def _typeof_helper(value: Helper, context: Any) -> Any:
        return typeof_impl(value.dispatcher(), context)

    _helpers_typed[0] = True


def compile_for(size: int, threshold: int, *kernels: Kernel, warm_threshold: int = 2_000) -> bool:
    """Whether work of ``size`` items should run compiled rather than interpreted.

    Interpreted, a kernel costs about a microsecond per item; the first compiled call of
    a process costs importing numba and loading the cached machine code (0.3-0.5 s). So
    small work runs uncompiled up to ``threshold`` items, up to a quarter of it once numba
    is imported, and once any of ``kernels`` is loaded (the start-up already paid, or
    none to pay: a twin built ahead of time is on disk) only up to ``warm_threshold``;
    and once the process has spent :data:`INTERPRETED_BUDGET` seconds in interpreted
    kernels, nearly everything runs compiled (a ski-rental rule:
    many small instances add up to work worth the start-up). A kernel that already ran
    interpreted in this process (a file of instances) runs compiled as soon as this one
    instance would spend what is left of the budget: after it the next would compile
    anyway, so interpreting it first only adds its time to the start-up. Within
    :func:`work_ahead` of more than ``threshold`` items, the budget counts as spent.
    ``PERFECTPLAY_NO_JIT=1`` always answers ``False``.

    >>> compile_for(10, 1000), compile_for(10**6, 1000)
    (False, True)
    """
    if os.environ.get("PERFECTPLAY_NO_JIT"):
        return False
    if budget_spent() or _ahead[0] > threshold:  # (work_ahead: pay the start-up at once)
        return size > _SPENT_THRESHOLD
    if any(k.loaded for k in kernels):
        return size > warm_threshold
    if any(k.repeated for k in kernels):
        left = max(0.0, INTERPRETED_BUDGET - _interpreted[0])
        if size > threshold * left / _STARTUP_SECONDS:
            return True
    if "numba" in sys.modules:
        # numba is in: loading one more cached kernel costs about 0.05 s.
        return size > threshold // 4
    return size > threshold


@overload
def kernel(func: Callable[..., Any], **options: Any) -> Kernel: ...
@overload
def kernel(func: None = None, **options: Any) -> Callable[[Callable[..., Any]], Kernel]: ...
def kernel(func: Callable[..., Any] | None = None, **options: Any) -> Any:
    """Decorator: ``@kernel``, ``@kernel(boundscheck=False)`` or ``@kernel(ahead=True)``
    (see :class:`Kernel`)."""
    if func is None:
        return lambda f: Kernel(f, **options)
    return Kernel(func, **options)


def interpreted_modules(*names: str) -> tuple[ModuleType, ...]:
    """Fresh copies of kernel modules whose numba decorators are no-ops, without numba.

    Modules that import numba themselves (their kernels call each other inline, such as
    :mod:`perfectplay.yahtzee.kernels`) honour ``PERFECTPLAY_NO_JIT`` when they are
    imported. This imports ``names`` in order with that variable set, so a later name
    that imports an earlier one gets the interpreted copy, then puts ``sys.modules``, the
    parent packages' attributes and the environment back as they were: the process's
    own (compiled) modules are untouched, and numba is not imported. For one-off small
    work, where numba's start-up (0.3-0.5 s) would cost more than the work itself.

    >>> (copy,) = interpreted_modules("perfectplay.lattice.kernels")
    >>> copy.reroll.__module__, hasattr(copy.reroll, "py_func")
    ('perfectplay.lattice.kernels', False)
    """
    saved = {name: sys.modules.pop(name, None) for name in names}
    parents: dict[str, tuple[ModuleType | None, str, Any]] = {}
    for name in names:
        parent, _, child = name.rpartition(".")
        module = sys.modules.get(parent)
        parents[name] = (module, child, vars(module).get(child) if module else None)
    before = os.environ.get("PERFECTPLAY_NO_JIT")
    os.environ["PERFECTPLAY_NO_JIT"] = "1"
    try:
        return tuple(importlib.import_module(name) for name in names)
    finally:
        if before is None:
            del os.environ["PERFECTPLAY_NO_JIT"]
        else:
            os.environ["PERFECTPLAY_NO_JIT"] = before
        for name in names:
            original = saved[name]
            if original is None:
                sys.modules.pop(name, None)
            else:
                sys.modules[name] = original
            known, child, previous = parents[name]
            module = known or sys.modules.get(name.rpartition(".")[0])
            if module is None:
                continue
            if previous is None:
                vars(module).pop(child, None)
            else:
                setattr(module, child, previous)
