"""Alea Iacta Est at full size: d = 6 dice, w = 200000 words.

Dictionaries are generated at run time from fixed seeds (nothing large is stored):

* ``small-alphabet``: every face and every word uses the 8 symbols A-H, so nearly every
  roll is an anagram of a word and most of the graph is goals;
* ``random``: six distinct symbols a die out of A-Z0-9 and uniformly random words, so few
  rolls are goals (the largest label-setting work);
* ``one-word``: 199999 words need a symbol no die has, one word can be spelled: the
  answer comes from a single goal class.

Figures: CLI wall time with a warm JIT cache beside seed 000's C++ program (``g++ -O2``,
extracted from the seed at run time), the ratio (target at most 0.5x) and peak memory
(target under 300 MB); ``--exact`` time and memory on the same cases; the first run with
an empty JIT cache (target under 10 s); ``perfectplay --help`` (target under 0.3 s).

    python benchmarks/run.py alea            # the table
    python benchmarks/bench_alea.py write D  # write the three inputs into directory D
"""

from __future__ import annotations

import os
import random
import re
import sys
import tempfile
from pathlib import Path

import common
from common import Row

SYMBOLS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
D, W = 6, 200_000


def _distinct_words(rng: random.Random, alphabet: str, n: int) -> list[str]:
    words: set[str] = set()
    while len(words) < n:
        words.add("".join(rng.choice(alphabet) for _ in range(D)))
    return sorted(words, key=lambda _: rng.random())


def make_case(name: str) -> str:
    """Input text of one benchmark case (deterministic)."""
    rng = random.Random(f"alea-{name}")
    if name == "small-alphabet":
        alphabet = SYMBOLS[:8]
        dice = ["".join(rng.sample(alphabet, 6)) for _ in range(D)]
        words = _distinct_words(rng, alphabet, W)
    elif name == "random":
        dice = ["".join(rng.sample(SYMBOLS, 6)) for _ in range(D)]
        words = _distinct_words(rng, SYMBOLS, W)
    elif name == "one-word":
        on_dice, missing = SYMBOLS[:30], SYMBOLS[30:]
        dice = ["".join(rng.sample(on_dice, 6)) for _ in range(D)]
        spelled = "".join(rng.choice(die) for die in dice)
        words = {spelled}
        while len(words) < W:
            word = [rng.choice(SYMBOLS) for _ in range(D)]
            word[rng.randrange(D)] = rng.choice(missing)
            words.add("".join(word))
        words = sorted(words, key=lambda _: rng.random())
    else:
        raise ValueError(name)
    return f"{D} {len(words)}\n" + "\n".join(dice) + "\n" + "\n".join(words) + "\n"


CASES = ("small-alphabet", "random", "one-word")


def reference_source() -> str | None:
    """Seed 000's C++ program: from the first ``#include <bits/stdc++.h>`` to the end of main."""
    text = common.seed_text("000")
    if text is None:
        return None
    start = text.find("#include <bits/stdc++.h>")
    head = re.compile(r"int\s+main\s*\(").search(text, start)
    if start < 0 or head is None:
        return None
    depth = 0
    for i in range(text.index("{", head.end()), len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1] + "\n"
    return None


def _inputs(directory: Path) -> dict[str, Path]:
    paths = {}
    for name in CASES:
        path = directory / f"alea-{name}.in"
        if not path.exists():
            path.write_text(make_case(name))
        paths[name] = path
    return paths


def _same_answer(ours: bytes, ref: bytes) -> bool:
    a, b = ours.split(), ref.split()
    if a == b:
        return True
    try:
        x, y = float(a[0]), float(b[0])
    except (ValueError, IndexError):
        return False
    return abs(x - y) <= 1e-6 * max(1.0, abs(y))


def run(quick: bool) -> list[Row]:
    repeats = 3 if quick else 7
    rows: list[Row] = []
    common.CACHE.mkdir(parents=True, exist_ok=True)
    paths = _inputs(common.CACHE)
    source = reference_source()
    binary = common.compile_reference("alea-seed000", source) if source else None
    ref_cmd = [str(binary)] if binary else None

    for name in CASES:
        ours, ref, ratio = common.time_pair(
            common.PERFECTPLAY + ["alea", str(paths[name])], ref_cmd, paths[name], repeats
        )
        agree = ""
        if ref is not None and not _same_answer(ours.outputs[0], ref.outputs[0]):
            agree = " ANSWERS DIFFER"
        answer = ours.outputs[0].decode().strip()
        rows.append(
            Row(
                "alea",
                f"{name} d=6 w=200000 -> {answer}",
                f"{ours} peak {ours.peak_mib:.0f} MiB",
                f"{ref} peak {ref.peak_mib:.0f} MiB" if ref else "",
                common.fmt_ratio(ratio) + agree,
                "<= 0.50x, < 300 MiB",
            )
        )
    for name in CASES:
        exact = common.time_command(
            common.PERFECTPLAY + ["alea", "--exact", str(paths[name])], repeats=max(1, repeats // 3)
        )
        rows.append(
            Row(
                "alea",
                f"--exact {name}",
                f"{exact} peak {exact.peak_mib:.0f} MiB",
                "",
                "",
                "< 28 s, < 1.8 GB",
            )
        )

    with tempfile.TemporaryDirectory(prefix="perfectplay-jit-") as cache_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        cold = common.time_command(
            common.PERFECTPLAY + ["alea", str(paths["random"])], repeats=1, env=env
        )
    rows.append(Row("alea", "first run, empty JIT cache (random)", str(cold), "", "", "< 10 s"))
    cold_explain = None
    with tempfile.TemporaryDirectory(prefix="perfectplay-jit-") as cache_dir:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
        cold_explain = common.time_command(
            common.PERFECTPLAY
            + ["alea", "--example", "--explain", "--distribution", "30", "--exact"],
            repeats=1,
            env=env,
        )
    rows.append(
        Row(
            "alea",
            "first run, empty JIT cache: --example --explain --distribution --exact",
            str(cold_explain),
        )
    )
    helptime = common.time_command(common.PERFECTPLAY + ["--help"], repeats=repeats)
    rows.append(Row("cli", "perfectplay --help", str(helptime), "", "", "< 0.3 s"))
    return rows


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "write":
        out = Path(sys.argv[2])
        out.mkdir(parents=True, exist_ok=True)
        for case in CASES:
            (out / f"alea-{case}.in").write_text(make_case(case))
        sys.exit(0)
    for row in run(quick="--quick" in sys.argv):
        print(row)
