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
