"""``perfectplay serve``: a local web app that plays any solved game with every option's
value, over a stateless JSON API that renders the result surface (``docs/serve.md``).

- :mod:`perfectplay.serve.games`: the served games, states as text;
- :mod:`perfectplay.serve.scorecard`: the Yahtzee family's situations and rolls;
- :mod:`perfectplay.serve.gallery`: gallery games (Alea Iacta Est);
- :mod:`perfectplay.serve.compiled`: compiled models' tables (the Royal Game of Ur);
- :mod:`perfectplay.serve.app`: the Starlette application and its safety rules;
- :mod:`perfectplay.serve.answers`: the answers' JSON bytes and the cache that keeps them;
- :mod:`perfectplay.serve.cli`: the command line (needs the ``serve`` extra);
- :mod:`perfectplay.serve.workers`: several server processes over one set of games;
- :mod:`perfectplay.serve.specs`: models named on the command line.

>>> from perfectplay.serve import ModelGame, create_app
>>> callable(create_app), ModelGame.__name__
(True, 'ModelGame')
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.serve.app import create_app
    from perfectplay.serve.cli import main
    from perfectplay.serve.compiled import CompiledGame
    from perfectplay.serve.gallery import AleaGame
    from perfectplay.serve.games import ModelGame, ScorecardTable, ServedGame

# The names load on first use: `perfectplay serve --help` imports neither Starlette nor
# numpy.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".app": ["create_app"],
        ".cli": ["main"],
        ".compiled": ["CompiledGame"],
        ".gallery": ["AleaGame"],
        ".games": ["ModelGame", "ScorecardTable", "ServedGame"],
    },
)
