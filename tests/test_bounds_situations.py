"""Issue 24, bounded inputs: a Yahtzee situation file of any length is answered in
constant memory, line by line, with progress on stderr, and prints what it printed when
every answer was held to the end."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from perfectplay import cli
from perfectplay.problems.yahtzee import parse, solve
from perfectplay.problems.yahtzee.instance import stream
from perfectplay.problems.yahtzee.report import advice_json, advice_text, format, summary
from perfectplay.problems.yahtzee.solution import answer
from perfectplay.yahtzee import rules

SRC = str(Path(__file__).resolve().parent.parent / "src")
# Measures the peak memory of one command alone: a fresh interpreter waits for it, so no
# other child of the test process counts.
PEAK = """\
import resource, subprocess, sys
with open(sys.argv[1], "wb") as out, open(sys.argv[2], "wb") as err:
    code = subprocess.call(sys.argv[3:], stdout=out, stderr=err)
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def situations(n: int, seed: int = 0) -> str:
    """``n`` valid american situations: random dice and rolls, a random set of boxes filled
    with the points of random dice (the Yahtzee box with 0, so no bonus field is needed)."""
    american = rules("american")
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        dice = " ".join(str(rng.randint(1, 6)) for _ in range(5))
        filled = []
        for box in rng.sample(american.categories, rng.randint(0, 12)):
            hand = tuple(sorted(rng.randint(1, 6) for _ in range(5)))
            filled.append(f"{box.name}={0 if box.name == 'yahtzee' else box.score(hand)}")
        out.append(f"dice {dice}; rolls left {rng.randint(0, 2)}; filled {' '.join(filled) or '-'}")
    return "".join(line + "\n" for line in out)


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounds") / "american.table"
    solve(rules("american"), save=str(path))
    return str(path)


def peak(tmp_path: Path, *argv: str, stdin: str | None = None) -> tuple[int, int, str, str]:
    """``(status, peak RSS in bytes, stdout, stderr)`` of ``perfectplay argv...``."""
    env = {**os.environ, "PYTHONPATH": SRC}
    env.pop("PERFECTPLAY_QUIET", None)
    out, err = tmp_path / "out.txt", tmp_path / "err.txt"
    command = [sys.executable, "-c", PEAK, str(out), str(err)]
    command += [sys.executable, "-m", "perfectplay", *argv]
    done = subprocess.run(command, input=stdin, capture_output=True, text=True, env=env, check=True)
    code, kib = map(int, done.stdout.split())
    return code, kib * 1024, out.read_text(), err.read_text()


def test_situations_are_read_lazily_and_checked_first():
    text = "rules yatzy\n# many\ndice 66666; rolls 0\n\ndice 12345; rolls 2\n"
    inst = stream(text)
    assert inst.rules.name == "yatzy" and len(inst.situations) == 2
    assert [line.line for line in inst.situations] == [3, 5]
    assert [line.situation for line in inst.situations] == [
        line.situation for line in parse(text).situations
    ]
    # the last line is bad: the error comes before any situation is answered
    with pytest.raises(Exception, match="line 3: dice"):
        stream("dice 12345; rolls 2\n" * 2 + "dice 12347; rolls 0\n")
    with pytest.raises(Exception, match="line 2: 'rules NAME' must be the first line"):
        stream("rules american\nrules american\n")


def test_a_bad_last_line_prints_no_answer(capsys, tmp_path, table):
    path = tmp_path / "bad.txt"
    path.write_text(situations(50) + "dice 1 2 3 4 5; rolls left 9\n")
    code = cli.main(["yahtzee", "--load", table, str(path)])
    out, err = capsys.readouterr()
    assert code == 2 and out == ""
    assert err.startswith(f"perfectplay: {path}:51: ") and err.count("\n") == 1


def test_streamed_output_is_what_the_held_answers_print(capsys, tmp_path, table):
    text = situations(300, seed=3)
    path = tmp_path / "s.txt"
    path.write_text(text)
    american = solve(load=table)
    answers = answer(american, parse(text))
    assert cli.main(["yahtzee", "--load", table, "-q", str(path)]) == 0
    assert capsys.readouterr().out == format(american, answers) + "\n"
    advise = ["yahtzee", "advise", "--load", table, "-q", "--file", str(path)]
    assert cli.main([*advise, "--top", "2"]) == 0
    blocks = [advice_text(american, a.line.situation, a.options, 2) for a in answers]
    assert capsys.readouterr().out == summary(american) + "\n" + "\n\n".join(blocks) + "\n"
    assert cli.main([*advise, "--json"]) == 0
    got = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert got == [
        json.loads(json.dumps(advice_json(american, a.line.situation, a.options))) for a in answers
    ]
    # an input without situations still answers the empty card
    empty = tmp_path / "empty.txt"
    empty.write_text("# nothing\n")
    assert cli.main(["yahtzee", "--load", table, "-q", "--json", str(empty)]) == 0
    assert json.loads(capsys.readouterr().out)["rules"] == "american"


def test_a_few_thousand_situations_in_bounded_memory(tmp_path, table):
    # Held to the end, 6,000 situations of advice took about 250 MB here; streamed, the
    # peak is the interpreter, numpy, numba's kernels and the 8 MB table (about 160 MB).
    text = situations(6000, seed=1)
    code, rss, out, err = peak(
        tmp_path, "yahtzee", "advise", "--load", table, "--top", "1", "-", stdin=text
    )
    assert code == 0, err
    assert out.count("situation: ") == 6000
    assert rss < 200 * 2**20, f"peak {rss / 2**20:.0f} MB"


@pytest.mark.slow
def test_an_eleven_megabyte_situation_file_in_bounded_memory_with_progress(tmp_path, table):
    # The file: 11.8 MB of situations took 4.28 GB and printed nothing for minutes.
    text = situations(112_000, seed=2)
    assert len(text) > 11_800_000
    path = tmp_path / "many.txt"
    path.write_text(text)
    code, rss, out, err = peak(tmp_path, "yahtzee", "--load", table, str(path))
    assert code == 0, err
    lines = out.splitlines()
    assert len(lines) == 112_000
    american = solve(load=table)
    head = "".join(text.splitlines(keepends=True)[:200])
    assert lines[:200] == format(american, answer(american, parse(head))).splitlines()
    assert rss < 200 * 2**20, f"peak {rss / 2**20:.0f} MB"
    progress = [line for line in err.splitlines() if "answering situations" in line]
    assert progress and progress[-1].endswith("112,000 situations"), err
