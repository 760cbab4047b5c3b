"""Every code block of README.md and docs/*.md runs, and shows what it prints.

The conventions (also in docs/index.md, "Examples that run"):

- A fenced block names its kind after the fence. ``python`` and ``pycon`` blocks run in
  one namespace per page, in page order: ``>>>`` examples compare their output as doctest
  does (``...`` matches anything, whitespace runs compare equal); a block without ``>>>``
  must simply run. ``sh`` blocks run each command (one a line, ``\\`` continues it) and
  every command must exit 0; their output is not compared and a ``#`` comment is prose.
  ``console`` blocks show a terminal: a line ``$ COMMAND`` is run and the lines after it,
  up to the next ``$``, are its output on stdout and stderr together, compared like a
  doctest (``...`` matches anything). A command shown without output must exit 0. Lines
  that depend on the machine are left out of both sides of the comparison: progress
  reports (``perfectplay: ... (1.2 s)``, ``perfectplay: ... done in 1.2 s``), timings
  (``perfectplay: time: ...``) and the notice before the first compile.
- Other kinds (``text``, ``toml``, ...) are data and do not run.
- A block that must not run says so in its fence with a reason, in pandoc's attribute
  syntax: ````` ```sh {.norun reason="installs the package"} `````. Indented code blocks
  and fences without a kind are refused, so no block escapes by accident.
- Commands run in a temporary folder per page, shared by the page's blocks, holding
  copies of ``archive/``, ``tests/data/``, ``docs/examples/`` and the few short names the
  pages use for samples (:data:`NAMED_FILES`); ``perfectplay`` is this checkout's.
- A page listed in :data:`SLOW_PAGES` is marked ``slow`` (``pytest -m "not slow"`` skips
  it).
"""

from __future__ import annotations

import doctest
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in ROOT.glob("docs/*.md"))]

#: Pages whose blocks take long in all (measured on the 2-core development machine with
#: a warm kernel cache): they solve Yahtzee, Pig or Dodgem 4 x 4 or build a site.
SLOW_PAGES = {
    "README.md": "solves Yahtzee and Yatzy (about 20 s)",
    "docs/yahtzee.md": "solves Yahtzee twice (about 15 s)",
    "docs/models.md": "solves Pig and Dodgem 4 x 4 (about 25 s)",
    "docs/own-archive.md": "builds a site (about 10 s)",
}

PYTHON = {"python", "py", "pycon"}
SHELL = {"sh", "bash", "shell"}
CONSOLE = {"console"}
DATA = {
    "text",
    "toml",
    "json",
    "jsonl",
    "yaml",
    "ini",
    "csv",
    "tex",
    "latex",
    "c",
    "cpp",
    "diff",
    "html",
}

# Machine-dependent lines of a command's output, left out of what is shown and of what is
# printed before they are compared: progress reports, timings and the compile notice.
MACHINE_LINES = re.compile(
    r"^perfectplay: (.*\(\d+(\.\d+)? s\)|.* done in \d+(\.\d+)? s\b.*|time: .*"
    r"|compiling the kernels this command needs.*)$"
)
# A fence, as CommonMark has it: a backtick fence's info string holds no backtick (so
# ```` ```sh ```` in a line of text is inline code, not a fence).
FENCE = re.compile(r"^ {0,3}(?:(`{3,})\s*([^`]*?)|(~{3,})\s*(.*?))\s*$")


def _fence(line: str) -> tuple[str, str] | None:
    """The fence and the info string of a fence line, else ``None``."""
    found = FENCE.match(line)
    if not found:
        return None
    ticks, info, tildes, tilde_info = found.groups()
    return (ticks, info) if ticks else (tildes, tilde_info)


CHECK = doctest.OutputChecker()
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


class SnippetError(AssertionError):
    """A block failed or printed something other than what the page shows."""


@dataclass
class Block:
    page: str
    line: int  # of the opening fence, 1-based
    kind: str
    classes: list[str]
    attrs: dict[str, str]
    text: str

    @property
    def runs(self) -> bool:
        return "norun" not in self.classes and self.kind not in DATA

    @property
    def name(self) -> str:
        return f"{self.page}:{self.line}"


