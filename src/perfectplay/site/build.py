"""The build: the repository tree in, a static site out.

Work that waits on other programs (samples, pandoc, git, ``--help``) runs in a thread pool;
pages are then rendered with Jinja2 templates into a fresh temporary folder beside the
output, which replaces the output folder only once everything succeeded. Nothing in the
output depends on the clock: two builds of the same tree give the same bytes.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import html
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from perfectplay._util.progress import Progress
from perfectplay.site import apidoc, pandoc
from perfectplay.site.cache import Store, builder_version, digest
from perfectplay.site.config import Config, load_config
from perfectplay.site.entries import Entry, Sample, discover
from perfectplay.site.errors import SiteError
from perfectplay.site.highlight import (
    byte_notes,
    code_block,
    highlight_fragment,
    plain_block,
    stylesheet,
)
from perfectplay.site.links import relative_url, rewrite
from perfectplay.site.repo import Change, Git
from perfectplay.site.runners import RUNNERS, Runners, default_cache, runner_for
from perfectplay.site.samples import (
    SampleRun,
    TestRun,
    command_argv,
    run_sample,
    run_test,
    time_bucket,
)

__all__ = ["BuildResult", "Builder", "build", "default_jobs", "judge_verdict"]

HERE = Path(__file__).resolve().parent
MARKER = ".perfectplay-site"
#: Above this many files, the previous build is removed in the background (see _swap).
BACKGROUND_REMOVAL = 2000
DIRECTIVE = re.compile(r"<!--\s*perfectplay:([A-Za-z0-9_-]+)\s*-->")
DIRECTIVES = ("cli-reference", "api-reference")


@dataclass
class BuildResult:
    """What a build wrote (``seconds`` is the only figure that varies between builds)."""

    out: Path
    entries: int
    samples: int
    docs: int
    files: int
    seconds: float
    reused: int = 0  # entries whose checks were unchanged since a build that ran them


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


@dataclass
class Work:
    """Futures of the programs a build runs, keyed by what they produce."""

    samples: dict[tuple[str, str], cf.Future] = field(default_factory=dict)
    tests: dict[tuple[str, str], cf.Future] = field(default_factory=dict)
    helps: dict[str, cf.Future] = field(default_factory=dict)
    statements: dict[str, cf.Future] = field(default_factory=dict)
    solutions: dict[str, cf.Future] = field(default_factory=dict)
    docs: dict[str, cf.Future] = field(default_factory=dict)
    texts: dict[str, cf.Future] = field(default_factory=dict)


def _done(value: Any) -> cf.Future:
    """A future that already holds ``value`` (a result remembered from an earlier build)."""
    future: cf.Future = cf.Future()
    future.set_result(value)
    return future


def judge_verdict(tests: list[TestRun]) -> dict[str, Any] | None:
    """What the badge of an entry with judge data says; None without tests.

    >>> v = judge_verdict([TestRun("1", True, 0.02), TestRun("2", False, 0.3, "wrong answer")])
    >>> v["text"], v["failure"]
    ('passed 1 of 2 tests, slowest under 0.5 s', 'test 2: wrong answer')
    """
    if not tests:
        return None
    passed = sum(t.passed for t in tests)
    slowest = time_bucket(max(t.seconds for t in tests))
    failed = next((t for t in tests if not t.passed), None)
    return {
        "ok": failed is None,
        "passed": passed,
        "total": len(tests),
        "text": f"passed {passed} of {len(tests)} tests, slowest {slowest}",
        "short": f"{passed}/{len(tests)}",
        "failure": f"test {failed.name}: {failed.problem}" if failed else "",
    }


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 2, 8))


class Pool:
    """A thread pool whose first failure wins: pending work is cancelled, and the error that
    comes first in submission order among those raised is reported, so the message does not
    depend on timing when several things are wrong."""

    def __init__(self, jobs: int, progress: Progress | None) -> None:
        self.executor = cf.ThreadPoolExecutor(max_workers=jobs)
        self.futures: list[cf.Future] = []
        self.progress = progress

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.executor.shutdown(wait=True, cancel_futures=True)

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> cf.Future:
        future = self.executor.submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future

    def wait(self) -> None:
        pending = set(self.futures)
        while pending:
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            if self.progress:
                self.progress.update(len(self.futures) - len(pending), "steps", len(self.futures))
            if any(f.exception() is not None for f in done):
                for f in pending:
                    f.cancel()
                cf.wait(pending)  # the ones already running finish (each has a time limit)
                break
        for f in self.futures:
            error = f.exception() if f.done() and not f.cancelled() else None
            if error is not None:
                raise error


def _plain_text(fragment: str) -> str:
    """Searchable text of an HTML fragment (MathML's TeX annotations left out)."""
    text = re.sub(r"<annotation\b.*?</annotation>", " ", fragment, flags=re.DOTALL)
    # A formula reads best as its symbols run together: "a1,…,an", not "a 1 , … , a n".
    text = re.sub(
        r"<math\b.*?</math>", lambda m: re.sub(r"<[^>]*>|\s", "", m.group(0)), text, flags=re.DOTALL
    )
    text = re.sub(r"<[^>]*>", " ", text)
    return " ".join(html.unescape(text).split())


def _title_of(fragment: str, fallback: str) -> str:
    found = re.search(r"<h1[^>]*>(.*?)</h1>", fragment, re.DOTALL)
    return _plain_text(found.group(1)) if found else fallback


def _check_output(root: Path, out: Path) -> None:
    if out == root or out in root.parents:
        raise SiteError("", str(out), "refusing to build into the repository or above it")
    # Folders the build reads (or git owns): output there would be read back or mixed in.
    for inside in ("archive", "docs", "src", "tests", ".git"):
        if out.is_relative_to(root / inside):
            raise SiteError("", str(out), f"refusing to build inside {inside}/")
    # Fail before the build, not after it: the nearest existing ancestor must be a
    # writable folder.
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".perfectplay-probe-", dir=parent))
    except OSError as exc:
        problem = exc.strerror or str(exc)
        raise SiteError("", str(out), f"cannot create folders in {parent}: {problem}") from None
    if out.exists():
        if not out.is_dir():
            raise SiteError("", str(out), "output exists and is not a folder")
        if any(out.iterdir()) and not (out / MARKER).is_file():
            raise SiteError(
                "",
                str(out),
                f"refusing to replace a non-empty folder without {MARKER}: "
                "it was not written by a site build",
            )


