"""An entry's checks: running its samples and judge tests, judging them, remembering them.

The runs of an entry are remembered under the hash of everything they depend on
(:meth:`Checks.key`), so an entry unchanged since a build that checked it is not run again.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

from perfectplay.site.cache import Store, builder_version, digest
from perfectplay.site.config import Config
from perfectplay.site.entries import Entry, Sample
from perfectplay.site.pool import Pool, Work, done
from perfectplay.site.runners import RUNNERS, Runners, runner_for
from perfectplay.site.samples import (
    SampleRun,
    TestRun,
    command_argv,
    run_sample,
    run_test,
    time_bucket,
)
from perfectplay.site.sandbox import Jail
from perfectplay.site.tree import Tree

__all__ = ["Checks", "judge_verdict"]


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


class Checks:
    """The checks of one build: what to run, running it, and the records of earlier runs."""

    def __init__(
        self, tree: Tree, config: Config, cache: Path, store: Store, jail: Jail | None = None
    ) -> None:
        self.tree = tree
        self.root = tree.root
        self.config = config
        self.jail = jail
        self.runners = Runners(tree.root, cache, config.flags, jail)
        self.store = store
        self.reused = 0  # entries whose runs came from the cache
        self._src_digest: str | None = None
        self._stats: dict[str, Any] | None = None  # stat -> digest, from the last build
        self._stats_used: dict[str, str] = {}
        self._fresh: list[tuple[Entry, str]] = []  # entries run now, and their records' keys

    def submit(self, pool: Pool, entries: list[Entry], work: Work) -> None:
        """Every entry's samples and tests into ``work``: remembered, or run in ``pool``."""
        for e in entries:
            key = self.key(e)
            recorded = self._recorded(e, self.store.get("runs", key))
            if recorded is not None:
                self.reused += 1
                runs, tests = recorded
                for s, r in zip(e.samples, runs, strict=True):
                    work.samples[(e.id, s.name)] = done(r)
                for t, tr in zip(e.tests, tests, strict=True):
                    work.tests[(e.id, t.name)] = done(tr)
                continue
            self._fresh.append((e, key))
            for s in e.samples:
                work.samples[(e.id, s.name)] = pool.submit(self._run_sample, e, s)
            for t in e.tests:
                work.tests[(e.id, t.name)] = pool.submit(self._run_test, e, t)

    def remember(self, work: Work) -> None:
        """Record the runs of the entries run now, for the next build."""
        for e, key in self._fresh:
            runs = [work.samples[(e.id, s.name)].result() for s in e.samples]
            tests = [work.tests[(e.id, t.name)].result() for t in e.tests]
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
                )
                for s, x in zip(e.samples, samples, strict=True)
            ], [
                TestRun(str(x["name"]), bool(x["passed"]), float(x["seconds"]), str(x["problem"]))
                for x in tests
            ]
        except (TypeError, KeyError, ValueError):
            return None

    def _program(
        self, e: Entry, source: str, included: list[str], headers: list[str]
    ) -> tuple[tuple[str, ...], list[str]]:
        """The argv of a program of the entry run by its built-in runner (built if needed),
        and the folders its sandbox shows it."""
        runner = runner_for(source)
        assert runner is not None  # entries.load checked it
        files = [source, *included]
        key = self.runners.key(runner, files, {f: self.tree.bytes(f) for f in files}, headers)
        built = self.runners.build(e.id, runner, source, key)
        return built.argv, [built.folder] if built.folder else []

    def _run_sample(self, e: Entry, sample: Sample) -> SampleRun:
        argv, folders = None, list[str]()
        if e.runner is not None and e.solution_file is not None:
            argv, folders = self._program(e, e.solution_file, e.included, e.headers)
        return run_sample(self.root, e, sample, argv, jail=self.jail, folders=folders)

    def _run_test(self, e: Entry, test: Sample) -> TestRun:
        argv = checker = None
        folders: list[str] = []
        if e.runner is not None and e.solution_file is not None:
            argv, folders = self._program(e, e.solution_file, e.included, e.headers)
        if e.checker_file is not None:
            checker, more = self._program(e, e.checker_file, e.checker_included, e.checker_headers)
            folders += more
        return run_test(self.root, e, test, argv, checker, jail=self.jail, folders=folders)

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
            *e.headers,
            *e.checker_headers,
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
            parts += [path, self.tree.bytes(path)]
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
            {"name": r.sample.name, "output": r.output, "verdict": r.verdict} for r in runs
        ],
        "tests": [
            {"name": t.name, "passed": t.passed, "seconds": t.seconds, "problem": t.problem}
            for t in tests
        ],
    }
