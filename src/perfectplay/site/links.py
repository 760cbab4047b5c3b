"""Relative links inside converted pages: from repository paths to site paths.

A page's Markdown links to files of the repository the way they are laid out in the tree
(``cli.md``, ``../archive/icpc/2023/K-alea-iacta-est/``, ``../src/perfectplay/cli/__init__.py``).
Here each becomes a link inside the site: a documentation page, an entry's page, or the
raw copy of the file; a link to nothing fails the build, and so does an image or other
resource outside the site (pages must load without a network).
"""

from __future__ import annotations

import base64
import functools
import html
import posixpath
import re
from collections.abc import Callable
from pathlib import Path

from perfectplay.site.errors import SiteError

__all__ = ["ACTIVE", "active", "raw_path", "relative_url", "rewrite"]

ATTRIBUTE = re.compile(r'\b(href|src)="([^"]*)"')
SCHEME = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")
#: File types a browser runs scripts of when it opens them (by name, from ``file://`` or a
#: server): their raw copies are made inert (:func:`raw_path`).
ACTIVE = frozenset(
    ".html .htm .xhtml .xht .shtml .svg .svgz .xml .xsl .xslt .js .mjs .cjs .mht .mhtml "
    ".swf".split()
)


def active(path: str) -> bool:
    """Whether a browser opening ``path`` could run a script in it.

    >>> active("a/evil.HTML"), active("a/statement.md")
    (True, False)
    """
    return posixpath.splitext(path)[1].lower() in ACTIVE


def raw_path(path: str) -> str:
    """The site path of the raw copy of repository file ``path``: ``raw/PATH``, or for an
    :func:`active` type ``raw-text/PATH.txt``, opened as text wherever the site is read (a
    folder of its own, so no file of the tree can have the same copy).

    >>> raw_path("src/x.py"), raw_path("p/evil.svg")
    ('raw/src/x.py', 'raw-text/p/evil.svg.txt')
    """
    return f"raw-text/{path}.txt" if active(path) else f"raw/{path}"


@functools.lru_cache(maxsize=65536)
def relative_url(from_page: str, to_path: str) -> str:
    """URL of site path ``to_path`` as seen from site page ``from_page``.

    >>> relative_url("archive/a/b/index.html", "docs/cli.html")
    '../../../docs/cli.html'
    >>> relative_url("index.html", "raw/src/x.py")
    'raw/src/x.py'
    """
    return posixpath.relpath(to_path, posixpath.dirname(from_page) or ".")


def rewrite(
    fragment: str,
    *,
    root: Path,
    source: str,
    page: str,
    where: str,
    target_for: Callable[[str, bool], str | None],
) -> str:
    """Rewrite relative ``href``/``src`` in ``fragment`` converted from repository file
    ``source`` and shown at site path ``page``.

    ``target_for(repo_path, is_dir)`` maps an existing repository path to a site path, or
    returns None when the site has no place for it.
    """
    base = root.resolve()

    def one(match: re.Match[str]) -> str:
        attribute, value = match.group(1), html.unescape(match.group(2))
        if value.startswith("#") or value.startswith("data:") or not value:
            return match.group(0)
        if SCHEME.match(value) or value.startswith("//"):
            if attribute == "src":
                raise SiteError(
                    where,
                    source,
                    f"external resource {value!r}: pages must load "
                    "without a network; put the file in the repository",
                )
            return match.group(0)
        path, _, fragment_id = value.partition("#")
        path = path.split("?", 1)[0]
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(source), path))
        if joined.startswith("../") or joined == ".." or posixpath.isabs(path):
            raise SiteError(where, source, f"link {value!r} points outside the repository")
        target = (base / joined).resolve()
        if not target.is_relative_to(base) or ".git" in Path(joined).parts:
            raise SiteError(where, source, f"link {value!r} points outside the repository")
        if not target.exists():
            raise SiteError(where, source, f"link {value!r}: no such file or folder")
        if attribute == "src" and target.suffix.lower() == ".svg" and target.is_file():
            # An image's scripts never run: the picture itself, as its inert copy is text.
            data = base64.b64encode(target.read_bytes()).decode("ascii")
            return f'src="data:image/svg+xml;base64,{data}"'
        site_path = target_for(target.relative_to(base).as_posix(), target.is_dir())
        if site_path is None:
            raise SiteError(where, source, f"link {value!r}: the site has no page for it")
        url = relative_url(page, site_path) + (f"#{fragment_id}" if fragment_id else "")
        return f'{attribute}="{html.escape(url)}"'

    return ATTRIBUTE.sub(one, fragment)
