"""Disappearing dominoes: the cases file, exhaustive bitmask twins, limits and the CLI."""

from __future__ import annotations

import random
import subprocess
import sys
from functools import cache
from pathlib import Path

import pytest

from perfectplay import cli
from perfectplay.errors import InputError, ResourceLimitError
from perfectplay.problems import dispdom as game

DATA = Path(__file__).resolve().parent.parent / "data" / "dispdom"


def read_cases() -> list[tuple[str, str]]:
    blocks = DATA.joinpath("cases.txt").read_text().strip().split("\n\n")
    out = []
    for block in blocks:
        head, strip, answer = block.strip().splitlines()
        out.append((f"{head}\n{strip}\n", answer.removeprefix("=> ").strip()))
    return out


def test_every_case_of_the_cases_file():
    cases = read_cases()
    assert len(cases) == 60
    wrong = [text for text, answer in cases if game.format(game.solve(game.parse(text))) != answer]
    assert wrong == []


# -- independent twins on bitmasks of cells ------------------------------------------------


def placements(mask: int, n: int, k: int) -> list[int]:
    block = (1 << k) - 1
    return [block << i for i in range(n - k + 1) if not mask & (block << i)]


def horizon_answer(strip: str, k: int, d: int) -> str:
    """The problem read literally through its first observation: within the first D turns
    nothing disappears, and a game still running after them runs forever. Depth-limited
    minimax from Alice's view: +1 Alice wins, -1 Bob wins, 0 the horizon is reached."""
    n = len(strip)
    start = sum(1 << i for i, c in enumerate(strip) if c == "1")

    @cache
    def value(mask: int, left: int, alice: bool) -> int:
        if left == 0:
            return 0
        options = [value(mask | p, left - 1, not alice) for p in placements(mask, n, k)]
        if not options:
            return -1 if alice else 1
        return max(options) if alice else min(options)

    return {1: "Alice", -1: "Bob", 0: "Draw"}[value(start, min(d, n + 1), True)]


def plain_game(strip: str, k: int) -> tuple[bool, int]:
    """The plain placement game on bitmasks: does the player to move win, and the
    remoteness (the winner hurries, the loser delays)."""
    n = len(strip)

    @cache
    def solve(mask: int) -> tuple[bool, int]:
        results = [solve(mask | p) for p in placements(mask, n, k)]
        if not results:
            return False, 0
        wins = [r for won, r in results if not won]
        if wins:
            return True, 1 + min(wins)
        return False, 1 + max(r for _, r in results)

    return solve(sum(1 << i for i, c in enumerate(strip) if c == "1"))


def test_agrees_with_bitmask_minimax_on_random_strips():
    rng = random.Random(3)
    verdicts = set()
    for _ in range(320):
        n = rng.randint(1, 16)
        k = rng.randint(1 if n <= 12 else 2, min(n, 5))
        density = rng.choice([0.0, 0.1, 0.25, 0.5])
        strip = "".join("1" if rng.random() < density else "0" for _ in range(n))
        d = rng.randint(1, n + 2)
        sol = game.solve(game.Instance.make(strip, k, d))
        assert game.format(sol) == horizon_answer(strip, k, d), (strip, k, d)
        won, length = plain_game(strip, k)
        assert (sol.plain_winner == "Alice", sol.length) == (won, length), (strip, k)
        verdicts.add(game.format(sol))
        # The optimal line on the real strip has the promised length, and each of its
        # moves keeps the value (checked on bitmasks).
        line = sol.line()
        assert len(line) == length
        mask = sum(1 << i for i, c in enumerate(strip) if c == "1")
        for turn, start in enumerate(line):
            cells = ((1 << k) - 1) << start
            assert not mask & cells
            mask |= cells
            still_won, left = plain_game_from(mask, n, k)
            assert left == length - turn - 1
            assert still_won == ((turn % 2 == 0) != won)
    assert verdicts == {"Alice", "Bob", "Draw"}


def plain_game_from(mask: int, n: int, k: int) -> tuple[bool, int]:
    strip = "".join("1" if mask >> i & 1 else "0" for i in range(n))
    return plain_game(strip, k)


