"""The games named on ``perfectplay serve``'s command line, made into objects once, at
start: models (``MODULE:OBJECT`` with ``-p NAME=VALUE`` parameters, as ``perfectplay
solve`` takes them) and their ids.

Only the person starting the server names what is imported; no request can. The loader of
``perfectplay solve`` lives in the command line's package, which this layer may not import:
this is the same contract in a few lines (the library should grow one loader both use).

>>> load_model("perfectplay.examples.pig:Pig", {"goal": 20}).goal
20
>>> load_model("perfectplay.examples.pig:Nothing", {})
Traceback (most recent call last):
...
perfectplay.errors.InputError: perfectplay.examples.pig has no 'Nothing'
>>> parameters(["goal=20", "faces=(1, 2)"])
{'goal': 20, 'faces': (1, 2)}
>>> slug("Pig(goal=20)")
'pig-goal-20'
"""

from __future__ import annotations

import ast
import re
from typing import Any

from perfectplay.errors import InputError, ModelError

__all__ = ["load_model", "parameters", "slug"]


def parameters(items: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs, each value a Python literal."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise InputError(f"-p {item[:40]!r}: expected NAME=VALUE")
        try:
            out[name.strip()] = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise InputError(f"-p {name.strip()}: {text[:40]!r} is not a Python literal") from None
    return out


def load_model(spec: str, params: dict[str, Any]) -> Any:
    """The object ``MODULE:OBJECT`` (or ``file.py:OBJECT``) names, called with ``params``
    when it is a class or a function."""
    import importlib
    import importlib.util
    import sys
    from pathlib import Path

    from perfectplay.models.explore import USER_MODULE_PREFIX

    where, sep, name = spec.rpartition(":")
    if not (sep and where and name.isidentifier()):
        raise InputError(
            f"{spec[:60]!r}: expected MODULE:OBJECT, e.g. perfectplay.examples.pig:Pig"
        )
    try:
        if where.endswith(".py"):
            path = Path(where)
            if not path.is_file():
                raise InputError(f"{where}: no such file")
            module_name = USER_MODULE_PREFIX + re.sub(r"\W", "_", path.stem)
            found = importlib.util.spec_from_file_location(module_name, path)
            if found is None or found.loader is None:
                raise InputError(f"{where}: cannot be loaded as a Python module")
            module = importlib.util.module_from_spec(found)
            sys.modules[module_name] = module
            found.loader.exec_module(module)
        else:
            module = importlib.import_module(where)
    except InputError:
        raise
    except ModuleNotFoundError as exc:
        raise InputError(f"{where}: no module named {exc.name!r}") from None
    except Exception as exc:
        raise ModelError(f"importing {where} failed: {type(exc).__name__}: {exc}") from None
    if not hasattr(module, name):
        raise InputError(f"{where} has no {name!r}")
    obj = getattr(module, name)
    if isinstance(obj, type) or (callable(obj) and not hasattr(obj, "start")):
        try:
            return obj(**params)
        except Exception as exc:
            raise InputError(f"{name}(...) failed: {type(exc).__name__}: {exc}") from None
    if params:
        raise InputError(f"-p given, but {name} is not a class or a function")
    return obj


def slug(text: str) -> str:
    """An id for a URL: lower-case letters, digits and single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "game"
