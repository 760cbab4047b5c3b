"""What the tree holds for one build: the files pages show, read once, and the docs.

Every repository file a page shows or links to is registered here (:meth:`Tree.show`) and
its bytes are read once per build (:meth:`Tree.bytes`), so the page, its raw copy and the
manifest's digest all see the same version even if the file changes during the build.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from perfectplay.site.config import Config
from perfectplay.site.entries import Entry
from perfectplay.site.errors import SiteError
from perfectplay.site.links import raw_path
from perfectplay.site.repo import Change, inside

__all__ = ["Doc", "Shown", "Tree"]


@dataclass
class Doc:
    name: str  # file stem: "cli"
    source: str  # repository-relative: "docs/cli.md"
    url: str  # site path: "docs/cli.html"
    title: str = ""
    body: str = ""


@dataclass
class Shown:
    """A repository file a page shows or links to."""

    path: str
    raw: str  # site path of its copy
    change: Change = field(default_factory=Change)


class Tree:
    """The repository ``root`` as one build sees it."""

    def __init__(self, root: Path, config: Config) -> None:
        self.root = root
        self.config = config
        self.bases = {config.base_of(p) for p in config.entries}
        self.shown: dict[str, Shown] = {}
        self.data: dict[str, bytes] = {}

    def bytes(self, path: str) -> bytes:
        """The bytes of repository file ``path``, read once per build."""
        if path not in self.data:
            self.data[path] = (self.root / path).read_bytes()
        return self.data[path]

    def text(self, path: str, where: str) -> str:
        try:
            return self.bytes(path).decode("utf-8")
        except UnicodeDecodeError:
            raise SiteError(where, path, "not UTF-8 text") from None

    def show(self, path: str) -> Shown:
        """Register a repository file whose bytes are copied to ``raw/``."""
        if path not in self.shown:
            self.shown[path] = Shown(path, raw_path(path))
        return self.shown[path]

    def check_inside(self, e: Entry) -> None:
        """The files an entry's page shows whole (statement, write-up, solution, metadata)
        must lie inside the repository once links are resolved: a link to ``/etc/passwd``
        would publish it in the page, its raw copy and the search index."""
        for path in (e.statement, e.solution, e.solution_file, e.meta):
            if path is not None and not inside(self.root, path):
                raise SiteError(e.id, path, "a link to a file outside the repository: refused")

    def docs(self) -> list[Doc]:
        """The documentation pages under ``docs/``, in the order ``docs/index.md`` links them."""
        folder = self.root / "docs"
        if not folder.is_dir():
            return []
        found = {
            p.stem: Doc(p.stem, f"docs/{p.name}", f"docs/{p.stem}.html")
            for p in folder.glob("*.md")
            if p.is_file()
        }
        for d in found.values():
            if not inside(self.root, d.source):
                raise SiteError(
                    "docs", d.source, "a link to a file outside the repository: refused"
                )
        order = ["index"] if "index" in found else []
        if "index" in found:
            # The documentation's own index sets the order: pages in the order it links them.
            text = self.text("docs/index.md", "docs")
            for name in re.findall(r"\]\(\s*(?:\./)?([A-Za-z0-9_.-]+)\.md\b", text):
                if name in found and name not in order:
                    order.append(name)
        order += sorted(n for n in found if n not in order)
        return [found[n] for n in order]

    def target_for(
        self, entries: list[Entry], docs: list[Doc]
    ) -> Callable[[str, bool], str | None]:
        """Where a link to a repository path goes in the site (see :func:`links.rewrite`)."""
        doc_urls = {d.source: d.url for d in docs}
        folders = {e.folder: e for e in entries}

        def target(path: str, is_dir: bool) -> str | None:
            if path in doc_urls:
                return doc_urls[path]
            if is_dir:
                if path in folders:
                    return folders[path].url
                if path in ("archive", "") or path in self.bases:
                    return "index.html"
                if path == "docs" and "docs/index.md" in doc_urls:
                    return doc_urls["docs/index.md"]
                return None
            return self.show(path).raw

        return target

    def check_statement_headings(self, e: Entry) -> bool:
        """The page supplies the title: a top-level heading would show it twice (in a
        Markdown statement; a TeX one's sections are shifted below the title). In
        perfectplay's layout it is an error; a repository read in another layout keeps its
        statements as they are, and the answer (True: one has a top-level heading) says
        to shift their headings one level down."""
        if e.statement is None or not e.statement.endswith(".md"):
            return False
        fenced = False
        previous = ""
        for number, line in enumerate(self.text(e.statement, e.id).splitlines(), start=1):
            if line.lstrip(" ").startswith(("```", "~~~")):
                fenced = not fenced
                line = ""  # a fence is no heading text for a "=" line below it
            elif not fenced and (
                re.match(r" {0,3}#(\s|$)", line)
                # "Title" underlined with "=": the other spelling of the same heading
                or (previous.strip() and re.fullmatch(r" {0,3}=+\s*", line))
            ):
                if self.config.layout != "perfectplay":
                    return True
                raise SiteError(
                    e.id,
                    e.statement,
                    "a top-level heading ('#', or a line underlined with '='): "
                    "sections start at '##' (the page has the title)",
                    number if line.lstrip(" ").startswith("#") else number - 1,
                )
            previous = "" if fenced else line
        return False