def test_canonical_states_are_exact_reductions():
    # Strips with the same canonical state have the same value and remoteness (bitmasks):
    # segments shorter than K are dead, lengths K..2K-1 act like K, order and place do
    # not matter, and for K = 1 only the number of empty cells does.
    same = [
        (2, ["0001000000", "0010000001", "00000010001", "000000100"]),  # (2, 6)
        (3, ["00100010000", "000100011", "1000101000"]),  # (3, 3)
        (3, ["0000000", "1100000001", "00000001"]),  # (7,)
        (1, ["0101100", "0000", "1001001"]),  # (4,)
    ]
    for k, strips in same:
        keys = {game.canonical(game.segments(s), k) for s in strips}
        assert len(keys) == 1, strips
        assert len({plain_game(s, k) for s in strips}) == 1, strips
    assert game.canonical([3, 1, 9, 5], k=3) == (3, 3, 9)
    assert game.canonical([3, 1, 9, 5], k=1) == (18,)
    assert game.split_table(7, 3)[7] == ((3,), ())  # 0+4 and 1+3 leave a 3; 2+2 leaves none
    # Moves of a canonical state are canonical states again.
    for state in [(2, 6), (2, 2, 7), (9,)]:
        for child in game.next_states(state, 2):
            assert game.canonical(child, 2) == child


def test_state_counts_stay_small_where_bitmasks_explode():
    sol = game.solve(game.Instance.make("0" * 30, 2, 30))
    assert sol.n_states == 667 and game.format(sol) == "Alice" and sol.length == 15
    sol = game.solve(game.Instance.make("0" * 60, 5, 7))
    assert sol.n_states < 2_000


def test_parse_errors_name_the_line():
    cases = {
        "": (1, "empty input"),
        "3 2\n000\n": (1, "expected three integers"),
        "x 2 3\n000\n": (1, "N must be an integer"),
        "65 2 3\n" + "0" * 65 + "\n": (1, "N must be from 1 to 64"),
        "0 1 1\n\n": (1, "N must be from 1 to 64"),
        "3 4 1\n000\n": (1, "K must be from 1 to 3"),
        "3 0 1\n000\n": (1, "K must be from 1 to 3"),
        "3 2 0\n000\n": (1, "D must be from 1 to"),
        "3 2 " + "9" * 30 + "\n000\n": (1, "D must be from 1 to"),
        "3 2 1\n": (1, "missing the strip"),
        "3 2 1\n0000\n": (2, "the strip has 4 cells, expected N = 3"),
        "3 2 1\n0a0\n": (2, "only '0' and '1', found 'a'"),
        "3 2 1\n00 0\n": (2, "one word"),
        "3 2 1\n000\n5\n": (3, "unexpected '5'"),
    }
    for text, (line, message) in cases.items():
        with pytest.raises(InputError, match=message) as info:
            game.parse(text)
        assert info.value.line == line, text
    with pytest.raises(InputError, match="K must be"):
        game.Instance.make("000", 4, 1)
    with pytest.raises(InputError, match="only '0'"):
        game.Instance.make("0x0", 1, 1)


def test_memory_budget_is_enforced(monkeypatch):
    # The shared explorer checks its memory estimate as the space grows.
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "2M")
    with pytest.raises(ResourceLimitError, match="DispdomModel: .* more than the 2.0 MiB"):
        game.solve(game.Instance.make("0" * 50, 2, 3))


def test_the_model_is_a_game_model_solved_by_solve_model():
    # The plain game is an ordinary GameModel: solve_model (the shared explorer and
    # retrograde solver) gives the same values as the problem API on random strips, at
    # every explored state, and its moves are exactly the canonical children.
    from perfectplay.models import GameModel, model_kind, solve_model

    rng = random.Random(11)
    for _ in range(60):
        n = rng.randint(1, 24)
        k = rng.randint(1, min(n, 4))
        strip = "".join("1" if rng.random() < 0.2 else "0" for _ in range(n))
        model = game.DispdomModel(strip, k)
        assert isinstance(model, GameModel) and model_kind(model) == "game"
        sol = solve_model(model, progress=False)
        ours = game.solve(game.Instance.make(strip, k, n + 1))
        assert sol.n_positions == ours.n_states
        assert (str(sol.start_value.value) == "win") == (ours.plain_winner == "Alice")
        assert sol.start_value.remoteness == ours.length == plain_game(strip, k)[1]
        for p in range(sol.n_positions):
            state = sol.exploration.reps[p]
            children = [model.play(state, m) for m in model.moves(state)]
            assert len(set(children)) == len(children)  # moves are distinct
            assert sorted(children) == sorted(game.next_states(state, k))
            assert all(game.canonical(c, k) == c for c in children)
            value = sol.value(state)
            if p % 7 == 0 and state:  # a strip with this canonical state, solved afresh
                rebuilt = "1".join("0" * length for length in state)
                again = solve_model(game.DispdomModel(rebuilt, k), progress=False)
                assert again.start_value == value


