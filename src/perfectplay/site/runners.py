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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from perfectplay.site.contained import run_contained
from perfectplay.site.errors import SiteError
from perfectplay.site.languages import expand, java_main_class, java_public_class
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
    "template",
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
    compile_template: str = ""  # site.toml's [languages.EXT] (languages.expand)
    run_template: str = ""

    @property
    def scans_includes(self) -> bool:
        """Whether the preprocessor is asked what the program includes (C, C++)."""
        return self.language in ("c", "cpp") and not self.run_template

    def shown_command(self, source: str, flags: str, main: str | None = None) -> str:
        """The command line a page shows (``source`` is the file's name; ``main`` a Java
        program's main class).

        >>> RUNNERS["cpp"].shown_command("solution.cpp", "-O2")
        'g++ -O2 solution.cpp'
        >>> template("sh", {"run": "sh {src}"}).shown_command("solution.sh", "")
        'sh solution.sh'
        """
        if self.run_template:
            here = Path(".")
            run = shlex.join(expand(self.run_template, here / source, here))
            if not self.compile_template:
                return run
            return f"{shlex.join(expand(self.compile_template, here / source, here))} && {run}"
        if self.language == "python":
            return f"python3 {source}"
        if self.language == "java":
            javac = " ".join(filter(None, ("javac", flags, source)))
            return f"{javac} && java {main or Path(source).stem}"
        if self.language == "go":
            return " ".join(filter(None, ("go build", flags, source)))
        return " ".join(filter(None, (self.tool, flags, source)))

    def compile_argv(self, tool: str, source: Path, folder: Path, flags: str) -> list[str]:
        words = shlex.split(flags)
        if self.compile_template:
            return [tool, *expand(self.compile_template, source, folder)[1:]]
        if self.language == "c":
            return [tool, *words, "-o", str(folder / "solution"), str(source), "-lm"]
        if self.language in ("cpp", "rust"):
            return [tool, *words, "-o", str(folder / "solution"), str(source)]
        if self.language == "java":
            return [tool, *words, "-d", str(folder), str(source)]
        if self.language == "go":
            return [tool, "build", *words, "-o", str(folder / "solution"), str(source)]
        if self.language == "kotlin":
            jar = str(folder / "solution.jar")
            return [tool, *words, str(source), "-include-runtime", "-d", jar]
        if self.language == "haskell":
            objects = str(folder / "objects")
            return [
                tool,
                *words,
                "-outputdir",
                objects,
                "-o",
                str(folder / "solution"),
                str(source),
            ]
        raise ValueError(self.language)

    def run_argv(self, source: Path, folder: Path) -> list[str]:
        if self.run_template:
            return expand(self.run_template, source, folder)
        if self.language == "python":
            return [sys.executable, str(source)]
        if self.language == "java":
            java = shutil.which("java") or "java"
            main = java_main_class(source.read_text("utf-8", "replace"))
            return [java, "-cp", str(folder), main or source.stem]
        if self.language == "kotlin":
            return [shutil.which("java") or "java", "-jar", str(folder / "solution.jar")]
        return [str(folder / "solution")]


RUNNERS: dict[str, Runner] = {
    r.language: r
    for r in (
        Runner("c", "C", (".c",), "gcc"),
        Runner("cpp", "C++", (".cpp", ".cc", ".cxx", ".c++"), "g++"),
        Runner("python", "Python", (".py", ".py3"), "python3", compiled=False),
        Runner("java", "Java", (".java",), "javac"),
        Runner("rust", "Rust", (".rs",), "rustc"),
        Runner("go", "Go", (".go",), "go"),
        Runner("kotlin", "Kotlin", (".kt",), "kotlinc"),
        Runner("haskell", "Haskell", (".hs",), "ghc"),
    )
}


def template(extension: str, commands: Mapping[str, str]) -> Runner:
    """The runner of ``site.toml``'s ``[languages.EXTENSION]`` (``compile``, ``run``); its
    language is the extension, its tool the first word of its first command."""
    first = commands.get("compile") or commands["run"]
    return Runner(
        extension,
        f".{extension} (site.toml)",
        (f".{extension}",),
        shlex.split(first)[0],
        compiled=bool(commands.get("compile")),
        compile_template=commands.get("compile", ""),
        run_template=commands["run"],
    )


