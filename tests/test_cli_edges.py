"""The command line's edges (issue 11 item 8), each through the real command where it was seen.

Write errors on standard output, the memory-limit variable, huge inputs, long answers and
impossible orders, progress on long work, misbehaving user models, and the one token and
number rule every parser shares.
"""

from __future__ import annotations

import argparse
import errno
import io
import os
import subprocess
import sys
import textwrap
import tracemalloc
from fractions import Fraction

import pytest

from perfectplay import cli
from perfectplay.cli import common
from perfectplay.errors import InputError, ResourceLimitError

DEV_FULL = "/dev/full"
GAME_INPUTS = {
    "alea": "2 1\nAAAAAA\nBBBBBB\nAB\n",
    "yeetzhee": "1\n3 6 2\n1\n2\n",
    "fivehundredeleven": "5\n3 5 7 9 510\n",
    "dispdom": "4 2 3\n0100\n",
    "diemaker": "1 1 1 1 1 1\n1 6\n0 0 0 0 0 0\n",
}


def perfectplay(*args, stdin=None, stdout=subprocess.PIPE, env=None, timeout=120):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run(
        [sys.executable, "-m", "perfectplay", *args],
        input=stdin,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        timeout=timeout,
    )


# -- 1. write errors on standard output --------------------------------------------------


@pytest.mark.skipif(not os.path.exists(DEV_FULL), reason="needs /dev/full")
@pytest.mark.parametrize(
    "args,stdin",
    [
        *[([name, "-"], text) for name, text in GAME_INPUTS.items()],
        (["--help"], None),
        (["--version"], None),
        (["alea", "--help"], None),
        (["solve", "perfectplay.examples.five_dice:FiveDice", "-q"], None),
    ],
)
def test_write_error_on_stdout_is_one_line_status_1(args, stdin):
    with open(DEV_FULL, "w") as full:
        proc = perfectplay(*args, stdin=stdin, stdout=full)
    assert proc.returncode == 1, proc.stderr
    assert proc.stderr == "perfectplay: cannot write the output: No space left on device\n"


def test_closed_pipe_stays_quiet():
    # Many lines, of which the reader takes one: the rest meets a closed pipe.
    text = "1 1 1 1 1 1\n1 6\n" * 200_000 + "0 0 0 0 0 0\n"
    script = f"{sys.executable} -m perfectplay diemaker --no-limits --full - | head -c 1 >/dev/null"
    proc = subprocess.run(
        ["sh", "-c", script], input=text, capture_output=True, text=True, timeout=120
    )
    assert proc.stderr == ""


def _closed_fd(fd):
    """A ``preexec_fn`` that starts the command with descriptor ``fd`` closed (``<&-``,
    ``>&-``): Python then sets ``sys.stdin`` or ``sys.stdout`` to ``None``."""
    return lambda: os.close(fd)


@pytest.mark.parametrize("name", sorted(GAME_INPUTS))
def test_closed_stdin_is_one_line_status_2(name):
    # It was an AttributeError traceback ('NoneType' object has no attribute 'buffer').
    for args in ([name], [name, "-"]):
        proc = subprocess.run(
            [sys.executable, "-m", "perfectplay", *args],
            capture_output=True,
            text=True,
            preexec_fn=_closed_fd(0),
            timeout=120,
        )
        assert proc.returncode == 2 and proc.stdout == ""
        assert proc.stderr == (
            "perfectplay: <stdin>: standard input is closed: give FILE or pipe the input\n"
        )


@pytest.mark.parametrize(
    "args", [["alea", "--example"], ["yeetzhee", "--example", "--json"], ["alea", "--help"]]
)
def test_closed_stdout_is_one_line_status_1(args):
    proc = subprocess.run(
        [sys.executable, "-m", "perfectplay", *args],
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_closed_fd(1),
        timeout=120,
        # Quiet: with a cold kernel cache the compile notice is a line of its own.
        env={**os.environ, "PERFECTPLAY_QUIET": "1"},
    )
    assert proc.returncode == 1
    assert proc.stderr == "perfectplay: cannot write the output: standard output is closed\n"


