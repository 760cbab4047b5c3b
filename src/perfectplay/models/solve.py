"""One entry point for both kinds of model: :func:`solve_model`."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict, Unpack, overload

from perfectplay._util.progress import progress_enabled, reporting
from perfectplay.errors import ModelError
from perfectplay.models.base import ChanceModel, GameModel, StochasticGameModel, model_kind
from perfectplay.models.explore import DEFAULT_MAX_EDGES, DEFAULT_MAX_PER_CALL, DEFAULT_MAX_STATES

if TYPE_CHECKING:  # the solution modules import numpy; importing this one must stay cheap
    from perfectplay.models.chance import ChanceModelSolution
    from perfectplay.models.game import GameModelSolution
    from perfectplay.models.stochastic import StochasticModelSolution

__all__ = ["SolveOptions", "solve_model"]


class SolveOptions(TypedDict, total=False):
    """The keyword options of :func:`solve_model` (and of :func:`perfectplay.solve` for a
    model), for the overloads' benefit."""

    max_states: int
    max_edges: int
    max_per_call: int
    progress: bool | None
    max_sweeps: int | None
    max_endless: int | None


@overload
def solve_model(model: ChanceModel, **options: Unpack[SolveOptions]) -> ChanceModelSolution: ...
@overload
def solve_model(model: GameModel, **options: Unpack[SolveOptions]) -> GameModelSolution: ...
@overload
def solve_model(
    model: StochasticGameModel, **options: Unpack[SolveOptions]
) -> StochasticModelSolution: ...


def solve_model(
    model: ChanceModel | GameModel | StochasticGameModel,
    *,
    max_states: int = DEFAULT_MAX_STATES,
    max_edges: int = DEFAULT_MAX_EDGES,
    max_per_call: int = DEFAULT_MAX_PER_CALL,
    progress: bool | None = None,
    max_sweeps: int | None = None,
    max_endless: int | None = None,
) -> ChanceModelSolution | GameModelSolution | StochasticModelSolution:
    """Explore a model breadth-first from its start and solve it exactly.

    Returns a :class:`~perfectplay.models.chance.ChanceModelSolution` for a chance model
    and a :class:`~perfectplay.models.game.GameModelSolution` for a two-player model (the
    overloads tell a type checker which, from the :class:`ChanceModel` or
    :class:`GameModel` protocol the argument satisfies), and a
    :class:`~perfectplay.models.stochastic.StochasticModelSolution` for a
    :class:`StochasticGameModel` (two players with dice).
    ``max_states`` and ``max_edges`` bound the exploration (an infinite space raises
    :class:`~perfectplay.models.explore.SpaceLimitError` instead of running forever), and
    ``max_per_call`` the items (choices, outcomes or moves) one call of the model may give
    (a generator that never stops). ``progress=True`` prints progress lines on stderr for
    long explorations and solves, ``False`` never does, and the default follows
    :func:`perfectplay.enable_progress` (off in a program, on in the ``perfectplay``
    command): the library prints nothing unless asked. The solvers' own limits:
    ``max_sweeps`` for a cycle of rolls too wide for a direct solve (chance models, see
    :func:`~perfectplay.solvers.solve_chance`), ``max_endless`` for a component of a
    two-player dice game where play can go on for ever (see
    :func:`~perfectplay.solvers.stochastic.solve_stochastic`); ``None``: their defaults.

    >>> from perfectplay.examples.five_dice import FiveDice
    >>> round(solve_model(FiveDice()).start_value, 6)
    11.090155
    """
    if isinstance(model, type):
        raise ModelError(
            f"solve_model got the class {model.__name__}; pass an instance: {model.__name__}()"
        )
    limits = {"max_states": max_states, "max_edges": max_edges, "max_per_call": max_per_call}
    with reporting(progress_enabled() if progress is None else progress):
        kind = model_kind(model)
        if kind == "stochastic":
            from perfectplay.models.stochastic import solve_stochastic_model

            return solve_stochastic_model(
                model,
                max_states=max_states,
                max_per_call=max_per_call,
                max_endless=max_endless,
                progress=progress is not False,
            )
        if kind == "chance":
            from perfectplay.models.chance import solve_chance_model

            return solve_chance_model(
                model, progress=progress is not False, max_sweeps=max_sweeps, **limits
            )
        from perfectplay.models.game import solve_game_model

        return solve_game_model(model, progress=progress is not False, **limits)
