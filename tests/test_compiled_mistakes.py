"""A compiled model's own mistakes that numba finds (a name misspelt, a function that
returns the wrong kind of value) are one line naming the function and its file, on the
front door and on the command line: never numba's pages about the generated kernels."""

from __future__ import annotations

import numpy as np
import pytest

from perfectplay.cli import main
from perfectplay.compiled import CompiledModel, njit, solve_compiled
from perfectplay.compiled.model import ERR_LOWER_LAYER, raise_model_error
from perfectplay.errors import ModelError


@njit(cache=True)
def zero_start(p):
    return 0


@njit(cache=True)
def tuple_start(p):
    return (0, 0)


@njit(cache=True)
def over_at_two(s, p):
    return 0.0 if s >= 2 else -1.0


@njit(cache=True)
def step_moves(s, r, p, nexts, flips):
    nexts[0] = s + 1
    flips[0] = 1
    return 1


@njit(cache=True)
def misspelt_moves(s, r, p, nexts, flips):
    nexts[0] = s + 1
    flip[0] = 1  # noqa: F821 (the mistake under test: flips misspelt)
    return 1


@njit(cache=True)
def float_layer(s, p):
    return 0.5 * s


@njit
def bare_layer(s, p):  # the decorator used bare, as numba's own allows
    return 10 - s


@njit(cache=True)
def flagged_outcome(s, p):  # p[0] 1: nan where the game ends
    if s >= 2:
        return np.nan if p[0] == 1 else 0.0
    return -1.0


@njit(cache=True)
def flagged_moves(s, r, p, nexts, flips):  # p[0] 2: a move to -2**63
    nexts[0] = -(2**63) if p[0] == 2 and s == 1 else s + 1
    flips[0] = 1
    return 1


class Flagged(CompiledModel):
    """One model, one compilation, for the mistakes only a run of the kernels finds."""

    start, outcome, moves = zero_start, flagged_outcome, flagged_moves

    def __init__(self, flag: int) -> None:
        self.params = np.array([flag], np.int64)


class Misspelt(CompiledModel):
    start, outcome, moves = zero_start, over_at_two, misspelt_moves


class TupleStart(CompiledModel):
    start, outcome, moves = tuple_start, over_at_two, step_moves


class FloatLayer(CompiledModel):
    start, outcome, moves, layer = zero_start, over_at_two, step_moves, float_layer


class Downhill(CompiledModel):
    start, outcome, moves, layer = zero_start, over_at_two, step_moves, bare_layer


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text and "\x1b" not in text
    return text


def test_a_misspelt_name_names_the_function_and_the_name():
    with pytest.raises(ModelError) as e:
        solve_compiled(Misspelt())
    text = one_line(e.value)
    assert text.startswith("moves (misspelt_moves in ") and "test_compiled_mistakes.py" in text
    assert "does not compile" in text and "'flip'" in text


def test_a_start_that_is_not_an_integer_is_named():
    with pytest.raises(ModelError) as e:
        solve_compiled(TupleStart())
    text = one_line(e.value)
    assert text.startswith("start (tuple_start in ") and "where an integer is needed" in text


def test_the_cause_of_a_kernel_error_is_named_where_a_function_returns_the_wrong_kind():
    # A float layer makes the kernels see a broken layer promise; the message names the
    # function instead (the error record a kernel writes: code, state, roll, detail).
    err = np.array([ERR_LOWER_LAYER, 1, 0, 2], np.int64)
    with pytest.raises(ModelError) as e:
        raise_model_error(FloatLayer(), err)
    assert one_line(e.value).startswith("FloatLayer: layer (float_layer in ")
    assert "returns float64, where an integer is needed" in str(e.value)


def test_a_broken_layer_promise_gives_both_layers():
    err = np.array([ERR_LOWER_LAYER, 1, 0, 2], np.int64)
    with pytest.raises(ModelError) as e:
        raise_model_error(Downhill(), err)
    assert "goes to 2 in a lower layer (layer 9 to 8)" in one_line(e.value)


def test_the_command_line_gives_one_line_and_status_2(tmp_path, capsys, monkeypatch):
    (tmp_path / "mine.py").write_text(
        "from perfectplay.compiled import CompiledModel, njit\n\n\n"
        "@njit\ndef start(p):\n    return 0\n\n\n"
        "@njit\ndef outcome(s, p):\n    return 0.0 if s >= 2 else -1.0\n\n\n"
        "@njit\ndef moves(s, r, p, nexts, flips):\n    nexts[0] = s + 1\n"
        "    flipz[0] = 1\n    return 1\n\n\n"
        "class Mine(CompiledModel):\n    start, outcome, moves = start, outcome, moves\n"
    )
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "mine.py:Mine", "-q"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "mine.py:14" in err[0] and "'flipz'" in err[0], err


