"""Contained runs: a fresh working directory, a time limit, an output limit, whole groups."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from perfectplay.site.contained import STDERR_TAIL, run_contained


def py(code: str, stdin: bytes = b"", time_limit: float = 30, output_limit: int = 1 << 20):
    return run_contained(
        [sys.executable, "-c", code], stdin, time_limit=time_limit, output_limit=output_limit
    )


def test_each_run_has_a_fresh_empty_folder_removed_after():
    code = "import os; print(os.getcwd()); print(os.listdir('.')); open('x', 'w').write('1')"
    first, second = py(code), py(code)
    for run in (first, second):
        assert run.ok, run.stderr
        folder, listing = run.stdout.decode().splitlines()
        assert listing == "[]"  # nothing of the repository nor of the previous run
        assert not Path(folder).exists()
    assert first.stdout.split()[0] != second.stdout.split()[0]


def test_a_folder_the_program_locked_is_removed_too():
    run = py(
        "import os; os.mkdir('d'); open('d/f', 'w').close(); os.chmod('d', 0); print(os.getcwd())"
    )
    assert run.ok and not Path(run.stdout.decode().strip()).exists()


def test_stdin_reaches_the_program():
    run = py("import sys; print(sum(map(int, sys.stdin.read().split())))", b"1 2 3\n")
    assert run.ok and run.stdout == b"6\n"


def test_a_hang_stops_at_the_limit_with_its_children(tmp_path):
    marker = tmp_path / "child.pid"
    code = (
        "import os, subprocess, sys, time\n"
        "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        f"open({str(marker)!r}, 'w').write(str(child.pid))\n"
        "time.sleep(60)\n"
    )
    start = time.perf_counter()
    run = py(code, time_limit=1.5)
    assert run.timed_out and not run.ok
    assert time.perf_counter() - start < 30
    assert run.problem(1.5, 1) == "ran longer than 1.5 s"
    pid = int(marker.read_text())
    for _ in range(100):  # the kill is sent; the kernel reaps the orphan shortly after
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        try:
            with open(f"/proc/{pid}/stat") as stat:
                if stat.read().split()[2] == "Z":
                    break
        except FileNotFoundError:  # reaped between the signal and the read
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the child of a timed-out run is still running")


def test_a_background_child_holding_the_output_does_not_outlive_the_run():
    # The parent exits at once; a child keeps stdout open: the limit still ends the run.
    code = (
        "import subprocess, sys\n"
        "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
        "print('done')\n"
    )
    run = py(code, time_limit=1.0)
    assert run.timed_out and run.stdout == b"done\n"


def test_endless_output_stops_at_the_limit():
    run = py("import sys\nwhile True: sys.stdout.write('y' * 65536)", output_limit=1 << 20)
    assert run.overflow and not run.timed_out
    assert len(run.stdout) <= (1 << 20) + (1 << 16)  # read no further than one chunk past
    assert run.problem(30, 1 << 20) == "printed more than 1 MiB"


def test_endless_errors_keep_only_their_tail():
    run = py(
        "import sys\nfor i in range(20000): print('line', i, 'x' * 50, file=sys.stderr)\n"
        "raise SystemExit(4)"
    )
    assert run.returncode == 4 and len(run.stderr) <= STDERR_TAIL
    assert run.problem(30, 1).startswith("exited with status 4: line 19999 ")


def test_a_crash_names_its_signal():
    run = py("import os; os.abort()")
    assert run.returncode < 0 and run.problem(30, 1) == "was killed by SIGABRT"


def test_a_missing_program_raises():
    import pytest

    with pytest.raises(FileNotFoundError):
        run_contained(["/nonexistent/program"], b"", time_limit=1, output_limit=1)
