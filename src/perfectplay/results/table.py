"""Solved tables on disk: export a solution to NumPy ``.npz`` and load it back.

Why ``.npz``: the table is a few parallel columns (key, value, best choice) of which the
numeric ones are exactly the solver's arrays, so NumPy's own container stores them without
conversion, loads them with one call (:func:`numpy.load`) in any NumPy program, needs no
further dependency (Parquet would need pyarrow, a large install), compresses with zlib,
and with ``allow_pickle=False`` loading runs no code from the file.

State keys are Python values (tuples, ints, strings, ...). Each is stored as its
``repr`` text, all joined by newlines in one ``uint8`` UTF-8 array (a Python ``repr`` of a
plain value never contains a raw newline); :func:`key_value` turns a key back into
the value, and lookups compare ``repr`` text, so loading is fast even for millions of
rows. Keys must therefore be *plain*: ``int``, ``float`` (``inf`` and ``nan`` included:
they load back as floats), ``str``, ``bytes``, ``bool``, ``None`` and tuples of those; a
model whose states are other objects exports through a ``canonical`` method that returns
such a tuple.

Arrays in the file (``n`` states or positions; version 2, version 1 files still load;
tables of two-player dice games are version 3, which older readers refuse by name):

=================  =========================================================================
``format``         ``"perfectplay-solution"``; ``version``: 2 (``stochastic``: 3); ``kind``:
                   ``chance``/``game``/``stochastic``
``model``          the model's name; ``start``: index of the start state
``keys``           state keys (``repr`` text, newline-separated UTF-8)
``value``          chance: ``float64[n]`` expected cost (``inf``: goal unreachable);
                   game: ``int8[n]`` 4 win, 3 tie, 2 draw, 1 lose for the player to move
                   (the codes of :class:`~perfectplay.graphs.game.Outcome`);
                   stochastic: ``float64[n]``, the mover's winning chance
``remoteness``     game only: ``int32[n]`` (``-1`` for a draw)
``goal``           chance: ``bool[n]``; ``terminal``: game, ``int8[n]`` (0: the game goes on);
                   stochastic, ``bool[n]``
``best``           chance: ``int32[n]`` index into ``choice_keys`` (``-1``: none), the roll the
                   policy takes
``choice_*``       chance: ``choice_ptr``/``choice_idx``, the rolls each state may choose (CSR);
                   ``choice_keys``, each roll's text (the model's choice object when plain,
                   else its key); ``choice_value``, their ``float64`` values; ``maximise``
``move_*``         game: ``move_ptr`` (CSR), ``move_keys`` (each move's ``repr``) and
                   ``move_child`` (the row the move leads to); stochastic: ``move_ptr``,
                   ``move_keys`` and ``move_value`` (``float64``, the mover's winning chance
                   after the move), ``best`` (``int32[n]``, the move the solved strategy
                   plays, an index into the moves; ``-1``: game over), ``player``
                   (``int8[n]``: 0 or 1 when strategies were fixed and keys are
                   ``(state, player)`` pairs, else ``-1``: either player, values are the
                   mover's), ``strategies`` (``bool[2]``: whose strategy was fixed),
                   ``bound`` (the solver's error bound) and ``solver``
``exact``          chance and stochastic, optional: exact values as ``p/q`` text (``inf``
                   for infinity)
``objective``      chance: ``[sense, measure, unit]`` of the
                   :class:`~perfectplay.objectives.Objective` (absent in older tables,
                   which load as :data:`~perfectplay.objectives.MIN_COST`)
=================  =========================================================================

Best choices are stated for the first state met with each key (its representative): with
a ``canonical`` method, a symmetric state may need the mirrored choice.

A loaded table is a :class:`~perfectplay.results.surface.Solution` like the live one:

>>> import tempfile, pathlib
>>> from perfectplay.models import solve_model
>>> from perfectplay.examples.five_dice import FiveDice
>>> path = pathlib.Path(tempfile.mkdtemp()) / "dice.npz"
>>> _ = solve_model(FiveDice(dice=3)).save(path)
>>> table = load_solution(path)
>>> round(table.value((1, 1, 2)), 6), table.best((1, 1, 2))
(6.0, [(1, 1)])
>>> table.value((7, 7, 7))
Traceback (most recent call last):
...
perfectplay.errors.UnknownStateError: (7, 7, 7) is not in the table of FiveDice
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np

from perfectplay._util.atomic import atomic_writer
from perfectplay._util.ints import long_ints
from perfectplay.errors import InputError, ModelError, UnknownStateError, WriteError, short_repr
from perfectplay.objectives import MIN_COST, WIN_CHANCE, Objective
from perfectplay.results.options import (
    Option,
    move_result,
    rank_moves,
    rank_options,
    result_of,
)
from perfectplay.results.surface import Solution

__all__ = [
    "SolvedTable",
    "TableRow",
    "export_chance",
    "export_game",
    "export_stochastic",
    "model_parameters",
    "load_solution",
]

FORMAT = "perfectplay-solution"
#: The newest version this module reads. Chance and game tables are written as version
#: 2 (unchanged since); tables of two-player dice games as 3, so that a reader from
#: before them refuses the file by its version instead of misreading it.
VERSION = 3
_WRITTEN = {"chance": 2, "game": 2, "stochastic": 3}
_PLAIN_ATOMS = (int, float, str, bytes, bool, type(None))
_ATOM_SET = frozenset(_PLAIN_ATOMS)


def _is_plain(obj: Any, depth: int = 0) -> bool:
    if type(obj) in _PLAIN_ATOMS:
        return True
    if type(obj) is tuple and depth < 50:
        return all(_is_plain(x, depth + 1) for x in obj)
    return False


def key_text(key: Any, what: str = "key") -> str:
    """The stored text of a plain key; :class:`ModelError` for any other value.

    >>> key_text((1, "a", None))
    "(1, 'a', None)"
    """
    if not _is_plain(key):
        raise ModelError(
            f"cannot export the {what} {short_repr(key)}: keys must be ints, floats, strings, "
            "bytes, bools, None or tuples of those (give the model a canonical() method "
            "that returns such a tuple)"
        )
    with long_ints():
        return repr(key)


def key_texts(items: Any, what: str = "key") -> list[str]:
    """:func:`key_text` of each item, in one pass (a table has millions: the integer
    printing mode is set once, and the text of a repeated string or int is reused).

    >>> key_texts(["roll", "hold", "roll", (1, 2)])
    ["'roll'", "'hold'", "'roll'", '(1, 2)']
    """
    out: list[str] = []
    seen: dict[tuple[type, Any], str] = {}
    with long_ints():
        for x in items:
            kind = type(x)
            if kind is str or kind is int:
                known = seen.get((kind, x))
                text = known if known is not None else seen.setdefault((kind, x), repr(x))
            elif (kind is tuple and {type(y) for y in x} <= _ATOM_SET) or _is_plain(x):
                text = repr(x)
            else:
                text = key_text(x, what)  # raises, naming the value
            out.append(text)
    return out


class _NonFinite(ast.NodeTransformer):
    """Turns the names ``inf`` and ``nan`` (the ``repr`` of non-finite floats) into floats."""

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in ("inf", "nan"):
            return ast.copy_location(ast.Constant(float(node.id)), node)
        return node


def key_value(text: str) -> Any:
    """The key whose stored text is ``text``: :func:`ast.literal_eval`, which also reads the
    ``inf`` and ``nan`` that ``repr`` writes for non-finite floats.

    >>> key_value("(1, 'inf', -inf)")
    (1, 'inf', -inf)
    """
    with long_ints():
        try:
            return ast.literal_eval(text)
        except ValueError:
            if "inf" not in text and "nan" not in text:
                raise
        return ast.literal_eval(_NonFinite().visit(ast.parse(text, mode="eval")))


def stored_key(text: str) -> Any:
    """A key read back from a table (:func:`key_value`); one that is no literal means the
    file was damaged or made by hand: an :class:`~perfectplay.errors.InputError` in one line.

    >>> stored_key("__import__('os')")
    Traceback (most recent call last):
    ...
    perfectplay.errors.InputError: a damaged table: a stored key is not a Python literal: ...
    """
    try:
        return key_value(text)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise InputError(
            f"a damaged table: a stored key is not a Python literal: {short_repr(text)}"
        ) from None


def _blob(texts: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(texts).encode("utf-8"), dtype=np.uint8)


def _unblob(arr: np.ndarray, n: int, name: str) -> list[str]:
    texts = arr.tobytes().decode("utf-8").split("\n") if n else []
    if len(texts) != n:
        raise InputError(f"corrupt solution file: {name} has {len(texts)} entries, expected {n}")
    return texts


def table_path(path: str | Path) -> Path:
    """The file a table given ``path`` is written to (``.npz`` added where it lacks it);
    a directory is a :class:`~perfectplay.errors.WriteError` (checked before a solve, so
    that a long one is not lost to a path that cannot be written).

    >>> table_path("piglet"), table_path("piglet.npz")
    (PosixPath('piglet.npz'), PosixPath('piglet.npz'))
    """
    # Refused rather than written inside: "DIR/" silently becoming DIR.npz (NumPy's way)
    # or DIR/table.npz would both surprise someone.
    example = Path(path) / "table.npz"
    if Path(path).is_dir():
        raise WriteError(f"{path} is a directory; give the file to write, e.g. {example}")
    if str(path).endswith(("/", os.sep)):
        raise WriteError(
            f"{path} names a directory (it ends with a slash); give the file to write, "
            f"e.g. {example}"
        )
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")  # np.savez would append it silently
    return path


def _save(path: str | Path, arrays: dict[str, Any]) -> Path:
    path = table_path(path)
    try:
        with atomic_writer(path) as fh:
            np.savez_compressed(fh, **arrays)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def write_chance_table(
    path: str | Path,
    result: Any,
    name: str,
    keys: list[str],
    choice_texts: list[str],
    exact: bool = False,
    parameters: str = "",
) -> Path:
    """Write a :class:`~perfectplay.results.ChanceResult` whose decision nodes have the
    stored ``keys`` and whose rolls are shown as ``choice_texts``; returns the path
    (``parameters``: :func:`model_parameters` of the model, checked when it is loaded)."""
    g, sol = result.graph, result.solution
    arrays: dict[str, Any] = {
        "format": np.array(FORMAT),
        "version": np.array(_WRITTEN["chance"]),
        "kind": np.array("chance"),
        "model": np.array(name),
        "start": np.array(g.start),
        "maximise": np.array(bool(result.maximise)),
        "objective": np.array([g.objective.sense, g.objective.measure, g.objective.unit]),
        "keys": _blob(keys),
        "goal": np.asarray(g.goal, dtype=np.bool_),
        "value": np.asarray(sol.decision_value, dtype=np.float64),
        "best": np.asarray(sol.best_choice, dtype=np.int32),
        "choice_ptr": np.asarray(g.choice_ptr, dtype=np.int64),
        "choice_idx": np.asarray(g.choice_idx, dtype=np.int32),
        "choice_keys": _blob(choice_texts),
        "choice_value": np.asarray(sol.chance_value, dtype=np.float64),
    }
    if exact:
        values = result.exact()
        texts = []
        for x in range(len(keys)):
            v = values[x]
            texts.append("inf" if v is None else f"{v.numerator}/{v.denominator}")
        arrays["exact"] = _blob(texts)
    return _save(path, _with_parameters(arrays, parameters))


def write_game_table(
    path: str | Path,
    result: Any,
    name: str,
    keys: list[str],
    listed: Callable[[int], list[tuple[Any, int]]],
    parameters: str = "",
) -> Path:
    """Write a :class:`~perfectplay.results.GameResult` whose positions have the stored
    ``keys``; ``listed(p)`` gives the moves of position ``p`` as ``(move, child id)``
    pairs (a move must be a plain value); returns the path (``parameters`` as for
    :func:`write_chance_table`)."""
    g, sol = result.graph, result.solution
    move_ptr = [0]
    move_texts: list[str] = []
    move_child: list[int] = []
    for p in range(len(keys)):
        if g.terminal[p] == 0:
            for move, child in listed(p):
                move_texts.append(key_text(move, "move"))
                move_child.append(child)
        move_ptr.append(len(move_texts))
    arrays = {
        "format": np.array(FORMAT),
        "version": np.array(_WRITTEN["game"]),
        "kind": np.array("game"),
        "model": np.array(name),
        "start": np.array(g.start),
        "keys": _blob(keys),
        "terminal": np.asarray(g.terminal, dtype=np.int8),
        "value": np.asarray(sol.value, dtype=np.int8),
        "remoteness": np.asarray(sol.remoteness, dtype=np.int32),
        "move_ptr": np.asarray(move_ptr, dtype=np.int64),
        "move_keys": _blob(move_texts),
        "move_child": np.asarray(move_child, dtype=np.int32),
    }
    return _save(path, _with_parameters(arrays, parameters))


def export_stochastic(solution: Any, path: str | Path, exact: bool = False) -> Path:
    """Write a :class:`~perfectplay.models.stochastic.StochasticModelSolution`: every
    position with its value, the move the solved strategy plays and every move's value;
    with ``exact=True`` also each position's exact value (verified optimal first).
    Returns the path written.

    >>> import tempfile, pathlib
    >>> from perfectplay.examples.pig import Piglet
    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "piglet.npz"
    >>> sol = solve_stochastic_model(Piglet(goal=2))
    >>> table = load_solution(export_stochastic(sol, path))
    >>> table.best_move((0, 0, 1)), [(o.move, round(o.value, 6)) for o in table.options((0, 0, 1))]
    ('roll', [('roll', 0.714286), ('hold', 0.6)])
    >>> table.options((0, 0, 1)) == sol.options((0, 0, 1))
    True
    """
    ex, g, sol = solution.exploration, solution.graph, solution.solution
    keys = key_texts(ex.ids.keys(), "state key")
    moves = key_texts(ex.moves, "move")
    v = np.asarray(sol.value, dtype=np.float64)
    w = g.weight.astype(np.float64)
    there = v[g.target]
    contrib = w * np.where(g.passes, 1.0 - there, there)
    starts = g.outcome_ptr[:-1]
    if g.n_chance:  # every move has an outcome (the explorer refuses one without)
        move_value = np.add.reduceat(contrib, starts) / np.add.reduceat(w, starts)
    else:
        move_value = np.zeros(0)
    reps = ex.reps
    strategies = getattr(solution.model, "strategy", None)
    fixed = [s is not None for s in strategies] if strategies is not None else [False, False]
    player = (
        np.fromiter((r[1] for r in reps), np.int8, len(reps))
        if strategies is not None
        else np.full(len(reps), -1, np.int8)
    )
    arrays: dict[str, Any] = {
        "format": np.array(FORMAT),
        "version": np.array(_WRITTEN["stochastic"]),
        "kind": np.array("stochastic"),
        "model": np.array(solution.name),
        "start": np.array(g.start),
        "keys": _blob(keys),
        "terminal": np.asarray(g.terminal, dtype=np.bool_),
        "value": v,
        "best": np.asarray(sol.best_choice, dtype=np.int32),
        "player": player,
        "strategies": np.array(fixed, dtype=np.bool_),
        "move_ptr": np.asarray(g.choice_ptr, dtype=np.int64),
        "move_keys": _blob(moves),
        "move_value": np.asarray(move_value, dtype=np.float64),
        "bound": np.array(float(sol.bound)),
        "solver": np.array(solution.solver),
    }
    if exact:
        arrays["exact"] = _blob([f"{x.numerator}/{x.denominator}" for x in solution.exact_values()])
    _with_parameters(arrays, model_parameters(solution.model))
    return _save(path, arrays)


def choice_text(rep: Any, key: Any) -> str:
    """How a roll is stored: the model's own choice object when it is a plain value (what
    ``best`` returns on a live solution), else its canonical key."""
    return repr(rep) if _is_plain(rep) else key_text(key, "choice key")


def export_chance(solution: Any, path: str | Path, exact: bool = False) -> Path:
    """Write a :class:`~perfectplay.models.chance.ChanceModelSolution`; returns the path."""
    ex = solution.exploration
    keys = [key_text(k, "state key") for k in ex.states.keys()]
    choices = [choice_text(r, k) for r, k in zip(ex.chance_reps, ex.chances.keys(), strict=True)]
    return write_chance_table(
        path,
        solution.result,
        solution.name,
        keys,
        choices,
        exact,
        parameters=model_parameters(solution.model),
    )


def export_game(solution: Any, path: str | Path) -> Path:
    """Write a :class:`~perfectplay.models.game.GameModelSolution`; returns the path.

    The moves stored for a position are those of its representative (the first state met
    with its key)."""
    ex = solution.exploration
    keys = [key_text(k, "position key") for k in ex.positions.keys()]
    return write_game_table(
        path,
        solution.result,
        solution.name,
        keys,
        lambda p: solution.listed_moves(ex.reps[p]),
        parameters=model_parameters(solution.model),
    )


@dataclass(frozen=True)
class TableRow:
    """One row of a solved table: the key, its value, and its optimal choices or moves."""

    key: Any
    value: Any
    best: list[Any]


class SolvedTable(Solution):
    """A solved table read back from disk: a :class:`~perfectplay.results.surface.Solution`
    that answers as the live solution it was saved from, without the model.

    When loaded with the model (``load_solution(path, model)``) queries take the model's
    own states and apply its ``canonical`` method; otherwise they take stored keys. Values
    are floats (chance and two-player dice tables) or
    :class:`~perfectplay.results.options.Result` (games without dice); options are
    :class:`~perfectplay.results.options.Option` records, best first, whose actions are the
    stored choices and moves decoded (:func:`key_value`). An unknown state raises
    :class:`~perfectplay.errors.UnknownStateError`.
    """

    def __init__(self, data: dict[str, np.ndarray], canonical: Any = None) -> None:
        self.kind = str(data["kind"])
        self.model_name = str(data["model"])
        self.start = int(data["start"])
        self.version = int(data["version"])
        self._data = data
        self._canonical = canonical
        n = len(data["value"])
        self.keys = _unblob(data["keys"], n, "keys")
        self._index: dict[str, int] | None = None
        self.exact_texts: list[str] | None = None
        self.maximise = False
        self._solver = "table"
        if self.kind == "chance":
            self.maximise = bool(data["maximise"]) if "maximise" in data else False
            self._objective = _objective(data)
            self.choice_keys = _unblob(
                data["choice_keys"], len(data["choice_value"]), "choice_keys"
            )
            self.exact_texts = _unblob(data["exact"], n, "exact") if "exact" in data else None
        elif self.kind == "stochastic":
            self._objective = WIN_CHANCE
            self.maximise = True
            self.move_keys = _unblob(data["move_keys"], len(data["move_value"]), "move_keys")
            self.exact_texts = _unblob(data["exact"], n, "exact") if "exact" in data else None
            self._solver = str(data["solver"])
            self.bound = float(data["bound"])
        else:
            self._objective = Objective.outcome()
            if "move_keys" in data:
                self.move_keys = _unblob(data["move_keys"], len(data["move_child"]), "move_keys")
            else:  # version 1: one best move per position
                self.best_moves_v1 = _unblob(data["best_moves"], n, "best_moves")

    # -- the surface -------------------------------------------------------------------

    @property
    def name(self) -> str:
        return self.model_name

    @property
    def objective(self) -> Objective:
        return self._objective

    @property
    def solver(self) -> str:
        """The solver that made the table (stored by two-player dice tables; ``"table"``
        for the others, which do not record it)."""
        return self._solver

    def __len__(self) -> int:
        return len(self.keys)

    def index(self, key: Any) -> int:
        """Row of ``key`` (a model state when loaded with the model); an
        :class:`~perfectplay.errors.UnknownStateError` if absent."""
        if self._canonical is not None:
            key = self._canonical(key)
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self.keys)}
        if not _is_plain(key):
            i = None
        else:
            with long_ints():
                i = self._index.get(repr(key))
        if i is None:
            raise UnknownStateError(f"{short_repr(key)} is not in the table of {self.model_name}")
        return i

    def _row(self, key: Any) -> int:
        return self.start if key is None else self.index(key)

    def _value(self, i: int) -> Any:
        v = self._data["value"][i]
        if self.kind in ("chance", "stochastic"):
            return float(v)
        return result_of(int(v), int(self._data["remoteness"][i]))

    def _options(self, i: int) -> list[Option]:
        d = self._data
        if self.kind == "stochastic":
            lo, hi = int(d["move_ptr"][i]), int(d["move_ptr"][i + 1])
            moves = [stored_key(self.move_keys[c]) for c in range(lo, hi)]
            values = [float(v) for v in d["move_value"][lo:hi]]
            played = int(d["best"][i])
            return rank_options(
                moves, values, moves[played - lo] if played >= lo else None, maximise=True
            )
        if self.kind == "chance":
            if "choice_ptr" not in d:
                raise InputError("this table (version 1) holds only the policy's choice")
            if d["goal"][i]:
                return []
            lo, hi = int(d["choice_ptr"][i]), int(d["choice_ptr"][i + 1])
            cs = [int(c) for c in d["choice_idx"][lo:hi]]
            choices = [stored_key(self.choice_keys[c]) for c in cs]
            values = [float(d["choice_value"][c]) for c in cs]
            best = int(d["best"][i])
            policy = choices[cs.index(best)] if best in cs else None
            return rank_options(choices, values, policy, self.maximise)
        if "move_ptr" not in d:
            raise InputError("this table (version 1) holds only one best move per position")
        lo, hi = int(d["move_ptr"][i]), int(d["move_ptr"][i + 1])
        val, rem = d["value"], d["remoteness"]
        children = d["move_child"][lo:hi].tolist()
        moves = [stored_key(self.move_keys[e]) for e in range(lo, hi)]
        states = [stored_key(self.keys[c]) for c in children]
        return rank_moves(moves, [move_result(val[c], rem[c]) for c in children], states=states)

    def _best(self, i: int) -> list[Any]:
        d = self._data
        if self.kind == "stochastic":
            c = int(d["best"][i])
            return [] if c < 0 else [stored_key(self.move_keys[c])]
        if self.kind == "chance" and "choice_ptr" not in d:
            c = int(d["best"][i])
            return [] if c < 0 else [stored_key(self.choice_keys[c])]
        if self.kind == "game" and "move_ptr" not in d:
            text = self.best_moves_v1[i]
            return [stored_key(text)] if text else []
        return [o.action for o in self._options(i) if o.best]

    def value(self, state: Any = None) -> Any:
        """The value of ``state`` (the start when omitted): a float (chance, two-player
        dice) or a :class:`~perfectplay.results.options.Result` (a game without dice)."""
        return self._value(self._row(state))

    def options(self, state: Any = None) -> list[Option]:
        """Every choice or move of ``state`` with its value, best first (as the live
        solution gives them)."""
        return self._options(self._row(state))

    def best(self, state: Any = None) -> list[Any]:
        """All optimal choices or moves of ``state``; for a two-player dice table the move
        the solved strategy plays; empty where the game is over."""
        return self._best(self._row(state))

    def is_over(self, state: Any) -> bool:
        """Whether the game is over in ``state`` (a goal, a finished game)."""
        i = self.index(state)
        if self.kind == "chance":
            return bool(self._data["goal"][i])
        return bool(self._data["terminal"][i])

    def exact(self, state: Any = None) -> Fraction | None:
        """Exact value of ``state`` (the start when omitted) as a
        :class:`~fractions.Fraction`, ``None`` for infinity; needs a table saved with
        ``exact=True``."""
        if self.exact_texts is None:
            from perfectplay.errors import UnsupportedError

            raise UnsupportedError(
                f"the table of {self.model_name} has no exact values (save it with exact=True)"
            )
        text = self.exact_texts[self._row(state)]
        return None if text == "inf" else Fraction(text)

    def counts(self) -> dict[Any, int]:
        """Game tables: how many positions have each outcome."""
        from perfectplay.graphs.game import Outcome

        tally = dict.fromkeys(Outcome, 0)
        for v, k in zip(*np.unique(self._data["value"], return_counts=True), strict=True):
            tally[Outcome(int(v))] = int(k)
        return tally

    def items(self) -> Iterator[tuple[Any, Any]]:
        """Every stored key with its value, in row order (as ``solution.items()``)."""
        return ((stored_key(self.keys[i]), self._value(i)) for i in range(len(self)))

    def states(self) -> Iterator[Any]:
        """Every stored key, in row order."""
        return (stored_key(k) for k in self.keys)

    def save(self, path: str | Path, *, exact: bool = False) -> Path:
        """Write the table again to ``path`` (as it was read: ``exact`` cannot add exact
        values a table does not hold)."""
        if exact and self.exact_texts is None:
            from perfectplay.errors import UnsupportedError

            raise UnsupportedError(f"the table of {self.model_name} has no exact values")
        return _save(path, self._data)

    # -- the names tables answered before the surface was one --------------------------

    def moves(self, key: Any) -> list[Option]:
        """The same as :meth:`options`."""
        return self.options(key)

    def best_moves(self, key: Any) -> list[Any]:
        """The same as :meth:`best`."""
        return self.best(key)

    def best_move(self, key: Any = None) -> Any:
        """The move the solved strategy plays in ``key`` (the start when omitted); ``None``
        where the game is over."""
        best = self._best(self._row(key))
        return best[0] if best else None

    def is_goal(self, key: Any) -> bool:
        """The same as :meth:`is_over`."""
        return self.is_over(key)

    def exact_value(self, key: Any = None) -> Fraction | None:
        """The same as :meth:`exact`."""
        return self.exact(key)

    def row(self, i: int) -> TableRow:
        return TableRow(stored_key(self.keys[i]), self._value(i), self._best(i))

    def __iter__(self) -> Iterator[TableRow]:
        return (self.row(i) for i in range(len(self)))

    def __repr__(self) -> str:
        v = self.start_value
        shown = f"{v:.9g}" if isinstance(v, float) and math.isfinite(v) else str(v)
        return f"<SolvedTable {self.model_name} ({self.kind}): {len(self):,} rows, start {shown}>"


def model_parameters(model: Any) -> str:
    """A model's construction parameters as JSON: each argument of its class's
    ``__init__`` kept as an attribute of the same name with a plain value (numbers,
    text, ``None``, tuples and lists of them); ``""`` when there is none. A table stores
    them, and loading it with the model checks them: a ``Pig(goal=20)`` reading a table
    solved for ``Pig(goal=100)`` would look up the same states and answer the other
    game's values.

    >>> from perfectplay.examples.pig import Pig
    >>> model_parameters(Pig(goal=20))
    '{"faces": 6, "goal": 20, "hold_at_zero": false}'
    """
    import inspect
    import json

    model = getattr(model, "inner", model)
    if model is None or isinstance(model, (ModuleType, type)):
        return ""
    try:
        names = list(inspect.signature(type(model).__init__).parameters)[1:]
    except (TypeError, ValueError):  # a builtin's __init__
        return ""
    found: dict[str, Any] = {}
    for name in names:
        try:
            value = vars(model).get(name, _MISSING)
        except TypeError:  # no __dict__ (slots)
            return ""
        if _is_plain_parameter(value):
            found[name] = value
    return json.dumps(found, sort_keys=True) if found else ""


_MISSING = object()


def _is_plain_parameter(value: Any) -> bool:
    if value is None or isinstance(value, (bool, int, str)):
        return True
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, (tuple, list)):
        return len(value) <= 64 and all(_is_plain_parameter(v) for v in value)
    return False


def _with_parameters(arrays: dict[str, Any], parameters: str) -> dict[str, Any]:
    if parameters:
        arrays["parameters"] = np.array(parameters)
    return arrays


def _check_parameters(data: Any, path: Path, model: Any) -> None:
    """Refuse a model built with other parameters than the one that solved the table
    (tables written before they were stored are not checked)."""
    import json

    stored_text = str(data.get("parameters", ""))
    given_text = model_parameters(model)
    if not stored_text or not given_text or stored_text == given_text:
        return
    try:
        stored, given = json.loads(stored_text), json.loads(given_text)
    except ValueError:
        raise InputError(f"{path}: corrupt table (its model parameters are not JSON)") from None
    if not isinstance(stored, dict) or not isinstance(given, dict):
        raise InputError(f"{path}: corrupt table (its model parameters are not a mapping)")
    differ = [k for k in sorted(set(stored) & set(given)) if stored[k] != given[k]]
    if differ:
        was = ", ".join(f"{k}={short_repr(stored[k])}" for k in differ)
        now = ", ".join(f"{k}={short_repr(given[k])}" for k in differ)
        raise InputError(
            f"{path}: the table was solved with {was}, the model given has {now}: load it "
            "with the model that solved it, or without a model (states are then the stored "
            "keys)"
        )


def _check_model(data: Any, path: Path, model: Any) -> None:
    """Refuse a model of another class than the one that solved the table: its states
    would be looked up among another game's keys (a TicTacToe table read through a Pig
    model answered as if it were Pig's), and a class instead of an instance. A module of
    functions is not checked (the stored name of a module's model carries a prefix this
    layer does not know)."""
    if isinstance(model, type):  # its canonical would be called without an instance
        raise ModelError(
            f"{path}: load got the class {model.__name__}; pass an instance: "
            f"{model.__name__}() (a class rebuilds only a compiled model's table)"
        )
    if model is None or isinstance(model, ModuleType):
        return
    given = type(getattr(model, "inner", model)).__name__
    stored = str(data.get("model", ""))
    if stored and given != stored:
        raise InputError(
            f"{path}: the table of {stored}, not of {given}: load it with the model that "
            "solved it, or without a model (states are then the stored keys)"
        )
    _check_parameters(data, path, model)


def _objective(data: Any) -> Objective:
    """The objective stored in a chance table; tables written before it was stored were
    all minimising a cost (:data:`~perfectplay.objectives.MIN_COST`)."""
    if "objective" not in data:
        return MIN_COST
    try:
        sense, measure, unit = (str(t) for t in data["objective"].tolist())
        return Objective(sense, measure, unit)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        raise InputError(f"the table's objective is malformed: {exc}") from None


#: A genuine table's arrays compress a few times (keys text, floats); a file that claims to
#: inflate more than this and to more than :data:`_BOMB_FLOOR` bytes is refused unread.
_MAX_RATIO = 100
_BOMB_FLOOR = 64 << 20


def _read_arrays(path: Path) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` file, after checking what it claims to hold: every member
    an ``.npy`` array, the total size against the memory budget and the compression ratio
    (a zip bomb is refused before anything is decompressed)."""
    import zipfile

    from perfectplay._util.memory import require

    try:
        with zipfile.ZipFile(path) as zf:
            infos = zf.infolist()
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except Exception as exc:  # BadZipFile, NotImplementedError, struct.error: all damage
        raise InputError(f"{path}: not a .npz solution file ({exc})") from None
    if not infos or any(not i.filename.endswith(".npy") for i in infos):
        raise InputError(f"{path}: not a .npz solution file (it holds more than arrays)")
    inflated = sum(i.file_size for i in infos)
    packed = max(1, sum(i.compress_size for i in infos))
    if inflated > _BOMB_FLOOR and inflated > _MAX_RATIO * packed:
        raise InputError(
            f"{path}: refused: it would inflate {inflated / packed:,.0f} times to "
            f"{inflated:,} bytes, which no solved table does"
        )
    require(2 * inflated, f"loading the table {path}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            return {k: npz[k] for k in npz.files}
    except Exception as exc:  # BadZipFile, zlib.error, a CRC mismatch: a damaged member
        raise InputError(f"{path}: corrupt table ({type(exc).__name__}: {exc})") from None


#: The arrays each kind of table must hold, and the length of each (n: states, n+1: a
#: pointer array over states).
_REQUIRED = {
    "chance": {"keys": None, "goal": "n", "value": "n", "best": "n"},
    "game": {"keys": None, "terminal": "n", "value": "n", "remoteness": "n"},
    "stochastic": {
        "keys": None,
        "terminal": "n",
        "value": "n",
        "best": "n",
        "move_ptr": "n+1",
        "move_keys": None,
        "move_value": None,
        "solver": None,
        "bound": None,
    },
}


def _check(data: dict[str, np.ndarray], path: Path) -> None:
    """Refuse a table whose arrays do not fit together or hold values no solve gives (NaN,
    a probability outside [0, 1], an outcome code that does not exist, an index out of
    range), so a forged or damaged file is one line, not a wrong answer later."""

    def bad(what: str) -> InputError:
        return InputError(f"{path}: corrupt or forged table: {what}")

    kind = str(data.get("kind", ""))
    if kind not in _REQUIRED:
        raise bad(f"unknown kind {kind!r}")
    n = len(data["value"]) if "value" in data else -1
    for name, size in _REQUIRED[kind].items():
        if name not in data:
            raise bad(f"the array {name!r} is missing")
        want = {"n": n, "n+1": n + 1}.get(size or "")
        if want is not None and (data[name].ndim != 1 or len(data[name]) != want):
            raise bad(f"{name!r} has {data[name].size} entries for {n} states")
    if not 0 <= int(data["start"]) < max(n, 1):
        raise bad(f"the start row {int(data['start'])} is outside the {n} rows")
    value = data["value"]
    if kind == "game":
        if not np.isin(value, (1, 2, 3, 4)).all() or (data["remoteness"] < -1).any():
            raise bad("an outcome code or a remoteness that no solve gives")
        return
    if not np.issubdtype(value.dtype, np.floating) or np.isnan(value).any():
        raise bad("values that are not numbers")
    if kind == "stochastic":
        moves = data["move_value"]
        ptr = data["move_ptr"]
        if ((value < 0) | (value > 1)).any() or np.isnan(moves).any():
            raise bad("a winning chance outside [0, 1]")
        if ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != len(moves):
            raise bad("the moves' pointer array is not monotone")
        if ((data["best"] < -1) | (data["best"] >= len(moves))).any():
            raise bad("a best move out of range")
    elif "choice_ptr" in data:
        ptr, idx = data["choice_ptr"], data["choice_idx"]
        m = len(data["choice_value"])
        if len(ptr) != n + 1 or ptr[0] != 0 or (np.diff(ptr) < 0).any() or ptr[-1] != len(idx):
            raise bad("the choices' pointer array is not monotone")
        if len(idx) and (idx.min() < 0 or idx.max() >= m):
            raise bad("a choice index out of range")
        if (
            np.isnan(data["choice_value"]).any()
            or ((data["best"] < -1) | (data["best"] >= m)).any()
        ):
            raise bad("a choice value or best choice that no solve gives")


def load_solution(path: str | Path, model: Any = None) -> SolvedTable:
    """Read a table written by ``solution.save(path)``.

    With ``model``, lookups take the model's states (its ``canonical`` method, if any, is
    applied); without it, they take stored keys. A file that is missing, not a perfectplay
    table, damaged, forged (values no solve gives, arrays that do not fit together) or that
    would inflate far beyond its size is an :class:`InputError` in one line.
    """
    path = Path(path)
    data = _read_arrays(path)
    if str(data.get("format", "")) != FORMAT:
        raise InputError(f"{path}: not a perfectplay solution file")
    try:
        version = int(data.get("version", -1))
    except (TypeError, ValueError):
        raise InputError(f"{path}: corrupt table (its version is not a number)") from None
    if version > VERSION:
        raise InputError(f"{path}: written by a newer perfectplay (version {version})")
    _check(data, path)
    _check_model(data, path, model)
    try:
        canonical = getattr(model, "canonical", None) if model is not None else None
    except Exception as exc:  # a property of the user's model that raises
        raise ModelError(f"reading the model's canonical method raised {exc!r}") from exc
    if not callable(canonical):
        canonical = None
    elif str(data.get("kind", "")) == "stochastic" and bool(np.any(data.get("strategies", False))):
        # Strategies fixed: keys are (state, player) pairs of the model's states.
        inner = canonical
        canonical = lambda sp: (inner(sp[0]), sp[1])  # noqa: E731
    try:
        return SolvedTable(data, canonical)
    except (KeyError, ValueError, TypeError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: corrupt table ({type(exc).__name__}: {exc})") from None
