"""Shared test fixtures."""

from __future__ import annotations

from pathlib import Path

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
