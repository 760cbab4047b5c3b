"""docs/models.md's first compiled model (``docs/examples/two_dice_pig.py``): the page
shows the file as it is, and its answers agree with an independent twin, plain value
iteration over a dict of (banked, other's banked, turn total)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from perfectplay.compiled import solve_compiled
from perfectplay.models.loading import load_model

ROOT = Path(__file__).resolve().parent.parent
FILE = ROOT / "docs" / "examples" / "two_dice_pig.py"


def test_the_page_shows_the_file():
    page = (ROOT / "docs" / "models.md").read_text()
    blocks = re.findall(r"```python \{\.norun[^}]*two_dice_pig\.py[^}]*\}\n(.*?)```", page, re.S)
    assert blocks == [FILE.read_text()]


def twin(goal: int) -> dict[tuple[int, int, int], float]:
    """The mover's winning chance before deciding, by Gauss-Seidel until nothing moves:
    rolling adds a throw of two dice (a 1 on either: the other player moves, the turn
    lost), holding banks the turn (reaching the goal wins)."""
    sums = {s: sum(1 for a in range(2, 7) for b in range(2, 7) if a + b == s) for s in range(4, 13)}
    states = [(m, o, t) for m in range(goal) for o in range(goal) for t in range(goal - m)]
    v = dict.fromkeys(states, 0.5)
    while True:
        change = 0.0
        for m, o, t in states:
            roll = 11 / 36 * (1 - v[(o, m, 0)])
            for s, n in sums.items():
                roll += n / 36 * (1.0 if m + t + s >= goal else v[(m, o, t + s)])
            best = roll if t == 0 else max(roll, 1.0 if m + t >= goal else 1 - v[(o, m + t, 0)])
            change = max(change, abs(best - v[(m, o, t)]))
            v[(m, o, t)] = best
        if change < 1e-15:
            return v


@pytest.mark.parametrize("goal", [8, 15])
def test_agrees_with_its_twin(goal):
    model = load_model(f"{FILE}:TwoDicePig", {"goal": goal})  # as the command loads it
    sol = solve_compiled(model)
    expected = twin(goal)
    assert abs(sol.value() - expected[(0, 0, 0)]) < 1e-12
    decisions = [model.describe(k) for k in sol.states() if not k >> 18]
    assert len(decisions) > 50
    for text in decisions:
        m, o, t = (int(x) for x in text.split(","))
        if o < goal:  # else the game is over: no decision
            want = 1.0 if m + t >= goal else expected[(m, o, t)]  # holding there wins
            assert abs(sol.value(text) - want) < 1e-12, text
