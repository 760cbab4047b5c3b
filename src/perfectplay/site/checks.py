"""An entry's checks: running its samples and judge tests, judging them, remembering them.

The runs of an entry are remembered under the hash of everything they depend on
(:meth:`Checks.key`), so an entry unchanged since a build that checked it is not run again.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import stat
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfectplay.site.cache import Store, builder_version, digest
from perfectplay.site.config import Config
from perfectplay.site.entries import Entry, Sample
from perfectplay.site.errors import SiteError
from perfectplay.site.pool import Pool, Work, done
from perfectplay.site.runners import Runners, runner_for
from perfectplay.site.samples import (
    SampleRun,
    TestRun,
    command_argv,
    run_environment,
    run_sample,
    run_test,
    time_bucket,
)
from perfectplay.site.sandbox import ENVIRONMENT, Jail, Limits
from perfectplay.site.tree import Tree

__all__ = ["Checks", "describe_error", "judge_verdict"]


def judge_verdict(tests: list[TestRun], runs: Sequence[SampleRun] = ()) -> dict[str, Any] | None:
    """What the badge of an entry says: its tests passed, and the first failure (of a
    sample first); None for an entry with no test that passed all its samples.

    >>> v = judge_verdict([TestRun("1", True, 0.02), TestRun("2", False, 0.3, "wrong answer")])
    >>> v["text"], v["failure"]
    ('passed 1 of 2 tests, slowest under 0.5 s', 'test 2: wrong answer')
    """
    failed_sample = next((r for r in runs if not r.passed), None)
    if not tests and failed_sample is None:
        return None
    passed = sum(t.passed for t in tests)
    failed = next((t for t in tests if not t.passed), None)
    verdict: dict[str, Any] = {"ok": failed is None and failed_sample is None, "total": len(tests)}
    if tests:
        slowest = time_bucket(max(t.seconds for t in tests))
        verdict.update(
            passed=passed,
            text=f"passed {passed} of {len(tests)} tests, slowest {slowest}",
            short=f"{passed}/{len(tests)}",
        )
    else:
        verdict.update(passed=0, text="a sample failed", short="failed")
    if failed_sample is not None:
        verdict["failure"] = f"sample {failed_sample.sample.name}: {failed_sample.verdict}"
    else:
        verdict["failure"] = f"test {failed.name}: {failed.problem}" if failed else ""
    return verdict


class Checks:
    """The checks of one build: what to run, running it, and the records of earlier runs."""

    def __init__(
        self,
        tree: Tree,
        config: Config,
        cache: Path,
        store: Store,
        jail: Jail | None = None,
        keep_going: bool = False,
        fail_fast: bool = False,
        skip: tuple[Path, ...] = (),
    ) -> None:
        self.tree = tree
        self.skip = skip  # folders no run depends on (the site being written, the cache)
        self.root = tree.root
        self.config = config
        self.jail = jail
        self.runners = Runners(tree.root, cache, config.flags, jail)
        self.store = store
        # Keep going: an error of one entry (a compiler's, a checker's) is that entry's
        # failure, shown on its page; otherwise it stops the build.
        self.keep_going = keep_going
        self.fail_fast = fail_fast  # a failed test stops the build too
        self.reused = 0  # entries whose runs came from the cache
        self._src_digest: str | None = None
        self._stats: dict[str, Any] | None = None  # stat -> digest, from the last build
        self._stats_used: dict[str, str] = {}
        self._fresh: list[tuple[Entry, str]] = []  # entries run now, and their records' keys
        self._folders: dict[str, list[str]] = {}  # entry folder -> its files (_folder_files)

    def submit(self, pool: Pool, entries: list[Entry], work: Work) -> None:
        """Every entry's samples and tests into ``work``: remembered, or run in ``pool``,
        every sample before any test (a wrong sample is the cheapest failure to find)."""
        fresh = []
        for e in entries:
            try:
                key = self.key(e)
            except SiteError as exc:
                if not self.keep_going or exc.where != e.id:
                    raise
                self._failed(e, work, exc)
                continue
            recorded = self._recorded(e, self.store.get("runs", key))
            if recorded is not None and not self._stops(*recorded):
                self.reused += 1
                runs, tests = recorded
                for s, r in zip(e.samples, runs, strict=True):
                    work.samples[(e.id, s.name)] = done(r)
                for t, tr in zip(e.tests, tests, strict=True):
                    work.tests[(e.id, t.name)] = done(tr)
                continue
            self._fresh.append((e, key))
            fresh.append(e)
        for e in fresh:
            for s in e.samples:
                work.samples[(e.id, s.name)] = pool.submit(self._guarded, e, s, True)
        for e in fresh:
            samples = [work.samples[(e.id, s.name)] for s in e.samples]
            for t in e.tests:
                work.tests[(e.id, t.name)] = pool.submit(self._test_after, e, t, samples)

    def _stops(self, runs: list[SampleRun], tests: list[TestRun]) -> bool:
        """Whether remembered runs hold a failure that stops this build: it is run again,
        to stop with its own message."""
        if self.keep_going:
            return False
        return not all(r.passed for r in runs) or (
            self.fail_fast and not all(t.passed for t in tests)
        )

    def _guarded(self, e: Entry, case: Sample, sample: bool) -> SampleRun | TestRun:
        """One sample or test of ``e`` run and judged; when keeping going, an error (a
        compiler's, a checker's) is the case's failure."""
        try:
            return self._run_sample(e, case) if sample else self._run_test(e, case)
        except SiteError as exc:
            if not self.keep_going or exc.where != e.id:
                raise  # not the entry's problem (the cache cannot be written): the build's
            if sample:
                return _failed_sample(case, exc)
            return TestRun(case.name, False, 0.0, describe_error(exc))

    def _test_after(
        self, e: Entry, test: Sample, samples: list[cf.Future[SampleRun]]
    ) -> SampleRun | TestRun:
        """A test of ``e``, run once its samples passed (they were submitted first, so
        waiting for them cannot block the pool); after a failed sample it is not run."""
        for future in samples:
            try:
                sample = future.result()
            except Exception:  # the sample's error stops the build: so does this
                return TestRun(test.name, False, 0.0, "not run: a sample failed")
            if not sample.passed:
                why = f"not run: sample {sample.sample.name} failed"
                return TestRun(test.name, False, 0.0, why)
        return self._guarded(e, test, False)

    @staticmethod
    def _failed(e: Entry, work: Work, exc: SiteError) -> None:
        for s in e.samples:
            work.samples[(e.id, s.name)] = done(_failed_sample(s, exc))
        for t in e.tests:
            work.tests[(e.id, t.name)] = done(TestRun(t.name, False, 0.0, describe_error(exc)))

    def remember(self, work: Work) -> None:
        """Record the runs of the entries run now, for the next build: of a stopped build
        too, those of every entry whose runs all finished."""
        for e, key in self._fresh:
            futures = [work.samples.get((e.id, s.name)) for s in e.samples]
            futures += [work.tests.get((e.id, t.name)) for t in e.tests]
            if not all(
                f is not None and f.done() and not f.cancelled() and f.exception() is None
                for f in futures
            ):
                continue
            runs, tests = self.results(e, work)
            self.store.put("runs", key, _record(runs, tests))
        if self._stats_used and self._stats_used != self._stats:
            self.store.put("stat", "digests", self._stats_used)

    @staticmethod
    def results(e: Entry, work: Work) -> tuple[list[SampleRun], list[TestRun]]:
        runs = [work.samples[(e.id, s.name)].result() for s in e.samples]
        tests = [work.tests[(e.id, t.name)].result() for t in e.tests]
        return runs, tests

    def _recorded(self, e: Entry, record: Any) -> tuple[list[SampleRun], list[TestRun]] | None:
        """The runs of a record, when it is one for this entry's samples and tests."""
        try:
            samples, tests = record["samples"], record["tests"]
            if [x["name"] for x in samples] != [s.name for s in e.samples]:
                return None
            if [x["name"] for x in tests] != [t.name for t in e.tests]:
                return None
            return [
                SampleRun(
                    s,
                    self.tree.text(s.input, e.id),
                    self.tree.text(s.answer, e.id),
                    str(x["output"]),
                    str(x["verdict"]),
                    bool(x.get("passed", True)),
                )
                for s, x in zip(e.samples, samples, strict=True)
            ], [
                TestRun(str(x["name"]), bool(x["passed"]), float(x["seconds"]), str(x["problem"]))
                for x in tests
            ]
        except (TypeError, KeyError, ValueError, SiteError):  # SiteError: an unreadable sample
            return None

    def _program(
        self, e: Entry, source: str, included: list[str], headers: list[str]
    ) -> tuple[tuple[str, ...], list[str]]:
        """The argv of a program of the entry run by its built-in runner (built if needed),
        and the folders its sandbox shows it."""
        runner = runner_for(source, self.config.languages)
        assert runner is not None  # entries.load checked it
        files = [source, *included]
        if runner.compiled and not runner.scans_includes:
            # A compiler may read any file of the folder (Rust's `mod helper;`, Haskell's
            # `import Helper`): every one names the program built, not only its runs.
            headers = [*headers, *self._folder_stamps(e, {*files, *self._cases(e)})]
        key = self.runners.key(runner, files, {f: self.tree.bytes(f) for f in files}, headers)
        built = self.runners.build(e.id, runner, source, key)
        return built.argv, [built.folder] if built.folder else []

    def _programs(self, e: Entry) -> tuple[list[str] | None, dict[str, list[str]], list[str]]:
        """The argv of the entry's solution (None: its command), those of its checker and
        interactor programs (by role, when it has them), and the folders their sandbox
        shows them."""
        argv = None
        folders: list[str] = []
        if e.runner is not None and e.solution_file is not None:
            built, folders = self._program(e, e.solution_file, e.included, e.headers)
            argv = list(built)
        judges: dict[str, list[str]] = {}
        for role, source, included, headers in (
            ("checker", e.checker_file, e.checker_included, e.checker_headers),
            ("interactor", e.interactor_file, e.interactor_included, e.interactor_headers),
        ):
            if source is not None:
                judge, more = self._program(e, source, included, headers)
                judges[role] = list(judge)
                folders += more
        return argv, judges, folders

    def _run_sample(self, e: Entry, sample: Sample) -> SampleRun:
        argv, judges, folders = self._programs(e)
        return run_sample(
            self.root,
            e,
            sample,
            argv,
            jail=self.jail,
            folders=folders,
            checker=judges.get("checker"),
            interactor=judges.get("interactor"),
            strict=not self.keep_going,
        )

    def _run_test(self, e: Entry, test: Sample) -> TestRun:
        argv, judges, folders = self._programs(e)
        run = run_test(
            self.root,
            e,
            test,
            argv,
            judges.get("checker"),
            jail=self.jail,
            folders=folders,
            interactor=judges.get("interactor"),
        )
        if self.fail_fast and not run.passed:
            raise SiteError(e.id, test.input, f"test {test.name} failed: {run.problem}")
        return run

    # ---- what the next build may reuse ----------------------------------------------
    def key(self, e: Entry) -> str:
        """The hash of everything an entry's runs depend on: the builder, the interpreter, the
        command or runner (tool version, flags), the limits and the bytes of the entry's
        files, the files it shows or includes and the files its command names. A command
        run by Python also depends on the tree's ``src/``."""
        parts: list[str | bytes] = [
            builder_version(),
            sys.version,
            e.command,
            e.runner or "",
            str(e.compare),
            repr(e.timeout),
            str(e.output_limit),
            repr(e.memory_limit),
            repr(Limits(1)),  # the sandbox's limits: memory, stack, processes, files
            repr(sorted(self._environment().items())),
            e.checker_protocol,
            *e.headers,
            *e.checker_headers,
        ]
        files = [e.meta, *e.sources, *e.included, *([e.solution_file] if e.solution_file else [])]
        if e.interactor_file is not None:
            files += [e.interactor_file, *e.interactor_included]
            parts += [*self._runner_parts(e.interactor_file), *e.interactor_headers]
        for s in e.samples:
            files += [s.input, s.answer]
        for t in e.tests:
            # Judge data is read only to be hashed: by its stat when that is unchanged.
            parts += [t.input, self._digest_of(t.input), t.answer, self._digest_of(t.answer)]
        if e.runner is not None:
            # The program may read any file of its folder (a module it imports, a table it
            # opens): every one keys its runs.
            parts += self._folder_stamps(e, {*files, *self._cases(e)})
        parts.append(str(e.checker))
        if e.checker_file is not None:
            files += [e.checker_file, *e.checker_included]
            parts += self._runner_parts(e.checker_file)
        if e.runner is not None:
            parts += self._runner_parts(e.solution_file or "")
        else:
            argv = command_argv(e.command, self.root)
            for word in argv[1:]:
                if os.path.isabs(word) and Path(word).is_relative_to(self.root):
                    if Path(word).is_file():
                        files.append(Path(word).relative_to(self.root).as_posix())
            if argv and argv[0] == sys.executable:
                parts.append(self._src())
        for path in files:
            parts += [path, self.tree.bytes(path)]
        return digest(parts)

    @staticmethod
    def _cases(e: Entry) -> set[str]:
        """The files of ``e``'s samples and tests (keyed as what is judged)."""
        return {path for case in (*e.samples, *e.tests) for path in (case.input, case.answer)}

    def _folder_stamps(self, e: Entry, keyed: set[str]) -> list[str]:
        """``path`` and hash of every file of the folder of ``e`` (when the folder is its
        own) but those ``keyed`` already, each hashed by its stat when that is unchanged."""
        if not e.own_folder:
            return []
        if e.folder not in self._folders:
            self._folders[e.folder] = self._folder_files(e.folder)
        return [
            f"{path}\0{self._digest_of(path)}"
            for path in self._folders[e.folder]
            if path not in keyed
        ]

    def _folder_files(self, folder: str) -> list[str]:
        """Every regular file below the entry folder ``folder``, repository-relative and
        sorted; links, ``.git``, ``__pycache__`` and the folders of :attr:`skip` left out."""
        found = []
        for path, dirs, names in os.walk(self.root / folder):
            here = Path(path)
            dirs[:] = sorted(
                d
                for d in dirs
                if d not in (".git", "__pycache__")
                and not (here / d).is_symlink()
                and here / d not in self.skip
            )
            for name in names:
                file = here / name
                if stat.S_ISREG(file.lstat().st_mode):
                    found.append(file.relative_to(self.root).as_posix())
        return sorted(found)

    def _runner_parts(self, source: str) -> list[str]:
        """What a program's runs depend on besides its files: the runner's flags,
        templates, tool and its version."""
        runner = runner_for(source, self.config.languages)
        assert runner is not None  # entries.load checked it
        return [
            self.config.flags.get(runner.language, ""),
            runner.compile_template,
            runner.run_template,
            *(self.runners.tool(runner) or ()),
        ]

    def _environment(self) -> dict[str, str]:
        """The environment every run of the entry gets (a change reruns it)."""
        sandboxed = self.jail is not None and self.jail.sandboxed
        env = {**(self.jail.environment if self.jail else {}), **run_environment(self.root)}
        return {**(ENVIRONMENT if sandboxed else {}), **env, "sandboxed": str(sandboxed)}

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
            value = digest([self.tree.bytes(path)])
        self._stats_used[key] = value
        return value

    def _src(self) -> str:
        """One hash of every file under ``src/`` (what a Python command may import)."""
        if self._src_digest is None:
            src = self.root / "src"
            files = (
                sorted(
                    p
                    for p in src.rglob("*")
                    if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
                )
                if src.is_dir()
                else []
            )
            self._src_digest = digest(
                part for p in files for part in (p.relative_to(src).as_posix(), p.read_bytes())
            )
        return self._src_digest


def _record(runs: list[SampleRun], tests: list[TestRun]) -> dict[str, Any]:
    return {
        "samples": [
            {"name": r.sample.name, "output": r.output, "verdict": r.verdict, "passed": r.passed}
            for r in runs
        ],
        "tests": [
            {"name": t.name, "passed": t.passed, "seconds": t.seconds, "problem": t.problem}
            for t in tests
        ],
    }


def describe_error(exc: SiteError) -> str:
    """An error as a failing case says it (the file it names, and the problem)."""
    at = exc.file if exc.line is None else f"{exc.file}:{exc.line}"
    return f"error: {at}: {exc.message}" if at else f"error: {exc.message}"


def _failed_sample(sample: Sample, exc: SiteError) -> SampleRun:
    return SampleRun(sample, "", "", "", describe_error(exc), passed=False)
