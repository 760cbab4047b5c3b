"""Optional dependencies (the package's extras), checked before any work starts.

A command that will need an extra checks for it first, so that a missing package costs
a one-line error with the install command, not a long computation that fails at the end.
The check only looks the modules up (nothing is imported, so it costs next to nothing).

>>> require("plot", "drawing", modules=("json",))   # present: nothing happens
>>> require("plot", "drawing", modules=("no_such_module",))
Traceback (most recent call last):
...
perfectplay.errors.PerfectplayError: drawing needs no_such_module: pip install 'perfectplay[plot]'
"""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Sequence

from perfectplay.errors import PerfectplayError

__all__ = ["EXTRAS", "missing", "require"]

#: The modules each extra of pyproject.toml brings, as the code imports them.
EXTRAS: dict[str, tuple[str, ...]] = {
    "dask": ("distributed",),
    "plot": ("matplotlib",),
    "site": ("jinja2", "markupsafe", "pygments"),
}


def missing(modules: Sequence[str]) -> list[str]:
    """The modules of ``modules`` that cannot be imported here.

    >>> missing(["json", "no_such_module_here"])
    ['no_such_module_here']
    """
    absent = []
    for name in modules:
        if name in sys.modules:
            if sys.modules[name] is None:  # blocked on purpose (import would fail)
                absent.append(name)
            continue
        try:
            found = importlib.util.find_spec(name) is not None
        except (ImportError, ValueError):
            found = False
        if not found:
            absent.append(name)
    return absent


def require(extra: str, purpose: str, modules: Sequence[str] | None = None) -> None:
    """Raise :class:`~perfectplay.errors.PerfectplayError` naming the install command when
    a module of ``extra`` (or of ``modules``) is missing; ``purpose`` starts the message."""
    absent = missing(EXTRAS[extra] if modules is None else modules)
    if absent:
        raise PerfectplayError(
            f"{purpose} needs {', '.join(absent)}: pip install 'perfectplay[{extra}]'"
        )
