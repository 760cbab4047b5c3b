"""The repository the site is built from: finding it, reading files safely, asking git.

Every file a page shows is named by a repository-relative path and read here, so one
function decides what "inside the repository" means: no absolute paths, no ``..`` that
climbs out, no symbolic link that points out, nothing inside ``.git``.
"""

from __future__ import annotations

import functools
import os
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from perfectplay.site.errors import SiteError

__all__ = ["Change", "Git", "History", "find_root", "inside", "parse_history", "rel", "repo_path"]

#: One commit's fields in ``git log``'s output: a NUL-free record start, then the fields.
_FORMAT = "%x1e%H%x1f%cs%x1f%an%x1f%s"


def find_root(start: Path | None = None) -> Path | None:
    """The nearest folder at or above ``start`` (default: the working directory) that holds
    ``site.toml``, or ``archive/`` and ``pyproject.toml``; None when there is none (the
    build then says so rather than build some other repository's site).

    >>> find_root(Path("/")) is None
    True
    """
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / "site.toml").is_file():
            return folder
        if (folder / "archive").is_dir() and (folder / "pyproject.toml").is_file():
            return folder
    return None


def repo_path(root: Path, relative: str, where: str, cited_in: str, what: str) -> Path:
    """Resolve ``relative`` (a POSIX path relative to ``root``) to a regular file inside it.

    ``where``/``cited_in`` name the entry and the file that mentions the path, for the error.
    """
    if not isinstance(relative, str) or not relative.strip():
        raise SiteError(where, cited_in, f"{what}: expected a non-empty path")
    pure = PurePosixPath(relative)
    if pure.is_absolute() or "\\" in relative or (relative[1:2] == ":"):
        raise SiteError(where, cited_in, f"{what} {relative!r} is absolute: paths are relative")
    if ".git" in pure.parts:
        raise SiteError(where, cited_in, f"{what} {relative!r} is inside .git")
    base = root.resolve()
    target = (base / pure).resolve()
    if not target.is_relative_to(base):
        raise SiteError(where, cited_in, f"{what} {relative!r} is outside the repository")
    if not target.exists():
        raise SiteError(where, cited_in, f"{what} {relative!r}: no such file")
    if not target.is_file():
        raise SiteError(where, cited_in, f"{what} {relative!r} is not a regular file")
    return target


def inside(root: Path, relative: str) -> bool:
    """Whether repository path ``relative`` still lies inside ``root`` once every symbolic
    link on the way is resolved (and outside ``.git``).

    >>> inside(Path("/"), "etc")
    True
    """
    base = _resolved(root)
    target = (base / relative).resolve()
    return target.is_relative_to(base) and ".git" not in target.relative_to(base).parts


def rel(root: Path, path: Path) -> str:
    """``path`` relative to ``root``, POSIX style (the form pages and errors show)."""
    return path.resolve().relative_to(_resolved(root)).as_posix()


@functools.lru_cache(maxsize=64)
def _resolved(root: Path) -> Path:
    return root.resolve()


@dataclass(frozen=True)
class Change:
    """The last commit that touched a file, and whether the working tree differs from it."""

    commit: str = ""  # full hash; empty when git has no commit for the file
    date: str = ""  # committer date, YYYY-MM-DD
    author: str = ""
    subject: str = ""
    dirty: bool = False  # modified or untracked in the working tree

    @property
    def short(self) -> str:
        return self.commit[:10]


