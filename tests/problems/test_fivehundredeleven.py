"""FiveHundredEleven: the 217 system tests, an exhaustive twin over card subsets, the CLI."""

from __future__ import annotations

import json
import random
from functools import cache
from pathlib import Path

import numpy as np
import pytest

from perfectplay import cli
from perfectplay.errors import InputError
from perfectplay.graphs.game import Outcome
from perfectplay.problems import fivehundredeleven as game

DATA = Path(__file__).resolve().parent.parent / "data" / "fivehundredeleven"


def system_tests() -> list[dict]:
    with open(DATA / "systemtests.jsonl") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_all_217_system_tests():
    tests = system_tests()
    assert len(tests) == 217
    wrong = []
    for t in tests:
        text = f"{len(t['cards'])}\n{' '.join(map(str, t['cards']))}\n"
        answer = game.format(game.solve(game.parse(text)))
        if answer != t["expected"]:
            wrong.append(t["test"])
    assert wrong == []


def brute_force(cards: list[int], memory: int = 0) -> tuple[bool, int]:
    """Exhaustive minimax over (memory, set of played cards) from ``memory`` with all of
    ``cards`` in hand: does the player to move win, and after how many cards (the winner
    hurries, the loser delays)."""
    n = len(cards)

    @cache
    def solve(mem: int, used: int) -> tuple[bool, int]:
        if mem == 511:
            return True, 0  # the opponent just made 511
        results = [solve(mem | cards[i], used | 1 << i) for i in range(n) if not used >> i & 1]
        if not results:
            return False, 0
        wins = [r for won, r in results if not won]
        if wins:
            return True, 1 + min(wins)
        return False, 1 + max(r for _, r in results)

    return solve(memory, 0)


def test_agrees_with_exhaustive_minimax_on_random_hands():
    rng = random.Random(511)
    outcomes = set()
    for _ in range(300):
        n = rng.randint(1, 9)
        pool = rng.choice([list(range(512)), [0, 1, 2, 4, 3, 5, 6, 7, 511], [0, 255, 256, 511, 1]])
        cards = [rng.choice(pool) for _ in range(n)]
        won, length = brute_force(cards)
        sol = game.solve(cards)
        assert (sol.first_player_wins, sol.remoteness) == (won, length), cards
        outcomes.add(won)
        # Every first move, not only the best one, has the value the twin gives it.
        for mv in sol.first_moves():
            x = mv.cards[0]
            rest = list(cards)
            rest.remove(x)
            opp_won, opp_len = brute_force(rest, x)  # the opponent moves at memory x
            assert mv.value == (Outcome.LOSE if opp_won else Outcome.WIN)
            assert mv.remoteness == opp_len + 1
    assert outcomes == {True, False}


def test_model_is_exact_and_numbered_topologically():
    cards = [3, 5, 7, 9, 510, 0, 0, 12, 96]
    from perfectplay.problems.fivehundredeleven.build import build

    model = build(game.Instance.from_cards(cards))
    g = model.graph
    assert g.n_positions <= 512 * (len(cards) + 1)
    src = np.repeat(np.arange(g.n_positions), np.diff(g.indptr))
    assert np.all(g.children > src)  # every move to a larger id: acyclic by construction
    assert np.all(model.played[g.children] == model.played[src] + 1)
    assert np.all((model.memory[g.children] & model.memory[src]) == model.memory[src])
    # Terminal exactly at memory 511.
    assert np.array_equal(g.terminal != 0, model.memory == 511)
    # Start: memory 0, nothing played.
    assert (model.memory[g.start], model.played[g.start]) == (0, 0)


def test_known_small_games():
    assert game.solve([511]).winner == "Toastman"  # Ciel must make 511
    assert game.solve([0, 0, 0, 0]).winner == "Toastman"  # Ciel runs out of cards first
    assert game.solve([0, 0, 0]).winner == "Fox Ciel"
    sol = game.solve([3, 5, 7, 9, 510])
    assert sol.winner == "Fox Ciel" and sol.remoteness == 2
    assert sol.first_moves()[0].cards == (510,)
    assert sol.line() == [("Fox Ciel", 510, 510), ("Toastman", 3, 511)]
    one_bits = [1 << b for b in range(9)]
    sol = game.solve(one_bits)
    assert (sol.winner, sol.remoteness) == ("Toastman", 9)


def test_parse_errors_name_the_line():
    cases = {
        "": (1, "empty input"),
        "0\n": (1, "from 1 to 50, got 0"),
        "51\n": (1, "from 1 to 50"),
        "3\n1 2\n": (2, "expected 3 card values, got 2"),
        "2\n1\n512\n": (3, "card 2 must be from 0 to 511, got 512"),
        "2\n1 x\n": (2, "card 2 must be an integer"),
        "2\n1 2\n3\n": (3, "unexpected '3'"),
        "2\n1 -1\n": (2, "card 2 must be from 0 to 511"),
        "1\n" + "9" * 5000 + "\n": (2, "must be from 0 to 511"),
    }
    for text, (line, message) in cases.items():
        with pytest.raises(InputError, match=message) as info:
            game.parse(text)
        assert info.value.line == line, text
    with pytest.raises(InputError, match="card 2"):
        game.Instance.from_cards([1, True])
    with pytest.raises(InputError, match="from 1 to 50"):
        game.Instance.from_cards([])


def test_cli_answers_and_explains(tmp_path, capsys):
    f = tmp_path / "cards.txt"
    f.write_text("5\n3 5 7 9 510\n")
    assert cli.main(["fivehundredeleven", str(f)]) == 0
    assert capsys.readouterr().out == "Fox Ciel\n"
    assert cli.main(["fivehundredeleven", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Fox Ciel\n") and "play card 510 first" in out
    assert "optimal play: Fox Ciel 510 (510), Toastman 3 (511)" in out
    f.write_text("3\n1 2 4\n")  # memory 7 never reaches 511: whoever plays last wins
    assert cli.main(["fivehundredeleven", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Fox Ciel\n")
    f.write_text("3\n256 255 0\n")
    assert cli.main(["fivehundredeleven", str(f), "--explain"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Toastman\nEvery first card loses")
    assert "card 255: memory 255, Toastman answers 0 (memory 255); Fox Ciel loses" in out
    assert "card 0: memory 0, Toastman answers 255 (memory 255)" in out


def test_a_pass_names_a_card_still_in_hand():
    # After 1 and 2 the memory is 3; the cards 1 and 2 are subsets of 3 but played, so a
    # pass at memory 3 can only be the 3.
    sol = game.solve([1, 2, 3, 508])
    p = sol.model.graph.start
    path = []
    for card in (1, 2):
        p = next(m.child for m in sol.game.moves(p) if card in sol.cards_for(p, m.child, path))
        path.append(card)
    pass_child = next(c for c in sol.model.graph.moves(p) if sol.model.memory[c] == 3)
    assert sol.cards_for(p, pass_child, path) == (3,)
    assert sol.cards_for(p, pass_child) == (1, 2, 3)


def test_cli_bad_input_is_one_line(tmp_path, capsys):
    f = tmp_path / "bad.txt"
    f.write_text("2\n1 600\n")
    assert cli.main(["fivehundredeleven", str(f)]) == 2
    err = capsys.readouterr().err
    assert err == f"perfectplay: {f}:2: card 2 must be from 0 to 511, got 600\n"
    assert cli.main(["fivehundredeleven", str(tmp_path / "missing.txt")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
