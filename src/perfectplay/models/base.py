"""The two kinds of model a user writes: :class:`ChanceModel` and :class:`GameModel`.

Subclassing is optional: any object (an instance, a module of functions, a
``types.SimpleNamespace``) with the same method names works, and :func:`model_kind` tells
the two kinds apart by the methods they have (``roll`` for chance, ``play`` for games).
A third kind, :class:`StochasticGameModel` (two players with dice between moves, such
as Pig), has ``chances``. All are :class:`typing.Protocol` classes, so a type checker
accepts such an object wherever a model is expected. Optional hooks are looked up by
name: a model defines them when it needs them, and the explorer skips the call entirely
when they are absent.

This module imports nothing heavy: a user's model file can import it cheaply.

>>> class Coin(ChanceModel):
...     start = "none"
...     def is_goal(self, s): return s == "heads"
...     def choices(self, s): return ["toss"]
...     def roll(self, pending): return [("heads", 1), ("tails", 1)]
>>> model_kind(Coin())
'chance'
>>> class Pile:                      # no base class: still a GameModel
...     start = 3
...     def moves(self, n): return [1] if n else []
...     def play(self, n, k): return n - k
>>> isinstance(Pile(), GameModel), model_kind(Pile())
(True, 'game')
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from perfectplay.errors import ModelError, PerfectplayError, UnknownStateError  # noqa: F401  (its home before errors)

__all__ = [
    "WIN",
    "LOSE",
    "TIE",
    "UnknownStateError",
    "ChanceModel",
    "GameModel",
    "StochasticGameModel",
    "model_kind",
]

State = Any
Pending = Any
Move = Any
Weight = int | Fraction

WIN, LOSE, TIE = "win", "lose", "tie"


@runtime_checkable
class ChanceModel(Protocol):
    """A one-player dice game: reach a goal at the least expected cost (number of rolls),
    or optimise the objective the model declares (a score, a probability).

    A *state* is the situation after a roll (for dice: the faces showing). Unless it is a
    goal, the player picks one of its ``choices``: a *pending roll* such as "keep these
    dice and roll the rest", described by any hashable object. ``roll(pending)`` lists
    the states it can land on with integer or :class:`~fractions.Fraction` weights
    (probabilities up to a common factor). Each roll costs ``cost(pending)``, one unless
    the model defines ``cost``.

    Define in a subclass:

    * ``start`` (method or plain attribute): the state before anything is rolled;
    * ``is_goal(state) -> bool``;
    * ``choices(state) -> iterable of pending rolls``;
    * ``roll(pending) -> iterable of (state, weight)``, or a mapping ``{state: weight}``
      such as a :class:`collections.Counter`.

    This is a :class:`typing.Protocol`: a plain class with these methods is a
    ``ChanceModel`` to a type checker (and to ``isinstance``), and subclassing it is
    optional (a subclass inherits nothing but the contract).

    Optional: ``canonical(state) -> hashable`` (one key per symmetry class: states with
    equal keys must have equal values), and ``canonical_choice(pending) -> hashable``.
    Equal pending keys are one roll, which is also how the solver recognises "roll the
    same dice again" (the retry property that enables the fast solver); two declarations
    of one roll with different costs or outcomes are refused.

    Objectives (all optional; without them the model minimises the expected number of
    rolls, as always):

    * ``objective``: an :class:`~perfectplay.objectives.Objective` (attribute or method),
      e.g. ``Objective.score("max")``, ``Objective.score("min")``,
      ``Objective.probability()``;
    * ``value(state)``: what a goal state is worth (int or
      :class:`~fractions.Fraction`, any sign; 0 by default, 1 under a probability
      objective, where it must be 0 or 1 for the event);
    * ``cost(pending)`` or ``reward(pending)`` (not both): what a roll costs or pays (int
      or Fraction, any sign; default 1 when minimising a cost, else 0). A cost worsens the
      outcome and a reward improves it, whatever the sense
      (:func:`~perfectplay.models.explore.roll_amount_rule`).

    The outcome of a play is the value of the goal reached plus the amounts of its rolls;
    the solver optimises its expectation. Floats are refused (values stay exact); a model
    that can repeat a paying cycle for ever is refused, naming a state of the cycle.

    Example: roll one die until it shows a six (six rolls on average)::

        >>> class Six(ChanceModel):
        ...     start = 0
        ...     def is_goal(self, face): return face == 6
        ...     def choices(self, face): return ["roll"]
        ...     def roll(self, pending): return [(f, 1) for f in range(1, 7)]
        >>> from perfectplay.models import solve_model
        >>> solve_model(Six()).start_value
        6.0
    """

    # The optional hooks (cost, canonical, canonical_choice) are not members: a protocol
    # member is required of every implementation, and the explorer looks hooks up by name.

    if TYPE_CHECKING:
        # A read-only property accepts both spellings, ``start = ...`` and ``def start``;
        # a model that assigns ``self.start`` in ``__init__`` type-checks when it does not
        # subclass (the property of the base would be read-only).
        @property
        def start(self) -> Any:
            """The state before anything is rolled (a method or a plain attribute)."""
            return None

    else:
        start: Any  # a member for isinstance, without a property that would block assignment

    def is_goal(self, state: Any) -> bool:
        """Whether the game is over in ``state``."""
        raise NotImplementedError

    def choices(self, state: Any) -> Iterable[Hashable]:
        """The pending rolls the player may choose in ``state``."""
        raise NotImplementedError

    def roll(self, pending: Any) -> Iterable[tuple[Any, Weight]] | Mapping[Any, Weight]:
        """The states ``pending`` lands on, with their weights."""
        raise NotImplementedError


@runtime_checkable
class GameModel(Protocol):
    """A two-player game of perfect information, solved from the view of the player to move.

    Define in a subclass:

    * ``start`` (method or plain attribute): the first position;
    * ``moves(position) -> iterable of moves`` (any objects, shown to the user);
    * ``play(position, move) -> position`` (the other player is then to move);
    * ``outcome(position) -> "win" | "lose" | "tie" | None``: for a finished game, the
      result for the player who would move now (after a winning move that player has
      lost: ``"lose"``); ``None`` while the game goes on. Games that end only when the
      player to move is stuck need no ``outcome``.

    Like :class:`ChanceModel` this is a :class:`typing.Protocol`: any class with these
    methods is a ``GameModel``, and subclassing is optional.

    Optional: ``canonical(position) -> hashable`` (symmetric positions share a key) and the
    attribute ``no_moves``: the result for a player to move who has no move in a position
    that ``outcome`` did not end, ``"lose"`` by default (the normal play convention).

    Positions that can repeat are fine: the solver reports a **draw** where neither player
    can force an end.

    Example: a pile of 5 counters, take 1 or 2, whoever cannot move loses::

        >>> class Take(GameModel):
        ...     start = 5
        ...     def moves(self, n): return [k for k in (1, 2) if k <= n]
        ...     def play(self, n, k): return n - k
        >>> from perfectplay.models import solve_model
        >>> solve_model(Take()).start_value
        Result(value=<Outcome.WIN: 4>, remoteness=3)
    """

    # outcome, canonical and no_moves are optional, so not members (see ChanceModel).

    if TYPE_CHECKING:
        # A read-only property accepts both spellings, ``start = ...`` and ``def start``;
        # a model that assigns ``self.start`` in ``__init__`` type-checks when it does not
        # subclass (the property of the base would be read-only).
        @property
        def start(self) -> Any:
            """The first position (a method or a plain attribute)."""
            return None

    else:
        start: Any  # a member for isinstance, without a property that would block assignment

    def moves(self, position: Any) -> Iterable[Any]:
        """The moves of the player to move in ``position``."""
        raise NotImplementedError

    def play(self, position: Any, move: Any) -> Any:
        """The position after ``move``; the other player is then to move."""
        raise NotImplementedError


@runtime_checkable
class StochasticGameModel(Protocol):
    """A two-player zero-sum game with dice between moves, seen from the player to move.

    Define ``start``; ``moves(state)``; ``chances(state, move)`` giving
    ``(next_state, weight, passes)`` triples (or a mapping ``{(next_state, passes):
    weight}``; ``passes``: the other player moves next, and ``next_state`` is seen from
    their side); ``outcome(state)``: ``None`` while the game goes on, else ``"win"``,
    ``"lose"``, ``"tie"`` or an exact winning probability for the mover. Optional:
    ``canonical(state)`` and ``no_moves`` (``"lose"`` by default). The value of a state
    is the mover's winning chance (a tie, and play that never ends, count one half).
    Guide: :mod:`perfectplay.models.stochastic` and ``docs/models.md``.

    >>> class Toss(StochasticGameModel):   # one toss decides
    ...     start = "go"
    ...     def outcome(self, s): return None if s == "go" else s
    ...     def moves(self, s): return ["toss"]
    ...     def chances(self, s, m): return {("win", False): 1, ("lose", False): 1}
    >>> from perfectplay.models import solve_model
    >>> solve_model(Toss()).start_value
    0.5
    """

    if TYPE_CHECKING:

        @property
        def start(self) -> Any:
            """The first state (a method or a plain attribute)."""
            return None

    else:
        start: Any

    def moves(self, state: Any) -> Iterable[Any]:
        """The mover's choices in ``state``."""
        raise NotImplementedError

    def chances(
        self, state: Any, move: Any
    ) -> Iterable[tuple[Any, int | Fraction, bool]] | Mapping[tuple[Any, bool], int | Fraction]:
        """The outcomes of ``move``: ``(next_state, weight, passes)``."""
        raise NotImplementedError


