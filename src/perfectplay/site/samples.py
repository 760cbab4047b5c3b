"""Running an entry's command on its samples during the build, and checking the output.

The output a page shows is the ``stdout`` captured here, never a stored copy. ``perfectplay``
commands run the package of the tree being built (``ROOT/src`` first on ``PYTHONPATH``), so
the output comes from the very sources the page shows.
"""

from __future__ import annotations

import os
import shlex
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfectplay.site.checkers import CheckerFailed, compare, program_call, program_verdict
from perfectplay.site.contained import Finished, run_contained, run_interactive
from perfectplay.site.entries import Entry, Sample
from perfectplay.site.errors import SiteError
from perfectplay.site.sandbox import Jail

__all__ = [
    "SampleRun",
    "TestRun",
    "command_argv",
    "compare",
    "judge_output",
    "judged_by",
    "run_environment",
    "run_sample",
    "run_test",
    "time_bucket",
]


@dataclass(frozen=True)
class SampleRun:
    """One sample as its page shows it: the texts, what the program printed, and the
    verdict (``passed`` False: ``verdict`` says what went wrong)."""

    sample: Sample
    input: str
    answer: str
    output: str
    verdict: str  # how it was judged, e.g. "matches (float 1e-06)", or what failed
    passed: bool = True


@dataclass(frozen=True)
class TestRun:
    """One judge test: passed or not (``problem`` says why not), and how long it ran."""

    name: str
    passed: bool
    seconds: float
    problem: str = ""


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


def _read_text(root: Path, entry: Entry, relative: str) -> str:
    try:
        return (root / relative).read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise SiteError(entry.id, relative, "not UTF-8 text") from None
    except OSError as exc:
        raise SiteError(entry.id, relative, f"cannot read: {exc.strerror}") from None


def run_environment(root: Path) -> dict[str, str]:
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


def _memory(argv: Sequence[str], limit: int | None) -> tuple[list[str], int | None]:
    """A program's argv and the limit on its address space: a Java virtual machine reserves
    far more address space than it uses, so it is given the limit as its heap's instead
    (``-Xmx``), as judges do.

    >>> _memory(["/usr/bin/java", "-cp", "/c", "Main"], 256)
    (['/usr/bin/java', '-Xmx256m', '-cp', '/c', 'Main'], None)
    """
    if limit is None or not argv or Path(argv[0]).name != "java":
        return list(argv), limit
    return [argv[0], f"-Xmx{limit}m", *argv[1:]], None


def _execute(
    root: Path,
    entry: Entry,
    argv: Sequence[str],
    stdin: bytes,
    jail: Jail | None,
    folders: Sequence[str],
) -> Finished:
    """One run of the entry's program under the entry's limits."""
    argv, memory_limit = _memory(argv, entry.memory_limit)
    try:
        return run_contained(
            argv,
            stdin,
            time_limit=entry.timeout,
            output_limit=entry.output_limit,
            env=run_environment(root),
            jail=_jail(root, jail),
            read_only=folders,
            memory_limit=memory_limit,
        )
    except (FileNotFoundError, PermissionError):
        raise SiteError(entry.id, entry.meta, f"command not found: {argv[0]!r}") from None


def _interact(
    root: Path,
    entry: Entry,
    case: str,
    files: tuple[bytes, bytes],
    argv: Sequence[str],
    interactor: Sequence[str],
    jail: Jail | None,
    folders: Sequence[str],
) -> tuple[Finished, str | None, bytes]:
    """One run of an interactive entry: the program and its interactor talking, the
    interactor called ``INPUT OUTPUT ANSWER`` as testlib's are. How the program ended,
    the verdict (None: accepted) and what the interactor wrote to OUTPUT."""
    where = str(entry.interactor_file)
    with tempfile.TemporaryDirectory(prefix="perfectplay-interact-") as folder:
        given, written = Path(folder) / "given", Path(folder) / "written"
        given.mkdir()
        written.mkdir()
        (given / "input").write_bytes(files[0])
        (given / "answer").write_bytes(files[1])
        argv, memory_limit = _memory(argv, entry.memory_limit)
        try:
            run, judge = run_interactive(
                argv,
                [*interactor, str(given / "input"), str(written / "output"), str(given / "answer")],
                time_limit=entry.timeout,
                env=run_environment(root),
                jail=_jail(root, jail),
                read_only=folders,
                judge_read_only=[*folders, str(given)],
                judge_writable=[str(written)],
                memory_limit=memory_limit,
            )
        except (FileNotFoundError, PermissionError):
            raise SiteError(entry.id, where, "the interactor cannot be started") from None
        output = written / "output"
        shown = output.read_bytes()[: entry.output_limit] if output.is_file() else b""
    if run.timed_out:
        return run, run.problem(entry.timeout, entry.output_limit, entry.memory_limit), shown
    try:
        if judge.timed_out or judge.forked or judge.returncode < 0:
            raise CheckerFailed(judge.problem(entry.timeout, entry.output_limit) or "stopped")
        wrong = program_verdict("testlib", judge.returncode, b"", judge.stderr)
    except CheckerFailed as exc:
        raise SiteError(entry.id, where, f"the interactor crashed on {case}: {exc}") from None
    if wrong is None and not run.ok:
        wrong = run.problem(entry.timeout, entry.output_limit, entry.memory_limit)
    return run, wrong, shown


