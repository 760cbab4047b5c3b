"""The build: the repository tree in, a static site out.

The jobs live in their own modules: :mod:`~perfectplay.site.tree` (what the tree holds),
:mod:`~perfectplay.site.checks` (running and judging samples and tests),
:mod:`~perfectplay.site.rendering` (pages) and :mod:`~perfectplay.site.output` (writing the
site whole). Work that waits on other programs (samples, pandoc, git, ``--help``) runs in
a thread pool; pages are then rendered into a fresh temporary folder beside the output,
which replaces the output folder only once everything succeeded. Nothing in the output
depends on the clock: two builds of the same tree give the same bytes.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfectplay._util.progress import Progress
from perfectplay.site import pandoc
from perfectplay.site.cache import Store
from perfectplay.site.checks import Checks, describe_error, judge_verdict
from perfectplay.site.config import Config, load_config
from perfectplay.site.entries import Entry, discover
from perfectplay.site.errors import SiteError
from perfectplay.site.output import check_output, write_site
from perfectplay.site.pool import Pool, Work
from perfectplay.site.rendering import Renderer
from perfectplay.site.repo import Git
from perfectplay.site.runners import default_cache
from perfectplay.site.sandbox import jail_for
from perfectplay.site.tree import Doc, Tree

__all__ = ["BuildResult", "Builder", "build", "default_jobs", "judge_verdict"]


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
    failed: tuple[str, ...] = ()  # "ENTRY: what failed first", for each failing entry


def default_jobs() -> int:
    return max(1, min(os.cpu_count() or 2, 8))


class Builder:
    """One build: the tree, its checks and its pages, written to ``out``."""

    def __init__(
        self,
        root: Path,
        out: Path,
        jobs: int,
        quiet: bool,
        config: Config | None = None,
        cache: Path | None = None,
        force: bool = False,
        trust: bool = False,
        keep_going: bool = False,
        fail_fast: bool = False,
    ) -> None:
        self.root = root
        self.keep_going = keep_going
        self.fail_fast = fail_fast
        self.config = config or load_config(root)
        self.cache = cache = cache or default_cache()
        self.trust = trust
        self.store = Store(cache / "records", force)
        self.tree = Tree(root, self.config)
        self.out = out
        self.jobs = jobs
        self.quiet = quiet
        self.git = Git(root)

    def run(self) -> BuildResult:
        start = time.perf_counter()
        check_output(self.root, self.out)
        jail = jail_for(self.root, self.cache, self.trust)
        self.checks = Checks(
            self.tree,
            self.config,
            self.cache,
            self.store,
            jail,
            self.keep_going,
            self.fail_fast,
            skip=(self.out, self.cache),
        )
        self.renderer = Renderer(self.tree, self.store, jail)
        broken: dict[str, SiteError] = {}
        failures = broken if self.keep_going else None
        entries = discover(self.root, self.config, jail, self.jobs, self.store, failures)
        for e in list(entries):
            try:
                self.tree.check_inside(e)
            except SiteError as exc:
                if not self.keep_going:
                    raise
                broken[e.id] = exc
                entries.remove(e)
        self.renderer.failures = failures
        docs = self.tree.docs()
        work = self._run_programs(entries, docs)
        rendered = self.renderer.bodies(entries, docs, work)
        self._ask_git()  # after the links above have added the files they point to
        context: dict[str, Any] = {
            "commit": self.git.head(),
            "pandoc_version": pandoc.version(),
            "docs": docs,
            "site": self.config,
            # Entries that could not be read or rendered: the index says why.
            "broken": [
                {"id": where, "error": describe_error(exc)} for where, exc in sorted(broken.items())
            ],
        }
        pages = self.renderer.pages(entries, docs, rendered, work, context)
        files = write_site(self.out, self.renderer.files(pages))
        samples = sum(len(e.samples) for e in entries)
        seconds = time.perf_counter() - start
        failed = [f"{where}: {describe_error(exc)}" for where, exc in sorted(broken.items())]
        for e in entries:
            if e.id in broken:  # one line per failing entry: what failed first
                continue
            runs, tests = Checks.results(e, work)
            verdict = judge_verdict(tests, runs)
            if verdict is not None and not verdict["ok"]:
                failed.append(f"{e.id}: {verdict['failure']}")
        return BuildResult(
            self.out,
            len(entries),
            samples,
            len(docs),
            files,
            seconds,
            self.checks.reused,
            tuple(sorted(failed)),
        )

    def _run_programs(self, entries: list[Entry], docs: list[Doc]) -> Work:
        """Everything that waits on another program, in the pool: samples first (the longest),
        then ``--help`` runs, pandoc conversions and reading the files to show."""
        progress = None if self.quiet else Progress("site build", delay=2.0)
        work = Work()
        try:
            with Pool(self.jobs, progress) as pool:
                self.checks.submit(pool, entries, work)
                self.renderer.submit(pool, entries, docs, work)
                pool.wait()
        finally:
            # A stopped build keeps what it judged: the next one does not run it again.
            self.checks.remember(work)
        if progress:
            progress.done()
        return work

    def _ask_git(self) -> None:
        """The last change of every shown file (one ``git log`` each, in the pool)."""
        if not self.git.available:
            return  # every file keeps the empty Change: no history to show
        self.git.dirty_paths()  # once, before the threads ask for it
        shown = self.tree.shown
        with Pool(self.jobs, None) as pool:
            changes = {path: pool.submit(self.git.last_change, path) for path in sorted(shown)}
            pool.wait()
        for path, future in changes.items():
            shown[path].change = future.result()


def build(
    root: Path,
    out: Path,
    *,
    jobs: int | None = None,
    quiet: bool = False,
    cache: Path | None = None,
    force: bool = False,
    trust: bool = False,
    keep_going: bool = False,
    fail_fast: bool = False,
) -> BuildResult:
    """Build the site of repository ``root`` into ``out`` (replaced whole, or left untouched
    when the build fails with :class:`SiteError`). ``cache`` holds compiled solutions and
    what an entry's checks gave, to skip entries unchanged since (default:
    :func:`~perfectplay.site.runners.default_cache`); ``force`` reruns every entry. The
    tree's programs run in a sandbox (:mod:`~perfectplay.site.sandbox`); where there is
    none, the build refuses unless ``trust`` says the repository is trusted.

    ``keep_going``: an entry whose sample fails, or whose programs do not build or whose
    checker fails, is shown failing (:attr:`BuildResult.failed`) instead of stopping the
    build; ``fail_fast``: a failed test stops it too."""
    root = Path(root).resolve()
    builder = Builder(
        root,
        Path(out).resolve(),
        jobs or default_jobs(),
        quiet,
        cache=Path(cache).resolve() if cache is not None else None,
        force=force,
        trust=trust,
        keep_going=keep_going,
        fail_fast=fail_fast,
    )
    return builder.run()
