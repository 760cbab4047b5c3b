"""Modules that travel with a job: a user's file loaded from its path.

``--rules mine.py:MINE`` loads ``mine.py`` under a name of perfectplay's own (so that a
file called ``random.py`` does not replace the standard module). A function of it, in a
pickled job, is a reference to that module by name, which no other process can import:
the name is nowhere on its ``sys.path``. :meth:`Modules.of` finds the modules a job
refers to that cannot be imported by name and keeps their names, paths and sources;
unpickled (on a worker), they are loaded from those sources under the same names before
the job that refers to them, and the file's folder joins ``sys.path`` where it exists
(so that the file's own imports of files beside it work on a shared filesystem). The
source travels rather than the path alone: a worker on another machine need not see
the user's file.

>>> import pickle, sys, tempfile, textwrap, importlib.util
>>> path = tempfile.mkdtemp() + "/mine.py"
>>> _ = open(path, "w").write("def twice(x):\\n    return 2 * x\\n")
>>> spec = importlib.util.spec_from_file_location("perfectplay_user_doctest_mine", path)
>>> module = importlib.util.module_from_spec(spec)
>>> sys.modules[spec.name] = module; spec.loader.exec_module(module)
>>> shipped = Modules.of(module.twice)
>>> [name for name, _, _ in shipped.records]
['perfectplay_user_doctest_mine']
>>> data = pickle.dumps((shipped, module.twice))
>>> del sys.modules[spec.name]             # as in a worker that never loaded it
>>> pickle.loads(data)[1](21)
42
>>> Modules.of(pickle.dumps).records        # importable by name: nothing to ship
()
"""

from __future__ import annotations

import importlib
import importlib.machinery
import io
import os
import pickle
import sys
import types
from typing import Any

__all__ = ["Modules"]

#: (module name, its file's path, its source)
Record = tuple[str, str, str]


class Modules:
    """The modules a pickled object needs that a worker cannot import by name."""

    def __init__(self, records: tuple[Record, ...] = ()) -> None:
        self.records = records

    @classmethod
    def of(cls, obj: object) -> Modules:
        """The modules ``obj`` refers to (its functions and classes) that were loaded
        from a file under a name no import finds."""
        records = []
        for name in sorted(_referenced(obj)):
            record = _record(name)
            if record is not None:
                records.append(record)
        return cls(tuple(records))

    def __reduce__(self) -> tuple[Any, ...]:
        return (_load, (self.records,))


def _referenced(obj: object) -> set[str]:
    """The modules of the functions and classes that pickling ``obj`` meets."""
    found: set[str] = set()
    base: Any = pickle.Pickler
    try:  # it pickles more than plain pickle does (what the engines send with)
        base = importlib.import_module("cloudpickle").Pickler
    except ImportError:
        pass

    class Scan(base):  # type: ignore[misc]
        def reducer_override(self, o: Any) -> Any:
            if isinstance(o, types.FunctionType | type):
                found.add(getattr(o, "__module__", None) or "")
            parent = getattr(super(), "reducer_override", None)
            return NotImplemented if parent is None else parent(o)

    try:
        Scan(io.BytesIO(), protocol=pickle.HIGHEST_PROTOCOL).dump(obj)
    except Exception:  # what cannot be pickled fails where it is sent, saying why
        pass
    return found


def _record(name: str) -> Record | None:
    """``name``'s record when it is a module loaded from a file that no import finds by
    that name (``None`` for every other module)."""
    module = sys.modules.get(name)
    path = getattr(module, "__file__", None)
    if module is None or not path or "." in name or name == "__main__":
        return None
    if importlib.machinery.PathFinder.find_spec(name, sys.path) is not None:
        return None
    try:
        with open(path, encoding="utf-8") as fh:
            return (name, str(path), fh.read())
    except (OSError, UnicodeDecodeError):
        return None  # the worker then names the module it cannot import


def _load(records: tuple[Record, ...]) -> Modules:
    """Load each module of ``records`` that this process lacks (on a worker)."""
    for name, path, source in records:
        if name in sys.modules:
            continue
        module = types.ModuleType(name)
        module.__file__ = path
        folder = os.path.dirname(path)
        if os.path.isdir(folder) and folder not in sys.path:
            sys.path.insert(0, folder)
        sys.modules[name] = module
        try:
            exec(compile(source, path, "exec"), module.__dict__)
        except BaseException:
            del sys.modules[name]
            raise
    return Modules(records)
