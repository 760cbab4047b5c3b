"""Running an entry's command on its samples during the build, and checking the output.

The output a page shows is the ``stdout`` captured here, never a stored copy. ``perfectplay``
commands run the package of the tree being built (``ROOT/src`` first on ``PYTHONPATH``), so
the output comes from the very sources the page shows.
"""

from __future__ import annotations

import math
import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfectplay.site.contained import run_contained
from perfectplay.site.entries import Compare, Entry, Sample
from perfectplay.site.errors import SiteError
from perfectplay.site.sandbox import Jail

__all__ = [
    "SampleRun",
    "TestRun",
    "command_argv",
    "compare",
    "run_sample",
    "run_test",
    "time_bucket",
]


@dataclass(frozen=True)
class SampleRun:
    sample: Sample
    input: str
    answer: str
    output: str
    verdict: str  # how it was checked, e.g. "matches (float 1e-06)"


@dataclass(frozen=True)
class TestRun:
    """One judge test: passed or not (``problem`` says why not), and how long it ran."""

    name: str
    passed: bool
    seconds: float
    problem: str = ""


#: Exit statuses of a checker program: accepted (testlib, Kattis), rejected (testlib's
#: wrong answer and presentation error, Kattis's wrong answer).
ACCEPT = frozenset({0, 42})
REJECT = frozenset({1, 2, 43})
#: A page shows times in these steps, so that two builds print the same page: the first is
#: wide enough that starting a small program on a busy machine stays under it.
TIME_STEPS = (0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600)


def time_bucket(seconds: float) -> str:
    """A time as the page shows it: the smallest step it stays under.

    >>> time_bucket(0.03), time_bucket(1.5), time_bucket(7200)
    ('under 0.5 s', 'under 2 s', 'over 3600 s')
    """
    for step in TIME_STEPS:
        if seconds < step:
            return f"under {step:g} s"
    return f"over {TIME_STEPS[-1]:g} s"


def command_argv(command: str, root: Path | None = None) -> list[str]:
    """The argv for a meta ``command``: ``perfectplay`` and ``python3`` run under this
    interpreter, so the build does not depend on what PATH holds. A run's working directory
    is a fresh empty folder, so a word naming a file of the repository (``src/toy/sum.py``)
    becomes that file's absolute path.

    >>> command_argv("perfectplay alea")[1:]
    ['-m', 'perfectplay', 'alea']
    """
    argv = shlex.split(command)
    if argv and argv[0] == "perfectplay":
        return [sys.executable, "-m", "perfectplay", *argv[1:]]
    if argv and argv[0] in ("python", "python3"):
        argv = [sys.executable, *argv[1:]]
    if root is not None:
        argv = [_in_tree(root, word) for word in argv]
    return argv


def _in_tree(root: Path, word: str) -> str:
    if not word or word.startswith("-") or os.path.isabs(word):
        return word
    path = root / word
    try:
        return str(path) if path.exists() and path.resolve().is_relative_to(root) else word
    except OSError:
        return word


def _clip(text: str, width: int = 60) -> str:
    text = text if len(text) <= width else text[: width - 3] + "..."
    return repr(text)


def compare(output: str, answer: str, how: Compare) -> str | None:
    """None when ``output`` agrees with ``answer``; otherwise what differs first.

    ``exact`` ignores trailing spaces on lines and trailing blank lines. ``float TOL``
    compares whitespace-separated tokens: numbers within TOL absolute or relative error,
    anything else exactly.

    >>> compare("9.6778871\\n", "9.677887141\\n", Compare("float", 1e-6)) is None
    True
    >>> compare("impossible", "1.0", Compare("float", 1e-6))
    "token 1: got 'impossible', expected '1.0'"
    >>> compare("Alice \\n\\n", "Alice", Compare("exact")) is None
    True
    """
    if how.mode == "exact":
        got = [line.rstrip() for line in output.splitlines()]
        want = [line.rstrip() for line in answer.splitlines()]
        while got and not got[-1]:
            got.pop()
        while want and not want[-1]:
            want.pop()
        for i, (g, w) in enumerate(zip(got, want, strict=False), start=1):
            if g != w:
                return f"line {i}: got {_clip(g)}, expected {_clip(w)}"
        if len(got) != len(want):
            return f"got {len(got)} lines, expected {len(want)}"
        return None
    got, want = output.split(), answer.split()
    for i, (g, w) in enumerate(zip(got, want, strict=False), start=1):
        if g == w:
            continue
        try:
            a, b = float(g), float(w)
        except ValueError:
            return f"token {i}: got {_clip(g)}, expected {_clip(w)}"
        if not (math.isfinite(a) and math.isfinite(b)):
            return f"token {i}: got {_clip(g)}, expected {_clip(w)}"
        if abs(a - b) > how.tolerance * max(1.0, abs(b)):
            return f"token {i}: got {g}, expected {w} (tolerance {how.tolerance:g})"
    if len(got) != len(want):
        return f"got {len(got)} tokens, expected {len(want)}"
    return None


def _read_text(root: Path, entry: Entry, relative: str) -> str:
    try:
        return (root / relative).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SiteError(entry.id, relative, "not UTF-8 text") from None
    except OSError as exc:
        raise SiteError(entry.id, relative, f"cannot read: {exc.strerror}") from None