def judged_by(entry: Entry) -> str:
    """What judges the entry's output, as a page says it: the comparison (``float 1e-06``),
    ``the testlib checker PATH`` or ``the interactor PATH``."""
    if entry.interactor_file is not None:
        return f"the interactor {entry.interactor_file}"
    if entry.checker_file is None:
        return str(entry.checker or entry.compare)
    return f"the {entry.checker_protocol} checker {entry.checker_file}"


def judge_output(
    root: Path,
    entry: Entry,
    case: str,
    files: tuple[bytes, bytes, bytes],
    checker: Sequence[str] | None,
    *,
    jail: Jail | None = None,
    folders: Sequence[str] = (),
) -> str | None:
    """None when the output is accepted; otherwise why not. ``files`` are the input, the
    answer and the output; ``checker`` the argv of the entry's checker program (None: the
    built-in comparison). A checker that fails is :class:`SiteError` naming it and
    ``case``."""
    stdin, answer, output = files
    if checker is None:
        try:
            text, want = output.decode("utf-8"), answer.decode("utf-8")
        except UnicodeDecodeError:
            return "printed non-UTF-8 bytes"
        wrong = compare(text, want, entry.checker or entry.compare)
        return f"wrong answer: {wrong}" if wrong else None
    where = str(entry.checker_file)
    with tempfile.TemporaryDirectory(prefix="perfectplay-judge-") as folder:
        for name, data in (("input", stdin), ("answer", answer), ("output", output)):
            (Path(folder) / name).write_bytes(data)
        call = program_call(entry.checker_protocol, Path(folder), output)
        writable = []
        if call.feedback is not None:
            os.mkdir(call.feedback)
            writable.append(call.feedback)
        try:
            judged = run_contained(
                [*checker, *call.arguments],
                call.stdin,
                time_limit=entry.timeout,
                output_limit=entry.output_limit,
                env=run_environment(root),
                jail=_jail(root, jail),
                read_only=[*folders, folder],
                writable=writable,
                memory_limit=entry.memory_limit,
            )
        except (FileNotFoundError, PermissionError):
            raise SiteError(entry.id, where, "the checker cannot be started") from None
        feedback = b""
        if call.feedback is not None:
            message = Path(call.feedback) / "judgemessage.txt"
            feedback = message.read_bytes()[:4096] if message.is_file() else b""
    stopped = judged.timed_out or judged.overflow or judged.forked or judged.returncode < 0
    try:
        if stopped:
            raise CheckerFailed(judged.problem(entry.timeout, entry.output_limit) or "stopped")
        return program_verdict(
            entry.checker_protocol, judged.returncode, judged.stdout, judged.stderr, feedback
        )
    except CheckerFailed as exc:
        raise SiteError(entry.id, where, f"the checker crashed on {case}: {exc}") from None