def test_cli_answers_and_explains(tmp_path, capsys):
    f = tmp_path / "strip.txt"
    f.write_text("10 2 10\n0000011000\n")
    assert cli.main(["dispdom", str(f)]) == 0
    assert capsys.readouterr().out == "Alice\n"
    assert cli.main(["dispdom", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Alice\nWithout disappearing, Alice wins")
    assert "it lasts 3 moves" in out and "3 < D = 10" in out
    assert "Alice's first move: cells 1-2" in out
    assert "  start      .....##...\n  1. Alice   AA...##...  cells 1-2\n" in out
    f.write_text("16 4 3\n0000000001010000\n")
    assert cli.main(["dispdom", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Draw\n") and "3 >= D = 3" in out
    f.write_text("4 1 12\n0000\n")
    assert cli.main(["dispdom", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Bob\n") and "Bob's first move: cell 2" in out


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    f = tmp_path / "bad.txt"
    f.write_text("5 2 3\n00200\n")
    assert cli.main(["dispdom", str(f)]) == 2
    assert capsys.readouterr().err == (
        f"perfectplay: {f}:2: the strip may contain only '0' and '1', found '2'\n"
    )


def test_small_instances_never_import_numba():
    code = (
        "import sys\nfrom perfectplay import cli\n"
        "assert cli.main(['dispdom']) == 0\n"
        "sys.exit(sorted(m for m in ('numba', 'numpy') if m in sys.modules) != [])"
    )
    res = subprocess.run(
        [sys.executable, "-c", code],
        input="30 2 30\n" + "0" * 30 + "\n",
        capture_output=True,
        text=True,
    )
    assert res.returncode == 0 and res.stdout == "Alice\n", res.stdout + res.stderr


def test_solution_decodes_strips_first_move_and_unknown_states():
    from perfectplay.models import UnknownStateError

    sol = game.solve(game.parse("10 2 10\n0000011000\n"))
    assert sol.line() == [0, 2, 7] and sol.first_move == 0
    # After Alice's first move two segments of 3 are left (canonically (2, 2)): Bob loses.
    value, remoteness = sol.value_of_strip("1100011000")
    assert (value.name == "WIN", remoteness) == plain_game("1100011000", 2) == (False, 2)
    with pytest.raises(UnknownStateError):  # a 10-cell segment is never reached from here
        sol.value_of_strip("0000000000")
    bob = game.solve(game.Instance.make("0000", 1, 12))  # four single moves: Bob moves last
    assert bob.plain_winner == "Bob" and bob.first_move == 1 == bob.line()[1]
    stuck = game.solve(game.Instance.make("0101", 2, 1))
    assert stuck.verdict == "Bob" and stuck.first_move is None and stuck.n_moves == 0


@pytest.mark.parametrize(
    "instance, message",
    [
        ((10, 2, 10, "00000110"), "N is 10 but the strip has 8 cells"),
        ((10, 0, 10, "0000011000"), "K must be an integer from 1 to 10, got 0"),
        ((100, 2, 10, "0" * 100), "the strip must have 1 to 64 cells, got 100"),
    ],
)
def test_an_instance_built_directly_is_checked_by_solve(instance, message):
    """An ``Instance`` made without ``Instance.make`` is checked as that checks one (a
    short strip was answered, K = 0 raised AssertionError, N = 100 ran without bound)."""
    from perfectplay.problems import dispdom

    with pytest.raises(InputError, match=message):
        dispdom.solve(dispdom.Instance(*instance))
