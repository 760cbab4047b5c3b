"""The front door: :func:`solve` any game the package knows, :func:`load` any saved table.

Both return a :class:`~perfectplay.results.surface.Solution`, so every game answers the
same questions the same way (``value``, ``options``, ``best``, ``exact``,
``distribution``, ``simulate``, ``save``, ``states``, ``objective``, ``solver``), whether it
was solved now or read from disk:

>>> import perfectplay
>>> from perfectplay.examples.pig import Piglet
>>> sol = perfectplay.solve(Piglet(goal=2))
>>> round(sol.value(), 6), sol.best((0, 0, 1)), sol.kind
(0.571429, ['roll'], 'stochastic')

The entry points each kind had before (:func:`perfectplay.models.solve_model`,
:func:`perfectplay.yahtzee.solve`, :func:`perfectplay.models.load_solution`,
:meth:`perfectplay.yahtzee.YahtzeeSolution.load`) remain for one release as the thin
aliases they now are.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Unpack, overload

from perfectplay.errors import InputError, ModelError

if TYPE_CHECKING:  # the solution modules import numpy; importing this one stays cheap
    from perfectplay.compiled import CompiledModel, CompiledSolution
    from perfectplay.models.base import ChanceModel, GameModel, StochasticGameModel
    from perfectplay.models.chance import ChanceModelSolution
    from perfectplay.models.game import GameModelSolution
    from perfectplay.models.solve import SolveOptions
    from perfectplay.models.stochastic import StochasticModelSolution
    from perfectplay.results.surface import Solution
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import Rules
    from perfectplay.yahtzee.solution import YahtzeeSolution

__all__ = ["load", "solve"]

#: The first bytes of each table format :func:`load` reads.
_NPZ_MAGIC = b"PK\x03\x04"
_YAHTZEE_MAGIC = b"perfectplay yahtzee table\n"


@overload
def solve(
    game: StochasticGameModel, **options: Unpack[SolveOptions]
) -> StochasticModelSolution: ...
@overload
def solve(game: ChanceModel, **options: Unpack[SolveOptions]) -> ChanceModelSolution: ...
@overload
def solve(game: GameModel, **options: Unpack[SolveOptions]) -> GameModelSolution: ...
@overload
def solve(game: Rules | ScorecardGame | str) -> YahtzeeSolution: ...
@overload
def solve(game: CompiledModel, **options: Any) -> CompiledSolution: ...
def solve(game: Any, **options: Any) -> Solution:
    """Solve ``game`` exactly and return its :class:`~perfectplay.results.surface.Solution`.

    ``game`` is one of:

    * a model (:class:`~perfectplay.models.ChanceModel`, :class:`~perfectplay.models.GameModel`
      or :class:`~perfectplay.models.StochasticGameModel`, or any object with their
      methods): explored from its start and solved (:func:`perfectplay.models.solve_model`,
      whose keyword options ``max_states``, ``max_edges``, ``max_per_call``, ``progress``,
      ``max_sweeps`` and ``max_endless`` pass through);
    * a Yahtzee-family rule set: a :class:`~perfectplay.yahtzee.Rules`, or the name of a
      built-in one (``"american"``, ``"yatzy"``, ...), solved by tiered backward induction
      (:func:`perfectplay.yahtzee.solve`);
    * a compiled model (:class:`~perfectplay.compiled.CompiledModel`): explored in
      compiled code and solved layer by layer (:func:`perfectplay.compiled.solve_compiled`,
      whose options ``workdir``, ``tolerance``, ``max_sweeps`` and ``progress`` pass
      through).

    >>> import perfectplay
    >>> from perfectplay.examples.five_dice import FiveDice
    >>> perfectplay.solve(FiveDice(dice=3)).exact()
    Fraction(63, 8)
    """
    if isinstance(game, type):
        raise ModelError(
            f"solve got the class {game.__name__}; pass an instance: {game.__name__}()"
        )
    if getattr(game, "compiled_model", False) is True:
        from perfectplay.compiled import solve_compiled

        return solve_compiled(game, **options)
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.ruleset import Rules

    if isinstance(game, str | Rules | ScorecardGame):
        if options:
            raise TypeError(f"a rule set takes no options (got {', '.join(sorted(options))})")
        from perfectplay.yahtzee.ruleset import rules as builtin_rules
        from perfectplay.yahtzee.solution import solve as solve_rules

        if isinstance(game, str):
            try:
                game = builtin_rules(game)
            except KeyError as exc:
                raise InputError(
                    str(exc.args[0]) if exc.args else f"no rule set {game!r}"
                ) from None
        return solve_rules(game)
    from perfectplay.models.solve import solve_model

    solution: Solution = solve_model(game, **options)
    return solution


def load(
    path: str | os.PathLike[str], model: Any = None, rules: Rules | str | None = None
) -> Solution:
    """Read a table that ``solution.save(path)`` wrote, whatever game it holds, as a
    :class:`~perfectplay.results.surface.Solution`.

    A compiled model's table is a directory (:mod:`perfectplay.compiled.workdir`); with
    ``model`` it also answers options and reads typed positions. A model's table
    (``.npz``) answers by its stored keys, or by the model's own states
    when ``model`` is given (its ``canonical`` method applied); a Yahtzee table is checked
    against the built-in rules it names, or against ``rules`` for a user's rule set.
    Anything else, a missing file or a corrupt one is an
    :class:`~perfectplay.errors.InputError` naming the file.

    >>> import perfectplay, pathlib, tempfile
    >>> from perfectplay.examples.tictactoe import TicTacToe
    >>> path = perfectplay.solve(TicTacToe()).save(pathlib.Path(tempfile.mkdtemp()) / "t.npz")
    >>> table = perfectplay.load(path)
    >>> str(table.value()), table.best("X...O....")[:2]
    ('TIE in 9', [1, 2])
    """
    if Path(path).is_dir():  # a compiled model's table is a directory
        if rules is not None:
            raise InputError(f"{path}: a compiled model's table is loaded with its model")
        from perfectplay.compiled.solution import load_compiled

        return load_compiled(Path(path), model)
    try:
        with open(path, "rb") as fh:
            head = fh.read(len(_YAHTZEE_MAGIC))
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    if head.startswith(_YAHTZEE_MAGIC):
        if model is not None:
            raise InputError(f"{path}: a Yahtzee table is loaded with its rules, not a model")
        from perfectplay.yahtzee.solution import YahtzeeSolution

        return YahtzeeSolution.load(path, rules)
    if head.startswith(_NPZ_MAGIC):
        if rules is not None:
            raise InputError(f"{path}: a model's table is loaded with its model, not rules")
        from perfectplay.results.table import load_solution

        return load_solution(Path(path), model)
    raise InputError(
        f"{path}: not a perfectplay table (neither a model's .npz nor a Yahtzee table)"
    )
