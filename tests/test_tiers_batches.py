"""How the tier runner cuts a tier into batches: the rule that keeps an engine's cost per
batch under 5% of the work, bounds on a card's saved throws, the first tiers of a plan,
and a user's rules from ``file.py:NAME`` sent to the workers of every engine."""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perfectplay.tiers import Engine, Store, run
from perfectplay.tiers.runner import SHARE, batch_bounds, batch_count
from perfectplay.tiers.synthetic import SyntheticJob
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Rules, rules
from perfectplay.yahtzee.solver import ScorecardJob, solve_all, tier_plan

# -- the rule ------------------------------------------------------------------------------------


def _check_bounds(bounds: list[tuple[int, int]], items: int, align: int) -> None:
    """Contiguous, covering ``[0, items)``, every inner bound on ``align``."""
    assert bounds[0][0] == 0 and bounds[-1][1] == items
    assert all(a < b for a, b in bounds)
    assert all(b == c for (_, b), (c, _) in zip(bounds, bounds[1:], strict=False))
    assert all(a % align == 0 for a, _ in bounds)


@pytest.mark.parametrize("workers", [2, 3, 16])
@pytest.mark.parametrize("overhead", [0.002, 0.015, 0.1])
@pytest.mark.parametrize("per_item", [1e-7, 1e-5, 1e-3])
@pytest.mark.parametrize("items", [10, 5_000, 1_000_000])
def test_the_rule_keeps_the_cost_per_batch_under_five_percent(
    items: int, per_item: float, overhead: float, workers: int
) -> None:
    count = batch_count(items, workers, per_item, overhead)
    # a multiple of the workers (equal batches end together), one to four a worker
    assert count % workers == 0 and workers <= count <= 4 * workers
    work = items * per_item / count  # one batch's work
    if count > workers:  # cut finer than one a worker only where the cost stays small
        assert overhead <= SHARE * work
    if count < 4 * workers:  # and as fine as that allows
        assert overhead > SHARE * items * per_item / (count + workers)
    for align in (1, 7):
        bounds = batch_bounds(items, workers, per_item, overhead, align)
        _check_bounds(bounds, items, align)
        assert len(bounds) == min(count, math.ceil(items / align))
        sizes = [b - a for a, b in bounds]
        assert max(sizes) - min(sizes) <= align  # nearly equal (the last may be short)


def test_the_rule_before_anything_is_measured_and_on_one_worker() -> None:
    # Nothing measured: one batch a worker, the least the engine can cost.
    assert batch_bounds(1000, 4, None, 0.05) == [(0, 250), (250, 500), (500, 750), (750, 1000)]
    # In process (the threads engine): the whole tier, its kernels' threads over it.
    assert batch_bounds(10**6, 1, 1e-3, 0.0) == [(0, 10**6)]
    # Long items: four batches a worker, so that uneven ones even out.
    assert batch_count(10**6, 4, 1.0, 0.05) == 16
    # 2 s of work on 2 workers at 50 ms a batch: batches of at least 1 s, so 2.
    assert batch_count(10**5, 2, 2e-5, 0.05) == 2
    # Fewer items than workers: one batch an item.
    assert batch_bounds(3, 8, None, 0.05) == [(0, 1), (1, 2), (2, 3)]
    # Items computed together stay together: cards of 5 saved counts, 3 cards, 2 workers.
    assert batch_bounds(15, 2, None, 0.05, align=5) == [(0, 5), (5, 15)]


def test_the_runner_measures_then_cuts() -> None:
    """The first tier goes one batch a worker; later tiers follow the rule, with the
    cost per item measured on the tiers finished."""

    class Four(Engine):  # in process, as if on four workers
        def __init__(self) -> None:
            super().__init__()
            self.workers = 4

    job = SyntheticJob(tiers=3, items=400, busy=2e-4)  # 80 ms of work a tier
    seen: list[tuple[int, int]] = []
    eng = Four()
    eng.overhead = 1e-4  # 5% of a 2 ms batch: four a worker fit
    run(job.plan(), job, eng, on_tier=lambda d: seen.append((d.tier, d.batches)))
    # Tier 0: this engine ran tier 1's 16 batches one after another, and the runner read
    # three workers' idle time as the cost per batch (it errs high): one batch a worker.
    assert seen == [(2, 4), (1, 16), (0, 4)]
    eng.overhead = 0.01  # 5% of 200 ms: more than a tier's work, one batch a worker
    seen.clear()
    run(job.plan(), job, eng, on_tier=lambda d: seen.append((d.tier, d.batches)))
    assert seen == [(2, 4), (1, 4), (0, 4)]


def test_the_first_tiers_of_a_plan() -> None:
    job = SyntheticJob(tiers=5, items=6)
    seen: list[int] = []
    store = run(job.plan(), job, tiers=2, on_tier=lambda d: seen.append(d.tier))
    assert seen == [4, 3]
    whole = run(job.plan(), job)
    assert store.read(3).tobytes() == whole.read(3).tobytes()
    assert job.plan().first(0).tiers == () and job.plan().first(99) == job.plan()


