"""The explorers: a user's Python model, visited breadth-first, becomes graph arrays.

A model describes a game through a few callbacks (see :mod:`perfectplay.models` for the
user-facing classes). An explorer calls them once per state, numbers states densely by
their canonical key (:class:`~perfectplay.graphs.canonical.StateIndex`) and appends edges
to flat typed buffers (``array.array``), which become numpy arrays once at the end without
a copy. Nothing per state survives except the key table and one representative state
object per id (the solution needs both to answer queries by the user's own states).

One module per kind of model, on shared ground:

* :mod:`~perfectplay.models.explore.chance`: one player with dice
  (:func:`explore_chance`, a :class:`~perfectplay.graphs.chance.ChanceGraph`);
* :mod:`~perfectplay.models.explore.game`: two players without dice
  (:func:`explore_game`, a :class:`~perfectplay.graphs.game.GameGraph`);
* :mod:`~perfectplay.models.explore.stochastic`: two players with dice
  (:func:`explore_stochastic`, a :class:`~perfectplay.graphs.stochastic.StochasticGraph`);
* :mod:`~perfectplay.models.explore.limits`: the one limits record,
  :class:`ExploreLimits`, and the budget that enforces it in all three (states, edges,
  items per call, memory), raising :class:`SpaceLimitError`;
* :mod:`~perfectplay.models.explore.callbacks`: reading the model's methods, and the one
  :class:`~perfectplay.errors.ModelError` line naming the method and the state for
  whatever a callback does wrong (``sys.exit`` included);
* :mod:`~perfectplay.models.explore.amounts`: a chance model's objective, costs and exact
  weights; :mod:`~perfectplay.models.explore.collector`: the garbage collector kept out
  of the explorers' way.

Chance models (one player, dice) give::

    start()                 the initial decision state (or a plain attribute)
    is_goal(state)          True when the game is over
    choices(state)          the rolls the player may choose between: "pending" objects,
                            e.g. the dice kept, which identify the roll
    roll(pending)           iterable of (state, weight), or a mapping state -> weight;
                            weights are positive ints or fractions.Fraction, scaled to
                            integers per roll
    objective               optional, an Objective (attribute or method; default
                            MIN_COST, the least expected total cost)
    value(state)            optional, the value of a goal state (int or Fraction;
                            default 0, or 1 under a probability objective)
    cost(pending)           optional, what a roll costs: an int or a Fraction, any sign
                            (default 1 when minimising a cost, else 0); it worsens the
                            outcome whatever the sense (see :func:`roll_amount_rule`)
    reward(pending)         optional, what a roll pays: improves the outcome (a model
                            defines cost or reward, not both)
    canonical(state)        optional, hashable key of the state's symmetry class
    canonical_choice(p)     optional, hashable key of a pending roll

Two-player models give ``start``, ``moves(position)``, ``play(position, move)``,
``outcome(position)`` (``None`` or ``"win"``/``"lose"``/``"tie"`` for the player to move),
optionally ``canonical`` and the class attribute ``no_moves`` (the outcome of a
non-terminal position without moves for the player to move, default ``"lose"``, the normal
play convention). Two-player dice models: see :mod:`perfectplay.models.stochastic`.

>>> class Coin:  # toss a coin until heads
...     start = "toss"
...     def is_goal(self, s): return s == "heads"
...     def choices(self, s): return ["flip"]
...     def roll(self, p): return [("heads", 1), ("tails", 1)]
>>> ex = explore_chance(Coin(), limits=ExploreLimits(max_states=100))
>>> ex.graph.n_decision, ex.graph.n_chance, ex.retry
(3, 1, True)
"""

from __future__ import annotations

from perfectplay.models.explore.amounts import (
    MAX_COST,
    MAX_TOTAL_WEIGHT,
    model_objective,
    roll_amount_rule,
)
from perfectplay.models.explore.callbacks import USER_MODULE_PREFIX as USER_MODULE_PREFIX
from perfectplay.models.explore.callbacks import describe, model_name, start_state
from perfectplay.models.explore.callbacks import model_attribute as model_attribute
from perfectplay.models.explore.chance import ChanceExploration, explore_chance
from perfectplay.models.explore.game import GameExploration, explore_game
from perfectplay.models.explore.game import outcome_code as outcome_code
from perfectplay.models.explore.limits import (
    DEFAULT_MAX_EDGES,
    DEFAULT_MAX_PER_CALL,
    DEFAULT_MAX_STATES,
    ExploreLimits,
    SpaceLimitError,
)
from perfectplay.models.explore.stochastic import StochasticExploration, explore_stochastic

__all__ = [
    "DEFAULT_MAX_STATES",
    "DEFAULT_MAX_EDGES",
    "DEFAULT_MAX_PER_CALL",
    "MAX_TOTAL_WEIGHT",
    "MAX_COST",
    "ExploreLimits",
    "SpaceLimitError",
    "ChanceExploration",
    "GameExploration",
    "StochasticExploration",
    "explore_chance",
    "explore_game",
    "explore_stochastic",
    "model_name",
    "model_objective",
    "roll_amount_rule",
    "describe",
    "start_state",
]
