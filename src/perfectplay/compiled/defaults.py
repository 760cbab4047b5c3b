"""The functions a compiled model may leave out: one chance outcome, one layer."""

from __future__ import annotations

from typing import Any

from numba import njit

__all__ = ["default_layer", "default_rolls"]


@njit(cache=True)
def default_rolls(s: int, p: Any, weights: Any) -> int:
    """No dice: one outcome of weight 1."""
    weights[0] = 1
    return 1


@njit(cache=True)
def default_layer(s: int, p: Any) -> int:
    """No layer promise: every state in layer 0."""
    return 0
