"""Loading a model a person names: ``MODULE[:OBJECT]``, a module or a ``file.py``.

``MODULE`` is a path to a ``.py`` file or the name of an importable module; ``OBJECT``
names a model class (instantiated with ``params``), a model instance, or a function
returning one. Without ``:OBJECT`` the module itself is the model (its functions
``start``, ``choices``, ``roll``, ... or ``moves``, ``play``, ...). ``perfectplay solve``
and the Yahtzee rules (``--rules file.py:NAME``) load through :func:`load_model`; a bad
name is an :class:`~perfectplay.errors.InputError`, a failing import a
:class:`~perfectplay.errors.ModelError`.

>>> load_model("perfectplay.examples.pig:Piglet", {"goal": 2}).goal
2
>>> has_object("mygame.py:MyGame"), has_object("C:/games/mygame.py")
(True, False)
"""

from __future__ import annotations

import sys
from typing import Any

from perfectplay.errors import InputError, short_repr
from perfectplay.text.parse import quote_token

__all__ = ["has_object", "load_model", "load_object"]


def has_object(spec: str) -> bool:
    """Whether ``spec`` names an object after a colon (``MODULE:OBJECT``)."""
    head, sep, tail = spec.rpartition(":")
    return bool(sep and head and tail.isidentifier())


def load_model(spec: str, params: dict[str, Any] | None = None) -> Any:
    """The model named by ``MODULE[:OBJECT]`` (see the module docstring)."""
    from perfectplay.models.explore.callbacks import MODEL_EXCEPTIONS

    params = params or {}
    obj = load_object(spec)
    obj_name = spec.rsplit(":", 1)[1] if has_object(spec) else None
    if obj_name is None:
        if params:
            raise InputError("--param needs MODULE:OBJECT naming a class or function")
        return obj
    if isinstance(obj, type) or (callable(obj) and not _looks_like_model(obj)):
        try:
            return obj(**params)
        except MODEL_EXCEPTIONS as exc:
            args = ", ".join(f"{k}={short_repr(v)}" for k, v in params.items())
            # The model's own message may echo a huge argument: its start is enough.
            why = str(exc) if len(str(exc)) <= 200 else str(exc)[:200] + "..."
            raise InputError(f"{obj_name}({args}) failed: {type(exc).__name__}: {why}") from None
    if params:
        raise InputError(f"--param given, but {obj_name} is not a class or function")
    return obj


def load_object(spec: str) -> Any:
    """The module, or the object named after its colon, that ``MODULE[:OBJECT]`` names,
    not called (a class stays a class: a saved table rebuilds its model from it).

    >>> load_object("perfectplay.examples.pig:Piglet").__name__
    'Piglet'
    """
    import importlib
    import importlib.util
    import os
    from pathlib import Path

    from perfectplay._util.usermodules import user_module_name
    from perfectplay.errors import ModelError
    from perfectplay.models.explore.callbacks import MODEL_EXCEPTIONS

    if spec.endswith(":"):
        raise InputError(
            "nothing after the colon: MODULE:OBJECT names an object, e.g. mygame.py:MyGame"
        )
    module_ref, obj_name = spec.rsplit(":", 1) if has_object(spec) else (spec, None)
    is_path = module_ref.endswith(".py") or os.sep in module_ref or "/" in module_ref
    try:
        if is_path:
            path = Path(module_ref)
            if path.is_dir():
                raise InputError("is a directory; give a .py file, e.g. mygame.py:MyGame")
            if not path.is_file():
                raise InputError("no such file")
            mod_name = user_module_name(path)
            loader_spec = importlib.util.spec_from_file_location(mod_name, path)
            if loader_spec is None or loader_spec.loader is None:
                raise InputError("cannot load this file as a Python module")
            module = importlib.util.module_from_spec(loader_spec)
            sys.modules[mod_name] = module
            # Let the model import modules that sit next to it.
            sys.path.insert(0, str(path.resolve().parent))
            loader_spec.loader.exec_module(module)
        else:
            module = importlib.import_module(module_ref)
    except InputError:
        raise
    except SyntaxError as exc:
        raise InputError(f"syntax error: {exc.msg}", line=exc.lineno) from None
    except ModuleNotFoundError as exc:
        if not is_path and exc.name and module_ref.startswith(exc.name):
            raise InputError(f"no module named {quote_token(exc.name)}") from None
        raise ModelError(f"importing {module_ref} failed: {exc}") from exc
    except MODEL_EXCEPTIONS as exc:  # sys.exit() in the file too: never a silent exit 0
        raise ModelError(f"importing {module_ref} failed: {type(exc).__name__}: {exc}") from exc
    if obj_name is None:
        return module
    if not hasattr(module, obj_name):
        raise InputError(f"module {quote_token(module_ref)} has no {quote_token(obj_name)}")
    return getattr(module, obj_name)


def _looks_like_model(obj: Any) -> bool:
    return any(callable(getattr(obj, n, None)) for n in ("roll", "play"))