def parse_info(info: str) -> tuple[str, list[str], dict[str, str]]:
    """The kind, classes and attributes of a fence's info string.

    >>> parse_info('sh {.norun reason="installs it"}')
    ('sh', ['norun'], {'reason': 'installs it'})
    >>> parse_info("{.python .norun}")
    ('python', ['norun'], {})
    """
    kind, _, rest = info.partition(" ") if not info.startswith("{") else ("", "", info)
    classes: list[str] = []
    attrs: dict[str, str] = {}
    inner = rest.strip().removeprefix("{").removesuffix("}")
    for token in shlex.split(inner):
        if token.startswith("."):
            classes.append(token[1:])
        elif "=" in token:
            key, _, value = token.partition("=")
            attrs[key] = value
    if not kind and classes:
        kind = classes.pop(0)
    return kind, classes, attrs


def blocks(page: str, text: str) -> list[Block]:
    """The fenced blocks of a Markdown page, with where they start."""
    found: list[Block] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        opening = _fence(lines[i])
        if not opening:
            i += 1
            continue
        fence, info = opening
        body: list[str] = []
        j = i + 1
        while j < len(lines):
            closing = _fence(lines[j])
            if (
                closing
                and closing[0][0] == fence[0]
                and len(closing[0]) >= len(fence)
                and not closing[1]
            ):
                break
            body.append(lines[j])
            j += 1
        kind, classes, attrs = parse_info(info)
        found.append(Block(page, i + 1, kind, classes, attrs, "\n".join(body) + "\n"))
        i = j + 1
    return found


def indented_code(text: str) -> list[int]:
    """Lines that start an indented code block (four spaces after a paragraph break,
    outside fences and lists): those escape the runner, so pages use fences."""
    starts = []
    fenced = False
    previous = ""
    context = ""  # the last non-blank line before the blank run
    for number, line in enumerate(text.splitlines(), start=1):
        if _fence(line):
            fenced = not fenced
        elif not fenced and line.startswith("    ") and line.strip() and not previous.strip():
            in_list = re.match(r"\s*([-*+]|\d+\.)\s", context) or context.startswith(" ")
            if context and not in_list:
                starts.append(number)
        if line.strip() and not fenced:
            context = line
        previous = line
    return starts


# ---------------------------------------------------------------- running blocks


@dataclass
class Session:
    """One page's state: its folder, its Python namespace, the blocks already run."""

    page: str
    cwd: Path
    env: dict[str, str]
    namespace: dict[str, Any] = field(default_factory=dict)
    done: int = 0  # blocks of the page run so far, in order


def command_env(bin_dir: Path) -> dict[str, str]:
    """The environment of the commands: this checkout's ``perfectplay`` first on PATH,
    unbuffered output (so stdout and stderr interleave as on a terminal)."""
    import perfectplay

    src = str(Path(perfectplay.__file__).resolve().parent.parent)
    bin_dir.mkdir(parents=True, exist_ok=True)
    shim = bin_dir / "perfectplay"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m perfectplay "$@"\n')
    shim.chmod(0o755)
    env = dict(os.environ)
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = os.pathsep.join(x for x in (src, env.get("PYTHONPATH")) if x)
    env["PYTHONUNBUFFERED"] = "1"
    env.pop("PERFECTPLAY_QUIET", None)
    return env


#: Files the pages name by a short name, and where each comes from in the tree.
NAMED_FILES = {
    "game.txt": "archive/icpc/2023/K-alea-iacta-est/samples/1.in",
    "samples": "archive/icpc/2023/K-alea-iacta-est/samples",
    "cases.in": "archive/kickstart/2020/F-yeetzhee/samples/1.in",
    "situations.txt": "docs/examples/situations.txt",
    "orders.txt": "docs/examples/orders.txt",
}


def prepare(cwd: Path) -> None:
    """The files the pages' commands name, copied so that no command can change the tree:
    ``archive/``, ``tests/data/``, ``docs/examples/`` and :data:`NAMED_FILES`."""
    for part in ("archive", "tests/data", "docs/examples"):
        shutil.copytree(ROOT / part, cwd / part)
    for name, source in NAMED_FILES.items():
        copy = shutil.copytree if (ROOT / source).is_dir() else shutil.copyfile
        copy(ROOT / source, cwd / name)


