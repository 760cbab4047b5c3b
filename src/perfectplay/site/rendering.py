"""Rendering the site's pages: statements, write-ups and docs through pandoc, Jinja2
templates around them, the search index and the manifest.

Nothing here runs an entry's programs (see :mod:`perfectplay.site.checks`); the only
programs started are pandoc and the tree's own ``perfectplay --help`` for the CLI reference.
"""

from __future__ import annotations

import concurrent.futures as cf
import functools
import hashlib
import html
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from perfectplay.site import apidoc, pandoc
from perfectplay.site.cache import Store, builder_version, digest
from perfectplay.site.checks import Checks, describe_error, judge_verdict
from perfectplay.site.entries import Entry
from perfectplay.site.errors import SiteError
from perfectplay.site.helptext import commands, help_text
from perfectplay.site.highlight import (
    byte_notes,
    code_block,
    highlight_fragment,
    plain_block,
    stylesheet,
)
from perfectplay.site.importers.library import LibraryFile, library
from perfectplay.site.links import relative_url, rewrite
from perfectplay.site.pool import Pool, Work, done
from perfectplay.site.samples import SampleRun, TestRun, time_bucket
from perfectplay.site.sandbox import Jail
from perfectplay.site.sanitize import POLICY, clean
from perfectplay.site.tree import Doc, Tree

__all__ = ["DIRECTIVES", "Pages", "Renderer", "plain_text"]

HERE = Path(__file__).resolve().parent
DIRECTIVE = re.compile(r"<!--\s*perfectplay:([A-Za-z0-9_-]+)\s*-->")
DIRECTIVES = ("cli-reference", "api-reference")

#: What a build renders: pages by site path, the search index and the manifest.
Pages = tuple[dict[str, str], list[dict[str, str]], dict[str, Any]]


def plain_text(fragment: str) -> str:
    """Searchable text of an HTML fragment (MathML's TeX annotations left out).

    >>> plain_text("<p>Sum <math><mi>a</mi><mn>1</mn></math> &amp; more</p>")
    'Sum a1 & more'
    """
    text = re.sub(r"<annotation\b.*?</annotation>", " ", fragment, flags=re.DOTALL)
    # A formula reads best as its symbols run together: "a1,…,an", not "a 1 , … , a n".
    text = re.sub(
        r"<math\b.*?</math>", lambda m: re.sub(r"<[^>]*>|\s", "", m.group(0)), text, flags=re.DOTALL
    )
    text = re.sub(r"<[^>]*>", " ", text)
    return " ".join(html.unescape(text).split())


def _title_of(fragment: str, fallback: str) -> str:
    found = re.search(r"<h1[^>]*>(.*?)</h1>", fragment, re.DOTALL)
    return plain_text(found.group(1)) if found else fallback


