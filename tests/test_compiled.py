"""Compiled models and the layered solver: independent twins (plain value iteration over
Python dicts, tests/twins/compiled_layered.py), the published values, errors in one
line, resuming, tables, the front door and the command line."""

from __future__ import annotations

import importlib.util
import os
import random
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from numba import njit

import perfectplay
from perfectplay.compiled import CompiledModel, solve_compiled
from perfectplay.errors import ModelError, PerfectplayError, ResourceLimitError, UnsupportedError
from perfectplay.examples.pig_compiled import CompiledPig, CompiledPiglet
from perfectplay.examples.ur import RULES, Ur

_spec = importlib.util.spec_from_file_location(
    "compiled_layered", Path(__file__).resolve().parent / "twins" / "compiled_layered.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


@cache
def ur(pieces: int):
    return solve_compiled(Ur(pieces=pieces))


# -- twins -------------------------------------------------------------------------------


@pytest.mark.parametrize("pieces", [1, 2])
def test_ur_agrees_with_its_twin(pieces):
    sol = ur(pieces)
    values = twin.ur_finkel(pieces)
    # The twin counts both colours to move; the model's positions are the mover's.
    texts = {twin.ur_notation(s, pieces): v for s, v in values.items()}
    assert len(texts) == sol.n_positions
    model = sol.model
    for text, v in texts.items():
        assert abs(sol.value(model.parse(text)) - v) <= 1e-12, text
    assert sorted(model.describe(s) for s in sol.states()) == sorted(texts)


def test_ur_two_pieces_published():
    sol = ur(2)
    # RoyalUr's finkel2p table: 0.51858 at 16-bit resolution, 12,990 positions, which
    # count the 121 where the mover has already borne off both pieces (never reached:
    # the game ends with that move): dark's 2 pieces anywhere but all borne off.
    assert abs(sol.value() - 0.51858) <= 2**-16
    unreachable = (3 + 14 * 2 + 14 * 13 // 2) - 1
    assert sol.n_positions + unreachable == 12_990
    assert sol.bound <= 1e-12


def test_pig_to_20_agrees_with_its_twin():
    model = CompiledPig(goal=20)
    sol = solve_compiled(model)
    values = twin.pig(20)
    decisions = {s: v for s, v in values.items() if s[0] != "roll"}
    for (mine, theirs, turn), v in decisions.items():
        assert abs(sol.value(model.pack(mine, theirs, turn)) - v) <= 1e-12
    rolling = [s for s in values if s[0] == "roll"]
    assert sol.n_positions == len(decisions) + len(rolling)


# A random layered game, its rules a table: states 0..n-1 in layers of `block`, each
# with 1..3 outcomes and 1..3 moves per outcome to a state of the same or a later
# layer (flip or not), or to the end (a win or a loss for whoever moves there).
# Outcome 0 always leaves the layer, so every pair of strategies ends the game.
_W = 3
_STRIDE = 1 + _W + _W * (1 + 2 * _W)


@njit(cache=True)
def rnd_start(p):
    return 0


@njit(cache=True)
def rnd_outcome(s, p):
    if s < p[0]:
        return -1.0
    return 1.0 if s % 2 else 0.0


@njit(cache=True)
def rnd_rolls(s, p, w):
    base = 2 + s * _STRIDE
    for r in range(p[base]):
        w[r] = p[base + 1 + r]
    return p[base]


@njit(cache=True)
def rnd_moves(s, r, p, nexts, flips):
    base = 2 + s * _STRIDE + 1 + _W + r * (1 + 2 * _W)
    m = p[base]
    for j in range(m):
        nexts[j] = p[base + 1 + j]
        flips[j] = p[base + 1 + _W + j]
    return m


@njit(cache=True)
def rnd_layer(s, p):
    return s // p[1] if s < p[0] else 1 << 40


class RandomLayered(CompiledModel):
    max_rolls = _W
    max_moves = _W
    start, outcome, rolls, moves, layer = rnd_start, rnd_outcome, rnd_rolls, rnd_moves, rnd_layer

    def __init__(self, n: int, block: int, seed: int) -> None:
        rng = random.Random(seed)
        p = [n, block] + [0] * (n * _STRIDE)
        self.table: dict[int, list[tuple[int, list[tuple[int, int]]]]] = {}
        for s in range(n):
            base = 2 + s * _STRIDE
            rolls = rng.randint(1, _W)
            p[base] = rolls
            turn = []
            for r in range(rolls):
                w = rng.randint(1, 5)
                p[base + 1 + r] = w
                lo = (s // block + (r == 0)) * block  # outcome 0 leaves the layer
                moves = []
                for _ in range(rng.randint(1, _W)):
                    t = rng.randint(lo, n + 1) if lo < n else n + rng.randint(0, 1)
                    moves.append((t, rng.randint(0, 1)))
                mb = base + 1 + _W + r * (1 + 2 * _W)
                p[mb] = len(moves)
                for j, (t, f) in enumerate(moves):
                    p[mb + 1 + j], p[mb + 1 + _W + j] = t, f
                turn.append((w, moves))
            self.table[s] = turn
        self.params = np.array(p, np.int64)
        self.n = n


def random_twin(model: RandomLayered) -> dict[int, float]:
    from fractions import Fraction

    def over(s):
        return None if s < model.n else (1.0 if s % 2 else 0.0)

    def turn(s):
        total = sum(w for w, _ in model.table[s])
        return [
            (Fraction(w, total), [(t, bool(f)) for t, f in moves]) for w, moves in model.table[s]
        ]

    return twin.value_iteration(0, turn, over)


@pytest.fixture(params=[1, 2], ids=["one thread", "two threads"])
def pipeline(request, monkeypatch):
    """The threads the kernels' solve_layers takes turns on, whatever the machine's load:
    layered._pipeline_threads gives one on a busy machine (as a shared test machine
    often is), which alone would leave the two threads' listing of moves untested."""
    from perfectplay.compiled import layered

    monkeypatch.setattr(layered, "_pipeline_threads", lambda: request.param)
    return request.param


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_random_layered_game_agrees_with_its_twin(seed, pipeline):
    model = RandomLayered(n=300, block=40, seed=seed)
    sol = solve_compiled(model)
    values = random_twin(model)
    assert sorted(sol.states()) == sorted(values)
    for s, v in values.items():
        assert abs(sol.value(s) - v) <= 1e-12


# A layered game whose every move goes to the next layer, many of them: a layer is
# built while the one above it is solved (kernels' solve_layers), its moves into that
# layer listed and read when it is done; here they are more than the list holds
# (twice a layer's positions and 64), which rebuilds the layer once the one above is
# solved. Position s = W * layer + i; outcome 0 (weight 1) moves to any position of the
# next layer, the other player to move; outcome 1 (weight 2) to i or i + 1 of the next
# layer, the mover again; the last layer ends the game, a win for odd i.
_FAN = 12


@njit(cache=True)
def fan_start(p):
    return 0


@njit(cache=True)
def fan_outcome(s, p):
    if s < p[0] * _FAN:
        return -1.0
    return 1.0 if s % 2 else 0.0


@njit(cache=True)
def fan_rolls(s, p, w):
    w[0] = 1
    w[1] = 2
    return 2


@njit(cache=True)
def fan_moves(s, r, p, nexts, flips):
    base = (s // _FAN + 1) * _FAN
    i = s % _FAN
    if r == 0:
        for j in range(_FAN):
            nexts[j] = base + (j * 7 + i) % _FAN
            flips[j] = 1
        return _FAN
    nexts[0] = base + i
    nexts[1] = base + (i + 1) % _FAN
    flips[0] = flips[1] = 0
    return 2


@njit(cache=True)
def fan_layer(s, p):
    return s // _FAN


class Fan(CompiledModel):
    max_rolls = 2
    max_moves = _FAN
    start, outcome, rolls, moves, layer = fan_start, fan_outcome, fan_rolls, fan_moves, fan_layer

    def __init__(self, layers: int) -> None:
        self.layers = layers
        self.params = np.array([layers], np.int64)


def test_many_moves_into_the_layer_being_solved_agree_with_the_twin(pipeline):
    layers = 30
    model = Fan(layers)
    sol = solve_compiled(model)

    def over(s):
        return None if s < layers * _FAN else (1.0 if s % 2 else 0.0)

    def turn(s):
        base, i = (s // _FAN + 1) * _FAN, s % _FAN
        every = [(base + (j * 7 + i) % _FAN, True) for j in range(_FAN)]
        near = [(base + i, False), (base + (i + 1) % _FAN, False)]
        return [(Fraction(1, 3), every), (Fraction(2, 3), near)]

    values = twin.value_iteration(0, turn, over)
    # 12 positions a layer, 14 listed moves each: more than the list's 2 * 12 + 64.
    assert len(values) > 3 * _FAN
    assert sorted(sol.states()) == sorted(values)
    for s, v in values.items():
        assert abs(sol.value(s) - v) <= 1e-12


def _table(rolls):
    """A successor table (as the sweeps read it) from per position its outcomes, each a
    list of in-layer targets (no flips, equal weights, no exits)."""
    roll_ptr, move_ptr, codes = [0], [0], []
    for outcomes in rolls:
        for targets in outcomes:
            codes += [2 * t for t in targets]
            move_ptr.append(len(codes))
        roll_ptr.append(len(move_ptr) - 1)
    n_r = len(move_ptr) - 1
    return (
        np.array(roll_ptr, np.int64),
        np.full(n_r, 0.5),
        np.full(n_r, -1.0),
        0.0,
        np.array(move_ptr, np.int64),
        np.array(codes, np.int32),
    )


def test_components_and_the_proof_that_play_ends():
    from perfectplay.compiled.components import components, slot_table
    from perfectplay.compiled.sweep import _ends

    def ends(rolls):
        roll_ptr, prob, const, eps, move_ptr, codes = _table(rolls)
        order, comp_ptr = components(roll_ptr, move_ptr, codes)
        assert comp_ptr.size == 2  # one component
        # The rows in slot order, the moves naming slots, as the sweeps read them.
        table = slot_table(order, roll_ptr, prob, const, move_ptr, codes, eps, None)
        return _ends(table, 0, len(rolls), np.zeros(len(rolls), bool))

    # 0 <-> 1, each outcome with a move that stays: the players can go on for ever.
    assert not ends([[[1], [1]], [[0], [0]]])
    # The same, but 1's second outcome has only a move out of the layer: every pair of
    # strategies ends (from 1 at once with chance 1/2, from 0 through 1).
    assert ends([[[1], [1]], [[0], []]])
    # A choice that stays is enough: every outcome of 0 and 1 has a move within {0, 1}.
    assert not ends([[[1], [1]], [[0], [0, 2]], [[1], [0]]])
    # Linear outcomes (one move, no exit) that leave the positions left: 2 goes, then 0
    # (its second outcome moves only to 2), then 1.
    assert ends([[[1], [2]], [[0]], [[0], []]])


def test_rows_in_slot_order_match_a_plain_reordering():
    # Large enough for the parallel copies, against numpy's own gather: the outcomes of
    # each slot split into the linear ones (one move, no exit) and the others; the same
    # in the one serial pass (threads None) as in the steps.
    from perfectplay.compiled.components import slot_table

    rng = np.random.default_rng(3)
    for n, threads in ((7, True), (7, None), (60_000, True), (60_000, None)):
        n_rolls = rng.integers(1, 4, n)
        roll_ptr = np.concatenate([[0], np.cumsum(n_rolls)]).astype(np.int32)
        n_moves = rng.integers(0, 3, int(roll_ptr[-1]))
        move_ptr = np.concatenate([[0], np.cumsum(n_moves)]).astype(np.int32)
        codes = rng.integers(0, 2 * n, int(move_ptr[-1])).astype(np.int32)
        const = np.where(rng.random(int(roll_ptr[-1])) < 0.5, -1.0, rng.random(int(roll_ptr[-1])))
        prob = rng.random(int(roll_ptr[-1]))
        order = rng.permutation(n).astype(np.int32)
        got = slot_table(order, roll_ptr, prob, const, move_ptr, codes, 0.25, threads)
        lin_ptr, lin_prob, lin_code, new_roll, got_prob, got_const, eps, new_move, got_codes = got
        slot = np.argsort(order)
        flat = np.concatenate([np.arange(roll_ptr[i], roll_ptr[i + 1]) for i in order])
        linear = (n_moves[flat] == 1) & (const[flat] < 0.0)
        lin, other = flat[linear], flat[~linear]
        assert eps == 0.25
        per_slot = np.repeat(np.arange(n), n_rolls[order])
        assert np.array_equal(np.diff(lin_ptr), np.bincount(per_slot[linear], minlength=n))
        assert np.array_equal(np.diff(new_roll), np.bincount(per_slot[~linear], minlength=n))
        assert np.array_equal(np.diff(new_move), n_moves[other])
        assert np.array_equal(lin_prob, prob[lin]) and np.array_equal(got_prob, prob[other])
        assert np.array_equal(got_const, const[other])
        renamed = 2 * slot[codes >> 1] + (codes & 1)
        assert np.array_equal(lin_code, renamed[move_ptr[lin]])
        moves = np.concatenate([np.arange(move_ptr[r], move_ptr[r + 1]) for r in other])
        assert np.array_equal(got_codes, renamed[moves])


def test_directories_find_what_a_binary_search_finds():
    from perfectplay.compiled.search import directory_size, fill_directory, find_in

    rng = np.random.default_rng(7)
    for trial in range(60):
        n = int(rng.integers(0, 2000))
        if trial % 3 == 0:  # keys of both signs, far apart (differences overflow int64)
            keys = np.unique(rng.integers(-(2**62), 2**62, n)) * 2
        elif trial % 3 == 1:  # dense
            keys = np.unique(rng.integers(0, 3 * n + 1, n))
        else:  # two clusters at the ends of the range
            keys = np.unique(
                np.concatenate([rng.integers(-(2**63) + 1, -(2**63) + 99, n // 2),
                                rng.integers(2**63 - 99, 2**63 - 1, n // 2)])
            )  # fmt: skip
        d = np.zeros(directory_size(keys.size) + 3, np.int64)
        fill_directory(keys, 0, keys.size, d, 3)  # at an offset, as layers share one array
        probes = np.concatenate([keys, rng.integers(-(2**63) + 1, 2**63 - 1, 100)])
        for x in probes:
            i = int(np.searchsorted(keys, x))
            expected = i if i < keys.size and keys[i] == x else -1
            assert find_in(keys, d, 3, int(x)) == expected


# -- published values ---------------------------------------------------------------------


def test_pig_positions_are_fields_of_bits_and_a_field_too_wide_is_refused():
    pig = CompiledPig(goal=100)  # 106 needs 7 bits a field
    state = pig.parse("(99, 3, 27)")
    assert state == (((99 << 7 | 3) << 7 | 27) << 1) and pig.unpack(state) == (99, 3, 27, False)
    assert pig.describe(state | 1) == "(99, 3, 27) rolling"
    # 128 would spill into the opponent's score and name another position.
    with pytest.raises(ValueError, match=r"0\.\.127, not 128"):
        pig.parse("(0, 0, 128)")
    with pytest.raises(ValueError, match="a Pig position is"):
        pig.parse("(0, 0)")


def test_pig_100_published():
    sol = perfectplay.solve(CompiledPig())
    assert abs(sol.value() - 0.5305927252737465) <= 1e-10
    assert sol.bound <= 1e-10


def test_pig_and_piglet_small_goals_match_the_python_models():
    assert abs(solve_compiled(CompiledPig(goal=10)).value() - 0.7094243225983) <= 1e-12
    assert abs(solve_compiled(CompiledPiglet(goal=10)).value() - 0.5224794079488326) <= 1e-12


def test_rule_sets_solve():
    for name in RULES:
        sol = solve_compiled(Ur(name, pieces=1))
        assert 0.5 < sol.value() < 0.6 and sol.bound <= 1e-12


# -- errors in one line ---------------------------------------------------------------------


@njit(cache=True)
def bad_rolls(s, p, w):
    w[0] = 1
    w[1] = 0 if s == 2 else 1
    return 2


@njit(cache=True)
def down_layer(s, p):
    return -s if p[0] == 1 else s


@njit(cache=True)
def chain_moves(s, r, p, nexts, flips):
    nexts[0] = s + 1
    flips[0] = 1
    return 1


@njit(cache=True)
def chain_outcome(s, p):
    return 0.0 if s >= 4 else -1.0


@njit(cache=True)
def too_many_moves(s, r, p, nexts, flips):
    nexts[0] = s + 1
    nexts[1] = s + 1
    flips[0] = flips[1] = 1
    return 2


@njit(cache=True)
def no_moves(s, r, p, nexts, flips):
    return 0


@njit(cache=True)
def loop_moves(s, r, p, nexts, flips):
    nexts[0] = 1 - s  # two positions that pass to each other for ever
    flips[0] = 1
    return 1


@njit(cache=True)
def loop_outcome(s, p):
    return 0.5 if s == 10 else -1.0


class Chain(CompiledModel):
    max_rolls = 2
    start, outcome, rolls, moves, layer = (
        rnd_start,
        chain_outcome,
        bad_rolls,
        chain_moves,
        down_layer,
    )

    def __init__(self, flag: int = 0) -> None:
        self.params = np.array([flag], np.int64)

    def describe(self, state: int) -> str:
        return f"<{state}>"


def one_line(exc: BaseException) -> str:
    text = str(exc)
    assert "\n" not in text and "Traceback" not in text
    return text


def test_errors_name_the_state():
    with pytest.raises(ModelError) as e:
        solve_compiled(Chain())
    assert one_line(e.value) == (
        "Chain: state 2 (<2>): chance outcome 1 has weight 0; weights must be positive"
    )
    with pytest.raises(ModelError) as e:
        solve_compiled(Chain(flag=1))
    assert "state 0 (<0>)" in one_line(e.value) and "lower layer" in str(e.value)

    class Many(CompiledModel):
        start, outcome, moves = rnd_start, chain_outcome, too_many_moves

    with pytest.raises(ModelError) as e:
        solve_compiled(Many())
    assert "gave 2 moves, more than max_moves (1)" in one_line(e.value)

    class Stuck(CompiledModel):
        start, outcome, moves = rnd_start, chain_outcome, no_moves

    with pytest.raises(ModelError) as e:
        solve_compiled(Stuck())
    assert "has no move (a pass must be given as a move)" in one_line(e.value)


def test_a_game_that_can_go_on_for_ever_is_refused_not_stopped_early():
    class Loop(CompiledModel):
        start, outcome, moves = rnd_start, loop_outcome, loop_moves

    with pytest.raises(ModelError) as e:
        solve_compiled(Loop())
    assert "does not contract" in one_line(e.value)


def test_uncompiled_function_is_refused():
    class Plain(CompiledModel):
        @staticmethod
        def start(p):
            return 0

    with pytest.raises(ModelError, match="not numba-compiled"):
        solve_compiled(Plain())


def test_memory_is_refused_before_allocating(monkeypatch):
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "1K")
    with pytest.raises(ResourceLimitError) as e:
        solve_compiled(CompiledPig(goal=10))
    assert "needs about" in one_line(e.value)


# -- work directory, tables, front door, command line --------------------------------------


def test_a_killed_solve_resumes_from_finished_layers(tmp_path):
    first = solve_compiled(Ur(pieces=2), workdir=tmp_path)
    lowest = first.layers[0]
    kept = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("value-*.npy")}
    # As if killed while solving the first layer: its done record is not there.
    os.unlink(tmp_path / f"done-{lowest}.json")
    again = solve_compiled(Ur(pieces=2), workdir=tmp_path)
    assert again.value() == first.value()
    now = {p.name: p.stat().st_mtime_ns for p in tmp_path.glob("value-*.npy")}
    assert [n for n in now if now[n] != kept[n]] == [f"value-{lowest}.npy"]
    with pytest.raises(PerfectplayError, match="with other parameters"):
        solve_compiled(Ur(pieces=1), workdir=tmp_path)
    with pytest.raises(PerfectplayError, match="another model"):
        solve_compiled(CompiledPig(goal=10), workdir=tmp_path)
    (tmp_path.parent / "mine").mkdir()
    (tmp_path.parent / "mine" / "notes.txt").write_text("someone's")
    with pytest.raises(PerfectplayError, match="'notes.txt', which no solve wrote"):
        solve_compiled(Ur(pieces=1), workdir=tmp_path.parent / "mine")


def test_table_round_trip(tmp_path):
    sol = ur(2)
    path = sol.save(tmp_path / "ur2")
    table = perfectplay.load(path)
    assert table.value() == sol.value() and table.n_positions == sol.n_positions
    with pytest.raises(UnsupportedError, match="needs the model"):
        table.options("4/6:2")
    table = perfectplay.load(path, Ur(pieces=2))
    assert table.best("4/6:2") == sol.best("4/6:2") == ["move 4 to 6"]
    small = perfectplay.load(sol.save(tmp_path / "ur2f", float32=True))
    assert small.workdir.values(small.layers[0]).dtype == np.float32
    assert abs(small.value() - sol.value()) < 1e-7


def test_options_and_notation():
    sol = ur(2)
    opts = sol.options("4/6:3")
    assert [o.label for o in opts] == ["enter to 3", "move 4 to 7"]
    assert opts[0].best and opts[1].regret > 0
    assert sol.model.describe(sol.model.parse("4,8/6+1")) == "4,8/6+1"
    with pytest.raises(PerfectplayError, match="more than 2 pieces"):
        sol.value("1,2,3/")


def test_command_line(capsys):
    from perfectplay.cli import main

    assert (
        main(["solve", "perfectplay.examples.ur:Ur", "-p", "pieces=2", "-q", "--query", "4/6:2"])
        == 0
    )
    out = capsys.readouterr().out
    assert "start value: 0.518572907 for the player to move first" in out
    assert "positions: 12,869 in 3 layers" in out
    assert "move 4 to 6  0.580460644  best" in out
    assert (
        main(["solve", "perfectplay.examples.ur:Ur", "-p", "rules=blitz", "-p", "pieces=1", "-q"])
        == 0
    )
    assert "Ur(blitz+pieces=1)" in capsys.readouterr().out
    assert (
        main(["solve", "perfectplay.examples.ur:Ur", "-p", "pieces=2", "-q", "--digits", "13"]) == 0
    )
    assert "start value: 0.5185729074957 for the player" in capsys.readouterr().out


def test_docs_big_games_example():
    """The ```pycon block of docs/models.md's "Big games" section runs as a doctest."""
    import doctest
    import re

    text = (Path(__file__).resolve().parent.parent / "docs" / "models.md").read_text()
    section = text[text.index("## Big games") :]
    blocks = re.findall(r"```pycon\n(.*?)```", section, re.S)
    assert blocks
    test = doctest.DocTestParser().get_doctest("\n".join(blocks), {}, "models.md", None, 0)
    result = doctest.DocTestRunner().run(test)
    assert result.failed == 0 and result.attempted >= 4


def test_one_thread_solves_small_layers_as_two_do():
    # Two threads take turns on a small game's layers (one builds a layer's table while
    # the other solves the layer above); with one thread every step is slow, so the
    # kernel soon goes on in the calling thread alone: both ways, the same bits.
    import subprocess
    import sys

    # (Two threads asked for in the second run, whatever the machine's load: see the
    # fixture pipeline.)
    code = (
        "import sys\n"
        "from perfectplay.compiled import layered, solve_compiled\n"
        "layered._pipeline_threads = lambda: int(sys.argv[1])\n"
        "from perfectplay.examples.pig_compiled import CompiledPig\n"
        "s = solve_compiled(CompiledPig(goal=40))\n"
        "print(repr(s.value()), repr(s.bound))\n"
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", code, threads],
            env={**os.environ, "NUMBA_NUM_THREADS": threads},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for threads in ("1", "2")
    ]
    sol = solve_compiled(CompiledPig(goal=40))
    assert runs[0] == runs[1] == f"{sol.value()!r} {sol.bound!r}\n"
    assert abs(sol.value() - twin.pig(40)[(0, 0, 0)]) <= 1e-12


def test_small_layers_go_on_in_one_thread_when_the_machine_is_busy(monkeypatch, tmp_path):
    from perfectplay.compiled import layered
    from perfectplay.compiled import sweep as sweeps
    from perfectplay.compiled.kernels import kernels_for

    cpus = len(os.sched_getaffinity(0))
    busy, idle = tmp_path / "busy", tmp_path / "idle"
    busy.write_text(f"2.00 1.50 1.00 {cpus}/300 4242\n")
    idle.write_text("0.10 0.10 0.10 1/300 4242\n")
    monkeypatch.setattr(layered, "_LOADAVG", str(busy))
    assert layered._pipeline_threads() == 1
    monkeypatch.setattr(layered, "_LOADAVG", str(idle))
    expected = numba_threads() if cpus > 1 else 1
    assert layered._pipeline_threads() == expected
    monkeypatch.setattr(layered, "_LOADAVG", str(tmp_path / "none"))
    assert layered._pipeline_threads() == numba_threads()

    # A kernel that gives up on two threads halfway (BUSY): the layers left are solved
    # in one thread from where it stopped, to the same values. (On a loaded machine the
    # real kernel may give up sooner by itself: then from there.)
    model = CompiledPig(goal=30)
    plain = solve_compiled(model)
    k = kernels_for(model)
    real = k.solve_layers
    calls = []
    stopped = []

    class HalfBusy:
        def __getattr__(self, name):
            return getattr(k, name)

        def solve_layers(self, found, bounds, first, last, *rest):
            calls.append((first, last, rest[-1], numba_threads()))
            if len(calls) == 1:
                mid = (first + last) // 2
                at, status = real(found, bounds, mid + 1, last, *rest)
                if status != sweeps.BUSY:
                    assert (at, status) == (-1, sweeps.OK)
                    at = mid
                stopped.append(at)
                return at, sweeps.BUSY
            return real(found, bounds, first, last, *rest)

    monkeypatch.setattr(layered, "_pipeline_threads", lambda: 2)
    monkeypatch.setattr(layered, "kernels_for", lambda m: HalfBusy())
    again = solve_compiled(model)
    assert len(calls) == 2
    (f1, l1, t1, _), (f2, l2, t2, n2) = calls
    assert (f2, l2, t2, n2) == (f1, stopped[0], 1, 1) and f1 <= l2 < l1 and t1 == 2
    assert again.value() == plain.value()
    for s in plain.states():
        assert again.value(s) == plain.value(s)


def numba_threads() -> int:
    import numba

    return int(numba.get_num_threads())
