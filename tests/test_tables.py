"""Saved tables are written whole or not at all, and loading refuses what no solve wrote:
damaged files, forged values, zip bombs, all as one InputError line."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import perfectplay
from perfectplay.errors import InputError
from perfectplay.examples.five_dice import FiveDice
from perfectplay.examples.pig import Piglet
from perfectplay.examples.tictactoe import TicTacToe

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def tables(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tables")
    out = {}
    for name, model in [("chance", FiveDice(dice=3)), ("game", TicTacToe()), ("pig", Piglet(3))]:
        out[name] = perfectplay.solve(model).save(folder / f"{name}.npz", exact=name != "game")
    return out


def _arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path) as npz:
        return {k: npz[k] for k in npz.files}


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(kind=st.sampled_from(["chance", "game", "pig"]), data=st.data())
def test_damaged_tables_are_one_line(tables, tmp_path, kind, data):
    raw = tables[kind].read_bytes()
    cut = data.draw(st.integers(0, len(raw) - 1))
    flips = data.draw(st.lists(st.integers(0, len(raw) - 1), max_size=4))
    damaged = bytearray(raw[:cut] if not flips else raw)
    for i in flips:
        damaged[i] ^= 0xFF
    path = tmp_path / "damaged.npz"
    path.write_bytes(bytes(damaged))
    try:
        table = perfectplay.load(path)
    except InputError as exc:
        assert "\n" not in str(exc)
        return
    # A flip that zlib's checksum cannot see (in a header field that does not matter) may
    # load; then the table must still answer as the original.
    assert table.value() == perfectplay.load(tables[kind]).value()


@pytest.mark.parametrize(
    "name, forged",
    [
        ("value", lambda v: np.where(np.arange(len(v)) == 1, np.nan, v)),
        ("best", lambda b: b + 10**6),
        ("start", lambda s: np.array(10**9)),
    ],
)
def test_forged_values_are_refused(tables, tmp_path, name, forged):
    arrays = _arrays(tables["chance"])
    arrays[name] = forged(arrays[name])
    np.savez_compressed(tmp_path / "forged.npz", **arrays)
    with pytest.raises(InputError, match="forged"):
        perfectplay.load(tmp_path / "forged.npz")


def test_forged_winning_chances_and_outcomes_are_refused(tables, tmp_path):
    arrays = _arrays(tables["pig"])
    arrays["value"] = arrays["value"] + 1.5
    np.savez_compressed(tmp_path / "pig.npz", **arrays)
    with pytest.raises(InputError, match=r"outside \[0, 1\]"):
        perfectplay.load(tmp_path / "pig.npz")
    arrays = _arrays(tables["game"])
    arrays["value"][0] = 9
    np.savez_compressed(tmp_path / "game.npz", **arrays)
    with pytest.raises(InputError, match="outcome code"):
        perfectplay.load(tmp_path / "game.npz")


def test_a_zip_bomb_is_refused_before_it_inflates(tables, tmp_path):
    arrays = _arrays(tables["chance"])
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.zeros(200 << 20, dtype=np.uint8))  # 200 MB of zeros
    path = tmp_path / "bomb.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
        for k, v in arrays.items():
            one = io.BytesIO()
            np.lib.format.write_array(one, v)
            zf.writestr(f"{k}.npy", one.getvalue())
        zf.writestr("padding.npy", buf.getvalue())
    assert path.stat().st_size < 1 << 20
    with pytest.raises(InputError, match="inflate"):
        perfectplay.load(path)


def test_a_file_that_is_not_an_array_archive_is_refused(tmp_path):
    path = tmp_path / "t.npz"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("x.txt", "hello")
    with pytest.raises(InputError, match="more than arrays"):
        perfectplay.load(path)


SAVER = """
import sys
import perfectplay
from perfectplay.examples.five_dice import FiveDice
sol = perfectplay.solve(FiveDice(dice=int(sys.argv[2])))
print("solved", flush=True)
sys.stdin.readline()
sol.save(sys.argv[1])
"""


def test_twelve_concurrent_saves_leave_one_whole_table(tmp_path):
    target = tmp_path / "t.npz"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", SAVER, str(target), str(2 + k % 2)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
        )
        for k in range(12)
    ]
    for p in procs:  # every one solved: now all save at once
        assert p.stdout.readline().strip() == "solved"
    for p in procs:
        p.stdin.write("\n")
        p.stdin.flush()
    assert all(p.wait(timeout=120) == 0 for p in procs)
    table = perfectplay.load(target)
    assert table.value() in (
        perfectplay.solve(FiveDice(dice=2)).value(),
        perfectplay.solve(FiveDice(dice=3)).value(),
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]


def test_a_save_killed_midway_leaves_the_previous_table(tmp_path):
    target = tmp_path / "t.npz"
    perfectplay.solve(FiveDice(dice=2)).save(target)
    before = target.read_bytes()
    slow_save = textwrap.dedent(
        """
        import sys, time
        import numpy as np
        import perfectplay
        from perfectplay.examples.five_dice import FiveDice
        sol = perfectplay.solve(FiveDice(dice=3))
        real = np.savez_compressed
        def slow(fh, **arrays):
            fh.write(b"partial")
            fh.flush()
            print("writing", flush=True)
            time.sleep(60)
        np.savez_compressed = slow
        sol.save(sys.argv[1])
        """
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    p = subprocess.Popen(
        [sys.executable, "-c", slow_save, str(target)], stdout=subprocess.PIPE, text=True, env=env
    )
    assert p.stdout.readline().strip() == "writing"
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert target.read_bytes() == before
    assert perfectplay.load(target).value() == perfectplay.solve(FiveDice(dice=2)).value()
    # what the kill left is a hidden temporary file, never something that looks finished
    assert [q.name for q in tmp_path.iterdir() if q.name != "t.npz"] == [
        q.name
        for q in tmp_path.iterdir()
        if q.name.startswith(".t.npz.") and q.name.endswith(".tmp")
    ]


def test_a_model_built_with_other_parameters_is_refused(tmp_path):
    # A Pig(goal=12) read a table solved for Pig(goal=10): the same states, the other
    # game's values, answered without a word.
    from perfectplay.errors import InputError
    from perfectplay.examples.five_dice import FiveDice
    from perfectplay.examples.pig import Pig
    from perfectplay.results.table import model_parameters

    pig = perfectplay.solve(Pig(goal=10))
    path = pig.save(tmp_path / "pig10.npz")
    assert perfectplay.load(path, Pig(goal=10)).value() == pig.value()
    with pytest.raises(InputError, match="solved with goal=10, the model given has goal=12"):
        perfectplay.load(path, Pig(goal=12))
    assert perfectplay.load(path).value() == pig.value()  # without a model: stored keys
    dice = perfectplay.solve(FiveDice(dice=3))
    path = dice.save(tmp_path / "dice3.npz")
    with pytest.raises(InputError, match="dice=3, the model given has dice=4"):
        perfectplay.load(path, FiveDice(dice=4))

    class Counting(FiveDice):
        # State the model keeps that is no parameter (not an __init__ argument) is not
        # compared: it may change while solving.
        def __init__(self, dice: int = 3) -> None:
            super().__init__(dice=dice)
            self.calls = 0

        def start(self):
            self.calls += 1
            return super().start()

    counting = Counting()
    path = perfectplay.solve(counting).save(tmp_path / "counting.npz")
    assert model_parameters(counting) == '{"dice": 3}'
    assert perfectplay.load(path, Counting()).value() == dice.value()