def runner_for(
    filename: str, languages: Mapping[str, Mapping[str, str]] | None = None
) -> Runner | None:
    """The runner of a solution file by its extension (``languages``: the templates of
    ``site.toml``, which come first); None when there is none.

    >>> runner_for("solution.cc").name, runner_for("solution.f90")
    ('C++', None)
    >>> runner_for("a.f90", {"f90": {"compile": "gfortran -o {bin} {src}", "run": "{bin}"}}).tool
    'gfortran'
    """
    suffix = Path(filename).suffix.lower()
    if languages and suffix[1:] in languages:
        return template(suffix[1:], languages[suffix[1:]])
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
    words = flag_words(flags, base)
    outside = include_folders(words, base)
    argv = [tool, *words, "-M", "-H", str(base / source)]
    run = run_contained(
        argv,
        b"",
        time_limit=COMPILE_LIMIT,
        output_limit=16 << 20,
        jail=jail or Jail(base, sandboxed=False),
        read_only=outside,
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
        elif any(path.is_relative_to(folder) for folder in (*SYSTEM, *outside)):
            parents.append(str(path))
            if str(path) not in system:
                system.append(str(path))
        else:
            raise SiteError(
                entry, including, f"#include of {path} leaves the tree: a page shows its own files"
            )
    return Included(tree, system)


#: The compiler flags naming a folder of headers (``-I DIR`` or ``-IDIR``).
_INCLUDE_FLAGS = ("-I", "-isystem", "-iquote", "-idirafter")


def flag_words(flags: str, root: Path) -> list[str]:
    """The words of ``flags``, an include folder named relative to the repository made
    absolute (programs are compiled in an empty working folder, not at the root).

    >>> flag_words("-O2 -I lib -Iinclude -isystem /opt/x", Path("/r"))
    ['-O2', '-I', '/r/lib', '-I/r/include', '-isystem', '/opt/x']
    """
    words = shlex.split(flags)
    found = []
    for i, word in enumerate(words):
        if i and words[i - 1] in _INCLUDE_FLAGS and not os.path.isabs(word):
            word = str(root / word)
        else:
            for flag in _INCLUDE_FLAGS:
                rest = word[len(flag) :]
                if word.startswith(flag) and rest:
                    if not rest.startswith(("/", "-")):
                        word = flag + str(root / rest)
                    break
        found.append(word)
    return found


def include_folders(words: Sequence[str], root: Path) -> list[str]:
    """The include folders of ``words`` (from :func:`flag_words`) outside the repository
    and the system's folders: the sandbox shows them, read-only, and the headers read
    there are hashed as system headers are.

    >>> include_folders(["-I", "/tmp", "-I/r/lib", "-O2"], Path("/r"))
    ['/tmp']
    """
    found = []
    for i, word in enumerate(words):
        folder = words[i + 1] if word in _INCLUDE_FLAGS and i + 1 < len(words) else None
        if folder is None and word.startswith("-I") and len(word) > 2:
            folder = word[2:]
        if folder is None or not os.path.isdir(folder):
            continue
        path = Path(os.path.realpath(folder))
        if path.is_relative_to(root) or any(path.is_relative_to(s) for s in SYSTEM):
            continue
        if str(path) not in found:
            found.append(str(path))
    return found


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
        # A program that does not compile, by key: the error, said again without compiling
        # again for each of the entry's samples and tests.
        self._errors: dict[str, SiteError] = {}

    def tool(self, runner: Runner) -> tuple[str, str] | None:
        """(path, first line of its version) of the runner's tool; None when missing."""
        with self._lock:
            if runner.language not in self._tools:
                self._tools[runner.language] = self._find(runner)
            return self._tools[runner.language]

    @staticmethod
    def _find(runner: Runner) -> tuple[str, str] | None:
        if runner.run_template:
            # Any tool: its version is not asked (no flag is common to all), its file's
            # size and modification time stand for it.
            path = shutil.which(runner.tool)
            if path is None:
                return None
            info = os.stat(path)
            return path, f"{info.st_size}:{info.st_mtime_ns}"
        if not runner.compiled:
            return sys.executable, sys.version.split()[0]
        path = shutil.which(runner.tool)
        if path is None:
            return None
        flag = {"go": "version", "kotlin": "-version"}.get(runner.language, "--version")
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
        for part in (
            runner.language,
            runner.compile_template,
            runner.run_template,
            *(tool or ("", "")),
            self.flags.get(runner.language, ""),
        ):
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
            if key in self._errors:
                raise self._errors[key]
            if not (folder / ".done").is_file():
                try:
                    self._compile(entry, runner, tool[0], source, folder)
                except SiteError as exc:
                    self._errors[key] = exc
                    raise
        return Built(tuple(runner.run_argv(path, folder)), str(folder))

    def _source_to_compile(self, runner: Runner, source: str, work: Path) -> Path:
        """The file given to the compiler: the source, or for Java whose public class is
        not named after the file, a copy named after the class (as javac requires)."""
        path = self.root / source
        if runner.language != "java" or runner.run_template:
            return path
        public = java_public_class(path.read_text("utf-8", "replace"))
        if public is None or public == path.stem:
            return path
        copy = work / "source" / f"{public}.java"
        copy.parent.mkdir()
        shutil.copyfile(path, copy)
        return copy

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
            words = flag_words(self.flags.get(runner.language, ""), self.root)
            argv = runner.compile_argv(
                tool, self._source_to_compile(runner, source, work), work, shlex.join(words)
            )
            run = run_contained(
                argv,
                b"",
                time_limit=COMPILE_LIMIT,
                output_limit=16 << 20,
                env=env,
                jail=self.jail,
                read_only=[*self.folders(runner), *include_folders(words, self.root)],
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
