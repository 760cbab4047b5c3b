"""The functions a compiled model may leave out: one chance outcome, one layer, no
perfect index."""

from __future__ import annotations

from typing import Any

from numba import njit

__all__ = ["default_index", "default_layer", "default_layer_size", "default_rolls"]


@njit(cache=True)
def default_rolls(s: int, p: Any, weights: Any) -> int:
    """No dice: one outcome of weight 1."""
    weights[0] = 1
    return 1


@njit(cache=True)
def default_layer(s: int, p: Any) -> int:
    """No layer promise: every state in layer 0."""
    return 0


@njit(cache=True)
def default_index(s: int, p: Any) -> int:
    """No perfect index (never asked: the layer size says there is none)."""
    return -1


@njit(cache=True)
def default_layer_size(layer: int, p: Any) -> int:
    """No perfect index: a negative size."""
    return -1