def shell_commands(text: str) -> list[str]:
    """The commands of an ``sh`` block: one a line, ``\\`` continues, comments skipped."""
    commands: list[str] = []
    pending = ""
    for line in text.splitlines():
        if not pending and (not line.strip() or line.lstrip().startswith("#")):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        commands.append(pending + line)
        pending = ""
    if pending:
        commands.append(pending)
    return commands


def console_steps(text: str) -> list[tuple[str, str]]:
    """The ``$ COMMAND`` lines of a ``console`` block, each with the output shown after it."""
    steps: list[tuple[str, list[str]]] = []
    for line in text.splitlines():
        if line.startswith("$ "):
            steps.append((line[2:], []))
        elif steps and steps[-1][0].endswith("\\") and not steps[-1][1]:
            steps[-1] = (steps[-1][0][:-1] + " " + line.strip(), [])
        elif steps:
            steps[-1][1].append(line)
        elif line.strip():
            raise SnippetError(f"a console block starts with '$ COMMAND', not {line!r}")
    return [(cmd, "\n".join(out).rstrip() + "\n") for cmd, out in steps]


def run_command(command: str, session: Session, timeout: float = 300) -> tuple[int, str]:
    proc = subprocess.run(
        ["bash", "-c", command],
        cwd=session.cwd,
        env=session.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        text=True,
        timeout=timeout,
    )
    kept = [ln.rstrip() for ln in proc.stdout.splitlines() if not MACHINE_LINES.match(ln)]
    return proc.returncode, "\n".join(kept).rstrip() + "\n"


def run_shell(block: Block, session: Session) -> None:
    for command in shell_commands(block.text):
        status, out = run_command(command, session)
        if status != 0:
            raise SnippetError(f"{block.name}: `{command}` exited {status}:\n{out}")


def run_console(block: Block, session: Session) -> None:
    for command, want in console_steps(block.text):
        status, got = run_command(command, session)
        kept = [ln.rstrip() for ln in want.splitlines() if not MACHINE_LINES.match(ln)]
        shown = "\n".join(kept) + "\n"
        if not shown.strip():
            if status != 0:
                raise SnippetError(f"{block.name}: `{command}` exited {status}:\n{got}")
            continue
        if not CHECK.check_output(shown, got, FLAGS):
            raise SnippetError(
                f"{block.name}: `{command}` printed (exit {status}):\n{got}\n"
                f"but the page shows:\n{shown}"
            )


def run_python(block: Block, session: Session) -> None:
    before = Path.cwd()
    os.chdir(session.cwd)
    try:
        if re.search(r"^\s*>>> ", block.text, re.M):
            test = doctest.DocTestParser().get_doctest(
                block.text, session.namespace, block.name, block.page, block.line
            )
            report: list[str] = []
            runner = doctest.DocTestRunner(optionflags=FLAGS, verbose=False)
            runner.run(test, out=report.append, clear_globs=False)
            session.namespace.update(test.globs)  # DocTest ran on a copy of the namespace
            if runner.failures:
                raise SnippetError("".join(report))
        else:
            code = compile(block.text, block.name, "exec")
            try:
                exec(code, session.namespace)
            except Exception as exc:
                raise SnippetError(f"{block.name}: {type(exc).__name__}: {exc}") from exc
    finally:
        os.chdir(before)


def run_block(block: Block, session: Session) -> None:
    """Run one block in its page's session; raise :class:`SnippetError` if it fails."""
    if not block.runs:
        if "norun" in block.classes and not block.attrs.get("reason"):
            raise SnippetError(f"{block.name}: a norun block says why: {{.norun reason=...}}")
        return
    if block.kind in PYTHON:
        run_python(block, session)
    elif block.kind in SHELL:
        run_shell(block, session)
    elif block.kind in CONSOLE:
        run_console(block, session)
    else:
        raise SnippetError(
            f"{block.name}: the fence names no known kind ({block.kind or 'none'}): "
            f"use one of {sorted(PYTHON | SHELL | CONSOLE | DATA)}"
        )