class Git:
    """Read-only questions to git about files of ``root`` (answers cached; thread-safe enough
    for the build, which asks each path once)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.available = self._run("rev-parse", "--is-inside-work-tree") == "true"
        top = self._run("rev-parse", "--show-toplevel") if self.available else ""
        # A root that is only a folder inside some other repository has no history of its own.
        self.available = bool(top) and Path(top).resolve() == root.resolve()
        self._dirty: set[str] | None = None
        self._history: History | None = None
        self._lock = threading.Lock()

    def _run(self, *args: str) -> str:
        env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0", "LC_ALL": "C"}
        try:
            # A hostile .git/config could name programs git runs on its own: the file
            # system monitor and hooks are switched off (the builder's git reads, never runs).
            safe = ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"]
            res = subprocess.run(
                ["git", *safe, "-C", str(self.root), *args],
                capture_output=True,
                env=env,
                timeout=60,
            )
        except (OSError, subprocess.TimeoutExpired):
            return ""
        if res.returncode != 0:
            return ""
        out = res.stdout.decode("utf-8", "replace")
        # -z output starts with a status column that may be a space: keep it whole.
        return out if "-z" in args else out.strip()

    def dirty_paths(self) -> set[str]:
        if self._dirty is None:
            self._dirty = set()
            if self.available:
                out = self._run("status", "--porcelain=v1", "-z", "--untracked-files=all")
                items = iter(out.split("\0"))
                # Entries are "XY path"; a rename or copy is followed by its old path.
                for item in items:
                    if len(item) > 3:
                        self._dirty.add(item[3:])
                        if item[0] in "RC":
                            next(items, None)
        return self._dirty

    def head(self) -> Change:
        """The commit the working tree is based on (``dirty`` when anything differs)."""
        if not self.available:
            return Change()
        fields = self._run("log", "-1", "--format=%H%x1f%cs%x1f%an%x1f%s").split("\x1f")
        if len(fields) != 4:
            return Change(dirty=True)
        commit, date, author, subject = fields
        return Change(commit, date, author, subject, dirty=bool(self.dirty_paths()))

    def history(self) -> History:
        """The whole history, read once (one ``git log`` for every path of the tree)."""
        with self._lock:
            if self._history is None:
                head = self._run("rev-parse", "HEAD") if self.available else ""
                key = (str(self.root.resolve()), head)
                found = _HISTORIES.get(key)
                if found is None:
                    out = ""
                    if head:
                        out = self._run(
                            "log", "--no-renames", "--name-only", "-z", f"--format={_FORMAT}"
                        )
                    found = parse_history(out)
                    while len(_HISTORIES) >= 4:  # a long-running server builds many times
                        _HISTORIES.pop(next(iter(_HISTORIES)))
                    _HISTORIES[key] = found
                self._history = found
            return self._history

    def last_change(self, relative: str) -> Change:
        """The last commit touching ``relative`` (repository-relative POSIX path), from
        :meth:`history`."""
        if not self.available:
            return Change()
        dirty = relative in self.dirty_paths()
        found = self.history().last.get(relative)
        if found is None:
            return Change(dirty=dirty)
        return Change(*found, dirty=dirty)

    def first_year(self, relative: str) -> int | None:
        """The year of the first commit that touched ``relative`` or anything below it (a
        folder; ``""``: the repository); None without history."""
        if not self.available:
            return None
        date = self.history().first_under().get(relative.strip("/"))
        return int(date[:4]) if date else None


@dataclass
class History:
    """What one read of ``git log`` says about every path: its last commit (hash, date,
    author, subject) and the date of its first."""

    last: dict[str, tuple[str, str, str, str]]
    first: dict[str, str]
    _under: dict[str, str] | None = None

    def first_under(self) -> dict[str, str]:
        """The first date of every path and of every folder above one (the earliest of
        what it holds; ``""`` is the repository)."""
        if self._under is None:
            under: dict[str, str] = {}
            for path, date in self.first.items():
                parts = path.split("/")
                for i in range(len(parts) + 1):
                    key = "/".join(parts[:i])
                    if key not in under or date < under[key]:
                        under[key] = date
            self._under = under
        return self._under


#: Histories already read, by repository and HEAD commit: a build's discovery and its pages
#: ask the same history, read once (a new commit is a new key).
_HISTORIES: dict[tuple[str, str], History] = {}


def parse_history(out: str) -> History:
    r"""Parse ``git log --name-only -z --format=%x1e%H%x1f%cs%x1f%an%x1f%s`` (newest first).

    >>> h = parse_history("\x1ec2\x1f2025-02-01\x1fAda\x1ffix\0\nb.py\0"
    ...                   "\x1ec1\x1f2024-01-01\x1fAda\x1fstart\0\na.py\0b.py\0")
    >>> h.last["b.py"][:2], h.last["a.py"][0], h.first["b.py"]
    (('c2', '2025-02-01'), 'c1', '2024-01-01')
    """
    last: dict[str, tuple[str, str, str, str]] = {}
    first: dict[str, str] = {}
    for record in out.split("\x1e")[1:]:
        head, *names = record.split("\0")
        fields = head.split("\x1f")
        if len(fields) != 4:
            continue
        commit, date, author, subject = fields
        for name in names:
            name = name.strip("\n")
            if name:
                last.setdefault(name, (commit, date, author, subject))
                first[name] = date  # older commits come later: the last one seen is the first
    return History(last, first)
