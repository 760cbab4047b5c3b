"""The Royal Game of Ur's rules as data: parameters that rebuild the model (and its saved
table), RoyalUr's ``.rgu`` tables read and written, and the Blitz and Masters rule sets
against the dictionary twin (tests/twins/compiled_layered.py)."""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path

import numpy as np
import pytest

import perfectplay
from perfectplay.compiled import solve_compiled
from perfectplay.compiled.solution import CompiledSolution
from perfectplay.compiled.workdir import Workdir
from perfectplay.errors import InputError
from perfectplay.examples.pig_compiled import CompiledPig
from perfectplay.examples.ur import PATHS, RULES, Ur, UrRules, ur_start
from perfectplay.examples.ur_rgu import RguLayout, read_rgu, settings, write_rgu

DATA = Path(__file__).resolve().parent / "data" / "ur"
PUBLISHED = DATA / "finkel2p.rgu"  # RoyalUr-Java's models/finkel2p.rgu (see PROVENANCE.md)
STEP = 1 / 65535  # one step of a percent16 value, as a winning chance

_spec = importlib.util.spec_from_file_location(
    "compiled_layered", Path(__file__).resolve().parent / "twins" / "compiled_layered.py"
)
twin = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(twin)  # type: ignore[union-attr]


@cache
def solved(rules: str, pieces: int) -> CompiledSolution:
    return solve_compiled(Ur(rules, pieces=pieces))


def our_values(sol: CompiledSolution) -> tuple[np.ndarray, np.ndarray]:
    """A solution's states and values as arrays."""
    states = np.fromiter(sol.states(), dtype=np.int64)
    return states, np.array([sol.value(int(s)) for s in states])


def same_model(a: Ur, b: Ur) -> bool:
    return a.rules == b.rules and a.name == b.name and list(a.params) == list(b.params)


# -- parameters --------------------------------------------------------------------------

# A path of our own: light's lane, then the shared lane up to the central rosette.
SHORT = ((1, 4), (1, 3), (1, 2), (1, 1), (2, 1), (2, 2), (2, 3), (2, 4))


@pytest.mark.parametrize(
    "model",
    [
        *(Ur(name) for name in RULES),
        Ur("finkel", pieces=2),
        Ur("masters", dice=4, zero=0, safe_rosettes=True),
        Ur("blitz", path="bell"),
        Ur("finkel", path=SHORT, pieces=3),
        Ur(UrRules(path=SHORT, pieces=2, capture_extra=True)),
        Ur(UrRules(path="masters", pieces=3), safe_rosettes=False),
    ],
    ids=lambda m: m.name,
)
def test_parameters_rebuild_an_equal_model(model):
    # Through JSON, as a table's header keeps them (a path of tiles comes back as lists).
    params = json.loads(json.dumps(model.parameters()))
    assert same_model(Ur(**params), model)


def test_parameters_read_as_people_wrote_them():
    assert Ur("blitz").parameters() == {"rules": "blitz"}
    assert Ur("finkel", pieces=2).parameters() == {"rules": "finkel", "pieces": 2}
    custom = Ur(UrRules(path=SHORT, pieces=2))
    assert custom.name == "Ur(custom)"
    assert custom.parameters() == {"rules": {"path": [list(t) for t in SHORT], "pieces": 2}}
    # A path typed as lists is the same rule set as the path as tuples.
    assert UrRules(path=[list(t) for t in SHORT]) == UrRules(path=SHORT)
    with pytest.raises(ValueError, match="unknown Ur rule 'pices'"):
        Ur({"pices": 2})


@pytest.mark.parametrize(
    "model", [Ur("finkel", pieces=2), Ur("finkel", path=SHORT, pieces=2)], ids=lambda m: m.name
)
def test_a_saved_table_loads_with_its_model_rebuilt(tmp_path, model):
    sol = solve_compiled(model)
    path = sol.save(tmp_path / "table")
    table = perfectplay.load(path, Ur)  # the class: the table's parameters rebuild it
    assert isinstance(table.model, Ur) and same_model(table.model, model)
    assert table.value() == sol.value() and table.name == model.name
    query = "1/2:2" if model.rules.path == SHORT else "4/6:2"
    assert [(o.label, o.value) for o in table.options(query)] == [
        (o.label, o.value) for o in sol.options(query)
    ]


def test_a_table_loads_only_with_its_own_class(tmp_path):
    path = solve_compiled(CompiledPig(goal=10)).save(tmp_path / "pig")
    with pytest.raises(InputError, match="CompiledPig, not Ur"):
        perfectplay.load(path, Ur)


