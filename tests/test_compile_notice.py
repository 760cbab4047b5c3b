"""The one-line notice before the first compile of a process (``perfectplay._util.jit``).

Each test runs Python in a subprocess with a fresh ``NUMBA_CACHE_DIR``, so numba has no
machine code on disk and must compile.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import perfectplay
from perfectplay._util.jit import COMPILE_NOTICE

SRC = str(Path(perfectplay.__file__).resolve().parent.parent)

# A script whose kernels live in a file, so that numba can cache them.
SCRIPT = """\
import sys
from perfectplay._util.jit import kernel
from perfectplay._util.progress import enable_progress

@kernel
def add(a, b):
    return a + b

@kernel
def mul(a, b):
    return a * b

add(1, 2)                      # progress off: the library says nothing
enable_progress(sys.argv[1] == "on")
print(mul(2, 3), add(2.5, 1))  # compiles twice: the notice comes once
"""


def _env(cache: Path, **extra: str) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if k not in ("PERFECTPLAY_QUIET", "PERFECTPLAY_NO_JIT")
    }
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (SRC, env.get("PYTHONPATH")) if x)
    env.update(extra)
    return env


def _run(args: list[str], cache: Path, cwd: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=cwd,
        env=_env(cache, **extra),
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_notice_once_before_compiling_then_silent_with_a_cache(tmp_path: Path) -> None:
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    first = _run([str(script), "on"], cache, tmp_path)
    assert first.returncode == 0, first.stderr
    assert first.stdout == "6 3.5\n"
    assert first.stderr.count(COMPILE_NOTICE) == 1, first.stderr
    again = _run([str(script), "on"], cache, tmp_path)  # loaded from the cache
    assert again.returncode == 0 and COMPILE_NOTICE not in again.stderr, again.stderr


@pytest.mark.parametrize("how", ["progress off", "PERFECTPLAY_QUIET=1"])
def test_no_notice_when_quiet(tmp_path: Path, how: str) -> None:
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    extra = {"PERFECTPLAY_QUIET": "1"} if how.startswith("PERFECTPLAY") else {}
    res = _run(
        [str(script), "off" if how == "progress off" else "on"], tmp_path / "c", tmp_path, **extra
    )
    assert res.returncode == 0 and res.stdout == "6 3.5\n", res.stderr
    assert "compiling" not in res.stderr, res.stderr


@pytest.mark.slow
def test_the_command_shows_the_notice_on_its_first_run(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    first = _run(["-m", "perfectplay", "alea", "--example"], cache, tmp_path)
    assert first.returncode == 0 and first.stdout == "9.677887141\n", first.stderr
    assert first.stderr.splitlines()[:1] == [COMPILE_NOTICE], first.stderr
    again = _run(["-m", "perfectplay", "alea", "--example"], cache, tmp_path)
    assert again.returncode == 0 and again.stderr == "", again.stderr