class Renderer:
    """The pages of one build, from the tree's files and the checks' results."""

    def __init__(self, tree: Tree, store: Store, jail: Jail | None = None) -> None:
        self.tree = tree
        self.jail = jail
        self.root = tree.root
        self.store = store
        self.commands: dict[str, str] = {}  # name -> summary, read when a page asks
        # Keep going: an entry's statement or write-up pandoc cannot convert is recorded
        # here (by entry) and shown as the error; None: it stops the build.
        self.failures: dict[str, SiteError] | None = None
        self.library: list[LibraryFile] = []  # an oj-verify library's files
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters["url_from"] = lambda target, page: relative_url(page, target)

    # ---- conversions, in the build's pool ------------------------------------------
    def submit(self, pool: Pool, entries: list[Entry], docs: list[Doc], work: Work) -> None:
        """``--help`` runs, pandoc conversions and reading the files to show, into ``work``."""
        tree = self.tree
        work.helps = self._submit_helps(pool, docs)
        for e in entries:
            try:
                shifted = tree.check_statement_headings(e)
            except SiteError as exc:
                # The page says what is wrong in the statement's place.
                work.statements[e.id] = done(self._failure(e.id, exc))
            else:
                self._submit_statement(pool, e, shifted, work)
            if e.solution is not None:
                work.solutions[e.id] = pool.submit(
                    self.convert,
                    e.solution,
                    e.id,
                    tex=True,
                    id_prefix="solution-",
                    shift=1,
                    strict_text=True,
                )
        for d in docs:
            work.docs[d.source] = pool.submit(self.convert, d.source, "docs", tex=False)
        for e in entries:
            for path in (*e.sources, e.statement, e.solution, e.meta):
                if path is not None:
                    tree.show(path)
            for s in e.samples:
                tree.show(s.input), tree.show(s.answer)
            for judge in (e.checker_file, e.interactor_file):
                if judge is not None:
                    tree.show(judge)
            for path in (*e.sources, e.solution):
                if path is not None:
                    work.texts[path] = pool.submit(tree.text, path, e.id)
        for d in docs:
            tree.show(d.source)
        if tree.config.layout == "oj-verify":
            self._submit_library(pool, entries, work)

    def _submit_statement(self, pool: Pool, e: Entry, shifted: bool, work: Work) -> None:
        """The conversion of ``e``'s statement (``shifted``: its headings one level down)."""
        if e.statement is None:
            return
        tex = e.statement.endswith(".tex")
        work.statements[e.id] = pool.submit(
            self.convert,
            e.statement,
            e.id,
            tex=tex,
            id_prefix="statement-",
            # A TeX statement's \section is the page's level 2, as a write-up's.
            **({"shift": 1} if tex or shifted else {}),
            strict_text=True,
        )

    def _submit_library(self, pool: Pool, entries: list[Entry], work: Work) -> None:
        """The library's files (shown whole) and their documentation (through pandoc)."""
        skip = [self.tree.config.data] if self.tree.config.data else []
        self.library = library(self.root, entries, skip)
        for lib in self.library:
            self.tree.show(lib.path)
            work.texts[lib.path] = pool.submit(self.tree.text, lib.path, "library")
            if lib.documentation is not None:
                self.tree.show(lib.documentation)
                work.docs[lib.documentation] = pool.submit(
                    self.convert, lib.documentation, "library", tex=False, id_prefix="doc-"
                )

    def convert(self, source: str, where: str, **options: Any) -> str:
        """pandoc's HTML for ``source``, remembered by the file's bytes and the options;
        when an entry's file cannot be converted and :attr:`failures` is kept, the error."""
        return self._kept(where, lambda: self._convert(source, where, **options))

    def _kept(self, where: str, step: Callable[[], str]) -> str:
        """The fragment ``step()`` makes; when it fails and :attr:`failures` is kept, the
        error is the failure of entry ``where`` (:meth:`_failure`)."""
        try:
            return step()
        except SiteError as exc:
            return self._failure(where, exc)

    def _failure(self, where: str, exc: SiteError) -> str:
        """Where an entry's fragment would have been, a paragraph saying what failed; the
        error is kept as the entry's failure (:attr:`failures`). Without failures kept,
        or for the site's own pages, the error stops the build."""
        if self.failures is None or where == "docs" or exc.where not in (where, ""):
            raise exc  # the site's own problem, or another entry's
        self.failures.setdefault(where, exc)
        return f'<p class="failure">{html.escape(describe_error(exc))}</p>'

    def _convert(self, source: str, where: str, **options: Any) -> str:
        key = digest(
            [
                builder_version(),
                pandoc.version(),
                source,
                self.tree.bytes(source),
                json.dumps(options, sort_keys=True),
            ]
        )
        html_ = self.store.get("pandoc", key)
        if isinstance(html_, str):
            return html_
        html_ = pandoc.convert(self.root, source, where, **options)
        self.store.put("pandoc", key, html_)
        return html_

    def _code(self, text: str, **options: Any) -> str:
        """A highlighted file (:func:`code_block`), remembered by its text and options."""
        import pygments

        key = digest(
            [builder_version(), pygments.__version__, text, json.dumps(options, sort_keys=True)]
        )
        html_ = self.store.get("highlight", key)
        if isinstance(html_, str):
            return html_
        html_ = code_block(text, **options)
        self.store.put("highlight", key, html_)
        return html_

    def _submit_helps(self, pool: Pool, docs: list[Doc]) -> dict[str, cf.Future[str]]:
        wanted = False
        for d in docs:
            for name in DIRECTIVE.findall(self.tree.text(d.source, "docs")):
                if name not in DIRECTIVES:
                    raise SiteError(
                        "docs",
                        d.source,
                        f"unknown directive perfectplay:{name} (known: {', '.join(DIRECTIVES)})",
                    )
                wanted = wanted or name == "cli-reference"
        if not wanted:
            return {}
        helps = {"": pool.submit(help_text, self.root, ["--help"], self.jail)}
        self.commands = commands(self.root, self.jail)
        for name in self.commands:
            helps[name] = pool.submit(help_text, self.root, [name, "--help"], self.jail)
        return helps

    # ---- fragments and pages ---------------------------------------------------------
    def bodies(
        self, entries: list[Entry], docs: list[Doc], work: Work
    ) -> dict[str, tuple[str, str]]:
        """Each entry's statement and write-up as page fragments (links made site links);
        the docs' bodies and titles are set on ``docs``."""
        target = self.tree.target_for(entries, docs)
        for d in docs:
            body = rewrite(
                clean(work.docs[d.source].result()),
                root=self.root,
                source=d.source,
                page=d.url,
                where="docs",
                target_for=target,
            )
            d.body = self._directives(highlight_fragment(body), work.helps)
            d.title = _title_of(d.body, d.name)
        rendered = {}
        for e in entries:
            parts = []
            for source, fragments in ((e.statement, work.statements), (e.solution, work.solutions)):
                if source is None:
                    parts.append("")  # the page says the repository has none
                    continue
                html_ = self._kept(
                    e.id,
                    functools.partial(
                        rewrite,
                        clean(fragments[e.id].result()),
                        root=self.root,
                        source=source,
                        page=e.url,
                        where=e.id,
                        target_for=target,
                    ),
                )
                parts.append(highlight_fragment(html_))
            rendered[e.id] = (parts[0], parts[1])
        return rendered

    def pages(
        self,
        entries: list[Entry],
        docs: list[Doc],
        rendered: dict[str, tuple[str, str]],
        work: Work,
        context: dict[str, Any],
    ) -> Pages:
        """Every page, the search index and the manifest."""
        head = context["commit"]
        pages: dict[str, str] = {}
        verdicts: dict[str, dict[str, Any] | None] = {}
        search: list[dict[str, str]] = []
        manifest: dict[str, Any] = {
            "commit": head.commit,
            "dirty": head.dirty,
            "entries": [],
            "docs": [],
        }
        for e in entries:
            statement, solution = rendered[e.id]
            runs, tests = Checks.results(e, work)
            verdicts[e.id] = judge_verdict(tests, runs)
            pages[e.url] = self._entry_page(
                e, statement, solution, runs, work.texts, context, verdicts[e.id]
            )
            search.append(
                {
                    "url": e.url,
                    "kind": "entry",
                    "title": e.heading,
                    "meta": (
                        f"classic game · {', '.join(e.techniques)}"
                        if e.classic
                        else f"{e.contest_year} · {', '.join(e.techniques)}"
                    ).removesuffix(" · "),  # no techniques: an imported entry's
                    "text": plain_text(statement) + " " + plain_text(solution),
                }
            )
            manifest["entries"].append(self._manifest_entry(e, runs, tests))
        for d in docs:
            pages[d.url] = self._render(
                "doc.html", d.url, context, doc=d, source=self.tree.shown[d.source], title=d.title
            )
            search.append(
                {
                    "url": d.url,
                    "kind": "doc",
                    "title": d.title,
                    "meta": "documentation",
                    "text": plain_text(d.body),
                }
            )
            manifest["docs"].append({"source": d.source, "url": d.url, "title": d.title})
        rows = self._library_pages(pages, verdicts, work, context)
        pages["index.html"] = self._render(
            "index.html",
            "index.html",
            context,
            title="Archive",
            entries=[e for e in entries if not e.classic],
            games=[e for e in entries if e.classic],
            verdicts=verdicts,
            judged=any(verdicts.values()),
            failing=len(
                {where for where, v in verdicts.items() if v and not v["ok"]}
                | {b["id"] for b in context.get("broken", ())}
            ),
            library=rows,
        )
        pages["search.html"] = self._render("search.html", "search.html", context, title="Search")
        return pages, search, manifest

    def _library_pages(
        self,
        pages: dict[str, str],
        verdicts: dict[str, dict[str, Any] | None],
        work: Work,
        context: dict[str, Any],
    ) -> list[dict[str, Any]]:
        """A page per library file into ``pages``; the index's rows (file, status)."""
        by_path = {lib.path: lib for lib in self.library}
        rows = []
        for lib in self.library:
            # A test without data (no samples, no judge tests) ran nothing: it verifies nothing.
            tests = [
                {
                    "entry": e,
                    "ran": bool(e.samples or e.tests),
                    "ok": bool((verdicts[e.id] or {"ok": True})["ok"]),
                }
                for e in lib.verified_with
            ]
            if any(t["ran"] and not t["ok"] for t in tests):
                status = "failed"
            elif tests and all(t["ran"] for t in tests):
                status = "verified"
            else:
                status = "unverified"
            text = work.texts[lib.path].result()
            doc = None
            if lib.documentation is not None:
                doc = Markup(
                    rewrite(
                        clean(work.docs[lib.documentation].result()),
                        root=self.root,
                        source=lib.documentation,
                        page=lib.url,
                        where="library",
                        target_for=lambda path, is_dir: (
                            None if is_dir else self.tree.show(path).raw
                        ),
                    )
                )
            row = {"file": lib, "status": status}
            rows.append(row)
            pages[lib.url] = self._render(
                "library.html",
                lib.url,
                context,
                title=lib.path,
                lib=lib,
                status=status,
                tests=tests,
                urls={p: by_path[p].url for p in (*lib.depends, *lib.required_by)},
                shown=self.tree.shown[lib.path],
                doc=doc,
                doc_file=self.tree.shown[lib.documentation] if lib.documentation else None,
                code=Markup(
                    self._code(text, filename=lib.path, prefix="lib", attrs={"data-file": lib.path})
                ),
                notes=byte_notes(text),
            )
        return rows

    def files(self, rendered: Pages) -> Iterator[tuple[str, bytes]]:
        """Every file of the site but its marker: pages, raw copies, assets, the search
        index and the manifest (site path, bytes)."""
        pages, search, manifest = rendered
        for relative, text in sorted(pages.items()):
            yield relative, text.encode("utf-8")
        for path in sorted(self.tree.shown):
            yield self.tree.shown[path].raw, self.tree.bytes(path)
        for asset in sorted((HERE / "assets").rglob("*")):
            if asset.is_file():
                yield f"assets/{asset.relative_to(HERE / 'assets').as_posix()}", asset.read_bytes()
        yield "assets/pygments.css", stylesheet().encode("utf-8")
        index = json.dumps(search, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
        yield "assets/search-index.js", f"window.PERFECTPLAY_SEARCH = {index};\n".encode()
        yield "manifest.json", (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()

    def _directives(self, body: str, helps: dict[str, cf.Future[str]]) -> str:
        def replace(match: re.Match[str]) -> str:
            if match.group(1) == "api-reference":
                toc, reference = apidoc.reference(self.root)
                return f'<nav class="api-index">{toc}</nav>\n{reference}'
            parts = [
                '<section class="cli-reference">',
                '<h2 id="cli-perfectplay"><code>perfectplay --help</code></h2>',
                plain_block(helps[""].result()),
            ]
            for name, summary in self.commands.items():
                parts += [
                    f'<h2 id="cli-{html.escape(name)}"><code>perfectplay '
                    f"{html.escape(name)}</code></h2>",
                    f"<p>{html.escape(summary)}</p>",
                    plain_block(helps[name].result()),
                ]
            parts.append("</section>")
            return "\n".join(parts)

        return DIRECTIVE.sub(replace, body)

    def _render(self, template: str, page: str, context: dict[str, Any], **values: Any) -> str:
        base = relative_url(page, "index.html")[: -len("index.html")]
        return self.env.get_template(template).render(
            page=page, base=base, csp=POLICY, **context, **values
        )

    def _entry_page(
        self,
        e: Entry,
        statement: str,
        solution: str,
        runs: list[SampleRun],
        texts: dict[str, cf.Future[str]],
        context: dict[str, Any],
        verdict: dict[str, Any] | None = None,
    ) -> str:
        shown = self.tree.shown
        sources = []
        for i, path in enumerate(e.sources, start=1):
            text = texts[path].result()
            sources.append(
                {
                    "shown": shown[path],
                    "anchor": f"src-{i}",
                    "code": Markup(
                        self._code(text, filename=path, prefix=f"s{i}", attrs={"data-file": path})
                    ),
                    "notes": byte_notes(text),
                }
            )
        tex_text = texts[e.solution].result() if e.solution is not None else ""
        tex = Markup(
            self._code(tex_text, filename=e.solution, prefix="tex", attrs={"data-file": e.solution})
            if e.solution is not None
            else ""
        )
        samples = [
            {
                "run": r,
                "input": Markup(plain_block(r.input, {"data-input": r.sample.name})),
                "answer": Markup(plain_block(r.answer, {"data-answer": r.sample.name})),
                "output": Markup(plain_block(r.output, {"data-output": r.sample.name})),
                "input_raw": shown[r.sample.input],
                "answer_raw": shown[r.sample.answer],
            }
            for r in runs
        ]
        return self._render(
            "entry.html",
            e.url,
            context,
            entry=e,
            title=e.heading,
            statement=Markup(statement),
            solution=Markup(solution),
            tex=tex,
            tex_notes=byte_notes(tex_text),
            sources=sources,
            samples=samples,
            statement_file=shown[e.statement] if e.statement else None,
            solution_file=shown[e.solution] if e.solution else None,
            meta_file=shown[e.meta],
            verdict=verdict,
            checker_file=shown[e.checker_file] if e.checker_file else None,
        )

    def _manifest_entry(
        self, e: Entry, runs: list[SampleRun], tests: list[TestRun]
    ) -> dict[str, Any]:
        def sha256(path: str) -> str:
            return hashlib.sha256(self.tree.bytes(path)).hexdigest()

        found: dict[str, Any] = {
            "id": e.id,
            "url": e.url,
            "title": e.title,
            "command": e.command,
            "package": e.package,
            "sources": [
                {"path": p, "raw": self.tree.shown[p].raw, "sha256": sha256(p)} for p in e.sources
            ],
            "samples": [
                {
                    "name": r.sample.name,
                    "input": r.sample.input,
                    "answer": r.sample.answer,
                    "output": r.output,
                    "verdict": r.verdict,
                }
                for r in runs
            ],
        }
        if tests:
            found["tests"] = [
                {
                    "name": t.name,
                    "passed": t.passed,
                    "time": time_bucket(t.seconds),
                    "problem": t.problem,
                }
                for t in tests
            ]
        return found
