"""Python's garbage collector kept out of an explorer's way.

Python's cyclic garbage collector, left alone, walks every container still alive each
time its oldest generation is collected, and an explorer keeps a growing table of states
(about 10% of Dodgem 4x4's exploration). While an explorer runs, what it has kept is moved
out of the collector's way at each budget check (:func:`gc.freeze`, see :func:`settle`) and
young collections run less often; garbage with cycles made by the model's callbacks is
still collected while young. Skipped where the caller has frozen objects or disabled the
collector itself (their settings are theirs).

>>> import gc
>>> @sparing_collector
... def explore():
...     settle()
...     return gc.get_threshold()[0] >= _YOUNG_THRESHOLD
>>> explore(), gc.get_freeze_count()
(True, 0)
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import ParamSpec, TypeVar

__all__ = ["settle", "sparing_collector"]

_YOUNG_THRESHOLD = 5000
_sparing = False  # whether an explorer runs under sparing_collector now

_P = ParamSpec("_P")
_R = TypeVar("_R")


def sparing_collector(explore: Callable[_P, _R]) -> Callable[_P, _R]:
    """Run an explorer with :func:`gc.freeze` at its budget checks (see above)."""

    @functools.wraps(explore)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        global _sparing
        if _sparing or not gc.isenabled() or gc.get_freeze_count():
            return explore(*args, **kwargs)
        threshold = gc.get_threshold()
        gc.set_threshold(max(threshold[0], _YOUNG_THRESHOLD), *threshold[1:])
        _sparing = True
        try:
            return explore(*args, **kwargs)
        finally:
            _sparing = False
            gc.unfreeze()
            gc.set_threshold(*threshold)

    return run


def settle() -> None:
    """Move what the explorer holds now out of the collector's way, when it may."""
    if _sparing:
        gc.freeze()
