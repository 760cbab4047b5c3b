"""Shared helpers of the benchmark suite: timing whole commands, reference programs.

Timing runs each command as a separate process, ``repeats`` times, and reports the
median, min and max wall time and the peak resident memory of that one child (read with
``os.wait4``, so runs do not blur into each other). A figure measured inside a process (a
solver's time after imports) comes with the whole process that produced it: its
``Row.process`` is the wall time of that child, start-up, imports and kernel loading
included (what a user waits for), median of several runs where the figure is cheap.
Side-by-side comparisons alternate ours/reference run by run so drift on a noisy machine
affects both equally.

Reference programs are extracted from the seed editorials (``../shared/seeds`` next to the
repository, or ``$PERFECTPLAY_SEEDS``) and compiled into a cache directory at run time.
They never enter the repository; where the seeds are absent the table says
"reference unavailable".
"""

from __future__ import annotations

import hashlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEEDS = Path(os.environ.get("PERFECTPLAY_SEEDS", ROOT.parent / "shared" / "seeds"))
CACHE = Path(
    os.environ.get("PERFECTPLAY_BENCH_CACHE", Path(tempfile.gettempdir()) / "perfectplay-bench")
)
PERFECTPLAY = [sys.executable, "-m", "perfectplay"]

# Time what a user's install does: Python caches the bytecode of the modules it imports.
# An environment that turns the cache off (PYTHONDONTWRITEBYTECODE, set on some CI and
# sandbox machines) would charge every run for compiling the package's sources again.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


@dataclass
class Row:
    """One line of the benchmark table."""

    area: str
    case: str
    figure: str
    reference: str = ""
    ratio: str = ""
    target: str = ""
    #: Wall time of the whole process behind an in-process ``figure`` (empty where the
    #: figure already times a whole command from outside).
    process: str = ""


@dataclass
class Timing:
    """Wall times (seconds) and peak RSS (MiB) of repeated runs of one command."""

    walls: list[float] = field(default_factory=list)
    peaks_mib: list[float] = field(default_factory=list)
    outputs: list[bytes] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.walls)

    @property
    def min(self) -> float:
        return min(self.walls)

    @property
    def max(self) -> float:
        return max(self.walls)

    @property
    def peak_mib(self) -> float:
        return max(self.peaks_mib)

    def __str__(self) -> str:
        return f"{self.median:.3f} s (min {self.min:.3f}, max {self.max:.3f})"


def run_once(
    cmd: list[str],
    stdin_path: Path | None = None,
    env: dict | None = None,
    cwd: Path | None = None,
) -> tuple[float, float, bytes]:
    """Run ``cmd`` once (in ``cwd``); return (wall seconds, peak RSS MiB, stdout)."""
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    out = tempfile.TemporaryFile()
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            cmd, stdin=stdin, stdout=out, stderr=subprocess.DEVNULL, env=env, cwd=cwd
        )
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        data = out.read()
    finally:
        if stdin_path:
            stdin.close()
        out.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} exited with {proc.returncode}")
    return wall, usage.ru_maxrss / 1024.0, data


def time_command(
    cmd: list[str], stdin_path: Path | None = None, repeats: int = 5, env=None, cwd=None
) -> Timing:
    t = Timing()
    for _ in range(repeats):
        wall, peak, out = run_once(cmd, stdin_path, env, cwd)
        t.walls.append(wall)
        t.peaks_mib.append(peak)
        t.outputs.append(out)
    return t


def time_pair(
    ours: list[str],
    ref: list[str] | None,
    stdin_path: Path | None = None,
    repeats: int = 5,
    env=None,
) -> tuple[Timing, Timing | None, float | None]:
    """Alternate ours/reference runs; return both timings and the median of pairwise ratios."""
    a, b, ratios = Timing(), Timing(), []
    run_once(ours, stdin_path, env)  # warm-up: JIT cache, page cache
    if ref:
        run_once(ref, stdin_path)
    for _ in range(repeats):
        wa, pa, oa = run_once(ours, stdin_path, env)
        a.walls.append(wa), a.peaks_mib.append(pa), a.outputs.append(oa)
        if ref:
            wb, pb, ob = run_once(ref, stdin_path)
            b.walls.append(wb), b.peaks_mib.append(pb), b.outputs.append(ob)
            ratios.append(wa / wb)
    if not ref:
        return a, None, None
    return a, b, statistics.median(ratios)


def python_child(args: list[str], repeats: int = 3, env=None, cwd=None) -> Timing:
    """Run ``python args...`` (a script that prints its in-process figures) ``repeats``
    times: the timing of the whole process, whose outputs carry the figures."""
    return time_command([sys.executable, *args], repeats=repeats, env=env, cwd=cwd)


def seed_text(prefix: str) -> str | None:
    """Text of the seed file whose name starts with ``prefix`` (e.g. ``"000"``), or None."""
    if not SEEDS.is_dir():
        return None
    for p in sorted(SEEDS.iterdir()):
        if p.name.startswith(prefix):
            return p.read_text(encoding="utf-8")
    return None


def compile_reference(name: str, source: str, lang: str = "c++") -> Path | None:
    """Compile ``source`` with ``-O2`` into the cache; return the binary (None if no compiler)."""
    compiler = {"c++": "g++", "c": "gcc"}[lang]
    if shutil.which(compiler) is None:
        return None
    CACHE.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(source.encode()).hexdigest()[:12]
    binary = CACHE / f"{name}-{digest}"
    if binary.exists():
        return binary
    src = CACHE / f"{name}-{digest}.{'cpp' if lang == 'c++' else 'c'}"
    src.write_text(source)
    res = subprocess.run(
        [compiler, "-O2", "-o", str(binary), str(src)], capture_output=True, text=True
    )
    if res.returncode != 0:
        print(f"[bench] reference {name} failed to compile:\n{res.stderr[:2000]}", file=sys.stderr)
        return None
    return binary


def reference_python(package: str, module: str) -> str | None:
    """The Python of a virtual environment under :data:`CACHE` with the public solver
    ``package`` installed (made on first use; importable as ``module``), or ``None`` when
    it cannot be installed. Reference solvers never become dependencies."""
    venv = CACHE / f"{package}-venv"
    python = venv / "bin" / "python"
    if not python.exists():
        try:
            subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
            subprocess.run(
                [str(python), "-m", "pip", "install", "-q", package],
                check=True,
                timeout=900,
                capture_output=True,
            )
        except (subprocess.SubprocessError, OSError):
            return None
    ok = subprocess.run([str(python), "-c", f"import {module}"], capture_output=True)
    return str(python) if ok.returncode == 0 else None


def fmt_ratio(r: float | None) -> str:
    return "reference unavailable" if r is None else f"{r:.2f}x"
