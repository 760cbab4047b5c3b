"""The library of an oj-verify style repository: a page per library file saying what it
includes, what includes it, which tests verify it and whether they passed, with the
documentation attached to it.

Two sources of includes, each used where it is right:

* "verified with" comes from the compiler: a test's ``included`` list is what its
  preprocessor read (:func:`perfectplay.site.runners.includes`), transitively, so an include
  through a macro or a line continuation counts too;
* "depends on" / "required by" (the direct edges) come from a parse without a
  preprocessor, since the compiler's ``-H`` tree names a header guarded by ``#pragma
  once`` under its first includer only. The parse reads ``#include "path"`` lines outside
  comments, resolved beside the including file, then from the repository's root; it is
  safe (it never runs anything and reads only files of the tree) but blind to an include
  spelled through a macro, which then shows only under "verified with".

Documentation is a Markdown file whose front matter says ``documentation_of: PATH``
(relative to the Markdown file, or ``//PATH`` from the repository's root), as oj-verify's.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from perfectplay.site.output import MARKER

if TYPE_CHECKING:  # the entries' module reads the tree through the importers
    from perfectplay.site.entries import Entry

__all__ = ["LIBRARY_SUFFIXES", "LibraryFile", "direct_includes", "documentation_of", "library"]

LIBRARY_SUFFIXES = (".hpp", ".h", ".hh", ".hxx", ".cpp", ".cc")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/", re.DOTALL)
_FRONT = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*\n", re.DOTALL)


@dataclass
class LibraryFile:
    """One library file and what the tree says about it."""

    path: str
    depends: list[str] = field(default_factory=list)
    required_by: list[str] = field(default_factory=list)
    verified_with: list[Entry] = field(default_factory=list)
    documentation: str | None = None  # the Markdown file that documents it

    @property
    def url(self) -> str:
        return f"library/{self.path}.html"


def direct_includes(text: str) -> list[str]:
    """The quoted ``#include`` names of C/C++ source ``text``, outside comments.

    >>> direct_includes('#include <vector>\\n// #include "no.hpp"\\n  # include "a/b.hpp"\\n')
    ['a/b.hpp']
    """
    return _INCLUDE.findall(_COMMENTS.sub(lambda m: "\n" * m.group(0).count("\n"), text))


def documentation_of(text: str, source: str) -> str | None:
    """The repository path a Markdown file's front matter documents, or None.

    >>> documentation_of("---\\ndocumentation_of: ./uf.hpp\\n---\\nText", "graph/uf.md")
    'graph/uf.hpp'
    >>> documentation_of("---\\ndocumentation_of: //math/gcd.hpp\\n---\\n", "docs/gcd.md")
    'math/gcd.hpp'
    """
    front = _FRONT.match(text)
    if not front:
        return None
    found = re.search(r"^documentation_of:\s*['\"]?([^'\"\n]+?)['\"]?\s*$", front.group(1), re.M)
    if not found:
        return None
    target = found.group(1).strip()
    if target.startswith("//"):
        return os.path.normpath(target[2:])
    return os.path.normpath(str(PurePosixPath(source).parent / target))


def library(root: Path, entries: list[Entry], skip: list[str]) -> list[LibraryFile]:
    """Every library file of the tree (C/C++ sources that are no test, outside hidden
    folders and the folders of ``skip``), each with its includes, includers, tests and
    documentation, in path order."""
    tests = {e.solution_file for e in entries}
    files: dict[str, LibraryFile] = {}
    markdown: list[str] = []
    for where, dirs, names in os.walk(root):
        here = Path(where)
        relative = here.relative_to(root).as_posix()
        dirs[:] = sorted(
            d
            for d in dirs
            if not d.startswith(".")
            and (f"{relative}/{d}" if relative != "." else d) not in skip
            and not (here / d / MARKER).exists()
        )
        for name in sorted(names):
            path = name if relative == "." else f"{relative}/{name}"
            if name.endswith(".md"):
                markdown.append(path)
            elif name.endswith(LIBRARY_SUFFIXES) and path not in tests:
                files[path] = LibraryFile(path)
    for lib in files.values():
        text = (root / lib.path).read_bytes().decode("utf-8", "replace")
        for name in direct_includes(text):
            target = _resolve(root, lib.path, name)
            if target in files and target not in lib.depends:
                lib.depends.append(target)
                files[target].required_by.append(lib.path)
    for e in entries:
        for path in e.included:
            if path in files:
                files[path].verified_with.append(e)
    for path in markdown:
        text = (root / path).read_bytes().decode("utf-8", "replace")
        target = documentation_of(text, path)
        if target in files and files[target].documentation is None:
            files[target].documentation = path
    for lib in files.values():
        lib.required_by.sort()
    return sorted(files.values(), key=lambda f: f.path)


def _resolve(root: Path, including: str, name: str) -> str | None:
    """Where ``#include "name"`` in ``including`` leads: beside it, else from the root."""
    for base in (str(PurePosixPath(including).parent), ""):
        path = os.path.normpath(os.path.join(base, name))
        if not path.startswith("..") and (root / path).is_file():
            return path
    return None
