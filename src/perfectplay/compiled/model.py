"""Compiled models: a game written as a few numba-compiled functions over integer states.

A Python-object model (:mod:`perfectplay.models`) holds every state as a Python object
and calls Python for every move, which caps it near 10^7 positions. A compiled model
packs a position into one ``int64`` and gives its rules as ``numba.njit`` functions; the
explorer and the solver call them from compiled code, so no Python object is made per
position (the scale path of ``docs/models.md``, "Big games").

The model is a two-player game with dice in which the player to move maximises their
chance of winning. A *turn* is: the dice are thrown (the chance outcomes of the state,
with positive integer weights), then the mover chooses one of the moves allowed by that
throw; each move names the state it leads to and whether the *other* player moves next
(``flip``: the values are always the mover's, so a flip turns ``v`` into ``1 - v``). A
game whose decision comes before its dice (Pig: roll or hold, then the die) writes the
dice as a state of its own that has a single move per outcome.

A model is a subclass of :class:`CompiledModel` whose class attributes are these njit
functions (``p`` is the model's :attr:`~CompiledModel.params`, an ``int64`` array, so one
compilation serves every parameter value):

=====================================  ==================================================
``start(p) -> int``                    the start state
``outcome(s, p) -> float``             the mover's value when the game is over (1 a win,
                                       0 a loss, 0.5 a tie), else any negative number
``rolls(s, p, weights) -> int``        optional: writes the positive integer weights of
                                       the chance outcomes into ``weights[:n]``, returns
                                       ``n`` (default: one outcome, no dice)
``moves(s, r, p, nexts, flips) -> int``  after outcome ``r``: writes each move's next
                                       state and flip (0 or 1) into ``nexts[:m]``,
                                       ``flips[:m]``, returns ``m >= 1`` (a pass is a move)
``layer(s, p) -> int``                 optional: the layer promise, play never moves to a
                                       lower layer (default: one layer)
``index(s, p) -> int``                 optional, with ``layer_size``: a perfect index,
                                       ``s``'s number within its layer, ``0 <= index <
                                       layer_size``, different for different positions
``layer_size(layer, p) -> int``        the numbers the index uses in ``layer`` (a few
                                       more than its positions; a negative size: none)
=====================================  ==================================================

and whose attributes :attr:`~CompiledModel.max_rolls` and :attr:`~CompiledModel.max_moves`
size the buffers the functions write. :meth:`~CompiledModel.describe`,
:meth:`~CompiledModel.parse`, :meth:`~CompiledModel.move_label` and
:meth:`~CompiledModel.roll_label` are plain Python, for people (queries, tables, errors).

A perfect index is a speed-up only: building a layer's successor table finds a position
by it (one array read, the key and the value of a finished layer's position side by
side) instead of a directory and a binary search, so that games of small cheap layers
(Pig) spend less of their time looking up. A layer whose size is far above its
positions is searched as usual; an index out of range or one number for two positions
is refused in one line.

A wrong model is refused in one line naming the state (decoded by ``describe``), never
a numba traceback: the kernels return an error code and the offending state, and
:func:`raise_model_error` turns it into a :class:`~perfectplay.errors.ModelError`.
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from perfectplay.errors import ModelError

__all__ = [
    "EXPLORE_BATCH",
    "CompiledModel",
    "ERR_BAD_WEIGHT",
    "ERR_LOWER_LAYER",
    "ERR_NO_MOVE",
    "ERR_TOO_MANY_MOVES",
    "ERR_TOO_MANY_ROLLS",
    "ERR_UNKNOWN_STATE",
    "ERR_BAD_FLIP",
    "ERR_BAD_OUTCOME",
    "ERR_BAD_INDEX",
    "ERR_SAME_INDEX",
    "ERR_NAN_OUTCOME",
    "ERR_EMPTY_STATE",
    "is_compiled_model",
    "raise_model_error",
]

# Error codes the kernels return, with the offending state, the outcome and a detail.
ERR_BAD_WEIGHT = 1
ERR_TOO_MANY_ROLLS = 2
ERR_TOO_MANY_MOVES = 3
ERR_NO_MOVE = 4
ERR_LOWER_LAYER = 5
ERR_UNKNOWN_STATE = 6
ERR_BAD_FLIP = 7
ERR_BAD_OUTCOME = 8
ERR_BAD_INDEX = 9
ERR_SAME_INDEX = 10
ERR_NAN_OUTCOME = 11
ERR_EMPTY_STATE = 12
#: Not the model's fault: a layer being explored outgrew the positions memory allows
#: (``close_layer``'s ``most``); detail: the positions found so far.
ERR_TOO_BIG = 13

#: Positions whose successors the explorer gathers at a time (their hash-set probes
#: prefetched together): its buffer holds this many times ``max_rolls * max_moves``.
EXPLORE_BATCH = 8

_REQUIRED = ("start", "outcome", "moves")
_OPTIONAL = ("rolls", "layer", "index", "layer_size")
_ORDER = ("start", "outcome", "rolls", "moves", "layer")
_INDEX = ("index", "layer_size")


class CompiledModel:
    """The base of a compiled model (see the module docstring for the functions).

    Subclasses set the njit functions as class attributes and, where the rules have
    parameters, :attr:`params` in ``__init__``. A minimal model, a race to 3 where each
    turn a coin adds 1 or 2 to the mover's count (the state packs ``mine * 4 + theirs``):

    >>> from numba import njit
    >>> @njit
    ... def race_start(p):
    ...     return 0
    >>> @njit
    ... def race_outcome(s, p):
    ...     return 0.0 if s % 4 >= 3 else -1.0   # the opponent (who just moved) got there
    >>> @njit
    ... def race_rolls(s, p, w):
    ...     w[0] = 1; w[1] = 1
    ...     return 2
    >>> @njit
    ... def race_moves(s, r, p, nexts, flips):
    ...     mine = min(s // 4 + r + 1, 3)
    ...     nexts[0] = (s % 4) * 4 + mine      # the opponent moves next: swap the fields
    ...     flips[0] = 1
    ...     return 1
    >>> class Race(CompiledModel):
    ...     max_rolls, max_moves = 2, 1
    ...     start, outcome, rolls, moves = race_start, race_outcome, race_rolls, race_moves
    >>> from perfectplay.compiled import solve_compiled
    >>> solve_compiled(Race()).value()   # loses only needing 3 turns to 2: 1 - 1/4 * 3/4
    0.8125
    """

    #: Most chance outcomes of one state (the size of ``weights``).
    max_rolls: int = 1
    #: Most moves after one outcome (the size of ``nexts`` and ``flips``).
    max_moves: int = 1
    #: ``int64`` parameters handed to every function as ``p``.
    params: np.ndarray = np.zeros(0, dtype=np.int64)

    #: Marks compiled models for the front door and the command line.
    compiled_model = True

    @property
    def name(self) -> str:
        """The model's name (its class)."""
        return type(self).__name__

    def describe(self, state: int) -> str:
        """The text a person reads for ``state`` (errors, queries)."""
        return str(int(state))

    def parse(self, text: str) -> int:
        """The state a person typed (the inverse of :meth:`describe`)."""
        try:
            return int(text)
        except ValueError:
            raise ModelError(f"{self.name}: {text!r} is not a state number") from None

    def roll_label(self, roll: int) -> str:
        """The text of chance outcome ``roll`` (``"roll 3"``)."""
        return f"roll {roll}"

    def outcome_label(self, state: int, roll: int) -> str:
        """The text of chance outcome ``roll`` of ``state``: :meth:`roll_label` unless a
        model says more (a Pig decision has no dice: its one outcome is no face)."""
        return self.roll_label(roll)

    def move_label(self, state: int, roll: int, index: int, next_state: int, flip: int) -> str:
        """The text of move ``index`` after outcome ``roll`` of ``state``."""
        return f"move {index}: {self.describe(next_state)}"

    def parameters(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this model (saved in its table)."""
        return {}

    # -- the compiled functions ------------------------------------------------------

    def functions(self) -> tuple[Any, ...]:
        """``(start, outcome, rolls, moves, layer)``: the njit functions, defaults filled in;
        a missing or uncompiled one is a :class:`ModelError` naming it."""
        return tuple(self._function(name) for name in _ORDER)

    def index_functions(self) -> tuple[Any, ...]:
        """``(index, layer_size)``: the perfect index's njit functions, or defaults that
        say there is none (a size of -1); one without the other is a
        :class:`ModelError`."""
        if self.has_index() != all(self._declared(name) for name in _INDEX):
            raise ModelError(f"{self.name}: a perfect index needs both index and layer_size")
        return tuple(self._function(name) for name in _INDEX)

    def has_index(self) -> bool:
        """Whether the model declares a perfect index (``index`` and ``layer_size``)."""
        return any(self._declared(name) for name in _INDEX)

    def _declared(self, name: str) -> bool:
        try:
            return inspect.getattr_static(self, name) is not None
        except AttributeError:
            return False

    def _function(self, name: str) -> Any:
        from perfectplay.compiled import defaults

        try:
            fn = inspect.getattr_static(self, name)
        except AttributeError:
            fn = None
        if isinstance(fn, staticmethod):
            fn = fn.__func__
        if fn is None:
            if name in _REQUIRED:
                raise ModelError(f"{self.name}: a compiled model needs a function {name!r}")
            fn = getattr(defaults, f"default_{name}")
        if not hasattr(fn, "py_func"):
            raise ModelError(
                f"{self.name}.{name} is not numba-compiled: decorate it with @numba.njit"
            )
        return fn

    def checked(self) -> CompiledModel:
        """Itself, after checking the sizes and the parameters (a :class:`ModelError`
        names what is wrong)."""
        for attr in ("max_rolls", "max_moves"):
            value = getattr(self, attr)
            if not isinstance(value, int) or not 1 <= value <= 1 << 16:
                raise ModelError(f"{self.name}.{attr} must be an integer 1..65536, not {value!r}")
        p = np.asarray(self.params)
        if p.dtype != np.int64 or p.ndim != 1:
            raise ModelError(f"{self.name}.params must be a 1-d int64 array")
        self.functions()
        self.index_functions()
        return self


def is_compiled_model(obj: Any) -> bool:
    """Whether ``obj`` is a compiled model (an instance of :class:`CompiledModel`).

    >>> is_compiled_model(object()), is_compiled_model(CompiledModel())
    (False, True)
    """
    return isinstance(obj, CompiledModel)


def raise_model_error(model: CompiledModel, err: np.ndarray) -> None:
    """Raise the :class:`ModelError` a kernel reported in ``err`` (``[code, state, roll,
    detail]``); nothing when ``err[0]`` is 0."""
    code = int(err[0])
    if code == 0:
        return
    state, roll, detail = int(err[1]), int(err[2]), int(err[3])
    where = _describe(model, state)
    messages = {
        ERR_BAD_WEIGHT: f"chance outcome {roll} has weight {detail}; weights must be positive",
        ERR_TOO_MANY_ROLLS: f"rolls() gave {detail} outcomes, more than max_rolls "
        f"({model.max_rolls}), or none",
        ERR_TOO_MANY_MOVES: f"moves() after outcome {roll} gave {detail} moves, more than "
        f"max_moves ({model.max_moves})",
        ERR_NO_MOVE: f"outcome {roll} has no move (a pass must be given as a move)",
        ERR_LOWER_LAYER: f"a move after outcome {roll} goes to {_describe(model, detail)} in a "
        f"lower layer{_layers(model, state, detail)} (the layer promise is broken)",
        ERR_UNKNOWN_STATE: f"a move after outcome {roll} goes to {_describe(model, detail)}, "
        "which the exploration never reached (the model is not deterministic)",
        ERR_BAD_FLIP: f"a move after outcome {roll} has flip {detail}; flips are 0 or 1",
        ERR_BAD_OUTCOME: f"outcome() is {detail / 1e6:g}, above 1 (a value is a winning chance)",
        ERR_NAN_OUTCOME: "outcome() is nan (a winning chance, or a negative number while the "
        "game goes on)",
        ERR_EMPTY_STATE: f"a move after outcome {roll} goes to -2**63, the one int64 no "
        "position may be (the explorer's mark of an empty slot)",
        ERR_BAD_INDEX: f"index() is {detail}, outside its layer's 0..layer_size - 1",
        ERR_SAME_INDEX: f"index() gives it the number of {_describe(model, detail)} (an "
        "index numbers each position of a layer once)",
    }
    message = messages.get(code, f"kernel error {code} (detail {detail})")
    from perfectplay.compiled.diagnose import explain

    # A function returning the wrong kind of value (a float layer) is the cause of what
    # the kernel saw: name it instead.
    why = explain(_ORDER + _INDEX, model.functions() + model.index_functions())
    if why is not None:
        raise ModelError(f"{model.name}: {why}")
    raise ModelError(f"{model.name}: state {where}: {message}")


def _describe(model: CompiledModel, state: int) -> str:
    try:
        text = model.describe(state)
    except Exception:  # a describe that fails on a broken state still names the number
        return str(state)
    return text if text == str(state) else f"{state} ({text})"


def _layers(model: CompiledModel, state: int, other: int) -> str:
    """`` (layer A to B)`` for a broken layer promise, by the layer function run as
    Python (nothing when that fails)."""
    try:
        layer = model.functions()[_ORDER.index("layer")].py_func
        p = np.ascontiguousarray(model.params, dtype=np.int64)
        return f" (layer {int(layer(state, p))} to {int(layer(other, p))})"
    except Exception:  # only a detail of a message about a broken model
        return ""
