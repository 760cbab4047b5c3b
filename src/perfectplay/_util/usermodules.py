"""The names under which ``perfectplay solve FILE.py`` loads a user's file, and the
finder that lets another process import a file under that name.

``perfectplay solve mygame.py:MyGame`` loads ``mygame.py`` as the module
``perfectplay_user_mygame`` (so that a file called ``random.py`` does not replace the
standard module). numba's disk cache (``@njit(cache=True)``, as docs/models.md asks of a
compiled model) is keyed by the source file, not by the module's name, yet what it
stores names the module, which loading a cached function imports again. So a process
that then imports ``mygame`` itself (a script, a notebook) and calls a function of it
loaded numba's entry of ``perfectplay_user_mygame`` and stopped with
``ModuleNotFoundError``. :class:`UserModuleAlias`, installed once numba is imported,
answers an import of ``perfectplay_user_X`` that nothing else found with the module
already loaded from a file ``X.py``: the same source, since numba found its entry by it.

>>> import sys, tempfile, types
>>> folder = tempfile.mkdtemp()
>>> mine = types.ModuleType("mygame")
>>> mine.__file__ = folder + "/mygame.py"
>>> sys.modules["mygame"] = mine
>>> install()
>>> import importlib
>>> importlib.import_module("perfectplay_user_mygame") is mine
True
>>> del sys.modules["mygame"], sys.modules["perfectplay_user_mygame"]
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import os
import sys
import types
from collections.abc import Sequence
from typing import Any

__all__ = [
    "USER_MODULE_PREFIX",
    "UserModuleAlias",
    "install",
    "same_module",
    "user_module_name",
]

#: Prefix of the module names under which ``perfectplay solve`` loads users' files (so a
#: file called ``random.py`` does not replace the standard module); hidden in messages.
USER_MODULE_PREFIX = "perfectplay_user_"


def user_module_name(path: str | os.PathLike[str]) -> str:
    """The module name of a user's file.

    >>> user_module_name("games/two-dice pig.py")
    'perfectplay_user_two_dice_pig'
    """
    stem = os.path.splitext(os.path.basename(os.fspath(path)))[0]
    return USER_MODULE_PREFIX + "".join(c if c.isalnum() else "_" for c in stem)


def same_module(a: str, b: str) -> bool:
    """Whether module names ``a`` and ``b`` may name one file: equal, or one is the name
    ``perfectplay solve`` gave a file and the other the file's own import name (a work
    directory solved from the command line, resumed from a script).

    >>> same_module("perfectplay_user_race", "games.race"), same_module("a.race", "b.race")
    (True, False)
    """
    if a == b:
        return True
    if not (a.startswith(USER_MODULE_PREFIX) or b.startswith(USER_MODULE_PREFIX)):
        return False

    def stem(name: str) -> str:
        if name.startswith(USER_MODULE_PREFIX):
            return name
        return user_module_name(name.rpartition(".")[2] + ".py")

    return stem(a) == stem(b)


class _Existing(importlib.abc.Loader):
    """Loads a module that is already loaded: itself."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        return None  # already run once, under its own name


class UserModuleAlias(importlib.abc.MetaPathFinder):
    """Finds ``perfectplay_user_X`` as the one loaded module whose file is ``X.py``
    (none when no module, or modules of two different files, would fit).

    >>> import types, sys
    >>> race = types.ModuleType("race")
    >>> race.__file__ = "/tmp/games/race.py"
    >>> sys.modules["race"] = race
    >>> UserModuleAlias().find_spec("perfectplay_user_race", None).loader.module is race
    True
    >>> UserModuleAlias().find_spec("perfectplay_user_other", None) is None
    True
    >>> del sys.modules["race"]
    """

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(USER_MODULE_PREFIX) or "." in fullname:
            return None
        found: dict[str, types.ModuleType] = {}
        for module in list(sys.modules.values()):
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and user_module_name(file) == fullname:
                found.setdefault(os.path.realpath(file), module)
        if len(found) != 1:
            return None
        (module,) = found.values()
        return importlib.machinery.ModuleSpec(fullname, _Existing(module))


def install() -> None:
    """Put the finder last on ``sys.meta_path``, once (every real module comes first)."""
    if not any(isinstance(f, UserModuleAlias) for f in sys.meta_path):
        finder: Any = UserModuleAlias()
        sys.meta_path.append(finder)
