"""Calling a user's model: its methods and attributes, and the one-line error when they fail.

Every explorer reads the model through these functions, so that whatever a callback does
wrong (raises, returns something unhashable, calls ``sys.exit``) becomes one
:class:`~perfectplay.errors.ModelError` naming the method and the state it was called
with, the same wording whichever kind of model it is.

>>> class Broken:
...     start = 0
...     def moves(self, s): raise RuntimeError("boom")
>>> start_state(Broken()), model_name(Broken())
(0, 'Broken')
>>> print(callback_error("Broken", "moves", (0,), RuntimeError("boom"), keyed=False))
Broken.moves(0) raised RuntimeError: boom
"""

from __future__ import annotations

import reprlib
import sys
from collections.abc import Callable, Hashable
from typing import Any, cast, overload

from perfectplay._util.usermodules import USER_MODULE_PREFIX
from perfectplay.errors import ModelError
from perfectplay.graphs.canonical import StateIndex

__all__ = [
    "MODEL_EXCEPTIONS",
    "USER_MODULE_PREFIX",
    "add_start",
    "call_text",
    "callback_error",
    "describe",
    "exc_text",
    "method",
    "model_attribute",
    "model_name",
    "read_start",
    "start_state",
]

#: What a user's callback may raise that becomes a ModelError naming the callback. Beyond
#: ``Exception``: ``sys.exit()`` in a callback would otherwise end the command silently
#: with the model's status (``sys.exit(0)`` looks like success), and a stray
#: ``GeneratorExit`` would escape as a traceback. KeyboardInterrupt still interrupts.
MODEL_EXCEPTIONS = (Exception, SystemExit, GeneratorExit)


_short = reprlib.Repr()
_short.maxstring = 60
_short.maxother = 60
_short.maxtuple = _short.maxlist = _short.maxset = _short.maxfrozenset = 12
_short.maxdict = 8
_short.maxlevel = 4


def describe(obj: Any) -> str:
    """A short repr of a user object for error messages.

    >>> describe(tuple(range(100)))
    '(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, ...)'
    """
    try:
        text = _short.repr(obj)
    except MODEL_EXCEPTIONS:  # a user __repr__ that raises must not hide the real error
        return f"<{type(obj).__name__} object>"
    return text.replace(USER_MODULE_PREFIX, "")


def _value(obj: Any, width: int = 60) -> str:
    """:func:`describe` cut to about ``width`` characters (a value inside a sentence)."""
    text = describe(obj)
    return text if len(text) <= width else text[: width - 3] + "..."


def exc_text(exc: BaseException) -> str:
    """``"Type: message"`` of an exception (the type alone when it has no message)."""
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def model_name(model: Any) -> str:
    """The name used for a model in messages: its class name, or a module's name.

    >>> import fractions
    >>> model_name(fractions.Fraction(1)), model_name(fractions)
    ('Fraction', 'fractions')
    """
    if isinstance(model, type(sys)):
        return model.__name__.removeprefix(USER_MODULE_PREFIX)
    return type(model).__name__


def model_attribute(model: Any, attr: str) -> Any:
    """``getattr(model, attr, None)``, with a property that raises reported as the model's."""
    try:
        return getattr(model, attr, None)
    except MODEL_EXCEPTIONS as exc:
        raise ModelError(
            f"{model_name(model)}: reading the attribute {attr} raised {exc_text(exc)}"
        ) from exc


@overload
def method(model: Any, name: str) -> Callable[..., Any]: ...


@overload
def method(model: Any, name: str, required: bool) -> Callable[..., Any] | None: ...


def method(model: Any, name: str, required: bool = True) -> Callable[..., Any] | None:
    """The model's method ``name``; ``None`` when absent and not ``required``."""
    fn = model_attribute(model, name)
    if fn is None:
        if required:
            raise ModelError(f"{model_name(model)} has no method {name}()")
        return None
    if not callable(fn):
        raise ModelError(f"{model_name(model)}.{name} is not callable")
    return cast(Callable[..., Any], fn)


def start_state(model: Any) -> Any:
    """The model's start: ``model.start()`` when callable, else the attribute's value."""
    return read_start(model)[0]