# -- a card's saved throws stay in one batch ------------------------------------------------------

SAVED = replace(
    rules("maxi-saved"),
    name="small saved",
    categories=tuple(rules("maxi-saved").categories[rules("maxi-saved").index(b)]
                     for b in ("ones", "twos", "one_pair", "chance")),
    dice=4,
    faces=3,
    upper_threshold=6,
)  # fmt: skip


class Recorded(ScorecardJob):
    """A scorecard job that notes each batch it computes (in process)."""

    def __init__(self, rules: Rules, game: ScorecardGame) -> None:
        super().__init__(rules, game)
        self.batches: list[tuple[int, int, int]] = []

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        self.batches.append((tier, start, stop))
        return super().compute(tier, start, stop, store)


class Three(Engine):  # in process, as if on three workers
    def __init__(self) -> None:
        super().__init__()
        self.workers = 3


@pytest.mark.parametrize("batch", [None, 1, 5])
def test_batches_never_split_a_card_s_saved_throws(batch: int | None) -> None:
    game = ScorecardGame(SAVED)
    assert game.n_saved_values > 1
    job = Recorded(SAVED, game)
    store = run(tier_plan(game), job, Three(), batch=batch, on_tier=lambda d: None)
    cut = 0
    for tier, start, stop in job.batches:
        per_card = game.max_saved(tier) + 1
        end = game.tier_size(tier)
        assert start % per_card == 0 and (stop % per_card == 0 or stop == end)
        cut += 0 < start
    assert cut > 10  # tiers were cut: the bounds fell between cards
    values = np.full(game.n_states, np.nan)
    for t in tier_plan(game).tiers:
        values[game.tier_states(t.id)] = store.read(t.id)
    assert values.tobytes() == solve_all(game).tobytes()


def test_saved_throws_on_the_process_pool(tmp_path: Path) -> None:
    game = ScorecardGame(SAVED)
    got = run(tier_plan(game), ScorecardJob(SAVED, game), "processes", workdir=tmp_path,
              workers=2, batch=1, on_tier=lambda d: None)  # fmt: skip
    values = np.full(game.n_states, np.nan)
    for t in tier_plan(game).tiers:
        values[game.tier_states(t.id)] = got.read(t.id)
    assert values.tobytes() == solve_all(game).tobytes()


# -- a user's rules from file.py:NAME on other processes -----------------------------------------

USER_RULES = """\
from perfectplay.yahtzee import Category, Rules


def twice_max(dice):
    return 2 * max(dice)


MINE = Rules(
    "mine",
    (Category.upper(1, "ones"), Category("twice max", twice_max), Category("chance", sum)),
    dice=3,
    upper_threshold=0,
)
"""


def _has_dask() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize(
    "engine",
    [
        "processes",
        pytest.param(
            "dask",
            marks=pytest.mark.skipif(not _has_dask(), reason="the dask extra is not installed"),
        ),
    ],
)
def test_a_user_s_rules_file_solves_on_other_processes(
    engine: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from perfectplay.cli import main
    from perfectplay.problems.yahtzee.solution import _SOLVED as solved

    monkeypatch.setenv("PERFECTPLAY_NO_CACHE", "1")
    monkeypatch.setattr(sys, "path", list(sys.path))  # the loader adds the file's folder
    (tmp_path / "mine.py").write_text(USER_RULES)
    (tmp_path / "empty").write_text("")  # no game to read: the expected score
    spec = f"{tmp_path / 'mine.py'}:MINE"
    tables = {}
    try:
        for name, extra in (
            ("threads", []),
            (engine, ["--engine", engine, "--workdir", str(tmp_path / engine), "--workers", "2"]),
        ):
            table = tmp_path / f"{name}.table"
            solved.clear()  # solve again: not the table this process solved before
            argv = ["yahtzee", str(tmp_path / "empty"), "--rules", spec, "--save", str(table)]
            assert main([*argv, "-q", *extra]) == 0
            out = capsys.readouterr()
            assert out.out.strip() == "28.6059814", out.err
            tables[name] = table.read_bytes()
    finally:
        sys.modules.pop("perfectplay_user_mine", None)
    assert tables[engine] == tables["threads"]
    assert list((tmp_path / engine).glob("tier-0/*.npy"))  # solved on that engine


def test_the_time_left_is_not_estimated_from_the_first_tier() -> None:
    """The first tier computed carries the kernels' compiling or loading: the estimate
    of the time left waits for a second."""
    job = SyntheticJob(tiers=3, items=50, busy=1e-4)
    seen: list[float | None] = []
    run(job.plan(), job, on_tier=lambda d: seen.append(d.left_seconds))
    assert seen[0] is None
    assert seen[1] is not None and seen[1] >= 0.0
