"""Built-in language runners: an entry with a ``solution.<ext>`` file and no ``command``.

The runner is chosen by the file's extension: C (gcc), C++ (g++), Python (the interpreter
running the build), Java (javac/java), Rust (rustc) and Go (go), each where its tool is
installed. A compiled solution is built once per build into a cache outside the tree, in a
folder named by the hash of what the program is made of (the runner, the tool's version,
the flags, the source and every file it includes), so an unchanged program is not compiled
again by the next build either.

For C and C++, the files of the tree a solution includes with ``#include "..."`` are found
transitively, as the preprocessor finds them first (relative to the including file), so
the page shows every file the program is compiled from (:func:`includes`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from perfectplay.site.errors import SiteError
from perfectplay.site.repo import rel

__all__ = ["RUNNERS", "Built", "Runner", "Runners", "default_cache", "includes", "runner_for"]

COMPILE_LIMIT = 300.0  # seconds one compilation may take
_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)


@dataclass(frozen=True)
class Runner:
    """How one language is built and run (``tool`` is looked up on PATH)."""

    language: str  # the key of ``[flags]`` in site.toml
    name: str
    extensions: tuple[str, ...]
    tool: str
    compiled: bool = True

    def shown_command(self, source: str, flags: str) -> str:
        """The command line a page shows (``source`` is the file's name).

        >>> RUNNERS["cpp"].shown_command("solution.cpp", "-O2")
        'g++ -O2 solution.cpp'
        """
        if self.language == "python":
            return f"python3 {source}"
        if self.language == "java":
            javac = " ".join(filter(None, ("javac", flags, source)))
            return f"{javac} && java {Path(source).stem}"
        if self.language == "go":
            return " ".join(filter(None, ("go build", flags, source)))
        return " ".join(filter(None, (self.tool, flags, source)))

    def compile_argv(self, tool: str, source: Path, folder: Path, flags: str) -> list[str]:
        words = shlex.split(flags)
        if self.language == "c":
            return [tool, *words, "-o", str(folder / "solution"), str(source), "-lm"]
        if self.language in ("cpp", "rust"):
            return [tool, *words, "-o", str(folder / "solution"), str(source)]
        if self.language == "java":
            return [tool, *words, "-d", str(folder), str(source)]
        if self.language == "go":
            return [tool, "build", *words, "-o", str(folder / "solution"), str(source)]
        raise ValueError(self.language)

    def run_argv(self, source: Path, folder: Path) -> list[str]:
        if self.language == "python":
            return [sys.executable, str(source)]
        if self.language == "java":
            java = shutil.which("java") or "java"
            return [java, "-cp", str(folder), source.stem]
        return [str(folder / "solution")]


RUNNERS: dict[str, Runner] = {
    r.language: r
    for r in (
        Runner("c", "C", (".c",), "gcc"),
        Runner("cpp", "C++", (".cpp", ".cc", ".cxx", ".c++"), "g++"),
        Runner("python", "Python", (".py",), "python3", compiled=False),
        Runner("java", "Java", (".java",), "javac"),
        Runner("rust", "Rust", (".rs",), "rustc"),
        Runner("go", "Go", (".go",), "go"),
    )
}


def runner_for(filename: str) -> Runner | None:
    """The runner of a solution file by its extension; None when there is none.

    >>> runner_for("solution.cc").name, runner_for("solution.f90")
    ('C++', None)
    """
    suffix = Path(filename).suffix.lower()
    return next((r for r in RUNNERS.values() if suffix in r.extensions), None)


def default_cache() -> Path:
    """``$XDG_CACHE_HOME/perfectplay-site`` (``~/.cache/perfectplay-site`` by default)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "perfectplay-site"


def includes(root: Path, source: str, entry: str) -> list[str]:
    """The files of the tree ``source`` includes with ``#include "..."``, transitively, in
    the order first met (depth first), repository-relative. An include the preprocessor
    would find next to the including file but that lies outside the tree is an error
    naming the entry and the including file; one not found there is left to the compiler's
    search (a system header)."""
    base = root.resolve()
    found: list[str] = []
    seen = {source}

    def visit(path: str) -> None:
        data = (base / path).read_bytes()
        for match in _INCLUDE.finditer(data):
            name = match.group(1).decode("utf-8", "replace")
            joined = os.path.normpath(os.path.join(os.path.dirname(path), name))
            target = (base / joined).resolve() if not os.path.isabs(name) else Path(name)
            leaves = os.path.isabs(name) or not target.is_relative_to(base)
            if leaves and (target.exists() or os.path.isabs(name) or joined.startswith("..")):
                raise SiteError(
                    entry, path, f'#include "{name}" leaves the tree: a page shows its own files'
                )
            if not target.is_file():
                continue
            shown = rel(base, target)
            if ".git" in Path(shown).parts:
                raise SiteError(entry, path, f'#include "{name}" reads from .git')
            if shown not in seen:
                seen.add(shown)
                found.append(shown)
                visit(shown)

    visit(source)
    return found


@dataclass(frozen=True)
class Built:
    """A runnable solution: the argv to start it."""

    argv: tuple[str, ...]


class Runners:
    """The runners of one build: tools looked up once, each program compiled once.

    ``cache`` holds ``bin/<hash>/`` folders, one per program as it was compiled; a folder
    appears whole (compiled elsewhere in the cache, then renamed) or not at all.
    """

    def __init__(self, root: Path, cache: Path, flags: dict[str, str]) -> None:
        self.root = root
        self.cache = cache
        self.flags = flags
        self._lock = threading.Lock()
        self._tools: dict[str, tuple[str, str] | None] = {}
        self._built: dict[str, threading.Lock] = {}

    def tool(self, runner: Runner) -> tuple[str, str] | None:
        """(path, first line of its version) of the runner's tool; None when missing."""
        with self._lock:
            if runner.language not in self._tools:
                self._tools[runner.language] = self._find(runner)
            return self._tools[runner.language]

    @staticmethod
    def _find(runner: Runner) -> tuple[str, str] | None:
        if not runner.compiled:
            return sys.executable, sys.version.split()[0]
        path = shutil.which(runner.tool)
        if path is None:
            return None
        flag = "version" if runner.language == "go" else "--version"
        try:
            proc = subprocess.run([path, flag], capture_output=True, timeout=60)
            text = (proc.stdout or proc.stderr).decode("utf-8", "replace").strip()
        except (OSError, subprocess.TimeoutExpired):
            return None
        return path, text.splitlines()[0] if text else ""

    def key(self, runner: Runner, files: Sequence[str], data: dict[str, bytes]) -> str:
        """The hash naming a program: runner, tool, flags and the bytes of its files."""
        tool = self.tool(runner)
        digest = hashlib.sha256()
        for part in (runner.language, *(tool or ("", "")), self.flags.get(runner.language, "")):
            digest.update(part.encode() + b"\0")
        for path in files:
            digest.update(path.encode() + b"\0" + hashlib.sha256(data[path]).digest())
        return digest.hexdigest()[:32]

    def build(self, entry: str, runner: Runner, source: str, key: str) -> Built:
        """The runnable program of ``source`` (compiled now unless the cache has it)."""
        tool = self.tool(runner)
        if tool is None:
            raise SiteError(entry, source, f"the {runner.name} runner needs {runner.tool}, "
                            "which is not installed (or give a 'command')")
        path = self.root / source
        folder = self.cache / "bin" / key
        if not runner.compiled:
            return Built(tuple(runner.run_argv(path, folder)))
        with self._lock:
            lock = self._built.setdefault(key, threading.Lock())
        with lock:
            if not (folder / ".done").is_file():
                self._compile(entry, runner, tool[0], source, folder)
        return Built(tuple(runner.run_argv(path, folder)))

    def _compile(self, entry: str, runner: Runner, tool: str, source: str, folder: Path) -> None:
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=".compiling-", dir=folder.parent))
        except OSError as exc:
            raise SiteError(
                "", str(self.cache), f"cannot write the cache: {exc.strerror or exc} "
                "(choose another with --cache DIR)"
            ) from None
        try:
            env = dict(os.environ)
            if runner.language == "go":
                env.setdefault("GOCACHE", str(self.cache / "go-build"))
            argv = runner.compile_argv(
                tool, self.root / source, work, self.flags.get(runner.language, "")
            )
            try:
                proc = subprocess.run(
                    argv, capture_output=True, cwd=work, env=env, timeout=COMPILE_LIMIT
                )
            except subprocess.TimeoutExpired:
                raise SiteError(
                    entry, source, f"{runner.tool} ran longer than {COMPILE_LIMIT:g} s"
                ) from None
            if proc.returncode != 0:
                lines = proc.stderr.decode("utf-8", "replace").splitlines()
                first = next((ln for ln in lines if "error" in ln), lines[0] if lines else "")
                first = first.replace(str(self.root) + os.sep, "")
                raise SiteError(entry, source, f"does not compile ({runner.tool}): {first}")
            (work / ".done").write_bytes(b"")
            try:
                os.rename(work, folder)
            except OSError:
                # Another build put the same program in place first: it is the same bytes.
                if not (folder / ".done").is_file():
                    raise
        finally:
            shutil.rmtree(work, ignore_errors=True)