def test_queries_follow_digits_and_come_back_in_json(capsys):
    import json

    args = ["solve", "perfectplay.examples.ur:Ur", "-p", "pieces=1", "-q", "--query", "/:2"]
    assert main([*args, "--digits", "12"]) == 0
    out = capsys.readouterr().out
    assert "position /: 0.530049839525 for the player to move" in out
    assert "enter to 2  0.526944188221  best" in out  # 12 decimals, as the start value
    assert main([*args, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    (query,) = data["queries"]
    assert query["position"] == "/" and query["throws"] == 5
    (throw,) = query["outcomes"]
    assert throw["outcome"] == 2 and throw["weight"] == 6
    assert [m["move"] for m in throw["moves"]] == ["enter to 2"]
    assert throw["moves"][0]["best"] and abs(throw["moves"][0]["value"] - 0.526944188) < 1e-9


def test_mistakes_the_kernels_find_at_run_time():
    assert solve_compiled(Flagged(0)).value() == 0.0  # the same model, no mistake
    with pytest.raises(ModelError) as e:
        solve_compiled(Flagged(1))
    assert one_line(e.value) == (
        "Flagged: state 2: outcome() is nan (a winning chance, or a negative number while "
        "the game goes on)"
    )
    # The explorer marks a free slot with -2**63: a move there would be lost, not refused.
    with pytest.raises(ModelError) as e:
        solve_compiled(Flagged(2))
    assert one_line(e.value).startswith("Flagged: state 1: a move after outcome 0 goes to -2**63")


def test_ctrl_c_in_a_kernel_is_raised_when_it_returns():
    """SIGINT while a kernel runs: a callback into Python inside it (as numba's own
    unpickling of a constant) sees no KeyboardInterrupt (raised there, the process
    crashed with SIGSEGV); the interrupt comes when the kernel returns."""
    import os
    import signal

    from perfectplay._util.interrupts import deferred_interrupt

    seen = []
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupt():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # Python code runs here: the handler has had its turn
                seen.append(len(seen))
            seen.append("after")
    assert seen[-1] == "after"
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


@pytest.mark.slow
def test_ctrl_c_while_exploring_stops_in_one_line(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cmd = [sys.executable, "-m", "perfectplay", "solve", "perfectplay.examples.ur:Ur", "-q"]
    subprocess.run(cmd + ["-p", "pieces=1"], env=env, capture_output=True, check=True)  # kernels
    proc = subprocess.Popen(
        cmd + ["-p", "pieces=5"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(2.0)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err.decode()[-2000:]
    assert err.decode().strip().splitlines()[-1] == "perfectplay: interrupted"
    assert not any(p.name.startswith("perfectplay-") for p in tmp_path.iterdir())


@pytest.mark.slow
def test_term_while_exploring_stops_in_one_line_and_cleans_up(tmp_path):
    """``kill``/``timeout`` (TERM) stops a command as Ctrl-C does: status 143, one line,
    the temporary work directory removed (it was left behind, 206 MB for a large Ur)."""
    import os
    import signal
    import subprocess
    import sys
    import time

    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cmd = [sys.executable, "-m", "perfectplay", "solve", "perfectplay.examples.ur:Ur", "-q"]
    subprocess.run(cmd + ["-p", "pieces=1"], env=env, capture_output=True, check=True)  # kernels
    proc = subprocess.Popen(cmd + ["-p", "pieces=5"], env=env, stderr=subprocess.PIPE)
    time.sleep(2.0)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 143, err.decode()[-2000:]
    assert err.decode().strip().splitlines()[-1] == "perfectplay: terminated"
    assert not any(p.name.startswith("perfectplay-") for p in tmp_path.iterdir())


def test_a_layer_that_outgrows_memory_is_refused_in_one_line(monkeypatch, capsys):
    """Exploring stops where a layer's positions would not fit (it grew its queue and hash
    sets until the machine ran out), naming the layer and the memory."""
    from perfectplay.errors import ResourceLimitError
    from perfectplay.examples.ur import Ur

    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "8M")  # room for 131,072 positions
    with pytest.raises(ResourceLimitError, match=r"exploring layer 0: more than 131,072 "):
        solve_compiled(Ur(pieces=3))  # layer 0 holds 157,864
    assert main(["solve", "perfectplay.examples.ur:Ur", "-p", "pieces=3", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "do not fit in the 8.0 MiB of memory available" in err


def test_a_model_raise_on_a_kernel_thread_is_named_in_one_line():
    # numba hands a raise inside a parallel loop back as a SystemError caused by it.
    from perfectplay.compiled.diagnose import Guarded

    def kernel() -> None:
        try:
            raise ValueError("no such die")
        except ValueError as exc:
            raise SystemError("returned a result with an exception set") from exc

    with pytest.raises(ModelError, match=r"^a model function raised ValueError: no such die"):
        Guarded(kernel, (), ())()


def test_memory_running_out_on_a_kernel_thread_stays_a_memory_error():
    from perfectplay.compiled.diagnose import Guarded

    def kernel() -> None:
        try:
            raise MemoryError
        except MemoryError as exc:
            raise SystemError("returned a result with an exception set") from exc

    with pytest.raises(MemoryError):
        Guarded(kernel, (), ())()