# -- .rgu: RoyalUr's published table ----------------------------------------------------------


def test_published_finkel2p_reads_as_our_positions():
    table = read_rgu(PUBLISHED)
    assert table.value_type == "percent16" and table.metadata["author"] == "Padraig Lamont"
    assert table.model().name == "Ur(finkel+pieces=2)"
    assert len(table) == 12_990
    assert abs(table.value() - 0.51858) <= STEP / 2  # the figure RoyalUr quotes
    sol = solved("finkel", 2)
    ours = {int(s) for s in sol.states()}
    # Their table holds ours and the 121 where light (to move) has borne off both pieces.
    won = {int(s) for s in RguLayout.of(table.rules).light_won()}
    assert set(table) == ours | won and len(won) == 121 and not ours & won
    assert {table[s] for s in won} == {1.0}
    # Their values were trained to 7.6e-6 in the chance: within a step of ours.
    states, values = our_values(sol)
    assert np.abs(table.lookup(states) - values).max() <= STEP
    assert sorted(int(s) for s in table.states()) == sorted(table)
    assert abs(table.value("4/6") - sol.value("4/6")) <= STEP


def test_our_finkel2p_has_the_published_keys_and_values(tmp_path):
    ours = write_rgu(solved("finkel", 2), tmp_path / "ours.rgu").read_bytes()
    theirs = PUBLISHED.read_bytes()

    def body(data: bytes) -> bytes:  # after the magic, the version and the metadata
        return data[8 + int.from_bytes(data[4:8], "big") :]

    mine, published = body(ours), body(theirs)
    assert mine[:8] == published[:8] == bytes.fromhex("00000001000032be")  # 1 map, 12,990
    keys = 8 + 4 * 12_990
    assert mine[:keys] == published[:keys]  # every key, in their order
    a = np.frombuffer(mine[keys:], ">u2").astype(int)
    b = np.frombuffer(published[keys:], ">u2").astype(int)
    assert a.size == b.size == 12_990 and np.abs(a - b).max() <= 1
    head = json.loads(ours[8 : 8 + int.from_bytes(ours[4:8], "big")])
    assert head["game_settings"] == read_rgu(PUBLISHED).metadata["game_settings"]


# -- .rgu: our tables, written and read back ----------------------------------------------


@pytest.mark.parametrize(
    ("value_type", "tolerance"), [("percent16", STEP / 2), ("f32", 1e-7), ("f64", 1e-15)]
)
def test_write_then_read_within_the_precision(tmp_path, value_type, tolerance):
    sol = solved("finkel", 2)
    table = read_rgu(write_rgu(sol, tmp_path / "t.rgu", value_type))
    assert table.value_type == value_type and table.metadata["model"] == sol.name
    states, values = our_values(sol)
    assert np.abs(table.lookup(states) - values).max() <= tolerance + 1e-15


@pytest.mark.parametrize("rules", ["blitz", "masters"])
def test_masters_path_two_pieces_round_trip(tmp_path, rules):
    sol = solved(rules, 2)
    table = read_rgu(write_rgu(sol, tmp_path / f"{rules}.rgu", "f64"))
    assert table.rules == sol.model.rules and table.model().name == sol.name
    # f64 holds the percent: v * 100 / 100 may move the last bit.
    states, values = our_values(sol)
    assert np.abs(table.lookup(states) - values).max() <= 1e-15


def played_positions(model: Ur, games: int, seed: int = 1) -> np.ndarray:
    """Positions met in ``games`` random games (the model's own moves)."""
    from perfectplay.compiled.kernels import kernels_for

    k, p, rng = kernels_for(model), model.params, np.random.default_rng(seed)
    seen = set()
    for _ in range(games):
        s = int(ur_start(p))
        while True:
            seen.add(s)
            weights, m, nexts, _, over, _ = k.turn(s, p, model.max_rolls, model.max_moves)
            roll = int(rng.choice(weights.size, p=weights / weights.sum()))
            j = int(rng.integers(m[roll]))
            if over[roll, j] >= 0:
                break
            s = int(nexts[roll, j])
    return np.array(sorted(seen), dtype=np.int64)


