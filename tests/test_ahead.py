"""Ahead-of-time twins of kernels (``perfectplay._util.ahead``).

The build runs in a subprocess with a fresh ``NUMBA_CACHE_DIR`` (where the twins live),
so that neither this process's numba nor a user's cache is involved.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import perfectplay
from perfectplay._util import ahead
from perfectplay._util.ahead import TwinSet, arg_key, twin_dir
from perfectplay._util.jit import COMPILE_NOTICE, Kernel, kernel

SRC = str(Path(perfectplay.__file__).resolve().parent.parent)

# numba.pycc compiles with the C compiler Python was built with.
_CC = (sysconfig.get_config_var("CC") or "cc").split()[0]
needs_cc = pytest.mark.skipif(shutil.which(_CC) is None, reason=f"no C compiler ({_CC})")

# A kernel that allocates, calls a helper and returns a tuple, like label-setting.
SCRIPT = """\
import json, sys
import numpy as np
from perfectplay._util.jit import helper, kernel
from perfectplay._util.progress import enable_progress

@helper
def scaled(x, f):
    return x * f

@kernel(ahead=True)
def prefix(xs, f):
    out = np.empty(xs.shape[0])
    s = 0.0
    for i in range(xs.shape[0]):
        s += scaled(xs[i], f)
        out[i] = s
    return out, xs.shape[0]

enable_progress(True)
out, n = prefix(np.arange(1, 5, dtype=np.int32), 0.5)
print(json.dumps({"out": out.tolist(), "n": n, "numba": "numba" in sys.modules,
                  "twin": type(n).__name__}))
"""


def _run(script: Path, cache: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PERFECTPLAY_QUIET", "PERFECTPLAY_NO_JIT", "PERFECTPLAY_NO_AHEAD")
    }
    env["NUMBA_CACHE_DIR"] = str(cache)
    env["PYTHONPATH"] = os.pathsep.join(x for x in (SRC, env.get("PYTHONPATH")) if x)
    env.update(extra)
    return subprocess.run(
        [sys.executable, str(script)],
        cwd=script.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@needs_cc
def test_built_once_then_loaded_without_numba(tmp_path: Path) -> None:
    script = tmp_path / "kernels.py"
    script.write_text(SCRIPT)
    cache = tmp_path / "cache"
    first = _run(script, cache)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count(COMPILE_NOTICE) == 1, first.stderr  # said once, as for the JIT
    built = sorted(p.name for p in (cache / "perfectplay-ahead").iterdir())
    assert len(built) == 1 and built[0].startswith("pp___main___prefix_"), built
    again = _run(script, cache)
    assert again.returncode == 0 and again.stderr == "", again.stderr
    got, expect = json.loads(again.stdout), json.loads(first.stdout)
    assert got == {"out": [0.5, 1.5, 3.0, 5.0], "n": 4, "numba": False, "twin": "int"}
    assert expect == {**got, "numba": True}  # the build imports numba; the load does not
    # The JIT runs the same source to the same numbers when twins are turned off.
    jit = _run(script, cache, PERFECTPLAY_NO_AHEAD="1")
    assert json.loads(jit.stdout) == expect, jit.stderr


def test_a_failed_build_is_tried_once_then_the_jit_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("PERFECTPLAY_NO_AHEAD", raising=False)
    tries = []

    def broken(*args: Any) -> None:
        tries.append(args)
        raise OSError("no C compiler")

    monkeypatch.setattr(ahead, "_compile", broken)
    twins = TwinSet(arg_key, "demo.broken", contextlib.nullcontext)
    args = (np.zeros(2), 1)
    assert twins.entry(args) is None and len(tries) == 1
    (failed,) = (tmp_path / "perfectplay-ahead").glob("*.failed")
    assert failed.read_text() == "OSError: no C compiler\n"
    assert TwinSet(arg_key, "demo.broken", contextlib.nullcontext).entry(args) is None
    assert len(tries) == 1 and not twins.available()  # a new process does not try again


def test_the_digest_follows_the_constants_a_kernel_reads(monkeypatch: pytest.MonkeyPatch) -> None:
    from perfectplay.solvers import retry

    before = ahead.source_digest(retry._label_setting)
    assert ahead.source_digest(retry._label_setting) == before  # the same in every process
    monkeypatch.setitem(retry._label_setting.py_func.__globals__, "np", json)
    assert ahead.source_digest(retry._label_setting) != before


def test_keys_tell_apart_what_numba_types_apart() -> None:
    a = np.arange(6, dtype=np.int64)
    ro = a.copy()
    ro.setflags(write=False)
    keys = {arg_key((x,)) for x in (a, a[::2], a.astype(np.int32), ro, a.reshape(2, 3).T)}
    assert len(keys) == 5
    assert arg_key((1, 2**64, True, np.float32(1))) == "int|bigint|bool|float32"


def test_twins_are_off_without_jit_and_switch_off_by_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("PERFECTPLAY_NO_AHEAD", "1")
    assert twin_dir() == tmp_path / "perfectplay-ahead"
    off = TwinSet(arg_key, "demo.off", contextlib.nullcontext)
    assert off.entry((1,)) is None and not off.available()
    assert not (tmp_path / "perfectplay-ahead").exists()
    with pytest.raises(ValueError, match="numba's defaults"):
        Kernel(lambda x: x, ahead=True, boundscheck=True)
    double = kernel(ahead=True)(lambda x: 2 * x)
    monkeypatch.setenv("PERFECTPLAY_NO_JIT", "1")
    assert double(21) == 42 and not double.loaded


@needs_cc
def test_yeetzhee_runs_label_setting_without_numba_once_built(tmp_path: Path) -> None:
    """The command of issue 19's start-up figure: after the first run builds the twin, a
    run imports no numba and prints the same bytes."""
    cases = Path(__file__).parent / "data/yeetzhee/data/secret/subtask2/1.in"
    script = tmp_path / "run.py"
    script.write_text(
        "import runpy, sys\n"
        f"sys.argv = ['perfectplay', 'yeetzhee', {str(cases)!r}]\n"
        "try:\n    runpy.run_module('perfectplay', run_name='__main__')\n"
        "finally:\n    print('numba' in sys.modules, file=sys.stderr)\n"
    )
    cold = _run(script, tmp_path / "cache", PERFECTPLAY_QUIET="1")
    warm = _run(script, tmp_path / "cache", PERFECTPLAY_QUIET="1")
    assert cold.returncode == 0 and warm.returncode == 0, cold.stderr + warm.stderr
    assert (cold.stderr, warm.stderr) == ("True\n", "False\n")
    assert warm.stdout == cold.stdout
    assert warm.stdout.splitlines()[0] == "Case #1: 2101.000000000"