# ---------------------------------------------------------------- the tests

_PAGE_BLOCKS = {page: blocks(page, (ROOT / page).read_text()) for page in PAGES}
_SESSIONS: dict[str, Session] = {}


def _params() -> list[Any]:
    params = []
    for page, found in _PAGE_BLOCKS.items():
        marks = [pytest.mark.slow] if page in SLOW_PAGES else []
        for index, block in enumerate(found):
            params.append(pytest.param(page, index, marks=marks, id=block.name))
    return params


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("docs")


def _session(page: str, workspace: Path) -> Session:
    if page not in _SESSIONS:
        cwd = workspace / page.replace("/", "_").removesuffix(".md")
        shutil.rmtree(cwd, ignore_errors=True)
        cwd.mkdir()
        prepare(cwd)
        _SESSIONS[page] = Session(page, cwd, command_env(workspace / "bin"))
    return _SESSIONS[page]


@pytest.mark.parametrize(("page", "index"), _params())
def test_block(page: str, index: int, workspace: Path) -> None:
    """The block runs and prints what the page shows (after the page's earlier blocks)."""
    session = _session(page, workspace)
    found = _PAGE_BLOCKS[page]
    while session.done < index:  # blocks a test selection skipped: the page builds on them
        session.done += 1
        run_block(found[session.done - 1], session)
    session.done = index + 1  # a failure is reported once, by its own test
    run_block(found[index], session)


@pytest.mark.parametrize("page", PAGES)
def test_every_block_is_fenced_with_its_kind(page: str) -> None:
    text = (ROOT / page).read_text()
    assert indented_code(text) == [], f"{page}: indented code blocks: use a fence with a kind"
    for block in _PAGE_BLOCKS[page]:
        known = PYTHON | SHELL | CONSOLE | DATA
        assert block.kind in known, f"{block.name}: the fence names no known kind"


def test_slow_pages_exist() -> None:
    assert set(SLOW_PAGES) <= set(PAGES)


# ---------------------------------------------------------------- the runner itself


def _run_page(text: str, tmp_path: Path) -> None:
    session = Session("page.md", tmp_path, command_env(tmp_path / "bin"))
    for block in blocks("page.md", text):
        run_block(block, session)


GOOD = """\
Text.

```pycon
>>> x = 6 * 7
>>> x
42
```

```python
y = x + 1
```

```console
$ echo $((6 * 7)); echo ok
42
...
$ true
```

```sh
test -d . # a comment
```

```sh {.norun reason="it would fail"}
exit 1
```
"""


def test_the_runner_passes_a_good_page(tmp_path: Path) -> None:
    _run_page(GOOD, tmp_path)


@pytest.mark.parametrize(
    "wrong",
    [
        "```pycon\n>>> 6 * 7\n41\n```\n",  # shown output differs
        "```python\nraise ValueError('no')\n```\n",  # a block that raises
        "```console\n$ echo 42\n41\n```\n",  # a command's output differs
        "```console\n$ false\n```\n",  # a command shown without output fails
        "```sh\ntrue\nfalse\n```\n",  # a command of a shell block fails
        "```sh {.norun}\nexit 1\n```\n",  # norun without a reason
        "```rust\nfn main() {}\n```\n",  # a kind the runner does not know
    ],
)
def test_the_runner_fails_a_wrong_snippet(wrong: str, tmp_path: Path) -> None:
    with pytest.raises(SnippetError):
        _run_page(wrong, tmp_path)


def test_machine_lines_are_left_out(tmp_path: Path) -> None:
    text = (
        "```console\n"
        "$ echo 'perfectplay: solving: 3 of 9 cards (1.2 s)'; echo 7; "
        "echo 'perfectplay: solving done in 2.0 s'\n"
        "7\n```\n"
    )
    _run_page(text, tmp_path)


def test_indented_code_is_found() -> None:
    text = "Para.\n\n    perfectplay alea\n\n- item\n\n    continued item\n"
    assert indented_code(text) == [3]