def model_kind(model: Any) -> str:
    """``"chance"``, ``"game"`` or ``"stochastic"`` (two players with dice:
    :class:`StochasticGameModel`), from the base class or else from the methods present.

    >>> import types
    >>> model_kind(types.SimpleNamespace(start=0, moves=list, play=max, outcome=bool))
    'game'
    """
    # Declared kinds first: a subclass says which it is even when it has both methods
    # (isinstance on a protocol would only look at the methods).
    declared = type(model).__mro__
    if StochasticGameModel in declared:
        return "stochastic"
    if ChanceModel in declared:
        return "chance"
    if GameModel in declared:
        return "game"
    from perfectplay.models.explore import model_attribute

    has = {n for n in ("roll", "play", "chances") if callable(model_attribute(model, n))}
    if "chances" in has:
        if len(has) > 1:
            raise ModelError(
                f"{_what(model)} has chances() and {' and '.join(sorted(has - {'chances'}))}(): "
                "a model is one kind; subclass ChanceModel, GameModel or StochasticGameModel "
                "to say which"
            )
        return "stochastic"
    if "roll" in has and "play" not in has:
        return "chance"
    if "play" in has and "roll" not in has:
        return "game"
    if has:
        raise ModelError(
            f"{_what(model)} has both roll() and play(); subclass ChanceModel or GameModel to "
            "say which"
        )
    raise ModelError(
        f"{_what(model)} is not a model (it has neither roll() nor play()): a chance model "
        "needs start, is_goal(), choices() and roll(); a two-player model needs start, "
        "moves() and play() (and usually outcome()); a two-player game with dice needs start, "
        "moves(), chances() and outcome()"
    )


def _what(obj: Any) -> str:
    """What an object is, for a message: ``the module os``, ``the str 'abc'``, ...

    >>> _what(3), _what(Fraction)
    ('the int 3', 'the class Fraction')
    """
    import types

    from perfectplay.models.explore import describe, model_name

    if isinstance(obj, types.ModuleType):
        return f"the module {model_name(obj)}"
    if isinstance(obj, type):
        return f"the class {obj.__name__}"
    if isinstance(obj, types.FunctionType | types.BuiltinFunctionType | types.MethodType):
        return f"the function {getattr(obj, '__qualname__', '?')}"
    own_repr: Any = type(obj).__repr__
    if own_repr is object.__repr__:
        return f"a {type(obj).__name__} object"
    text = describe(obj)
    return f"the {type(obj).__name__} {text if len(text) <= 40 else text[:37] + '...'}"
