"""Any other layout, said by patterns in ``site.toml``::

    layout = "globs"
    entries = "contests/*/*"      # the entry folders
    solution = "*.cpp"            # the program shown and run (relative to each folder)
    samples = "tests/*.in"        # inputs; each answer is beside it as .ans or .out
    tests = "secret/*.in"         # judge data (optional)
    statement = "README.md"       # optional, Markdown or .tex
    writeup = "editorial.tex"     # optional, LaTeX

A folder may still hold a ``meta.toml``: its keys win over the derived ones (the title is
the folder's name, the year that of the folder's first commit).
"""

from __future__ import annotations

import functools
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfectplay.site.config import Config
from perfectplay.site.errors import SiteError
from perfectplay.site.importers.common import (
    ANSWERS,
    checked,
    entry_id,
    matches,
    natural,
    read_inside,
    under,
)
from perfectplay.site.importers.common import year_of as _year_of
from perfectplay.site.importers.found import Found
from perfectplay.site.repo import Git

__all__ = ["find"]


def find(root: Path, config: Config) -> list[Callable[[], Found | None]]:
    """Every folder the ``entries`` patterns match that holds a ``solution`` match."""
    git = Git(root)
    return [
        functools.partial(_found, root, folder, base, config, git)
        for folder, base in matches(root, config.entries)
        if folder.is_dir() and _files(folder, config.globs["solution"])
    ]


def _files(folder: Path, pattern: str) -> list[Path]:
    return sorted(
        (p for p in folder.glob(pattern) if p.is_file()), key=lambda p: natural(p.as_posix())
    )


def _found(root: Path, folder: Path, base: str, config: Config, git: Git) -> Found:
    ident = entry_id(root, base, folder)
    globs = config.globs
    solutions = _files(folder, globs["solution"])
    if len(solutions) > 1:
        names = ", ".join(p.relative_to(folder).as_posix() for p in solutions)
        raise SiteError(
            ident, under(root, solutions[0]), f"'solution' = {globs['solution']!r} matches {names}"
        )
    meta: dict[str, Any] = {"title": folder.name}
    year = _year_of(git, root, folder)
    meta_file, text = under(root, solutions[0]), ""
    if (folder / "meta.toml").is_file():
        meta_file = under(root, folder / "meta.toml")
        text = read_inside(root, folder / "meta.toml", ident)
        try:
            meta.update(tomllib.loads(text))
        except tomllib.TOMLDecodeError as exc:
            raise SiteError(ident, meta_file, f"malformed TOML: {exc}") from None
    if "contest" not in meta and "problem" not in meta:
        # The folder above names the contest ("contests/abc/A": abc, problem A).
        meta["contest"] = folder.parent.name if folder.parent != root else config.title
        meta["problem"] = folder.name
    if year is not None:
        meta.setdefault("year", year)

    def one(key: str) -> str | None:
        hits = _files(folder, globs[key]) if key in globs else []
        return under(root, hits[0]) if hits else None

    return Found(
        folder,
        ident,
        meta,
        meta_file,
        text,
        statement=one("statement"),
        writeup=one("writeup"),
        solution=under(root, solutions[0]),
        samples=_pairs(root, folder, globs.get("samples"), ident),
        tests=_pairs(root, folder, globs.get("tests"), ident),
        derived=True,
    )


def _pairs(root: Path, folder: Path, pattern: str | None, ident: str) -> list[tuple[str, str]]:
    """The inputs ``pattern`` matches, each with its answer beside it."""
    found = []
    for path in _files(folder, pattern) if pattern else []:
        answer = next((path.with_suffix(s) for s in ANSWERS if path.with_suffix(s).is_file()), None)
        if answer is None:
            raise SiteError(ident, under(root, path), "no answer beside it (.ans or .out)")
        base = root.resolve()
        found.append((checked(root, base, path, ident), checked(root, base, answer, ident)))
    return found
