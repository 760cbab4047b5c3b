"""perfectplay: exact solutions of dice games and two-player games.

The package is organised as a problem-independent solver core (:mod:`perfectplay.graphs`,
:mod:`perfectplay.solvers`, :mod:`perfectplay.analysis`), a modelling API
(:mod:`perfectplay.models`) and a gallery of solved games (:mod:`perfectplay.problems`).
Importing :mod:`perfectplay` itself is cheap: numpy and numba are loaded only by the
modules that need them. The library prints nothing: long work reports progress on stderr
only after :func:`enable_progress` (the ``perfectplay`` command turns it on).
"""

__version__ = "0.1.0"

from perfectplay._util.progress import enable_progress
from perfectplay.errors import InputError, ModelError, PerfectplayError, ResourceLimitError

__all__ = [
    "enable_progress",
    "InputError",
    "ModelError",
    "PerfectplayError",
    "ResourceLimitError",
    "__version__",
]
