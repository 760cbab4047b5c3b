"""Importers: repositories in other layouts read as they are, into the builder's entries.

``layout`` in ``site.toml`` names one; each finds the entries of the tree (cheaply: a
glob) and gives, for each, a function that reads what its own files already say (an
:class:`~perfectplay.site.entries.Found`, or None for a file the layout leaves out), which
the build calls in its thread pool; no file is added by hand:

* ``kattis`` (:mod:`.kattis`): ICPC/Kattis problem packages, a folder per problem with
  ``problem.yaml``, ``problem_statement/``, ``data/sample``, ``data/secret`` and
  ``submissions/accepted``;
* ``oj-verify`` (:mod:`.ojverify`): a library whose ``*.test.cpp`` / ``*.test.py`` files
  name their problem (``#define PROBLEM "url"``), with the test data from a local folder;
  every other source file gets a library page (:mod:`.library`);
* ``globs`` (:mod:`.globs`): anything else, its files named by patterns.

``perfectplay`` (the default) is the builder's own layout, read by
:func:`perfectplay.site.entries.discover` itself.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from perfectplay.site.config import Config
from perfectplay.site.importers import globs, kattis, ojverify
from perfectplay.site.importers.found import Found

__all__ = ["IMPORTERS", "Reader", "find"]

Reader = Callable[[], Found | None]
IMPORTERS: dict[str, Callable[[Path, Config], list[Reader]]] = {
    "kattis": kattis.find,
    "oj-verify": ojverify.find,
    "globs": globs.find,
}


def find(root: Path, config: Config) -> list[Reader]:
    """The readers of the entries of the tree at ``root`` in ``config``'s layout, in path
    order."""
    return IMPORTERS[config.layout](root, config)