def read_start(model: Any) -> tuple[Any, str]:
    """The start state and where it came from, for messages: ``"returned by M.start()"``
    or ``"the attribute M.start"``."""
    name = model_name(model)
    start = model_attribute(model, "start")
    if start is None:
        raise ModelError(f"{name} has no start (a method start() or an attribute)")
    if callable(start):
        try:
            return start(), f"returned by {name}.start()"
        except MODEL_EXCEPTIONS as exc:
            raise ModelError(f"{name}.start() raised {exc_text(exc)}") from exc
    return start, f"the attribute {name}.start"


def add_start(
    start: tuple[Any, str],
    name: str,
    canonical: Callable[[Any], Hashable] | None,
    index: StateIndex,
    reps: list[Any],
) -> None:
    """Number the start state (from :func:`read_start`) 0 in ``index``; its key refused
    in one line when it cannot be made."""
    state, source = start
    try:
        index.add(state)
    except MODEL_EXCEPTIONS as exc:
        raise _state_error(name, exc, state, source, canonical) from exc
    reps.append(state)


def call_text(name: str, method: str, args: tuple[Any, ...]) -> str:
    """``"Name.method(arg, ...)"`` with the arguments cut short."""
    return f"{name}.{method}({', '.join(describe(a) for a in args)})"


def _unhashable(exc: BaseException) -> bool:
    return isinstance(exc, TypeError) and "unhashable" in str(exc)


def _state_error(
    name: str,
    exc: BaseException,
    state: Any,
    source: str,
    canonical: Callable[[Any], Hashable] | None,
) -> ModelError:
    """The error for a start state that cannot be keyed; ``source`` says where it came
    from (see :func:`read_start`)."""
    shown = _value(state)
    if _unhashable(exc):
        what = "its canonical key" if canonical is not None else "it"
        return ModelError(
            f"the start state {shown} ({source}) is not hashable: {what} cannot be hashed "
            f"({exc}); use tuples, frozensets or other immutable values"
        )
    if canonical is not None:
        return ModelError(f"{name}.canonical({shown}) raised {exc_text(exc)}")
    # No canonical(): the state itself was hashed (its __hash__ or __eq__ raised).
    return ModelError(f"hashing the start state {shown} ({source}) raised {exc_text(exc)}")


# What each keying stage of the explorer loops was doing, for error messages: the method
# whose result was being keyed (called with the arguments recorded in ``args``), what the
# result is called, the canonical function and the plural of the keyed objects.
_KEYING = {
    "canonical": ("roll", "an outcome", "canonical", "states"),
    "canonical_choice": ("choices", "a choice", "canonical_choice", "choices"),
    "canonical_play": ("play", "the position", "canonical", "positions"),
    "canonical_chance": ("chances", "an outcome", "canonical", "states"),
}
# The methods whose result is iterated.
_LISTS = ("choices", "roll", "moves", "chances")


def callback_error(
    name: str,
    where: str,
    args: tuple[Any, ...],
    exc: BaseException,
    keyed: bool,
    value: Any = None,
) -> ModelError:
    """The ModelError for an exception raised at stage ``where`` of an explorer loop.

    ``where`` is the method being called (with ``args``) or a keying stage of
    ``_KEYING``; ``keyed`` says whether the model has the canonical function used at that
    stage; ``value`` is the object being keyed at a keying stage (shown cut short).

    >>> print(callback_error("M", "canonical_play", (4, 1), ValueError("odd"), True, 3))
    M.canonical(3) raised ValueError: odd on the position of M.play(4, 1)
    """
    if where in _KEYING:
        method, item, canon, plural = _KEYING[where]
        call = call_text(name, method, args)
        shown = _value(value)
        if _unhashable(exc):
            if keyed:
                return ModelError(
                    f"{call} returned {item} {shown} whose {canon}() key cannot be hashed "
                    f"({exc}); {canon} keys must be immutable (tuples, frozensets, ...)"
                )
            return ModelError(
                f"{call} returned {item} {shown} that cannot be hashed ({exc}); {plural} "
                "must be immutable (tuples, frozensets, ...)"
            )
        if not keyed:  # no canonical(): the lookup hashed and compared the object itself
            return ModelError(f"hashing {item} {shown} returned by {call} raised {exc_text(exc)}")
        return ModelError(f"{name}.{canon}({shown}) raised {exc_text(exc)} on {item} of {call}")
    call = call_text(name, where, args)
    if isinstance(exc, TypeError) and "not iterable" in str(exc) and where in _LISTS:
        return ModelError(f"{call} did not return an iterable: {exc}")
    return ModelError(f"{call} raised {exc_text(exc)}")
