"""oj-verify style libraries (online-judge-tools/verification-helper): every
``*.test.cpp`` / ``*.test.py`` file is a test that names its problem::

    #define PROBLEM "https://judge.yosupo.jp/problem/shortest_path"      (C++)
    # verification-helper: PROBLEM https://judge.yosupo.jp/problem/...   (Python)

Each becomes an entry whose solution is the test file itself (run by its built-in
runner; a C++ test's includes are found by the compiler). Nothing is downloaded: the test
data comes from the local folder ``data`` of ``site.toml``, in Library Checker's layout
(``CATEGORY/NAME/in/*.in`` with ``out/*.out``, as its ``generate.py`` writes them) or a
folder per problem (``NAME/*.in`` with ``*.out`` or ``*.ans``). The files named
``example_*`` are the samples, the others the judge data; Library Checker's ``info.toml``
gives the title and its ``checker.cpp`` the checker (``testlib:``). A test with
``#define IGNORE`` is left out, as oj-verify leaves it out.
"""

from __future__ import annotations

import functools
import os
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from perfectplay.site.config import Config
from perfectplay.site.errors import SiteError
from perfectplay.site.importers.common import (
    checked,
    entry_id,
    matches,
    natural,
    pairs,
    read_inside,
    under,
    year_of,
)
from perfectplay.site.importers.found import Found
from perfectplay.site.repo import Git

__all__ = ["HOSTS", "TEST_SUFFIXES", "find", "problem_name", "problem_url"]

TEST_SUFFIXES = (".test.cpp", ".test.cc", ".test.py")
#: How a judge's host is shown as the entry's contest.
HOSTS = {
    "judge.yosupo.jp": "Library Checker",
    "onlinejudge.u-aizu.ac.jp": "Aizu Online Judge",
    "judge.u-aizu.ac.jp": "Aizu Online Judge",
    "atcoder.jp": "AtCoder",
    "yukicoder.me": "yukicoder",
    "codeforces.com": "Codeforces",
}
_PROBLEM = re.compile(
    r'^\s*#\s*define\s+PROBLEM\s+"([^"]+)"|^\s*#\s*verification-helper:\s*PROBLEM\s+(\S+)',
    re.MULTILINE,
)
_IGNORE = re.compile(r"^\s*#\s*(?:define\s+IGNORE\b|verification-helper:\s*IGNORE\b)", re.M)


def problem_url(text: str) -> str | None:
    """The ``PROBLEM`` a test file names, or None.

    >>> problem_url('#define PROBLEM "https://judge.yosupo.jp/problem/aplusb"\\n')
    'https://judge.yosupo.jp/problem/aplusb'
    >>> problem_url("# verification-helper: PROBLEM https://atcoder.jp/x/tasks/abc1_a\\n")
    'https://atcoder.jp/x/tasks/abc1_a'
    """
    found = _PROBLEM.search(text)
    return (found.group(1) or found.group(2)) if found else None


def problem_name(url: str) -> str:
    """The problem's name in a judge's URL: its ``id`` parameter or last path segment.

    >>> problem_name("https://judge.yosupo.jp/problem/shortest_path")
    'shortest_path'
    >>> problem_name("https://onlinejudge.u-aizu.ac.jp/courses/lesson/1/ALDS1/all/ALDS1_1_A")
    'ALDS1_1_A'
    >>> problem_name("http://judge.u-aizu.ac.jp/onlinejudge/description.jsp?id=GRL_1_A")
    'GRL_1_A'
    """
    parts = urlsplit(url)
    given = parse_qs(parts.query).get("id")
    if given:
        return given[0]
    return parts.path.rstrip("/").rsplit("/", 1)[-1]


def find(root: Path, config: Config) -> list[Callable[[], Found | None]]:
    """Every test file under the ``entries`` patterns (default: anywhere) but the data."""
    git = Git(root)
    data = _Data(root, config.data)
    return [
        functools.partial(_found, root, path, base, data, git)
        for path, base in matches(root, config.entries, "/*.test.*")
        if path.name.endswith(TEST_SUFFIXES) and path.is_file() and not data.holds(path)
    ]


