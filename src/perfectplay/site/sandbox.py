"""The sandbox every program of the tree runs in: bubblewrap (``bwrap``).

A site build runs code it did not write: solutions, checkers, compilers on the tree's
sources, the tree's own ``perfectplay --help``. Each runs in a fresh set of namespaces
(``--unshare-all``: no network, its own PID namespace, so every process it starts dies
with it; ``--die-with-parent``: and with the build), as an unprivileged user, seeing:

- the system folders (``/usr`` and the links into it, the few files of ``/etc`` that
  compilers and the Java runtime need, not ``/etc/passwd``), read-only;
- the interpreter running the build and the folders on its ``sys.path``, read-only;
- the repository, read-only, with ``.git`` hidden;
- the folders the run is given (a compiled program, a checker's files) read-only, and one
  empty writable folder as its working directory;
- a numba cache of its own in its private ``/tmp``, made of links to the kernels the
  builder itself compiled (read-only: :func:`_seed_numba`), so nothing a run compiles or
  writes there outlives it;

with a cleared environment (no ``HOME``, no tokens: :data:`ENVIRONMENT` and what the run
sets) and limits on CPU time, address space, open files and file size. Where ``bwrap`` is
missing or cannot create namespaces (:func:`unavailable`, one real probe per process), a
build refuses to run code unless the repository is trusted (``--trust``).
"""

from __future__ import annotations

import functools
import glob
import hashlib
import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from perfectplay._util.ahead import twin_dir
from perfectplay.site.errors import SiteError

__all__ = ["ENVIRONMENT", "Jail", "Limits", "jail_for", "unavailable"]

