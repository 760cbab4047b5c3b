"""What a new user met writing compiled models of their own from docs/models.md ("Big
games"): values rounded a hair below 0, a game-over position queried, a model function
that raises, a bad query after good ones, and numba's disk cache of a file that
``perfectplay solve FILE.py`` loaded under a name of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from perfectplay.cli import main
from perfectplay.compiled import CompiledModel, njit, solve_compiled
from perfectplay.errors import ModelError

# Weights of 40 outcomes whose probabilities, summed as the solver sums them, come to
# 1 + 2**-52 (found by a search: a user's race game with two dice met such sums).
ROUNDS_UP = (6, 8, 7, 6, 7, 2, 2, 6, 8, 2, 5, 4, 9, 8, 6, 5, 3, 9, 4, 5)
ROUNDS_UP += (4, 4, 6, 2, 5, 2, 8, 2, 6, 4, 7, 5, 1, 6, 3, 6, 5, 4, 6, 2)


@njit(cache=True)
def chain_start(p):
    return 0


@njit(cache=True)
def chain_outcome(s, p):
    return 1.0 if s == 3 else -1.0


@njit(cache=True)
def chain_rolls(s, p, weights):
    if s != 2:
        weights[0] = 1
        return 1
    for r in range(p[0]):
        weights[r] = p[1 + r]
    return p[0]


@njit(cache=True)
def chain_moves(s, r, p, nexts, flips):
    # 0 -> 1 (same mover) -> 2 (the other moves) -> 3 (won by whoever moves at 2)
    nexts[0] = s + 1
    flips[0] = 1 if s == 1 else 0
    return 1


@njit(cache=True)
def chain_layer(s, p):
    return s


class Chain(CompiledModel):
    """Position 2's value sums the probabilities of ``weights`` (to 1 + 2**-52 for
    :data:`ROUNDS_UP`), so position 1's, one layer lower, is 1 - that: -2.2e-16 unless
    clipped."""

    max_rolls = 64
    start, outcome, rolls, moves, layer = (
        chain_start,
        chain_outcome,
        chain_rolls,
        chain_moves,
        chain_layer,
    )

    def __init__(self, weights: tuple[int, ...] = ROUNDS_UP) -> None:
        self.params = np.array([len(weights), *weights], np.int64)

    def describe(self, s: int) -> str:
        return f"at {s}"

    def parse(self, text: str) -> int:
        return int(text.removeprefix("at "))


@pytest.mark.parametrize("workdir", [False, True])
def test_a_value_rounded_below_zero_is_read_by_the_next_layer(tmp_path, workdir):
    # It was refused as "a move ... goes to 1, which the exploration never reached (the
    # model is not deterministic)": a value below 0 read as the lookup's "not found".
    kw = {"workdir": tmp_path / "w"} if workdir else {}
    sol = solve_compiled(Chain(), **kw)
    assert sol.value(2) == 1.0 and sol.value(1) == 0.0 and sol.value() == 0.0
    assert all(0.0 <= v <= 1.0 for _, _, values in sol.layer_tables() for v in values)


def test_a_game_over_position_has_its_outcome_as_value(capsys):
    sol = solve_compiled(Chain())
    assert sol.value(3) == 1.0  # it was "at 3 is not in the table of Chain"
    assert sol.options(3) == []
    assert main(["solve", "tests.test_compiled_user_models:Chain", "-q", "--query", "3"]) == 0
    out = capsys.readouterr().out
    assert "position at 3: 1.000000000 for the player to move\n  the game is over" in out


def test_a_position_the_table_lacks_is_named_itself(capsys):
    args = ["solve", "tests.test_compiled_user_models:Chain", "-q", "--query", "7"]
    assert main(args) == 2
    # (it named the first position its moves lead to: "at 8 is not in the table")
    assert capsys.readouterr().err.strip() == "perfectplay: at 7 is not in the table of Chain"


def test_a_bad_query_prints_nothing_but_its_line(capsys):
    args = ["solve", "tests.test_compiled_user_models:Chain", "-q", "--query", "0"]
    for bad in ("7", "0:x"):
        assert main([*args, "--query", bad]) == 2
        got = capsys.readouterr()
        assert got.out == "", got.out  # the summary and the first query were printed
        assert got.err.count("\n") == 1 and "Traceback" not in got.err, got.err
    assert main([*args, "--query", "0:x"]) == 2  # was a ValueError traceback
    assert "after ':' comes the number of one of the position's outcomes" in capsys.readouterr().err
    assert main([*args, "--query", "1:0", "--json"]) == 0
    queries = json.loads(capsys.readouterr().out)["queries"]
    assert [q["position"] for q in queries] == ["at 0", "at 1"]


@njit(cache=True)
def raising_moves(s, r, p, nexts, flips):
    if s == 1:
        raise ValueError("no move from 1")
    nexts[0] = s + 1
    flips[0] = 0
    return 1


class Raises(CompiledModel):
    start, outcome, moves, layer = chain_start, chain_outcome, raising_moves, chain_layer


def test_a_model_function_that_raises_is_one_line(capsys):
    with pytest.raises(ModelError) as e:
        solve_compiled(Raises())
    text = str(e.value)
    assert "\n" not in text and text.startswith("a model function raised ValueError: no move")
    assert main(["solve", "tests.test_compiled_user_models:Raises", "-q"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "raised ValueError: no move from 1" in err, err


def test_a_file_solved_by_the_command_then_imported_by_its_own_name(tmp_path):
    """``perfectplay solve mini.py:...`` loads the file as ``perfectplay_user_mini``;
    numba's cache of its ``cache=True`` functions (keyed by the file) recorded that name,
    and a script importing ``mini`` then stopped with ModuleNotFoundError."""
    (tmp_path / "mini.py").write_text(
        textwrap.dedent(
            """
            from perfectplay.compiled import njit

            @njit(cache=True)
            def f(p):
                return p[0] + 1
            """
        )
    )
    src = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": src}
    first = (
        "import numpy as np\n"
        "from perfectplay.models.loading import load_object\n"
        f"print(load_object({str(tmp_path / 'mini.py:f')!r})(np.array([1])))\n"
    )
    then = "import numpy as np, mini\nprint(mini.f(np.array([1])))\n"
    for code in (first, then):
        run = subprocess.run(
            [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert run.returncode == 0 and run.stdout == "2\n", run.stderr[-800:]


class Roomy(Chain):
    max_rolls = max_moves = 65536  # the most a model may declare


def test_declared_sizes_too_large_to_explore_are_refused_before_allocating():
    # The explorer's buffer for a batch of positions' successors (512 GiB here) was
    # allocated unasked: a MemoryError from inside the kernel.
    from perfectplay.errors import ResourceLimitError

    with pytest.raises(ResourceLimitError) as e:
        solve_compiled(Roomy())
    text = str(e.value)
    assert text.startswith("Roomy: exploring 8 positions at a time, with room for max_rolls")
    assert "needs about 512.0 GiB of memory" in text


def test_export_of_a_compiled_model_is_the_directory_the_help_names(tmp_path, capsys):
    import perfectplay

    target = tmp_path / "chain.npz"  # a compiled table is a directory, whatever its name
    args = ["solve", "tests.test_compiled_user_models:Chain", "-q", "--export", str(target)]
    assert main(args) == 0
    assert (target / "table.json").is_file() and perfectplay.load(target, Chain).value(2) == 1.0
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    # It said ".npz; a directory is refused" only.
    assert "a compiled model: the directory FILE (new or empty), whatever its name" in text


def test_a_work_directory_of_the_command_line_resumes_from_a_script(tmp_path, capsys):
    # The command loads this file as perfectplay_user_test_compiled_user_models, a script
    # imports it by its own name: one model, whose directory was refused as "another
    # model (perfectplay_user_...:Chain)".
    work = tmp_path / "w"
    assert main(["solve", f"{__file__}:Chain", "-q", "--workdir", str(work)]) == 0
    assert "perfectplay_user_" in (work / "table.json").read_text()
    capsys.readouterr()
    assert solve_compiled(Chain(), workdir=work).value(2) == 1.0
    with pytest.raises(Exception, match=r"holds the solve of another model \(test_compiled"):
        solve_compiled(Raises(), workdir=work)
    import perfectplay

    with pytest.raises(Exception, match=r"the table holds test_compiled_user_models:Chain, not"):
        perfectplay.load(work, Raises)  # (it showed perfectplay_user_test_compiled_...)
