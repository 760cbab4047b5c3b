"""Issue 24, visible work: a long simulation shows its progress and the time it has left
on stderr (past 2 s), and a game the strategies can play for ever is stopped after a
stated number of moves with one line saying so."""

from __future__ import annotations

import itertools

import pytest

from perfectplay._util import progress as progress_module
from perfectplay._util.progress import reporting


class FastClock:
    """``time.monotonic`` that advances 3 s a call: every throttled report prints."""

    def __init__(self) -> None:
        self._ticks = itertools.count(step=3.0)

    def monotonic(self) -> float:
        return next(self._ticks)


@pytest.fixture
def fast_clock(monkeypatch):
    monkeypatch.setattr(progress_module, "time", FastClock())


def test_a_long_yahtzee_simulation_reports_progress_and_time_left(capsys, fast_clock):
    from perfectplay.yahtzee.ruleset import Category, Rules
    from perfectplay.yahtzee.simulate import CHUNK, simulate
    from perfectplay.yahtzee.solution import solve

    table = solve(
        Rules("max", (Category("max", max),), dice=2, faces=2, rolls=1, upper_threshold=0)
    )
    with reporting(True):
        run = simulate(table, 3 * CHUNK, seed=1)
    err = capsys.readouterr().err.splitlines()
    assert run.games == 3 * CHUNK
    assert err[0].startswith(f"perfectplay: simulating max: {CHUNK:,} of {3 * CHUNK:,} games (")
    assert err[0].endswith(" s left)") and "about" in err[0]
    assert err[-1].startswith("perfectplay: simulating max done in ")
    with reporting(False):  # the library stays silent unless asked
        simulate(table, 3 * CHUNK, seed=1)
    assert capsys.readouterr().err == ""


def test_a_game_that_never_ends_is_stopped_and_named(capsys):
    from perfectplay.examples.pig import Pig
    from perfectplay.models.stochastic import solve_stochastic_model

    def hold(state):
        return "hold"

    sol = solve_stochastic_model(Pig(goal=4, hold_at_zero=True), first=hold, second=hold)
    with reporting(True):
        results = sol.simulate(3, seed=0, max_steps=1000)
    assert results.tolist() == [0.5, 0.5, 0.5]
    err = capsys.readouterr().err
    assert err == (
        "perfectplay: 3 of 3 games did not end within 1,000 moves (the strategies can play "
        "for ever): stopped there and counted as 1/2\n"
    )


def test_a_long_two_player_simulation_reports_progress(capsys, fast_clock):
    from perfectplay.examples.pig import Piglet
    from perfectplay.models.stochastic import solve_stochastic_model

    sol = solve_stochastic_model(Piglet(goal=3))
    with reporting(True):
        sol.simulate(50, seed=1)
    err = capsys.readouterr().err.splitlines()
    assert any(line.startswith("perfectplay: simulating: ") and "left)" in line for line in err)
    assert err[-1].startswith("perfectplay: simulating done in ")


def test_eta_is_told_in_seconds_or_hours():
    assert progress_module.Progress._eta(1, 10, 2.0) == ", about 18 s left"
    assert progress_module.Progress._eta(1, 10**8, 1.0).endswith(" h left")
    assert progress_module.Progress._eta(5, 5, 1.0) == ""


def test_a_long_chance_simulation_reports_progress_and_keeps_its_runs(capsys, fast_clock):
    import numpy as np

    from perfectplay.analysis import simulate as chance
    from perfectplay.examples.five_dice import FiveDice
    from perfectplay.models import solve_model

    sol = solve_model(FiveDice(dice=3))
    with reporting(True):
        runs = sol.simulate(5000, 7)
    err = capsys.readouterr().err.splitlines()
    assert any(line.startswith("perfectplay: simulating: ") and "left)" in line for line in err)
    # run in chunks (1024, 2048, then the rest), the runs are those of one call
    whole, done, why = chance._simulate(
        *chance.policy_arrays(sol.graph, sol.solution), 5000, 7, 2**62
    )
    assert (done, why) == (5000, 0) and np.array_equal(runs, whole)