#: The environment of every sandboxed run, before what the run itself sets.
ENVIRONMENT = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
}
#: System folders bound read-only (a link such as Debian's /bin -> usr/bin stays a link).
SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: The parts of /etc that compilers, the dynamic linker and the Java runtime read.
ETC = (
    "/etc/alternatives",
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/java-*",
)
#: The user id a program runs as inside its user namespace.
UID = 65534
#: Where a sandboxed run's numba cache is: in its own ``/tmp``, gone with it.
NUMBA_CACHE = "/tmp/numba"


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run (``setrlimit``; wall time is the caller's)."""

    cpu_seconds: int
    memory: int = 8 << 30  # address space, bytes (the JVM and numba reserve much)
    processes: int = 512  # threads count: numba and the JVM start dozens
    file_size: int = 256 << 20  # the largest file it may write
    open_files: int = 1024
    # bytes; None: unlimited as judges give it (``ulimit -s unlimited``), where allowed
    stack: int | None = None

    def argv(self) -> list[str]:
        """The ``prlimit`` prefix setting these limits (inherited by the sandbox).

        >>> Limits(3).argv()[:4]
        ['prlimit', '--cpu=3', '--as=8589934592', '--stack=unlimited']
        """
        return [
            "prlimit",
            f"--cpu={self.cpu_seconds}",
            f"--as={self.memory}",
            f"--stack={_largest_stack() if self.stack is None else self.stack}",
            f"--nproc={self.processes}",
            f"--fsize={self.file_size}",
            f"--nofile={self.open_files}",
            "--core=0",
            "--",
        ]


def _largest_stack() -> str:
    """The largest stack a run may be given: unlimited, unless the builder's own hard limit
    is lower (raising it needs a privilege; prlimit would then refuse to run anything)."""
    hard = resource.getrlimit(resource.RLIMIT_STACK)[1]
    return "unlimited" if hard == resource.RLIM_INFINITY else str(hard)


@functools.cache
def unavailable() -> str | None:
    """Why programs cannot be sandboxed here (None: they can). A real probe: ``bwrap`` is
    started with the namespaces a run uses and must run ``true`` inside them."""
    for tool in ("bwrap", "prlimit"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (Debian: apt-get install bubblewrap util-linux)"
    probe = _base_argv(()) + ["--chdir", "/", "--", "true"]
    try:
        proc = subprocess.run(probe, capture_output=True, timeout=30, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"bwrap cannot start: {exc}"
    if proc.returncode != 0:
        said = proc.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"bwrap cannot create namespaces here: {said[-1] if said else 'no message'}"
    return None


def _base_argv(read_only: Iterable[str]) -> list[str]:
    argv = _system_argv()
    for path in read_only:
        argv += ["--ro-bind", path, path]
    return argv


def _system_argv() -> list[str]:
    """bwrap, its namespaces and the system's folders (looked up once per process)."""
    return list(_system_argv_once())


@functools.cache
def _system_argv_once() -> tuple[str, ...]:
    argv = [
        shutil.which("bwrap") or "bwrap",
        "--unshare-all",
        "--unshare-user",
        "--uid",
        str(UID),
        "--gid",
        str(UID),
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--tmpfs",
        "/tmp",
    ]
    for path in SYSTEM:
        if os.path.islink(path):
            argv += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            argv += ["--ro-bind", path, path]
    for pattern in ETC:
        for path in sorted(glob.glob(pattern)):
            argv += ["--ro-bind", path, path]
    return tuple(argv)


def _interpreter_folders() -> list[str]:
    """The folders the running interpreter and its packages live in (never ``/`` or a home
    folder, which would expose the user's files)."""
    return list(_folders_of((sys.prefix, sys.base_prefix, sys.exec_prefix, *sys.path)))


@functools.cache
def _folders_of(entries: tuple[str, ...]) -> tuple[str, ...]:
    home = os.path.expanduser("~")
    found: list[str] = []
    for entry in entries:
        if not entry or not os.path.isabs(entry) or not os.path.isdir(entry):
            continue
        path = os.path.realpath(entry)
        if Path(home).is_relative_to(path) or any(Path(path).is_relative_to(s) for s in SYSTEM):
            continue
        if not any(path == f or path.startswith(f + os.sep) for f in found):
            found = [f for f in found if not f.startswith(path + os.sep)] + [path]
    return tuple(sorted(found))


@dataclass(frozen=True)
class Jail:
    """How the programs of one build run: sandboxed (``sandboxed``) or, for a trusted tree
    where no sandbox is available, as plain child processes with the builder's environment.

    ``root`` is bound read-only; ``numba`` is the folder of kernels compiled by the
    builder's own processes for the tree's ``src``, shown read-only to every run, each of
    which starts from links to them in a numba cache of its own (:data:`NUMBA_CACHE`).
    """

    root: Path
    sandboxed: bool = True
    numba: str | None = None
    environment: dict[str, str] = field(default_factory=dict)

    def env(self, extra: dict[str, str]) -> dict[str, str]:
        """The environment of a run that sets ``extra``."""
        if not self.sandboxed:
            return {**os.environ, **extra}
        return {**ENVIRONMENT, **self.environment, **extra}

    def wrap(
        self,
        argv: Sequence[str],
        cwd: str,
        limits: Limits,
        env: dict[str, str],
        read_only: Iterable[str] = (),
        writable: Iterable[str] = (),
    ) -> list[str]:
        """The command line running ``argv`` in the sandbox with ``cwd`` as its writable
        working directory, ``env`` (from :meth:`env`) its whole environment and
        ``read_only`` folders bound too."""
        if not self.sandboxed:
            return list(argv)
        root = str(self.root)
        binds = [*_interpreter_folders(), root, *read_only, *([self.numba] if self.numba else [])]
        command = limits.argv() + _base_argv(binds)
        git = self.root / ".git"
        if git.is_dir() and not git.is_symlink():
            command += ["--tmpfs", str(git)]
        elif git.exists() or git.is_symlink():
            command += ["--ro-bind", "/dev/null", str(git)]
        for path in (*writable, cwd):
            command += ["--bind", path, path]
        command += ["--chdir", cwd, "--clearenv"]
        for name, value in sorted(env.items()):
            command += ["--setenv", name, value]
        command.append("--")
        if self.numba is not None:
            # The run's own cache (its /tmp is a fresh tmpfs): links to the builder's
            # kernels, which are read-only here; a kernel the run compiles replaces its link.
            link = f'cp -rs "$0" {NUMBA_CACHE} 2>/dev/null; exec "$@"'
            command += ["/bin/sh", "-c", link, self.numba]
        return command + list(argv)


def _seed_numba(root: Path, folder: Path) -> None:
    """Copy the numba caches the builder's own processes compiled for the tree's ``src``
    (beside its sources, or in the builder's ``NUMBA_CACHE_DIR``), and the ahead-of-time
    twins of perfectplay's kernels (:func:`~perfectplay._util.ahead.twin_dir`), into
    ``folder``, in the layout numba uses there, so that a run does not compile them again.
    Only bytes are copied: nothing of them runs outside the sandbox, and no run writes
    there."""
    src = root / "src"
    if not src.is_dir():
        return
    twins = twin_dir()
    if twins.is_dir():
        for file in twins.iterdir():
            if file.is_file() and _newer(file, folder / twins.name / file.name):
                (folder / twins.name).mkdir(exist_ok=True)
                shutil.copy2(file, folder / twins.name / file.name)
    own = os.environ.get("NUMBA_CACHE_DIR")
    for package in (p for p in src.rglob("*") if p.is_dir() and p.name != "__pycache__"):
        # numba's _UserProvidedCacheLocator: <name of the folder>_<sha1 of its path>.
        target = folder / f"{package.name}_{hashlib.sha1(str(package).encode()).hexdigest()}"
        sources = [package / "__pycache__"]
        if own:
            sources.append(Path(own) / target.name)
        for source in sources:
            if not source.is_dir():
                continue
            for file in source.iterdir():
                if file.suffix in (".nbi", ".nbc") and _newer(file, target / file.name):
                    target.mkdir(exist_ok=True)
                    shutil.copy2(file, target / file.name)


def _newer(file: Path, copy: Path) -> bool:
    """Whether ``copy`` is missing or older than ``file`` (an index numba rewrote)."""
    try:
        return copy.stat().st_mtime_ns < file.stat().st_mtime_ns
    except FileNotFoundError:
        return True


def jail_for(root: Path, cache: Path | None, trust: bool) -> Jail:
    """The jail of a build of ``root``; :class:`SiteError` in one line when no sandbox is
    available and ``trust`` is not given."""
    why = unavailable()
    if why is not None:
        if not trust:
            raise SiteError(
                "",
                str(root),
                f"refusing to run the archive's programs without a sandbox: "
                f"{why}; pass --trust to run them unsandboxed if you trust this repository",
            )
        return Jail(root, sandboxed=False)
    numba: str | None = None
    if cache is not None:
        # The kernels the builder compiled for the tree's src are not compiled again in
        # each run. No run writes there (a folder kept between builds and CI runs): the
        # folder holds only what the builder's own processes compiled, and is the tree's
        # own, so one archive's kernels never reach another's runs.
        seed = cache / "numba-seed" / hashlib.sha256(str(root).encode()).hexdigest()[:16]
        try:
            seed.mkdir(parents=True, exist_ok=True)
            _seed_numba(root, seed)
            numba = str(seed)
        except OSError:
            pass  # no seed: every run compiles what it needs
    return Jail(root, True, numba, {"NUMBA_CACHE_DIR": NUMBA_CACHE})
