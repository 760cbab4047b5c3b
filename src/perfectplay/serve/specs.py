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
>>> parameters(["goal=20", "faces=(1, 2)", "rules=blitz"])
{'goal': 20, 'faces': (1, 2), 'rules': 'blitz'}
>>> slug("Pig(goal=20)")
'pig-goal-20'
"""

from __future__ import annotations

import argparse
import ast
import re
from typing import Any

from perfectplay.errors import InputError

__all__ = ["load_model", "models_and_params", "parameters", "slug"]


def parameters(items: list[str]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs, each value a Python literal or, as ``perfectplay solve``
    reads them, a bare word for a string (``rules=blitz``)."""
    out: dict[str, Any] = {}
    for item in items:
        name, sep, text = item.partition("=")
        if not sep or not name.strip().isidentifier():
            raise InputError(f"-p {item[:40]!r}: expected NAME=VALUE")
        text = text.strip()
        if text.isidentifier() and text not in ("True", "False", "None"):
            out[name.strip()] = text
            continue
        try:
            out[name.strip()] = ast.literal_eval(text)
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


def models_and_params(
    argv: list[str], parser: argparse.ArgumentParser
) -> list[tuple[str, list[str]]]:
    """The models ``argv`` names (its positional arguments), in order, each with the
    ``-p`` values given after it and before the next model: a ``-p`` belongs to the model
    named just before it (one before any model, to the first). ``argv`` is one ``parser``
    accepted; its options are read as ``parser`` reads them (``--opt=value``, ``-pVALUE``,
    a long option's unique prefix).

    >>> from perfectplay.serve.cli import parser
    >>> models_and_params(["a.py:A", "-p", "n=1", "--port", "8", "b.py:B", "--param=m=2"], parser())
    [('a.py:A', ['n=1']), ('b.py:B', ['m=2'])]
    """
    options = parser._option_string_actions
    models: list[tuple[str, list[str]]] = []
    before: list[str] = []
    i = 0
    while i < len(argv):
        token = argv[i]
        i += 1
        if token == "--":
            models += [(t, []) for t in argv[i:]]
            break
        if not token.startswith("-") or token == "-":
            models.append((token, []))
            continue
        head, eq, tail = token.partition("=")
        action = options.get(head)
        if action is None and head.startswith("--"):
            found = [a for name, a in options.items() if name.startswith(head)]
            action = found[0] if len(found) == 1 else None
        attached = None
        if action is None and not token.startswith("--"):  # -pVALUE
            action, attached = options.get(token[:2]), token[2:]
        if action is None or action.nargs == 0:
            continue
        if eq and attached is None:
            value = tail
        elif attached:
            value = attached
        else:
            value, i = argv[i] if i < len(argv) else "", i + 1
        if action.dest == "param":
            (models[-1][1] if models else before).append(value)
    if models:
        models[0][1][:0] = before
    return models