def run_sample(
    root: Path,
    entry: Entry,
    sample: Sample,
    argv: Sequence[str] | None = None,
    *,
    jail: Jail | None = None,
    folders: Sequence[str] = (),
    checker: Sequence[str] | None = None,
    interactor: Sequence[str] | None = None,
    strict: bool = True,
) -> SampleRun:
    """Run ``entry.command`` (or ``argv``, a built-in runner's program) with the sample's
    input on stdin, in ``jail`` (which also shows it the ``folders``, read-only), and judge
    the output as the entry's tests are (``checker``: the argv of its checker program).
    With ``strict``, raise :class:`SiteError` when it fails, times out, prints too much,
    or its output is rejected; otherwise the returned run says so. With an ``interactor``
    (its argv), the program talks with it instead, and the page shows what it wrote."""
    stdin = _read_text(root, entry, sample.input)
    answer = _read_text(root, entry, sample.answer)
    argv = list(argv) if argv is not None else command_argv(entry.command, root)
    if not argv:
        raise SiteError(entry.id, entry.meta, "'command' is empty")
    if interactor is not None:
        given = (stdin.encode("utf-8"), answer.encode("utf-8"))
        name = f"sample {sample.name}"
        _, wrong, shown = _interact(root, entry, name, given, argv, interactor, jail, folders)
        output = shown.decode("utf-8", "replace")
        if wrong is None:
            return SampleRun(sample, stdin, answer, output, f"accepted by ({judged_by(entry)})")
        if strict:
            raise SiteError(entry.id, sample.input, f"`{entry.command}` on {name}: {wrong}")
        return SampleRun(sample, stdin, answer, _cut(output, answer), wrong, passed=False)
    run = _execute(root, entry, argv, stdin.encode("utf-8"), jail, folders)
    output = run.stdout.decode("utf-8", "replace")
    problem = run.problem(entry.timeout, entry.output_limit, entry.memory_limit)
    if problem is None:
        try:
            run.stdout.decode("utf-8")
        except UnicodeDecodeError:
            problem = "printed non-UTF-8 bytes"
    if problem is not None:
        if strict:
            raise SiteError(entry.id, sample.input, f"`{entry.command}` {problem}")
        return SampleRun(sample, stdin, answer, _cut(output, answer), problem, passed=False)
    files = (stdin.encode("utf-8"), answer.encode("utf-8"), run.stdout)
    case = f"sample {sample.name}"
    wrong = judge_output(root, entry, case, files, checker, jail=jail, folders=folders)
    if wrong is None:
        how = "accepted by" if entry.checker_file else "matches"
        return SampleRun(sample, stdin, answer, output, f"{how} ({judged_by(entry)})")
    if strict:
        raise SiteError(
            entry.id,
            sample.answer,
            f"the output of `{entry.command}` on {Path(sample.input).name} differs from "
            f"the answer ({judged_by(entry)}): {wrong.removeprefix('wrong answer: ')}",
        )
    return SampleRun(sample, stdin, answer, _cut(output, answer), wrong, passed=False)


#: What a page shows of a failing run's output beyond the answer's length: a run that
#: printed up to the output limit (8 MiB) made a page of that size.
SHOWN_BEYOND_ANSWER = 64 << 10


def _cut(output: str, answer: str) -> str:
    """The output a failing sample's page shows: whole when it is no longer than the
    answer and a margin, else cut there with a line saying how much was left out.

    >>> _cut("x" * 10, "1")
    'xxxxxxxxxx'
    >>> _cut("x" * 70000, "1").splitlines()[-1]
    '[... 4463 more characters not shown]'
    """
    keep = len(answer) + SHOWN_BEYOND_ANSWER
    if len(output) <= keep:
        return output
    return f"{output[:keep]}\n[... {len(output) - keep} more characters not shown]"


def run_test(
    root: Path,
    entry: Entry,
    test: Sample,
    argv: Sequence[str] | None = None,
    checker: Sequence[str] | None = None,
    *,
    jail: Jail | None = None,
    folders: Sequence[str] = (),
    interactor: Sequence[str] | None = None,
) -> TestRun:
    """Run one judge test of ``entry`` under its limits and judge the output by the entry's
    checker (:func:`judge_output`). A test the solution fails is a verdict, not an error:
    the page shows it; a checker that fails is :class:`SiteError`, naming the checker."""
    stdin = (root / test.input).read_bytes()
    answer = (root / test.answer).read_bytes()
    argv = list(argv) if argv is not None else command_argv(entry.command, root)
    if interactor is not None:
        name = f"test {test.name}"
        run, wrong, _ = _interact(
            root, entry, name, (stdin, answer), argv, interactor, jail, folders
        )
        return TestRun(test.name, wrong is None, run.seconds, wrong or "")
    run = _execute(root, entry, argv, stdin, jail, folders)
    problem = run.problem(entry.timeout, entry.output_limit, entry.memory_limit)
    if problem is not None:
        return TestRun(test.name, False, run.seconds, problem)
    files = (stdin, answer, run.stdout)
    wrong = judge_output(
        root, entry, f"test {test.name}", files, checker, jail=jail, folders=folders
    )
    return TestRun(test.name, wrong is None, run.seconds, wrong or "")
