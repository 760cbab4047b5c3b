"""Built-in language runners: an entry with a ``solution.<ext>`` file and no ``command``.

The runner is chosen by the file's extension: C (gcc), C++ (g++), Python (the interpreter
running the build), Java (javac/java), Rust (rustc) and Go (go), each where its tool is
installed. A compiled solution is built once per build into a cache outside the tree, in a
folder named by the hash of what the program is made of (the runner, the tool's version,
the flags, the source and every file it includes), so an unchanged program is not compiled
again by the next build either.

For C and C++, the files a solution includes are those its preprocessor reports reading
(``-M -H``, run in the sandbox with the runner's flags): the page shows every file of the
tree the program is compiled from, and the program's cache key covers them and the system
headers it reads (:func:`includes`).
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

from perfectplay.site.contained import run_contained
from perfectplay.site.errors import SiteError
from perfectplay.site.sandbox import SYSTEM, Jail

__all__ = [
    "RUNNERS",
    "Built",
    "Included",
    "Runner",
    "Runners",
    "default_cache",
    "includes",
    "runner_for",
]

COMPILE_LIMIT = 300.0  # seconds one compilation may take


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


@dataclass(frozen=True)
class Included:
    """The files a C or C++ source reads, as its compiler reports them (``-M -H``)."""

    tree: list[str]  # files of the tree, repository-relative, in the order first met
    system: list[str]  # system headers, absolute

    def stamp(self) -> list[str]:
        """Path, size and modification time of every system header (for a cache key: the
        headers change with the compiler's packages, rarely, and are many)."""
        parts = []
        for path in self.system:
            try:
                info = os.stat(path)
                parts.append(f"{path}\0{info.st_size}\0{info.st_mtime_ns}")
            except OSError:
                parts.append(f"{path}\0gone")
        return parts


def includes(
    root: Path,
    source: str,
    entry: str,
    *,
    tool: str | None = None,
    flags: str = "",
    jail: Jail | None = None,
) -> Included:
    """The files ``source`` includes, transitively, as the preprocessor itself finds them:
    ``tool`` (default: ``g++`` for C++ sources, ``gcc`` for C) is run with ``-M -H`` under
    ``flags`` in the build's sandbox, so a macro, a comment, a line continuation, a
    digraph or an absolute path includes exactly what the compiler would. A file it reads
    outside the tree and the system's folders is an error naming the entry and the file
    that includes it; so is one it cannot find."""
    base = root.resolve()
    language = "c" if source.endswith(".c") else "cpp"
    tool = tool or shutil.which(RUNNERS[language].tool) or RUNNERS[language].tool
    argv = [tool, *shlex.split(flags), "-M", "-H", str(base / source)]
    run = run_contained(
        argv,
        b"",
        time_limit=COMPILE_LIMIT,
        output_limit=16 << 20,
        jail=jail or Jail(base, sandboxed=False),
    )
    lines = run.stderr.decode("utf-8", "replace").splitlines()
    if not run.ok:
        raise _preprocessor_error(base, source, entry, lines, run.problem(COMPILE_LIMIT, 16 << 20))
    tree: list[str] = []
    system: list[str] = []
    parents = [source]  # the including file at each depth
    for line in lines:
        dots, _, name = line.partition(" ")
        if not name or dots.strip(".") or not dots:
            continue  # not a line of the include tree ("Multiple include guards ...")
        depth = len(dots)
        path = Path(os.path.normpath(name))
        including = parents[min(depth - 1, len(parents) - 1)]
        del parents[depth:]
        if path.is_relative_to(base):
            shown = path.relative_to(base).as_posix()
            if ".git" in Path(shown).parts:
                raise SiteError(entry, including, f"#include of {shown} reads from .git")
            parents.append(shown)
            if shown not in tree and shown != source:
                tree.append(shown)
        elif any(path.is_relative_to(folder) for folder in SYSTEM):
            parents.append(str(path))
            if str(path) not in system:
                system.append(str(path))
        else:
            raise SiteError(
                entry, including, f"#include of {path} leaves the tree: a page shows its own files"
            )
    return Included(tree, system)


def _preprocessor_error(
    base: Path, source: str, entry: str, lines: list[str], problem: str | None
) -> SiteError:
    """One line from the preprocessor's complaint, at the file and line it names."""
    for line in lines:
        found = re.match(r"(.+?):(\d+):\d+: (?:fatal )?error: (.*)", line)
        if found:
            path = Path(os.path.normpath(found.group(1)))
            where = path.relative_to(base).as_posix() if path.is_relative_to(base) else source
            return SiteError(
                entry, where, f"cannot preprocess: {found.group(3)}", int(found.group(2))
            )
    return SiteError(entry, source, f"cannot preprocess: {problem}")


@dataclass(frozen=True)
class Built:
    """A runnable solution: the argv to start it, and the folder it was compiled into (which
    its sandbox shows it, read-only); None for an interpreted one."""

    argv: tuple[str, ...]
    folder: str | None = None


class Runners:
    """The runners of one build: tools looked up once, each program compiled once.

    ``cache`` holds ``bin/<hash>/`` folders, one per program as it was compiled; a folder
    appears whole (compiled elsewhere in the cache, then renamed) or not at all. Compilers
    run in the build's ``jail`` like every program of the tree.
    """

    def __init__(
        self, root: Path, cache: Path, flags: dict[str, str], jail: Jail | None = None
    ) -> None:
        self.root = root
        self.cache = cache
        self.flags = flags
        self.jail = jail or Jail(root, sandboxed=False)
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
            if runner.language == "rust":
                # rustup's proxy reads the user's home, which a sandbox does not show: the
                # toolchain's own rustc is run instead.
                sysroot = (
                    subprocess.run([path, "--print", "sysroot"], capture_output=True, timeout=60)
                    .stdout.decode()
                    .strip()
                )
                if sysroot and os.path.isfile(os.path.join(sysroot, "bin", "rustc")):
                    path = os.path.join(sysroot, "bin", "rustc")
        except (OSError, subprocess.TimeoutExpired):
            return None
        return path, text.splitlines()[0] if text else ""

    def folders(self, runner: Runner) -> list[str]:
        """The folder of the runner's tool when it lies outside the system's folders (a
        toolchain in a home folder): the sandbox shows it, read-only."""
        tool = self.tool(runner)
        if tool is None or not runner.compiled:
            return []
        prefix = Path(os.path.realpath(tool[0])).parent.parent
        if any(prefix.is_relative_to(folder) for folder in SYSTEM) or prefix == Path("/"):
            return []
        return [str(prefix)]

    def key(
        self,
        runner: Runner,
        files: Sequence[str],
        data: dict[str, bytes],
        headers: Sequence[str] = (),
    ) -> str:
        """The hash naming a program: runner, tool, flags, the bytes of its files and the
        stamps of the system headers it reads (:meth:`Included.stamp`)."""
        tool = self.tool(runner)
        digest = hashlib.sha256()
        for part in (runner.language, *(tool or ("", "")), self.flags.get(runner.language, "")):
            digest.update(part.encode() + b"\0")
        for path in files:
            digest.update(path.encode() + b"\0" + hashlib.sha256(data[path]).digest())
        for stamp in headers:
            digest.update(stamp.encode() + b"\0")
        return digest.hexdigest()[:32]

    def build(self, entry: str, runner: Runner, source: str, key: str) -> Built:
        """The runnable program of ``source`` (compiled now unless the cache has it)."""
        tool = self.tool(runner)
        if tool is None:
            raise SiteError(
                entry,
                source,
                f"the {runner.name} runner needs {runner.tool}, "
                "which is not installed (or give a 'command')",
            )
        path = self.root / source
        folder = self.cache / "bin" / key
        if not runner.compiled:
            return Built(tuple(runner.run_argv(path, folder)))
        with self._lock:
            lock = self._built.setdefault(key, threading.Lock())
        with lock:
            if not (folder / ".done").is_file():
                self._compile(entry, runner, tool[0], source, folder)
        return Built(tuple(runner.run_argv(path, folder)), str(folder))

    def _compile(self, entry: str, runner: Runner, tool: str, source: str, folder: Path) -> None:
        try:
            folder.parent.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix=".compiling-", dir=folder.parent))
        except OSError as exc:
            raise SiteError(
                "",
                str(self.cache),
                f"cannot write the cache: {exc.strerror or exc} (choose another with --cache DIR)",
            ) from None
        try:
            env: dict[str, str] = {}
            writable = [str(work)]
            if runner.language == "go":
                env["GOCACHE"] = str(self.cache / "go-build")
                (self.cache / "go-build").mkdir(exist_ok=True)
                writable.append(env["GOCACHE"])
            argv = runner.compile_argv(
                tool, self.root / source, work, self.flags.get(runner.language, "")
            )
            run = run_contained(
                argv,
                b"",
                time_limit=COMPILE_LIMIT,
                output_limit=16 << 20,
                env=env,
                jail=self.jail,
                read_only=self.folders(runner),
                writable=writable,
            )
            if run.timed_out:
                raise SiteError(entry, source, f"{runner.tool} ran longer than {COMPILE_LIMIT:g} s")
            if run.returncode != 0:
                lines = run.stderr.decode("utf-8", "replace").splitlines()
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
