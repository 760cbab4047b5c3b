"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).resolve().parent / "data"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def data_dir() -> Path:
    """The official data copied into the project (see tests/data/*/PROVENANCE.md)."""
    return DATA


@pytest.fixture(autouse=True)
def _progress_reports_off():
    """The library is silent unless asked: every test starts (and ends) that way, even
    after one that ran a command in-process or turned reports on."""
    from perfectplay._util.progress import enable_progress

    enable_progress(False)
    yield
    enable_progress(False)


@pytest.fixture(autouse=True, scope="session")
def _no_table_cache():
    """Yahtzee tables are cached on disk between runs of the command; the suite neither
    reads a user's cache nor writes one (the cache has its own tests, in a temporary
    folder). Subprocesses inherit the setting."""
    import os

    saved = os.environ.get("PERFECTPLAY_NO_CACHE")
    os.environ["PERFECTPLAY_NO_CACHE"] = "1"
    yield
    if saved is None:
        os.environ.pop("PERFECTPLAY_NO_CACHE", None)
    else:
        os.environ["PERFECTPLAY_NO_CACHE"] = saved


@pytest.fixture(autouse=True, scope="session")
def _no_compile_notice_in_process():
    """Commands run in-process here check their stderr line by line; whether this process
    compiles a kernel first (and so prints the one-time notice) depends on the test order
    and the cache, not on the command. The notice has tests of its own, in subprocesses
    with a fresh cache (tests/test_compile_notice.py)."""
    from perfectplay._util import jit

    jit._notice["shown"] = True
    yield


#: Tests that take more than about 5 s each on the 2-core development machine (measured
#: with ``pytest -m "not slow" --durations=40``), marked ``slow`` here so that
#: ``pytest -m "not slow"`` is the quick subset the README promises. An entry is a test
#: file or a test's node id (every parametrisation of it).
SLOW_TESTS = (
    "tests/site/test_site_real.py",  # builds the whole site once (about 70 s), a browser
    "tests/site/test_site_own_archive.py::test_fixture_archive_in_a_real_browser",
    "tests/site/test_site_runners.py::test_other_languages_where_installed",
    "tests/solvers/test_chance_solvers.py::test_ssp_has_no_size_limit_per_graph_or_per_cycle",
    "tests/solvers/test_cycles.py::test_random_cycles_against_value_iteration",
    "tests/problems/test_yahtzee_cli.py::test_documentation_page_examples_are_real",
    "tests/problems/test_yahtzee_cli.py::test_stdin_and_save_load_through_the_real_interpreter",
    "tests/problems/test_yahtzee_cli.py::test_simulate_and_distribution_of_users_rules",
    "tests/problems/test_yahtzee.py::test_a_query_from_a_table_runs_without_numba_and_equals_the_compiled_one",
    "tests/problems/test_diemaker_bruteforce.py::test_three_hundred_random_orders_agree_with_exhaustive_search",
    "tests/problems/test_alea.py::test_agrees_with_brute_force_on_random_instances",
    "tests/yahtzee/test_simulate.py::test_same_seed_same_scores_any_chunking",
    "tests/test_cli_edges.py::test_closed_pipe_stays_quiet",
    "tests/test_pig.py::test_pig_goal_100_both_optimal",
    "tests/test_types.py::test_a_non_model_is_a_type_error",
    "tests/test_types.py::test_documented_models_type_check",
)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        nodeid = item.nodeid
        if any(nodeid == s or nodeid.startswith((s + "::", s + "[")) for s in SLOW_TESTS):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def mini() -> Any:
    """A small Yahtzee rule set solved: three 3-sided dice, ones, twos and chance, a bonus
    of 10 at 5 (the API tests' scorecard game)."""
    import perfectplay
    from perfectplay.yahtzee import Category, Rules

    boxes = (Category.upper(1, "ones"), Category.upper(2, "twos"), Category("chance", sum))
    rules = Rules("mini", boxes, dice=3, faces=3, rolls=2, upper_threshold=5, upper_bonus=10)
    return perfectplay.solve(rules)
