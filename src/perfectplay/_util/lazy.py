"""Names a package exports without importing the modules that define them.

A package ``__init__`` that re-exported its solvers directly would import numpy (and load
the kernels' module) on ``import perfectplay.solvers``; :func:`lazy_exports` builds the
module-level ``__getattr__`` (PEP 562) that imports the defining module on first use,
and the ``__dir__`` that lists the names anyway, so ``dir()``, tab completion and
``help()`` see what the package documents.

>>> getattr_, dir_ = lazy_exports("perfectplay", {"InputError": "perfectplay.errors"})
>>> getattr_("InputError").__name__, "InputError" in dir_()
('InputError', True)
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` exporting ``name -> defining module``."""

    def __getattr__(name: str) -> Any:
        if name not in exports:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(exports[name]), name)
        module = sys.modules.get(package)
        if module is not None:
            setattr(module, name, value)  # later lookups skip this function
        return value

    def __dir__() -> list[str]:
        module = sys.modules.get(package)
        present = set(vars(module)) if module is not None else set()
        return sorted(present | set(exports))

    return __getattr__, __dir__
