"""``ulimit -v`` (RLIMIT_AS) limits what a process may allocate whatever the machine
has free: the memory budget counts it, so a solve that would pass it is refused in one
line before allocating (it died in a kernel with numba's ``MemoryError`` traceback), and
an allocation that fails anyway is one line too."""

from __future__ import annotations

import os
import subprocess
import sys

from perfectplay._util.command import run


def _src() -> str:
    return os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")


def test_the_budget_counts_the_address_space_left_under_ulimit_v():
    code = (
        "from perfectplay._util.memory import available_bytes\n"
        "budget = available_bytes()\n"
        "status = open('/proc/self/status').read().splitlines()\n"
        "print(next(x.split()[1] for x in status if x.startswith('VmSize:')), budget)\n"
    )
    # The limit: what the interpreter maps at start, with 64 MiB to spare.
    probe = "import perfectplay._util.memory\nprint(open('/proc/self/status').read())"
    status = subprocess.run(
        [sys.executable, "-c", probe], env={**os.environ, "PYTHONPATH": _src()},
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    vm = next(int(x.split()[1]) * 1024 for x in status.splitlines() if x.startswith("VmSize:"))
    limit = vm + (64 << 20)

    def cap() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY))

    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, "PYTHONPATH": _src()},
        capture_output=True, text=True, preexec_fn=cap, check=True,
    ).stdout  # fmt: skip
    used_kib, budget = (int(x) for x in out.split())
    used = used_kib * 1024
    assert 0 < used <= limit
    assert budget <= 0.8 * (limit - used) + 1  # was 80% of MemAvailable: gigabytes


def test_a_memory_error_is_one_line_and_status_2(capsys):
    def body() -> int:
        raise MemoryError("Allocation failed (probably too large).")

    assert run(body, "x") == 2
    err = capsys.readouterr().err
    assert err == "perfectplay: out of memory (Allocation failed (probably too large).)\n"
