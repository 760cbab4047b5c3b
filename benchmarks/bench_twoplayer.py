"""The two-player core on its two games: disappearing dominoes and FiveHundredEleven.

* ``dispdom N=30 K=2 D=30``, empty strip: CLI wall time beside the tester's C++ program of
  seed 003 (bitmask minimax with a hash map, ``g++ -O2``, extracted from the seed at run
  time), alternating runs; target at most 0.10x. The command runs the problem's game
  model through the shared explorer (``perfectplay.models``) and retrograde solver, like
  any user's model. The instance is small in canonical states (667), so the solver runs
  its Python source and never imports numba.
* ``dispdom N=60`` (and N=64, the accepted maximum), empty strip, every K from 2 up (a few
  K in quick mode), D = N: wall time and number of canonical states; target under 10 s.
* ``fivehundredeleven``: the 217 system tests solved in one process (a fresh interpreter
  that imports perfectplay, reads tests/data, solves and checks every test); target
  under 1 s.

    python benchmarks/run.py twoplayer
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import common
from common import Row

DISPDOM_TARGET = "<= 0.10x"


def reference_source() -> str | None:
    """The tester's C++ program of seed 003 (the code block after "Tester's code")."""
    text = common.seed_text("003")
    if text is None:
        return None
    m = re.search(r"Tester's code \(C\+\+\)\s*```\s*\n(.*?)```", text, re.S)
    return m.group(1) if m and "int32_t main" in m.group(1) else None


def _strip_input(directory: Path, n: int, k: int, d: int) -> Path:
    path = directory / f"dispdom-{n}-{k}-{d}.in"
    if not path.exists():
        path.write_text(f"{n} {k} {d}\n{'0' * n}\n")
    return path


def _states(path: Path) -> str:
    """Canonical state count from an untimed ``--explain`` run (in a child process, so this
    process stays small: a forked child's peak memory counts the parent's pages)."""
    out = common.run_once(common.PERFECTPLAY + ["dispdom", "--explain", str(path)])[2].decode()
    m = re.search(r"canonical states: ([\d,]+)", out)
    return m.group(1) if m else "?"


BATCH_511 = """\
import json, sys
from perfectplay.problems import fivehundredeleven as game
wrong = 0
with open(sys.argv[1]) as fh:
    for line in fh:
        t = json.loads(line)
        wrong += game.format(game.solve(t["cards"])) != t["expected"]
print(wrong)
"""


def run(quick: bool) -> list[Row]:
    repeats = 3 if quick else 9
    rows: list[Row] = []
    common.CACHE.mkdir(parents=True, exist_ok=True)

    # 1. N = 30 beside the tester's program.
    source = reference_source()
    binary = common.compile_reference("dispdom-seed003", source) if source else None
    ref_cmd = [str(binary)] if binary else None
    path = _strip_input(common.CACHE, 30, 2, 30)
    ours, ref, ratio = common.time_pair(
        common.PERFECTPLAY + ["dispdom", str(path)], ref_cmd, path, repeats
    )
    answer = ours.outputs[0].decode().strip()
    agree = ""
    if ref is not None and ref.outputs[0].split() != ours.outputs[0].split():
        agree = " ANSWERS DIFFER"
    rows.append(
        Row(
            "twoplayer",
            f"dispdom N=30 K=2 D=30 empty -> {answer} ({_states(path)} states)",
            f"{ours} peak {ours.peak_mib:.0f} MiB",
            f"{ref} peak {ref.peak_mib:.0f} MiB" if ref else "",
            common.fmt_ratio(ratio) + agree,
            DISPDOM_TARGET,
        )
    )

    # 2. Beyond bitmasks: N = 60 for every K >= 2, and the limit N = 64 at K = 2.
    cases = [(60, k) for k in ((2, 3, 4, 10, 30) if quick else range(2, 61))] + [(64, 2)]
    slowest = None
    for n, k in cases:
        path = _strip_input(common.CACHE, n, k, n)
        t = common.time_command(common.PERFECTPLAY + ["dispdom", str(path)], repeats=1)
        if slowest is None or t.max > slowest[0].max:
            slowest = (t, n, k)
        if k <= 6 or k in (10, 20, 30, 60) or n != 60:
            answer = t.outputs[0].decode().strip()
            rows.append(
                Row(
                    "twoplayer",
                    f"dispdom N={n} K={k} D={n} empty -> {answer} ({_states(path)} states)",
                    f"{t} peak {t.peak_mib:.0f} MiB",
                    "",
                    "",
                    "< 10 s",
                )
            )
    if slowest is not None:
        t, n, k = slowest
        rows.append(
            Row(
                "twoplayer",
                f"dispdom slowest of {len(cases)} cases: N={n} K={k}",
                str(t),
                "",
                "",
                "< 10 s",
            )
        )

    # 3. FiveHundredEleven: all system tests in one process.
    data = common.ROOT / "tests" / "data" / "fivehundredeleven" / "systemtests.jsonl"
    batch = common.time_command(
        [sys.executable, "-c", BATCH_511, str(data)], repeats=max(3, repeats // 2)
    )
    wrong = batch.outputs[0].decode().strip()
    rows.append(
        Row(
            "twoplayer",
            f"fivehundredeleven: 217 system tests in one process ({wrong} wrong)",
            f"{batch} peak {batch.peak_mib:.0f} MiB",
            "",
            "",
            "< 1 s",
        )
    )
    return rows


if __name__ == "__main__":
    for row in run(quick="--quick" in sys.argv):
        print(row)
