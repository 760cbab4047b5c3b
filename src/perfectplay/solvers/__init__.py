"""One module per algorithm; the solvers of chance graphs and game graphs."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
    from perfectplay.solvers.lexpath import LexModel, LexPath, LexStats, search
    from perfectplay.solvers.policy_iteration import solve_ssp
    from perfectplay.solvers.retrograde import solve_retrograde
    from perfectplay.solvers.retry import settle_order, solve_retry

_EXPORTS = {
    "solve_retry": "perfectplay.solvers.retry",
    "settle_order": "perfectplay.solvers.retry",
    "solve_ssp": "perfectplay.solvers.policy_iteration",
    "solve_retrograde": "perfectplay.solvers.retrograde",
    "search": "perfectplay.solvers.lexpath",
    "LexModel": "perfectplay.solvers.lexpath",
    "LexPath": "perfectplay.solvers.lexpath",
    "LexStats": "perfectplay.solvers.lexpath",
}
__all__ = [
    "LexModel",
    "LexPath",
    "LexStats",
    "search",
    "settle_order",
    "solve_retrograde",
    "solve_retry",
    "solve_ssp",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
