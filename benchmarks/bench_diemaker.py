"""A Die Maker at full size, beside the C program of seed 002.

Inputs are generated at run time from fixed seeds (nothing large is stored):

* ``limit``: 40 datasets, every t in [4000, 5000], p = 1, q = sum: 40 sequences of about
  27 000 characters (the issue's speed case; target at most 1.0x the C program);
* ``mixed``: 40 datasets of every kind (tiny, lopsided, impossible, near the limit) with
  whole-sequence ranges;
* ``sample``: the problem's sample (start-up cost);
* ``huge`` (ours only): t near 10^12 with ``--no-limits``, 100-character slices at the end.

The reference is the C program printed in seed 002's editorial. As printed it does not
compile, so it is patched here, by string replacement at run time: a missing ``)`` in
``if(used[i] continue;``, the ``nt++`` that counts targets inside the copying loop instead
of after it, the closing braces printed before the ``printf`` lines instead of after them,
and the full-width yen sign in ``"%s\\n"``. The patched program must reproduce the sample
answer before it is timed; its answers are compared with ours on every case.

    python benchmarks/run.py diemaker            # the table
    python benchmarks/bench_diemaker.py write D  # write the inputs into directory D
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import common
from common import Row

SAMPLE = common.ROOT / "tests" / "data" / "diemaker"

# (as printed, as it must read): the seed's typos
PATCHES = [
    ("if(used[i] continue;", "if(used[i]) continue;"),
    ("            nt++;\n        }\n        return;", "        }\n        nt++;\n        return;"),
    ("opt[q] = 0;\n        }\n    }\n}\n", "opt[q] = 0;\n"),
    ("¥n", "\\n"),
]


def reference_source() -> str | None:
    """Seed 002's C program: its code blocks joined, typos patched (None if not found)."""
    text = common.seed_text("002")
    if text is None:
        return None
    source = "".join(re.findall(r"```\n(.*?)```", text, re.S))
    for printed, fixed in PATCHES:
        if printed not in source:
            print(f"[bench] seed 002 changed: cannot patch {printed[:40]!r}", file=sys.stderr)
            return None
        source = source.replace(printed, fixed)
    return source


def _dataset(t: list[int], p: int, q: int) -> str:
    return f"{' '.join(map(str, t))}\n{p} {q}\n"


def make_case(name: str) -> str:
    """Input text of one benchmark case (deterministic)."""
    rng = random.Random(f"diemaker-{name}")
    parts = []
    if name == "limit":
        for _ in range(40):
            t = [rng.randint(4000, 5000) for _ in range(6)]
            parts.append(_dataset(t, 1, sum(t)))
    elif name == "mixed":
        for i in range(40):
            kind = i % 4
            if kind == 0:
                t = [rng.randint(0, 30) for _ in range(6)]
            elif kind == 1:  # lopsided: one big face, often impossible
                t = [rng.randint(0, 1000) for _ in range(5)] + [rng.randint(2000, 5000)]
            elif kind == 2:
                t = [rng.choice((0, rng.randint(0, 5000))) for _ in range(6)]
            else:
                t = [rng.randint(0, 5000) for _ in range(6)]
            rng.shuffle(t)
            if not any(t):
                t[0] = 1
            parts.append(_dataset(t, 1, sum(t)))
    elif name == "huge":
        for _ in range(40):
            t = [10**12 - rng.randint(0, 10**9) for _ in range(6)]
            parts.append(_dataset(t, sum(t) - 99, sum(t)))
    else:
        raise ValueError(name)
    return "".join(parts) + "0 0 0 0 0 0\n"


CASES = ("limit", "mixed")


def _inputs(directory: Path) -> dict[str, Path]:
    paths = {"sample": SAMPLE / "sample.in"}
    for name in (*CASES, "huge"):
        path = directory / f"diemaker-{name}.in"
        if not path.exists():
            path.write_text(make_case(name))
        paths[name] = path
    return paths


def _reference_binary() -> tuple[list[str] | None, str]:
    source = reference_source()
    if source is None:
        return None, "reference unavailable"
    binary = common.compile_reference("diemaker-seed002", source, lang="c")
    if binary is None:
        return None, "reference unavailable (no C compiler)"
    with open(SAMPLE / "sample.in", "rb") as fh:
        out = subprocess.run([str(binary)], stdin=fh, capture_output=True).stdout
    if out != (SAMPLE / "sample.ans").read_bytes():
        return None, "reference does not reproduce the sample"
    return [str(binary)], ""


def run(quick: bool) -> list[Row]:
    repeats = 3 if quick else 9
    rows: list[Row] = []
    common.CACHE.mkdir(parents=True, exist_ok=True)
    paths = _inputs(common.CACHE)
    ref_cmd, why = _reference_binary()
    for name in ("limit", "mixed", "sample"):
        ours, ref, ratio = common.time_pair(
            common.PERFECTPLAY + ["diemaker", str(paths[name])], ref_cmd, paths[name], repeats
        )
        agree = ""
        if ref is not None and ours.outputs[0] != ref.outputs[0]:
            agree = " ANSWERS DIFFER"
        chars = len(ours.outputs[0]) - ours.outputs[0].count(b"\n")
        rows.append(
            Row(
                "diemaker",
                f"{name}: {chars} characters",
                f"{ours} peak {ours.peak_mib:.0f} MiB",
                f"{ref} peak {ref.peak_mib:.0f} MiB" if ref else why,
                (common.fmt_ratio(ratio) if ref else "") + agree,
                "<= 1.0x" if name == "limit" else "",
            )
        )
    huge = common.time_command(
        common.PERFECTPLAY + ["diemaker", "--no-limits", str(paths["huge"])], repeats=repeats
    )
    rows.append(Row("diemaker", "huge: t ~ 10^12, --no-limits, last 100 rolls", str(huge)))
    helptime = common.time_command(common.PERFECTPLAY + ["diemaker", "--help"], repeats=repeats)
    rows.append(Row("diemaker", "perfectplay diemaker --help", str(helptime), "", "", "< 0.3 s"))
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        out = Path(sys.argv[2])
        out.mkdir(parents=True, exist_ok=True)
        for case in (*CASES, "huge"):
            (out / f"diemaker-{case}.in").write_text(make_case(case))
        sys.exit(0)
    for row in run(quick="--quick" in sys.argv):
        print(row)
