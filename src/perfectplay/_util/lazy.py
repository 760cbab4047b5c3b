"""Names a package exports without importing the modules that define them.

A package ``__init__`` that re-exported its solvers directly would import numpy (and load
the kernels' module) on ``import perfectplay.solvers``; :func:`lazy_exports` builds the
module-level ``__getattr__`` (PEP 562) that imports the defining module on first use,
and the ``__dir__`` that lists the names anyway, so ``dir()``, tab completion and
``help()`` see what the package documents.

>>> getattr_, dir_ = lazy_exports("perfectplay", {"InputError": "perfectplay.errors"})
>>> getattr_("InputError").__name__, "InputError" in dir_()
('InputError', True)

:func:`lazy_package` takes the exports as one ``module -> names`` table and derives
``__all__`` as well, so a package names each export once for the runtime (and once more
in its ``TYPE_CHECKING`` imports, which is what type checkers read).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterable, Mapping
from typing import Any

__all__ = ["lazy_exports", "lazy_package"]


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


def lazy_package(
    package: str, modules: Mapping[str, Iterable[str]]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` for ``package`` exporting, from each module of
    ``modules``, the names listed; a module name starting with a dot is relative to the
    package (``".cli"``). ``__all__`` lists the names in the table's order.

    >>> all_, getattr_, dir_ = lazy_package("perfectplay", {".errors": ["ModelError"]})
    >>> all_, getattr_("ModelError").__name__, "ModelError" in dir_()
    (['ModelError'], 'ModelError', True)
    """
    exports: dict[str, str] = {}
    for module, names in modules.items():
        where = package + module if module.startswith(".") else module
        for name in names:
            if name in exports:
                raise ValueError(f"{package}: {name} is exported twice")
            exports[name] = where
    return list(exports), *lazy_exports(package, exports)