def test_closed_stderr_keeps_errors_out_of_the_answer():
    # With descriptor 2 closed, sys.stderr is None and print(..., file=None) writes to
    # standard output: the --stats notes and error messages landed in the answer.
    for args, status, out in (
        (["alea", "--example", "--stats"], 0, "9.677887141\n"),
        (["alea", "/no/such/file"], 2, ""),
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "perfectplay", *args],
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=_closed_fd(2),
            timeout=120,
        )
        assert (proc.returncode, proc.stdout) == (status, out)


class _FullStream(io.StringIO):
    """A disk that fills up: at once, or (``buffered``) only when flushed."""

    def __init__(self, buffered=False):
        super().__init__()
        self.buffered = buffered

    def write(self, text):
        if self.buffered:
            return len(text)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def flush(self):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_guarded_turns_write_errors_into_status_1(monkeypatch, capsys):
    from perfectplay._util import command  # where the guard lives (cli.common re-exports it)

    monkeypatch.setattr(command, "_silence_stdout", lambda: None)
    for buffered in (False, True):
        monkeypatch.setattr(sys, "stdout", _FullStream(buffered))
        assert common.guarded(lambda: print("answer") or 0) == 1

    # argparse's --help: printed into the buffer, then SystemExit; the flush fails.
    def usage_exit():
        print("usage")
        raise SystemExit(0)

    with pytest.raises(SystemExit) as info:
        common.guarded(usage_exit)
    assert info.value.code == 1
    err = capsys.readouterr().err
    assert err.count("perfectplay: cannot write the output: No space left on device\n") == 3


def test_guarded_leaves_other_os_errors_alone(monkeypatch):
    # Only standard output's own errors are "cannot write the output".
    def read_missing():
        open("/nonexistent/file")

    with pytest.raises(FileNotFoundError):
        common.guarded(read_missing)


# -- 2. PERFECTPLAY_MEMORY_LIMIT -------------------------------------------------------------


@pytest.mark.parametrize("value", ["infG", "1e400G", "nanM", "-1G", "4 G", "G", "0x10", "1.2.3K"])
def test_bad_memory_limit_is_one_line(value):
    proc = perfectplay("alea", "--example", env={"PERFECTPLAY_MEMORY_LIMIT": value})
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == (
        f"perfectplay: PERFECTPLAY_MEMORY_LIMIT={value!r} is not a size "
        "(bytes, or a number with K, M, G or T, such as 4G)\n"
    )


def test_memory_limit_sizes_are_exact(monkeypatch):
    from perfectplay._util import memory

    units = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3, "T": 1024**4}
    for number in ("0", "1", "7", "1.5", ".25", "3.", "123456789012345678901234567890"):
        for unit, factor in units.items():
            for spelling in (unit, unit + "B", unit.lower() + "ib" if unit else "b"):
                expected = int(Fraction(number) * factor)
                assert memory._parse_size(number + spelling) == expected, number + spelling
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "1K")
    with pytest.raises(ResourceLimitError, match="only 1.0 KiB"):
        memory.require(4096, "a table")


# -- 3. parsers stop at the first bad line, in memory proportional to what they read -------

# Each command's input of many "1" lines is bad on line 1, 2 or 3.
ONES_ERRORS = {
    "alea": (3, "die 1: '1' must have exactly 6 symbols"),
    "yeetzhee": (2, "case 1: N = 1 is out of range 2..50"),
    "fivehundredeleven": (3, "unexpected '1' after the 1 card"),
    "dispdom": (1, "expected three integers 'N K D', got 1 token"),
    "diemaker": (1, "expected 6 integers (t1 .. t6), got 1"),
}


