"""perfectplay: exact solutions of dice games and two-player games.

The front door is two functions: :func:`solve` takes any game the package knows (a model
of your own, a Yahtzee-family rule set) and :func:`load` any table a solution saved; both
return a :class:`Solution`, which answers the same questions for every kind of game::

    import perfectplay
    sol = perfectplay.solve("american")          # Solitaire Yahtzee, in seconds
    sol.value(), sol.options(situation), sol.save("american.table")

Underneath sit a problem-independent solver core (:mod:`perfectplay.graphs`,
:mod:`perfectplay.solvers`, :mod:`perfectplay.analysis`), the results
(:mod:`perfectplay.results`), the modelling API (:mod:`perfectplay.models`), the Yahtzee
family (:mod:`perfectplay.yahtzee`) and a gallery of solved contest problems
(:mod:`perfectplay.problems`). Importing :mod:`perfectplay` itself is cheap: numpy and
numba are loaded only by the modules that need them. The library prints nothing: long
work reports progress on stderr only after :func:`enable_progress` (the ``perfectplay``
command turns it on).
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package
from perfectplay._util.progress import enable_progress
from perfectplay.errors import (
    InputError,
    ModelError,
    PerfectplayError,
    ResourceLimitError,
    UnknownStateError,
    UnsupportedError,
)

__version__ = "0.1.0"

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.frontdoor import load as load
    from perfectplay.frontdoor import solve as solve
    from perfectplay.results.options import Option as Option
    from perfectplay.results.options import Outcome as Outcome
    from perfectplay.results.options import Result as Result
    from perfectplay.results.surface import Solution as Solution

_lazy_all, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".frontdoor": ["solve", "load"],
        ".results.surface": ["Solution"],
        ".results.options": ["Option", "Outcome", "Result"],
    },
)

__all__ = [
    *_lazy_all,
    "enable_progress",
    "InputError",
    "ModelError",
    "PerfectplayError",
    "ResourceLimitError",
    "UnknownStateError",
    "UnsupportedError",
    "__version__",
]