@pytest.mark.parametrize("rules", ["blitz", "masters"])
def test_full_masters_path_tables_span_several_maps(tmp_path, rules):
    # Masters' path: 4 safe tiles a side, 12 war tiles in two 6-tile segments of 10 bits:
    # a board of 28 bits, the hands in bits 28..33, so the keys pass 32 bits.
    model = Ur(rules)
    layout = RguLayout.of(model.rules)
    assert (layout.safe_bits, layout.war_tiles, layout.segment_tiles) == (4, 12, 6)
    assert (layout.segment_bits, layout.board_bits) == (10, 28)
    # A table of the positions of some random games, written and read back.
    states = played_positions(model, 40)
    values = np.random.default_rng(2).random(states.size)
    wd = Workdir(tmp_path / "part").create()
    wd.write_keys(0, states)
    wd.finish(0, values, {"bound": 0.0})
    wd.write_header(
        {
            "model": model.name,
            "class": "perfectplay.examples.ur:Ur",
            "parameters": model.parameters(),
            "params": [int(x) for x in model.params],
            "start": int(ur_start(model.params)),
            "layers": [0],
            "sizes": [int(states.size)],
        }
    )
    path = write_rgu(CompiledSolution(wd, model), tmp_path / "part.rgu", "f64")
    data = path.read_bytes()
    maps = int.from_bytes(data[8 + int.from_bytes(data[4:8], "big") :][:4], "big")
    assert maps > 1
    table = read_rgu(path)
    assert np.abs(table.lookup(states) - values).max() <= 1e-15
    assert np.isnan(table.lookup(np.array([int(states.max()) + 1]))).all()
    assert np.array_equal(layout.decode(layout.encode(states)), states)
    start = np.array([ur_start(model.params)], dtype=np.int64)
    assert int(layout.encode(start)[0]) >> 32 > 0  # 7 or 5 pieces in light's hand


def test_a_table_loaded_without_its_model_writes_too(tmp_path):
    saved = solved("finkel", 2).save(tmp_path / "ur2")
    table = perfectplay.load(saved)
    assert table.model is None
    got = read_rgu(write_rgu(table, tmp_path / "ur2.rgu"))
    assert abs(got.value() - table.value()) <= STEP / 2


def test_export_command_writes_rgu(tmp_path, capsys):
    from perfectplay.cli import main

    saved = solved("finkel", 1).save(tmp_path / "ur1")
    assert main(["export", str(saved), "--format", "rgu", "-q"]) == 0
    table = read_rgu(tmp_path / "ur1.rgu")
    assert table.value_type == "percent16" and len(table) == 217 + 15
    assert main(["export", str(saved), "--format", "rgu", "--values", "f32", "-o",
                 str(tmp_path / "x.rgu"), "-q"]) == 0  # fmt: skip
    assert read_rgu(tmp_path / "x.rgu").value_type == "f32"
    pig = solve_compiled(CompiledPig(goal=10)).save(tmp_path / "pig")
    assert main(["export", str(pig), "--format", "rgu", "-q"]) == 2
    assert "CompiledPig, not Ur" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("parts", "message"),
    [
        ({"path": SHORT}, "Bell's or Masters' path"),
        ({"dice": 2}, "4 binary dice"),
        ({"pieces": 8}, "up to 7 pieces"),
    ],
)
def test_rules_rgu_cannot_hold_are_refused(parts, message):
    with pytest.raises(ValueError, match=message):
        settings(Ur("finkel", **parts).rules)


def test_a_file_that_is_not_rgu_is_refused(tmp_path):
    bad = tmp_path / "bad.rgu"
    bad.write_bytes(b"NOPE")
    with pytest.raises(InputError, match="no RGU magic"):
        read_rgu(bad)
    bad.write_bytes(PUBLISHED.read_bytes()[:-1])
    with pytest.raises(InputError, match="not a readable .rgu"):
        read_rgu(bad)
    with pytest.raises(InputError, match="no such file|No such file"):
        read_rgu(tmp_path / "missing.rgu")


# -- Blitz and Masters against the twin ---------------------------------------------------


TWIN_RULES = {
    "blitz": dict(path=twin.MASTERS, safe=False, capture_extra=True),
    "masters": dict(path=twin.MASTERS, dice=3, zero=4, safe=False),
}


@pytest.mark.slow
@pytest.mark.parametrize("pieces", [1, 2])
@pytest.mark.parametrize("rules", ["blitz", "masters"])
def test_blitz_and_masters_agree_with_the_twin(rules, pieces):
    assert list(PATHS["masters"]) == twin.MASTERS  # the twin's path, written apart
    sol = solved(rules, pieces)
    values = twin.ur_game(pieces, **TWIN_RULES[rules])
    texts = {twin.ur_notation(s, pieces): v for s, v in values.items()}
    assert len(texts) == sol.n_positions
    model = sol.model
    for text, v in texts.items():
        assert abs(sol.value(model.parse(text)) - v) <= 1e-12, text
    assert sol.bound <= 1e-12
