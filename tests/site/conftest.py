"""Helpers shared by the site tests (test files do not import each other)."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import pytest

VOID = {
    "area",
    "base",
    "br",
    "col",
    "embed",
    "hr",
    "img",
    "input",
    "link",
    "meta",
    "source",
    "track",
    "wbr",
}


class Grab(HTMLParser):
    """Texts of the elements whose attribute ``name`` is set, keyed by its value."""

    def __init__(self, name: str) -> None:
        super().__init__(convert_charrefs=True)
        self.name = name
        self.found: dict[str, str] = {}
        self._stack: list[tuple[str, int]] = []  # (key, depth) of open captures
        self._depth = 0

    def handle_starttag(self, tag, attrs):
        if tag in VOID:
            return
        self._depth += 1
        value = dict(attrs).get(self.name)
        if value is not None:
            self._stack.append((value, self._depth))
            self.found.setdefault(value, "")

    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if self._stack and self._stack[-1][1] == self._depth:
            self._stack.pop()
        self._depth -= 1

    def handle_data(self, data):
        for key, _ in self._stack:
            self.found[key] += data


def texts_by_attribute(html: str, name: str) -> dict[str, str]:
    parser = Grab(name)
    parser.feed(html)
    return parser.found


@pytest.fixture
def grab() -> Callable[[str, str], dict[str, str]]:
    """``grab(html, "data-file")``: the text of every element with that attribute, by value."""
    return texts_by_attribute


def tree_hashes(folder: Path) -> dict[str, str]:
    return {
        p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.fixture(scope="session")
def snapshot() -> Callable[[Path], dict[str, str]]:
    """``snapshot(folder)``: the sha256 of every file under ``folder``, by relative path
    (to compare two builds, or a folder before and after a refused build)."""
    return tree_hashes


OWN_ARCHIVE = Path(__file__).resolve().parent / "fixtures" / "own-archive"


def copy_own_archive(into: Path) -> Path:
    repo = into / "repo"
    shutil.copytree(OWN_ARCHIVE, repo)
    return repo


@pytest.fixture(scope="session")
def own_archive() -> Callable[[Path], Path]:
    """``own_archive(folder)``: a fresh copy of the fixture archive in the seed's layout
    (fixtures/own-archive) at ``folder/repo``, returned."""
    return copy_own_archive


@pytest.fixture(scope="session", autouse=True)
def _private_cache(tmp_path_factory):
    """Builds without ``cache=`` use ``$XDG_CACHE_HOME/perfectplay-site``: a folder of this
    test session, not the user's cache."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))
        yield


@pytest.fixture(autouse=True)
def _cache_of_the_test(tmp_path_factory, monkeypatch, _private_cache):
    """Each test starts with an empty cache (module-scoped builds use the session's)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache-test")))


@pytest.fixture(autouse=True)
def _trusted_where_no_sandbox(monkeypatch):
    """Where bubblewrap cannot run (a container without user namespaces), the fixtures'
    programs run unsandboxed as a trusted tree's would (``--trust``); the tests of the
    sandbox itself skip there (tests/site/test_site_hostile.py)."""
    from perfectplay.site import sandbox

    if sandbox.unavailable() is None:
        return
    try:
        import perfectplay.site.build as site_build
    except ImportError:  # the site extra is missing: the modules skip themselves
        return
    real = sandbox.jail_for
    monkeypatch.setattr(site_build, "jail_for", lambda root, cache, trust: real(root, cache, True))
