"""What the importers share: walking the tree, pairing inputs with answers, the defaults."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from perfectplay.site.config import Config
from perfectplay.site.errors import SiteError
from perfectplay.site.output import MARKER
from perfectplay.site.repo import Git, inside, rel, repo_path

__all__ = [
    "ANSWERS",
    "checked",
    "entry_id",
    "matches",
    "natural",
    "pairs",
    "year_of",
]

#: Suffixes of an answer file, in the order they are looked for (Kattis and the seed's
#: ``.ans``, Library Checker's ``.out``).
ANSWERS = (".ans", ".out")


def natural(name: str) -> list[int | str]:
    """Sort key that orders ``2`` before ``10``.

    >>> sorted(["10.in", "2.in"], key=natural)
    ['2.in', '10.in']
    """
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def entry_id(root: Path, base: str, path: Path) -> str:
    """An entry's id: ``path`` relative to its pattern's literal folder (or its name)."""
    found = path.relative_to(root / base).as_posix() if base else under(root, path)
    return path.name if found == "." else found


def written_or_hidden(root: Path) -> Callable[[Path], bool]:
    """Whether a path under ``root`` is in ``.git``, a hidden folder (a half-written
    site among them) or a site a build wrote, whose raw copies of the tree's files would
    be found again as entries (remembered per folder: one test of each)."""
    built: dict[Path, bool] = {}

    def in_a_site(folder: Path) -> bool:
        if folder == root or folder == folder.parent:
            return False
        if folder not in built:
            built[folder] = (folder / MARKER).is_file() or in_a_site(folder.parent)
        return built[folder]

    def hidden(path: Path) -> bool:
        parts = path.relative_to(root).parts
        return any(p.startswith(".") for p in parts) or in_a_site(path.parent)

    return hidden


def matches(root: Path, patterns: Iterable[str], suffix: str = "") -> Iterator[tuple[Path, str]]:
    """The paths ``root.glob(pattern + suffix)`` finds for each pattern, outside ``.git``,
    hidden folders and sites a build wrote, each once, with the pattern's literal folder."""
    config = Config()
    seen: set[Path] = set()
    hidden = written_or_hidden(root)
    for pattern in patterns:
        base = config.base_of(pattern)
        for path in sorted(root.glob(pattern + suffix), key=lambda p: natural(p.as_posix())):
            if path in seen or hidden(path):
                continue
            seen.add(path)
            yield path, base


def pairs(root: Path, folder: Path, entry: str, recursive: bool = False) -> list[tuple[str, str]]:
    """Every ``*.in`` of ``folder`` (and its subfolders when ``recursive``) with its answer
    (``.ans`` or ``.out``), repository-relative, in natural order; an input without an
    answer is an error. A file that is a symbolic link must stay inside the repository."""
    if not folder.is_dir():
        return []
    base = root.resolve()
    found = []
    walk = os.walk(folder) if recursive else [(str(folder), [], os.listdir(folder))]
    for where, _, names in walk:
        for name in names:
            if not name.endswith(".in"):
                continue
            path = Path(where) / name
            answer = next(
                (path.with_suffix(s) for s in ANSWERS if path.with_suffix(s).is_file()), None
            )
            if answer is None:
                shown = under(root, path)
                raise SiteError(entry, shown, f"test {name} has no answer (.ans or .out)")
            found.append((checked(root, base, path, entry), checked(root, base, answer, entry)))
    return sorted(found, key=lambda pair: natural(pair[0]))


def checked(root: Path, base: Path, path: Path, entry: str) -> str:
    """The repository-relative name of ``path`` (found below ``root``, whose resolved path
    is ``base``); a symbolic link must lead to a file inside the repository."""
    relative = under(root, path)
    if path.is_symlink():
        return rel(root, repo_path(root, relative, entry, relative, "file"))
    return relative


def year_of(git: Git, root: Path, path: Path) -> int | None:
    """The year of the repository's first commit that touched ``path`` (a file or folder)."""
    return git.first_year(under(root, path))


def under(root: Path, path: Path) -> str:
    """The repository-relative name of ``path``, a path found below ``root``, links not
    followed (whether a link stays inside is checked where its file is read or shown).

    >>> under(Path("/repo"), Path("/repo/a/b.in"))
    'a/b.in'
    """
    return path.relative_to(root).as_posix()


def read_inside(root: Path, path: Path, entry: str) -> str:
    """The text of a file of the tree the importer reads itself, refused when it is a link
    out of the repository (its content would be published)."""
    relative = under(root, path)
    if not inside(root, relative):
        raise SiteError(entry, relative, "a link to a file outside the repository: refused")
    return path.read_bytes().decode("utf-8", "replace")
