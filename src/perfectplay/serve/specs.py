"""The games named on ``perfectplay serve``'s command line, made into objects once, at
start: models (``MODULE:OBJECT`` with ``-p NAME=VALUE`` parameters, as ``perfectplay
solve`` takes them) and their ids.

Only the person starting the server names what is imported; no request can. Models load
through the one loader of the library, :func:`perfectplay.models.loading.load_model`.

>>> load_model("perfectplay.examples.pig:Pig", {"goal": 20}).goal
20
>>> load_model("perfectplay.examples.pig:Nothing", {})
Traceback (most recent call last):
...
perfectplay.errors.InputError: perfectplay.examples.pig: module '...' has no 'Nothing'
>>> parameters(["goal=20", "faces=(1, 2)"])
{'goal': 20, 'faces': (1, 2)}
>>> slug("Pig(goal=20)")
'pig-goal-20'
"""

from __future__ import annotations

import ast
import re
from typing import Any

from perfectplay.errors import InputError

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
    when it is a class or a function: the loader ``perfectplay solve`` uses
    (:func:`perfectplay.models.loading.load_model`), which must name an object here."""
    from perfectplay.models.loading import has_object
    from perfectplay.models.loading import load_model as load

    if not has_object(spec):
        raise InputError(
            f"{spec[:60]!r}: expected MODULE:OBJECT, e.g. perfectplay.examples.pig:Pig"
        )
    name = spec.rsplit(":", 1)[0]
    try:
        return load(spec, params)
    except InputError as exc:  # named as `perfectplay solve` names it: FILE[:LINE]: ...
        where = name if exc.line is None else f"{name}:{exc.line}"
        raise InputError(f"{where}: {exc.message}") from None


def slug(text: str) -> str:
    """An id for a URL: lower-case letters, digits and single dashes."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "game"