def _found(root: Path, path: Path, base: str, data: _Data, git: Git) -> Found | None:
    text = read_inside(root, path, under(root, path))
    if _IGNORE.search(text):
        return None
    stem = path.name[: -len(next(s for s in TEST_SUFFIXES if path.name.endswith(s)))]
    ident = entry_id(root, base, path.with_name(stem))
    test_file = under(root, path)
    url = problem_url(text)
    if url is None:
        raise SiteError(
            ident,
            test_file,
            'names no problem: #define PROBLEM "URL" (or "# verification-helper: PROBLEM URL"); '
            "#define IGNORE leaves a file out",
        )
    name = problem_name(url)
    host = urlsplit(url).hostname or ""
    meta: dict[str, Any] = {
        "title": name,
        "contest": HOSTS.get(host, host or "problem"),
        "problem": name,
    }
    if re.fullmatch(r"https?://\S+", url):
        meta["link"] = url
    year = year_of(git, root, path)
    if year is not None:
        meta["year"] = year
    folder = data.problem(name)
    samples: list[tuple[str, str]] = []
    tests: list[tuple[str, str]] = []
    if folder is not None:
        meta["title"] = _title(folder) or name
        inputs = folder / "in" if (folder / "in").is_dir() else folder
        for pair in _with_outputs(root, inputs, ident):
            is_example = Path(pair[0]).name.startswith("example")
            (samples if is_example else tests).append(pair)
        checker = folder / "checker.cpp"
        if checker.is_file() and tests:
            meta["checker"] = f"testlib:{os.path.relpath(checker, path.parent)}"
    return Found(
        path.parent,
        ident,
        meta,
        test_file,
        solution=test_file,
        samples=samples,
        tests=tests,
        derived=True,
        own_folder=False,  # the folder of every test: each test's includes are its own
    )


def _title(folder: Path) -> str | None:
    """The title in Library Checker's ``info.toml``, when there is one."""
    try:
        title = tomllib.loads((folder / "info.toml").read_text("utf-8")).get("title")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return title.strip() if isinstance(title, str) and title.strip() else None


def _with_outputs(root: Path, inputs: Path, ident: str) -> list[tuple[str, str]]:
    """``in/X.in`` with ``out/X.out`` (Library Checker), else the folder's own pairs."""
    outputs = inputs.parent / "out"
    if inputs.name != "in" or not outputs.is_dir():
        return pairs(root, inputs, ident)
    found = []
    base = root.resolve()
    for path in sorted(inputs.glob("*.in"), key=lambda p: natural(p.name)):
        answer = outputs / (path.stem + ".out")
        if not answer.is_file():
            shown = path.relative_to(root).as_posix()
            raise SiteError(ident, shown, f"no answer {answer.relative_to(root).as_posix()}")
        found.append((checked(root, base, path, ident), checked(root, base, answer, ident)))
    return found


class _Data:
    """The local test data folder, indexed once: problem name -> its folder."""

    def __init__(self, root: Path, folder: str | None) -> None:
        self.root = root
        self.base = (root / folder) if folder else None
        self.folders: dict[str, Path] = {}
        if self.base is None:
            return
        if not self.base.is_dir():
            raise SiteError("", "site.toml", f"'data' {folder!r} is not a folder of the tree")
        if not self.base.resolve().is_relative_to(root.resolve()):
            raise SiteError("", "site.toml", f"'data' {folder!r} is a link out of the repository")
        for where, dirs, files in os.walk(self.base):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            here = Path(where)
            if "in" in dirs or any(f.endswith(".in") for f in files):
                self.folders.setdefault(here.name, here)
                dirs[:] = []  # a problem's folder holds no other problem

    def holds(self, path: Path) -> bool:
        return self.base is not None and path.is_relative_to(self.base)

    def problem(self, name: str) -> Path | None:
        return self.folders.get(name)