def _commands(root: Path) -> dict[str, str]:
    """Every command of the tree's ``perfectplay`` with its summary, from the registry.

    The tree's own package is imported in a child process (as ``--help`` is run), so the
    reference documents the tree being built, not the perfectplay running the build.
    """
    code = "import json; from perfectplay.cli import commands; print(json.dumps(commands()))"
    out = _python(root, ["-c", code], "src/perfectplay/problems/__init__.py",
                  "the command registry")
    try:
        found = json.loads(out)
    except ValueError:
        raise SiteError("docs", "src/perfectplay/problems/__init__.py",
                        "the command registry printed no JSON") from None
    return {str(name): str(summary) for name, summary in found.items()}


def _help(root: Path, args: list[str]) -> str:
    return _python(root, ["-m", "perfectplay", *args], "src/perfectplay/cli/__init__.py",
                   f"`perfectplay {' '.join(args)}`")


def _python(root: Path, argv: list[str], source: str, what: str) -> str:
    """Run the tree's Python (``src`` first on the path) and return its standard output."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(root / "src"), env.get("PYTHONPATH")) if p)
    env["COLUMNS"] = "100"  # argparse wraps to the terminal; fix it so builds agree
    env["PYTHONHASHSEED"] = "0"
    cmd = [sys.executable, *argv]
    try:
        proc = subprocess.run(cmd, capture_output=True, cwd=root, env=env, timeout=120)
    except subprocess.TimeoutExpired:
        raise SiteError("docs", source, f"{what} hung") from None
    if proc.returncode != 0:
        last = (proc.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        raise SiteError("docs", source, f"{what} failed: {last}")
    return proc.stdout.decode("utf-8", "replace")


class Builder:
    def __init__(
        self,
        root: Path,
        out: Path,
        jobs: int,
        quiet: bool,
        config: Config | None = None,
        cache: Path | None = None,
        force: bool = False,
    ) -> None:
        self.root = root
        self.config = config or load_config(root)
        cache = cache or default_cache()
        self.runners = Runners(root, cache, self.config.flags)
        self.store = Store(cache / "records", force)
        self._src_digest: str | None = None
        self._stats: dict[str, Any] | None = None  # stat -> digest, from the last build
        self._stats_used: dict[str, str] = {}
        self.reused = 0  # entries whose runs came from the cache
        self.bases = {self.config.base_of(p) for p in self.config.entries}
        self.out = out
        self.jobs = jobs
        self.quiet = quiet
        self.git = Git(root)
        self.shown: dict[str, Shown] = {}
        self.commands: dict[str, str] = {}  # name -> summary, read when a page asks
        self.data: dict[str, bytes] = {}
        self.env = Environment(
            loader=FileSystemLoader(HERE / "templates"),
            autoescape=True,
            undefined=StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
        )
        self.env.filters["url_from"] = lambda target, page: relative_url(page, target)

    # ---- files the site shows --------------------------------------------------------
    def bytes(self, path: str) -> bytes:
        """The bytes of repository file ``path``, read once per build: the page, the raw copy
        and the manifest's digest all see the same version even if the file changes."""
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
            self.shown[path] = Shown(path, f"raw/{path}")
        return self.shown[path]

    def target_for(
        self, entries: list[Entry], docs: list[Doc]
    ) -> Callable[[str, bool], str | None]:
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

    # ---- the build --------------------------------------------------------------------
    def run(self) -> BuildResult:
        start = time.perf_counter()
        _check_output(self.root, self.out)
        entries = discover(self.root, self.config)
        docs = self._docs()
        work = self._run_programs(entries, docs)
        target = self.target_for(entries, docs)
        for d in docs:
            body = rewrite(
                work.docs[d.source].result(),
                root=self.root,
                source=d.source,
                page=d.url,
                where="docs",
                target_for=target,
            )
            d.body = self._directives(d, highlight_fragment(body), work.helps)
            d.title = _title_of(d.body, d.name)
        rendered = {}
        for e in entries:
            parts = []
            for source, fragments in ((e.statement, work.statements), (e.solution, work.solutions)):
                html_ = rewrite(
                    fragments[e.id].result(),
                    root=self.root,
                    source=source,
                    page=e.url,
                    where=e.id,
                    target_for=target,
                )
                parts.append(highlight_fragment(html_))
            rendered[e.id] = parts
        self._ask_git()  # after the links above have added the files they point to

        head = self.git.head()
        context = {
            "commit": head,
            "pandoc_version": pandoc.version(),
            "docs": docs,
            "site": self.config,
        }
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
            runs = [work.samples[(e.id, s.name)].result() for s in e.samples]
            tests = [work.tests[(e.id, t.name)].result() for t in e.tests]
            verdicts[e.id] = judge_verdict(tests)
            pages[e.url] = self._entry_page(
                e, statement, solution, runs, work.texts, context, verdicts[e.id]
            )
            search.append(
                {
                    "url": e.url,
                    "kind": "entry",
                    "title": e.heading,
                    "meta": (
                        f"classic game · {', '.join(e.techniques)}" if e.classic else
                        f"{e.contest} {e.year or ''} · {', '.join(e.techniques)}".replace("  ", " ")
                    ),
                    "text": _plain_text(statement) + " " + _plain_text(solution),
                }
            )
            manifest["entries"].append(self._manifest_entry(e, runs, tests))
        for d in docs:
            pages[d.url] = self._render(
                "doc.html", d.url, context, doc=d, source=self.shown[d.source], title=d.title
            )
            search.append(
                {
                    "url": d.url,
                    "kind": "doc",
                    "title": d.title,
                    "meta": "documentation",
                    "text": _plain_text(d.body),
                }
            )
            manifest["docs"].append({"source": d.source, "url": d.url, "title": d.title})
        pages["index.html"] = self._render(
            "index.html", "index.html", context, title="Archive",
            entries=[e for e in entries if not e.classic],
            games=[e for e in entries if e.classic],
            verdicts=verdicts, judged=any(verdicts.values()),
        )
        pages["search.html"] = self._render("search.html", "search.html", context, title="Search")

        files = self._write(pages, search, manifest)
        samples = sum(len(e.samples) for e in entries)
        seconds = time.perf_counter() - start
        return BuildResult(
            self.out, len(entries), samples, len(docs), files, seconds, self.reused
        )

    def _run_programs(self, entries: list[Entry], docs: list[Doc]) -> Work:
        """Everything that waits on another program, in the pool: samples first (the longest),
        then ``--help`` runs, pandoc conversions and reading the files to show."""
        progress = None if self.quiet else Progress("site build", delay=2.0)
        work = Work()
        fresh: list[tuple[Entry, str]] = []  # entries run now, and their records' keys
        with Pool(self.jobs, progress) as pool:
            for e in entries:
                key = self._check_key(e)
                recorded = self._recorded(e, self.store.get("runs", key))
                if recorded is not None:
                    self.reused += 1
                    runs, tests = recorded
                    for s, r in zip(e.samples, runs, strict=True):
                        work.samples[(e.id, s.name)] = _done(r)
                    for t, tr in zip(e.tests, tests, strict=True):
                        work.tests[(e.id, t.name)] = _done(tr)
                    continue
                fresh.append((e, key))
                for s in e.samples:
                    work.samples[(e.id, s.name)] = pool.submit(self._run_sample, e, s)
                for t in e.tests:
                    work.tests[(e.id, t.name)] = pool.submit(self._run_test, e, t)
            work.helps = self._submit_helps(pool, docs)
            for e in entries:
                self._check_statement_headings(e)
                work.statements[e.id] = pool.submit(
                    self._convert,
                    e.statement,
                    e.id,
                    tex=False,
                    id_prefix="statement-",
                    strict_text=True,
                )
                work.solutions[e.id] = pool.submit(
                    self._convert,
                    e.solution,
                    e.id,
                    tex=True,
                    id_prefix="solution-",
                    shift=1,
                    strict_text=True,
                )
            for d in docs:
                work.docs[d.source] = pool.submit(self._convert, d.source, "docs", tex=False)
            for e in entries:
                for path in (*e.sources, e.statement, e.solution, e.meta):
                    self.show(path)
                for s in e.samples:
                    self.show(s.input), self.show(s.answer)
                if e.checker_file is not None:
                    self.show(e.checker_file)
                for path in (*e.sources, e.solution):
                    work.texts[path] = pool.submit(self.text, path, e.id)
            for d in docs:
                self.show(d.source)
            pool.wait()
        for e, key in fresh:
            runs = [work.samples[(e.id, s.name)].result() for s in e.samples]
            tests = [work.tests[(e.id, t.name)].result() for t in e.tests]
            self.store.put("runs", key, self._record(runs, tests))
        if self._stats_used and self._stats_used != self._stats:
            self.store.put("stat", "digests", self._stats_used)
        if progress:
            progress.done()
        return work

    # ---- what the next build may reuse ----------------------------------------------
    def _convert(self, source: str, where: str, **options: Any) -> str:
        """pandoc's HTML for ``source``, remembered by the file's bytes and the options."""
        key = digest(
            [builder_version(), pandoc.version(), source, self.bytes(source),
             json.dumps(options, sort_keys=True)]
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

        key = digest([builder_version(), pygments.__version__, text,
                      json.dumps(options, sort_keys=True)])
        html_ = self.store.get("highlight", key)
        if isinstance(html_, str):
            return html_
        html_ = code_block(text, **options)
        self.store.put("highlight", key, html_)
        return html_

    def _check_key(self, e: Entry) -> str:
        """The hash of everything an entry's runs depend on: the builder, the interpreter, the
        command or runner (tool version, flags), the limits and the bytes of the entry's
        files, the files it shows or includes and the files its command names. A command
        run by Python also depends on the tree's ``src/``."""
        parts: list[str | bytes] = [
            builder_version(), sys.version, e.command, e.runner or "", str(e.compare),
            repr(e.timeout), str(e.output_limit),
        ]
        files = [e.meta, *e.sources, *e.included, *([e.solution_file] if e.solution_file else [])]
        for s in e.samples:
            files += [s.input, s.answer]
        for t in e.tests:
            # Judge data is read only to be hashed: by its stat when that is unchanged.
            parts += [t.input, self._digest_of(t.input), t.answer, self._digest_of(t.answer)]
        parts.append(str(e.checker))
        if e.checker_file is not None:
            judge = runner_for(e.checker_file)
            assert judge is not None
            files += [e.checker_file, *e.checker_included]
            parts += [self.config.flags.get(judge.language, ""), *(self.runners.tool(judge) or ())]
        if e.runner is not None:
            runner = RUNNERS[e.runner]
            parts += [self.config.flags.get(e.runner, ""), *(self.runners.tool(runner) or ())]
        else:
            argv = command_argv(e.command, self.root)
            for word in argv[1:]:
                if os.path.isabs(word) and Path(word).is_relative_to(self.root):
                    if Path(word).is_file():
                        files.append(Path(word).relative_to(self.root).as_posix())
            if argv and argv[0] == sys.executable:
                parts.append(self._src())
        for path in files:
            parts += [path, self.bytes(path)]
        return digest(parts)

    def _digest_of(self, path: str) -> str:
        """The hash of a file's bytes, remembered across builds under its stat (size, inode,
        modification and change times in nanoseconds: a write changes the change time)."""
        if self._stats is None:
            found = self.store.get("stat", "digests") if not self.store.force else None
            self._stats = found if isinstance(found, dict) else {}
            self._stats_used = {}
        info = os.stat(self.root / path)
        key = f"{path}\0{info.st_size}\0{info.st_ino}\0{info.st_mtime_ns}\0{info.st_ctime_ns}"
        value = self._stats.get(key)
        if not isinstance(value, str):
            value = digest([self.bytes(path)])
        self._stats_used[key] = value
        return value

    def _src(self) -> str:
        """One hash of every file under ``src/`` (what a Python command may import)."""
        if self._src_digest is None:
            src = self.root / "src"
            files = sorted(
                p for p in src.rglob("*")
                if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
            ) if src.is_dir() else []
            self._src_digest = digest(
                part for p in files for part in (p.relative_to(src).as_posix(), p.read_bytes())
            )
        return self._src_digest

    @staticmethod
    def _record(runs: list[SampleRun], tests: list[TestRun]) -> dict[str, Any]:
        return {
            "samples": [
                {"name": r.sample.name, "output": r.output, "verdict": r.verdict} for r in runs
            ],
            "tests": [
                {"name": t.name, "passed": t.passed, "seconds": t.seconds, "problem": t.problem}
                for t in tests
            ],
        }

    def _recorded(
        self, e: Entry, record: Any
    ) -> tuple[list[SampleRun], list[TestRun]] | None:
        """The runs of a record, when it is one for this entry's samples and tests."""
        try:
            samples, tests = record["samples"], record["tests"]
            if [x["name"] for x in samples] != [s.name for s in e.samples]:
                return None
            if [x["name"] for x in tests] != [t.name for t in e.tests]:
                return None
            return [
                SampleRun(
                    s, self.text(s.input, e.id), self.text(s.answer, e.id),
                    str(x["output"]), str(x["verdict"]),
                )
                for s, x in zip(e.samples, samples, strict=True)
            ], [
                TestRun(str(x["name"]), bool(x["passed"]), float(x["seconds"]), str(x["problem"]))
                for x in tests
            ]
        except (TypeError, KeyError, ValueError):
            return None

    def _program(self, e: Entry, source: str, included: list[str]) -> tuple[str, ...]:
        """The argv of a program of the entry run by its built-in runner (built if needed)."""
        runner = runner_for(source)
        assert runner is not None  # entries.load checked it
        files = [source, *included]
        key = self.runners.key(runner, files, {f: self.bytes(f) for f in files})
        return self.runners.build(e.id, runner, source, key).argv

    def _run_sample(self, e: Entry, sample: Sample) -> SampleRun:
        argv = None
        if e.runner is not None and e.solution_file is not None:
            argv = self._program(e, e.solution_file, e.included)
        return run_sample(self.root, e, sample, argv)

    def _run_test(self, e: Entry, test: Sample) -> TestRun:
        argv = checker = None
        if e.runner is not None and e.solution_file is not None:
            argv = self._program(e, e.solution_file, e.included)
        if e.checker_file is not None:
            checker = self._program(e, e.checker_file, e.checker_included)
        return run_test(self.root, e, test, argv, checker)

    def _ask_git(self) -> None:
        """The last change of every shown file (one ``git log`` each, in the pool)."""
        if not self.git.available:
            return  # every file keeps the empty Change: no history to show
        self.git.dirty_paths()  # once, before the threads ask for it
        with Pool(self.jobs, None) as pool:
            changes = {path: pool.submit(self.git.last_change, path) for path in sorted(self.shown)}
            pool.wait()
        for path, future in changes.items():
            self.shown[path].change = future.result()

    def _docs(self) -> list[Doc]:
        folder = self.root / "docs"
        if not folder.is_dir():
            return []
        found = {
            p.stem: Doc(p.stem, f"docs/{p.name}", f"docs/{p.stem}.html")
            for p in folder.glob("*.md")
            if p.is_file()
        }
        order = ["index"] if "index" in found else []
        if "index" in found:
            # The documentation's own index sets the order: pages in the order it links them.
            text = self.text("docs/index.md", "docs")
            for name in re.findall(r"\]\(\s*(?:\./)?([A-Za-z0-9_.-]+)\.md\b", text):
                if name in found and name not in order:
                    order.append(name)
        order += sorted(n for n in found if n not in order)
        return [found[n] for n in order]

    def _submit_helps(self, pool: Pool, docs: list[Doc]) -> dict[str, cf.Future]:
        wanted = False
        for d in docs:
            for name in DIRECTIVE.findall(self.text(d.source, "docs")):
                if name not in DIRECTIVES:
                    raise SiteError(
                        "docs",
                        d.source,
                        f"unknown directive perfectplay:{name} (known: {', '.join(DIRECTIVES)})",
                    )
                wanted = wanted or name == "cli-reference"
        if not wanted:
            return {}
        helps = {"": pool.submit(_help, self.root, ["--help"])}
        self.commands = _commands(self.root)
        for name in self.commands:
            helps[name] = pool.submit(_help, self.root, [name, "--help"])
        return helps

    def _directives(self, doc: Doc, body: str, helps: dict[str, cf.Future]) -> str:
        def replace(match: re.Match[str]) -> str:
            if match.group(1) == "api-reference":
                toc, reference = apidoc.reference(self.root)
                return f'<nav class="api-index">{toc}</nav>\n{reference}'
            commands = self.commands
            parts = [
                '<section class="cli-reference">',
                '<h2 id="cli-perfectplay"><code>perfectplay --help</code></h2>',
                plain_block(helps[""].result()),
            ]
            for name, summary in commands.items():
                parts += [
                    f'<h2 id="cli-{html.escape(name)}"><code>perfectplay '
                    f"{html.escape(name)}</code></h2>",
                    f"<p>{html.escape(summary)}</p>",
                    plain_block(helps[name].result()),
                ]
            parts.append("</section>")
            return "\n".join(parts)

        return DIRECTIVE.sub(replace, body)

    def _render(self, template: str, page: str, context: dict, **values: Any) -> str:
        base = relative_url(page, "index.html")[: -len("index.html")]
        return self.env.get_template(template).render(page=page, base=base, **context, **values)

    def _entry_page(
        self,
        e: Entry,
        statement: str,
        solution: str,
        runs: list[SampleRun],
        texts: dict[str, cf.Future],
        context: dict,
        verdict: dict[str, Any] | None = None,
    ) -> str:
        sources = []
        for i, path in enumerate(e.sources, start=1):
            text = texts[path].result()
            sources.append(
                {
                    "shown": self.shown[path],
                    "anchor": f"src-{i}",
                    "code": Markup(
                        self._code(text, filename=path, prefix=f"s{i}", attrs={"data-file": path})
                    ),
                    "notes": byte_notes(text),
                }
            )
        tex_text = texts[e.solution].result()
        tex = Markup(
            self._code(
                tex_text,
                filename=e.solution,
                prefix="tex",
                attrs={"data-file": e.solution},
            )
        )
        samples = [
            {
                "run": r,
                "input": Markup(plain_block(r.input, {"data-input": r.sample.name})),
                "answer": Markup(plain_block(r.answer, {"data-answer": r.sample.name})),
                "output": Markup(plain_block(r.output, {"data-output": r.sample.name})),
                "input_raw": self.shown[r.sample.input],
                "answer_raw": self.shown[r.sample.answer],
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
            statement_file=self.shown[e.statement],
            solution_file=self.shown[e.solution],
            meta_file=self.shown[e.meta],
            verdict=verdict,
            checker_file=self.shown[e.checker_file] if e.checker_file else None,
        )

    def _manifest_entry(
        self, e: Entry, runs: list[SampleRun], tests: list[TestRun]
    ) -> dict[str, Any]:
        def digest(path: str) -> str:
            return hashlib.sha256(self.bytes(path)).hexdigest()

        found: dict[str, Any] = {
            "id": e.id,
            "url": e.url,
            "title": e.title,
            "command": e.command,
            "package": e.package,
            "sources": [
                {"path": p, "raw": self.shown[p].raw, "sha256": digest(p)} for p in e.sources
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
                {"name": t.name, "passed": t.passed, "time": time_bucket(t.seconds),
                 "problem": t.problem}
                for t in tests
            ]
        return found

    def _check_statement_headings(self, e) -> None:
        """The page supplies the title: a top-level heading would show it twice."""
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
                raise SiteError(
                    e.id,
                    e.statement,
                    "a top-level heading ('#', or a line underlined with '='): "
                    "sections start at '##' (the page has the title)",
                    number if line.lstrip(" ").startswith("#") else number - 1,
                )
            previous = "" if fenced else line

    def _write(self, pages: dict[str, str], search: list, manifest: dict) -> int:
        try:
            return self._write_files(pages, search, manifest)
        except OSError as exc:
            problem = exc.strerror or str(exc)
            raise SiteError("", str(self.out), f"cannot write the site: {problem}") from None

    def _write_files(self, pages: dict[str, str], search: list, manifest: dict) -> int:
        self.out.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.building-", dir=self.out.parent))
        try:
            count = 0
            folders: set[Path] = set()

            def put(relative: str, data: bytes) -> None:
                nonlocal count
                path = tmp / relative
                if path.parent not in folders:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    folders.add(path.parent)
                if not _link_if_same(self.out / relative, path, data):
                    path.write_bytes(data)
                count += 1

            put(MARKER, b"written by perfectplay site build; replaced whole by the next build\n")
            for relative, text in sorted(pages.items()):
                put(relative, text.encode("utf-8"))
            for path in sorted(self.shown):
                put(self.shown[path].raw, self.bytes(path))
            for asset in sorted((HERE / "assets").rglob("*")):
                if asset.is_file():
                    put(
                        f"assets/{asset.relative_to(HERE / 'assets').as_posix()}",
                        asset.read_bytes(),
                    )
            put("assets/pygments.css", stylesheet().encode("utf-8"))
            index = json.dumps(search, ensure_ascii=True, sort_keys=True, separators=(",", ":"))
            put("assets/search-index.js", f"window.PERFECTPLAY_SEARCH = {index};\n".encode())
            put("manifest.json", (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode())
            tmp.chmod(0o755)
            self._swap(tmp, background=count > BACKGROUND_REMOVAL)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return count

    def _swap(self, tmp: Path, background: bool = False) -> None:
        """Put ``tmp`` in place of the output folder (two renames; the old copy is removed
        only after the new one is in place). A large old copy is removed by a detached
        ``rm -rf``: on a disk that discards freed blocks at once, removing thousands of
        files takes seconds the build need not wait for."""
        if not self.out.exists():
            os.rename(tmp, self.out)
            return
        old = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.old-", dir=self.out.parent))
        os.rmdir(old)
        os.rename(self.out, old)
        try:
            os.rename(tmp, self.out)
        except BaseException:
            os.rename(old, self.out)
            raise
        rm = shutil.which("rm") if background else None
        if rm is not None:
            try:
                subprocess.Popen(
                    [rm, "-rf", "--", str(old)],
                    stdin=subprocess.DEVNULL,
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    start_new_session=True,
                )
                return
            except OSError:
                pass
        shutil.rmtree(old, ignore_errors=True)


def _link_if_same(old: Path, new: Path, data: bytes) -> bool:
    """Hard-link ``new`` to the previous build's ``old`` when it holds exactly ``data``: an
    unchanged file costs no write, and removing the previous build frees nothing of it."""
    try:
        info = os.lstat(old)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        if old.read_bytes() != data:
            return False
        os.link(old, new)
        return True
    except OSError:
        return False


def build(
    root: Path,
    out: Path,
    *,
    jobs: int | None = None,
    quiet: bool = False,
    cache: Path | None = None,
    force: bool = False,
) -> BuildResult:
    """Build the site of repository ``root`` into ``out`` (replaced whole, or left untouched
    when the build fails with :class:`SiteError`). ``cache`` holds compiled solutions and
    what an entry's checks gave, to skip entries unchanged since (default:
    :func:`~perfectplay.site.runners.default_cache`); ``force`` reruns every entry."""
    root = Path(root).resolve()
    builder = Builder(
        root, Path(out).resolve(), jobs or default_jobs(), quiet,
        cache=Path(cache).resolve() if cache is not None else None,
        force=force,
    )
    return builder.run()