def run_sample(
    root: Path,
    entry: Entry,
    sample: Sample,
    argv: Sequence[str] | None = None,
    *,
    jail: Jail | None = None,
    folders: Sequence[str] = (),
) -> SampleRun:
    """Run ``entry.command`` (or ``argv``, a built-in runner's program) with the sample's
    input on stdin, in ``jail`` (which also shows it the ``folders``, read-only); raise
    :class:`SiteError` when it fails, times out, prints too much, or its output disagrees
    with the answer."""
    stdin = _read_text(root, entry, sample.input)
    answer = _read_text(root, entry, sample.answer)
    argv = list(argv) if argv is not None else command_argv(entry.command, root)
    if not argv:
        raise SiteError(entry.id, entry.meta, "'command' is empty")
    try:
        run = run_contained(
            argv,
            stdin.encode("utf-8"),
            time_limit=entry.timeout,
            output_limit=entry.output_limit,
            env=_env(root),
            jail=_jail(root, jail),
            read_only=folders,
        )
    except (FileNotFoundError, PermissionError):
        raise SiteError(entry.id, entry.meta, f"command not found: {argv[0]!r}") from None
    problem = run.problem(entry.timeout, entry.output_limit)
    if problem is not None:
        raise SiteError(entry.id, sample.input, f"`{entry.command}` {problem}")
    try:
        output = run.stdout.decode("utf-8")
    except UnicodeDecodeError:
        raise SiteError(
            entry.id, sample.input, f"`{entry.command}` printed non-UTF-8 bytes"
        ) from None
    problem = compare(output, answer, entry.compare)
    if problem is not None:
        raise SiteError(
            entry.id,
            sample.answer,
            f"the output of `{entry.command}` on {Path(sample.input).name} differs from "
            f"the answer ({entry.compare}): {problem}",
        )
    return SampleRun(sample, stdin, answer, output, f"matches ({entry.compare})")


def _env(root: Path) -> dict[str, str]:
    """What a run sets in its environment: the tree's ``src`` first on Python's path, quiet
    progress and a fixed hash seed (an output must not depend on the run)."""
    return {
        "PYTHONPATH": os.pathsep.join(
            p for p in (str(root / "src"), os.environ.get("PYTHONPATH", "")) if p
        ),
        "PERFECTPLAY_QUIET": "1",
        "PYTHONHASHSEED": "0",
    }


def _jail(root: Path, jail: Jail | None) -> Jail:
    """The given jail, or (for a caller outside a build) a plain run with the environment."""
    return jail if jail is not None else Jail(root, sandboxed=False)


def run_test(
    root: Path,
    entry: Entry,
    test: Sample,
    argv: Sequence[str] | None = None,
    checker: Sequence[str] | None = None,
    *,
    jail: Jail | None = None,
    folders: Sequence[str] = (),
) -> TestRun:
    """Run one judge test of ``entry`` under its limits and check the output, by
    ``entry.checker`` (exact or float) or by the ``checker`` program, which is given the
    paths of the input, the answer and the output, and exits 0 to accept and 1 to reject
    (testlib's 2 and Kattis's 42/43 are understood too); any other ending, or a Python
    traceback, means it crashed: :class:`SiteError`, naming the checker.

    A test the solution fails is a verdict, not an error: the page shows it."""
    stdin = (root / test.input).read_bytes()
    answer = (root / test.answer).read_bytes()
    argv = list(argv) if argv is not None else command_argv(entry.command, root)
    env, jail = _env(root), _jail(root, jail)
    try:
        run = run_contained(
            argv,
            stdin,
            time_limit=entry.timeout,
            output_limit=entry.output_limit,
            env=env,
            jail=jail,
            read_only=folders,
        )
    except (FileNotFoundError, PermissionError):
        raise SiteError(entry.id, entry.meta, f"command not found: {argv[0]!r}") from None
    problem = run.problem(entry.timeout, entry.output_limit)
    if problem is not None:
        return TestRun(test.name, False, run.seconds, problem)
    if checker is None:
        how = entry.checker or entry.compare
        try:
            text, want = run.stdout.decode("utf-8"), answer.decode("utf-8")
        except UnicodeDecodeError:
            return TestRun(test.name, False, run.seconds, "printed non-UTF-8 bytes")
        wrong = compare(text, want, how)
        return TestRun(
            test.name, wrong is None, run.seconds, f"wrong answer: {wrong}" if wrong else ""
        )
    with tempfile.TemporaryDirectory(prefix="perfectplay-judge-") as folder:
        files = []
        for name, data in (("input", stdin), ("answer", answer), ("output", run.stdout)):
            path = Path(folder) / name
            path.write_bytes(data)
            files.append(str(path))
        try:
            judged = run_contained(
                [*checker, *files],
                b"",
                time_limit=entry.timeout,
                output_limit=entry.output_limit,
                env=env,
                jail=jail,
                read_only=[*folders, folder],
            )
        except (FileNotFoundError, PermissionError):
            raise SiteError(
                entry.id, str(entry.checker_file), "the checker cannot be started"
            ) from None
    # Python reports an uncaught exception with status 1, a rejection's status: its
    # traceback tells the two apart.
    crashed = b"Traceback (most recent call last)" in judged.stderr
    stopped = judged.timed_out or judged.overflow or judged.forked
    if stopped or crashed or judged.returncode not in ACCEPT | REJECT:
        why = (
            judged.problem(entry.timeout, entry.output_limit)
            or (judged.stderr.decode("utf-8", "replace").strip().splitlines() or ["no message"])[-1]
        )
        if judged.returncode in REJECT and not crashed:
            why = f"exited with status {judged.returncode}"
        raise SiteError(
            entry.id, str(entry.checker_file), f"the checker crashed on test {test.name}: {why}"
        )
    if judged.returncode in ACCEPT:
        return TestRun(test.name, True, run.seconds)
    said = (judged.stdout or judged.stderr).decode("utf-8", "replace").strip().splitlines()
    return TestRun(
        test.name, False, run.seconds, f"rejected by the checker: {said[0] if said else ''}"
    )
