"""What follows a solve: exact values and their certificate, distributions, simulation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_exports

if TYPE_CHECKING:
    from perfectplay.analysis.distribution import cost_distribution, quantile
    from perfectplay.analysis.exact import ExactSolution, VerificationError, exact_solution

_EXPORTS = {
    "exact_solution": "perfectplay.analysis.exact",
    "ExactSolution": "perfectplay.analysis.exact",
    "VerificationError": "perfectplay.analysis.exact",
    "cost_distribution": "perfectplay.analysis.distribution",
    "quantile": "perfectplay.analysis.distribution",
}
__all__ = [
    "ExactSolution",
    "VerificationError",
    "cost_distribution",
    "exact_solution",
    "quantile",
]
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