def _parser(name):
    import importlib

    module = {
        "alea": "perfectplay.problems.alea.instance",
        "yeetzhee": "perfectplay.problems.yeetzhee",
        "fivehundredeleven": "perfectplay.problems.fivehundredeleven",
        "dispdom": "perfectplay.problems.dispdom",
        "diemaker": "perfectplay.problems.diemaker.instance",
    }[name]
    return importlib.import_module(module).parse


@pytest.mark.parametrize("name", sorted(ONES_ERRORS))
def test_parse_of_huge_bad_input_allocates_little(name):
    parse = _parser(name)
    text = "1\n" * 4_000_000  # 8 MB; a list of its tokens would take hundreds of MB
    line, message = ONES_ERRORS[name]
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as info:
            parse(text)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.line == line and message in info.value.message
    # alea reads bytes: one copy of the text; the others read lazily, line by line.
    limit = 2 * len(text) + (1 << 20) if name == "alea" else 1 << 20
    assert peak < limit, f"{name}: {peak:,} bytes"


def _child_peak_kib(args, path):
    # Peak resident size of the command alone, measured in a fresh parent.
    code = (
        "import resource, subprocess, sys\n"
        f"p = subprocess.run([sys.executable, '-m', 'perfectplay', *{args!r}, {path!r}],"
        " capture_output=True, text=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(p.returncode)\n"
        "sys.stdout.write(p.stderr)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    ).stdout
    peak, status, err = out.split("\n", 2)
    return int(peak), int(status), err


@pytest.mark.parametrize("name", ["diemaker", "yeetzhee", "fivehundredeleven"])
def test_cli_on_67_mb_of_ones_stops_early(name, tmp_path):
    path = tmp_path / "ones.txt"
    path.write_bytes(b"1\n" * 33_500_000)
    peak_kib, status, err = _child_peak_kib([name], str(path))
    line, message = ONES_ERRORS[name]
    assert status == 2 and err == f"perfectplay: {path}:{line}: {message}\n"
    # The text itself (67 MB, and its decoded copy) plus the interpreter; was 3.67 GB.
    assert peak_kib < 400 * 1024, f"{peak_kib:,} KiB"


# -- 4. A Die Maker: impossible before any estimate; long answers streamed -----------------


def test_impossible_order_is_impossible_however_long():
    text = "1000000000000 0 0 0 0 0\n1 1\n0 0 0 0 0 0\n"
    for flags in (["--no-limits", "--full"], ["--no-limits"], ["--no-limits", "--explain"]):
        proc = perfectplay("diemaker", *flags, "-", stdin=text)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.splitlines()[0] == "impossible"


def test_long_answer_is_streamed(tmp_path):
    # 120 million characters: far more than one chunk, printed in constant memory.
    path = tmp_path / "long.txt"
    path.write_text("20000000 " * 6 + "\n1 1\n0 0 0 0 0 0\n")
    code = (
        "import resource, subprocess, sys\n"
        "p = subprocess.Popen([sys.executable, '-m', 'perfectplay', 'diemaker', '--no-limits',"
        f" '--full', {str(path)!r}], stdout=subprocess.PIPE)\n"
        "n, head, tail = 0, b'', b''\n"
        "while chunk := p.stdout.read(1 << 20):\n"
        "    head = head or chunk[:64]\n"
        "    tail = (tail + chunk)[-64:]\n"
        "    n += len(chunk)\n"
        "p.wait()\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, p.returncode, n)\n"
        "print(head.hex(), tail.hex())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
        env=dict(os.environ, PERFECTPLAY_QUIET="1"),
    ).stdout.split("\n")
    peak_kib, status, size = map(int, out[0].split())
    assert status == 0 and size == 120_000_001
    from perfectplay.problems.diemaker.solution import find

    solution = find([20_000_000] * 6)
    head, tail = (bytes.fromhex(h).decode("ascii") for h in out[1].split())
    assert head == solution.text(1, 64)
    assert tail == solution.text(120_000_000 - 62, 120_000_000) + "\n"
    assert peak_kib < 300 * 1024, f"{peak_kib:,} KiB"


def test_chunks_join_to_the_text():
    from perfectplay.problems.diemaker.solution import find

    solution = find([3, 5, 2, 4, 4, 6])
    for first, last in ((1, solution.length), (2, 9), (7, 7), (5, solution.length - 1)):
        for size in (1, 2, 3, 7, 1000):
            pieces = list(solution.chunks(first, last, size=size))
            assert "".join(pieces) == solution.text(first, last)
            assert all(1 <= len(p) <= size for p in pieces)


# -- 5. progress on long work -----------------------------------------------------------------


def test_yeetzhee_reports_progress_and_quiet_silences_it(tmp_path, capsys, monkeypatch):
    from perfectplay._util import progress

    # Report at once rather than after a second, so a small file shows it.
    monkeypatch.setattr(progress.Progress.__init__, "__defaults__", (0.0, 0.0, None))
    path = tmp_path / "cases.txt"
    path.write_text("3\n" + "3 6 2\n1\n2\n" * 3)
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    assert cli.main(["yeetzhee", "--exact", str(path)]) == 0
    out, err = capsys.readouterr()
    assert out.count("Case #") == 3
    assert "perfectplay: yeetzhee: 3 of 3 cases solved" in err and "yeetzhee done in" in err
    monkeypatch.setenv("PERFECTPLAY_QUIET", "1")
    assert cli.main(["yeetzhee", "--exact", str(path)]) == 0
    quiet_out, quiet_err = capsys.readouterr()
    assert quiet_out == out and quiet_err == ""


# -- 6. misbehaving user models -------------------------------------------------------------

MODELS = textwrap.dedent(
    """
    import sys

    BIG = 10**5000


    class Chance:
        start = 0

        def __init__(self, how="ok"):
            self.how = how

        def is_goal(self, s):
            return s == BIG

        def choices(self, s):
            if self.how == "choices-exit":
                sys.exit(0)
            return ["go"]

        def roll(self, c):
            if self.how == "exit":
                sys.exit(0)
            if self.how == "exit-3":
                sys.exit(3)
            if self.how == "generator-exit":
                raise GeneratorExit
            return [(BIG, 1), (0, 1)]


    class Game:
        start = (BIG, 0)

        def __init__(self, how="ok"):
            self.how = how

        def outcome(self, p):
            return "lose" if p[1] == 2 else None

        def moves(self, p):
            return [BIG + 7]

        def play(self, p, m):
            if self.how == "exit":
                sys.exit(0)
            return (p[0], p[1] + 1)
    """
)


@pytest.fixture
def models(tmp_path):
    path = tmp_path / "edgemodels.py"
    path.write_text(MODELS)
    return path


@pytest.mark.parametrize(
    "obj,how,message",
    [
        ("Chance", "exit", "Chance.roll('go') raised SystemExit: 0"),
        ("Chance", "exit-3", "Chance.roll('go') raised SystemExit: 3"),
        ("Chance", "choices-exit", "Chance.choices(0) raised SystemExit: 0"),
        ("Chance", "generator-exit", "Chance.roll('go') raised GeneratorExit"),
        ("Game", "exit", "Game.play("),
    ],
)
def test_exit_in_a_callback_is_a_model_error(models, obj, how, message):
    proc = perfectplay("solve", f"{models}:{obj}", "--param", f"how={how!r}", "-q")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.startswith("perfectplay: ") and proc.stderr.count("\n") == 1
    assert message in proc.stderr and "Traceback" not in proc.stderr


def test_long_integers_print_and_export_whole(models, tmp_path):
    from perfectplay._util.ints import long_ints
    from perfectplay.results.table import load_solution

    big = 10**5000
    with long_ints():
        big_text, move_text = str(big), str(big + 7)
    table = tmp_path / "game.npz"
    proc = perfectplay(
        "solve", f"{models}:Game", "-q", "--export", str(table), "--query", f"({big_text}, 1)"
    )
    assert proc.returncode == 0, proc.stderr
    assert f"best first moves: {move_text}\n" in proc.stdout
    assert f"position ({big_text}, 1): WIN in 1" in proc.stdout
    loaded = load_solution(table)
    assert str(loaded.value((big, 0)).value) == "lose"
    assert str(loaded.value((big, 1)).value) == "win"
    chance = tmp_path / "chance.npz"
    proc = perfectplay("solve", f"{models}:Chance", "-q", "--export", str(chance), "--exact")
    assert proc.returncode == 0, proc.stderr
    assert load_solution(chance).value(big) == 0.0
    assert sys.get_int_max_str_digits() in (0, 4300)  # nothing leaked into this process


# -- 7. one token and number rule -------------------------------------------------------------

# Token (where a count of 1 belongs) -> whether every command reads it as 1. Control bytes
# other than the white space of common.WHITESPACE are part of a token.
TOKENS = {
    "1": True,
    "+1": True,
    "01": True,
    "+0001": True,
    "0" * 18 + "1": True,  # 19 digits, leading zeros included
    "0" * 19 + "1": False,  # 20 digits: out of range whatever the value
    "\x0b1\x0c": True,  # vertical tab and form feed separate
    "\t1 ": True,
    "1\x1c": False,  # file separator: str.split would split on it; not white space here
    "\x1f1": False,
    "\x001": False,
    "1_0": False,
    "++1": False,
    "+-1": False,
    "-1": False,  # an integer, out of every range below
    "1.0": False,
    "1e0": False,
    "0x1": False,
    "+": False,
}


def _read_one(name, token):
    """The count a command's parser reads where ``token`` stands (or raises InputError)."""
    parse = _parser(name)
    if name == "alea":
        return parse(f"{token} 1\nAAAAAA\nA\n").d
    if name == "yeetzhee":
        return len(parse(f"{token}\n2 2 1\n2\n"))
    if name == "fivehundredeleven":
        return len(parse(f"{token}\n3\n").cards)
    if name == "dispdom":
        return parse(f"3 2 {token}\n000\n").d
    if name == "diemaker":
        return parse(f"{token} 1 1 1 1 1\n1 1\n0 0 0 0 0 0\n").datasets[0].targets[0]
    raise AssertionError(name)


@pytest.mark.parametrize("name", sorted(ONES_ERRORS))
def test_every_parser_reads_numbers_by_the_one_rule(name):
    for token, accepted in TOKENS.items():
        if accepted:
            assert _read_one(name, token) == 1, (name, token)
        else:
            with pytest.raises(InputError):
                _read_one(name, token)


def test_int_arg_follows_the_same_rule():
    for token, accepted in TOKENS.items():
        if accepted:
            assert common.int_arg(token) == 1, token
        elif token == "-1":
            assert common.int_arg(token) == -1  # options may be negative; callers check
        else:
            with pytest.raises(argparse.ArgumentTypeError):
                common.int_arg(token)


def test_int_token_matches_python_int_within_its_range():
    import random

    rng = random.Random(11)
    for _ in range(2000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 19)))
        token = rng.choice(["", "+", "-"]) + digits
        assert common.int_token(token) == int(token), token
    for token in ("1 ", " 1", "１", "1\n", "--1"):
        assert common.int_token(token) is None, repr(token)


def test_split_tokens_matches_bytes_split():
    import random

    rng = random.Random(5)
    alphabet = "ab1 \t\x0b\x0c\x1c\x1d\x1e\x1f\x00"
    for _ in range(2000):
        line = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        expected = [t.decode("ascii") for t in line.encode("ascii").split()]
        assert common.split_tokens(line) == expected, repr(line)


def test_empty_export_name_is_refused():
    proc = perfectplay("solve", "perfectplay.examples.five_dice:FiveDice", "-q", "--export", "")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1
    assert "--export: expected a file name, got an empty string" in proc.stderr
