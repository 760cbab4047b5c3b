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

Arrays in the file (``n`` states or positions):

=================  =========================================================================
``format``         ``"perfectplay-solution"``; ``version``: 1; ``kind``: ``chance``/``game``
``model``          the model's name; ``start``: index of the start state
``keys``           state keys (``repr`` text, newline-separated UTF-8)
``value``          chance: ``float64[n]`` expected cost (``inf``: goal unreachable);
                   game: ``int8[n]`` 4 win, 3 tie, 2 draw, 1 lose for the player to move
``remoteness``     game only: ``int32[n]`` (``-1`` for a draw)
``best``           chance: ``int32[n]`` index into ``choice_keys`` (``-1``: none), the roll the
                   policy takes; game: ``best_moves``, the ``repr`` of one best move per
                   position (empty text: none)
``choice_keys``    chance only: keys of the rolls; ``choice_value``: their ``float64`` values
``exact``          chance, optional: exact values as ``p/q`` text (``inf`` for infinity)
=================  =========================================================================

Best choices are stated for the first state met with each key (its representative): with
a ``canonical`` method, a symmetric state may need the mirrored choice.

>>> import tempfile, pathlib
>>> from perfectplay.models import solve_model
>>> from perfectplay.examples.five_dice import FiveDice
>>> path = pathlib.Path(tempfile.mkdtemp()) / "dice.npz"
>>> _ = solve_model(FiveDice(dice=3)).export(path)
>>> table = load_solution(path)
>>> round(table.value((1, 1, 2)), 6), table.best((1, 1, 2))
(6.0, (1, 1))
"""

from __future__ import annotations

import ast
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from perfectplay.errors import InputError, ModelError
from perfectplay.models.explore import describe, model_attribute

__all__ = ["SolvedTable", "TableRow", "load_solution", "export_chance", "export_game"]

FORMAT = "perfectplay-solution"
VERSION = 1
_PLAIN_ATOMS = (int, float, str, bytes, bool, type(None))


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
            f"cannot export the {what} {describe(key)}: keys must be ints, floats, strings, "
            "bytes, bools, None or tuples of those (give the model a canonical() method "
            "that returns such a tuple)"
        )
    return repr(key)


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
    try:
        return ast.literal_eval(text)
    except ValueError:
        if "inf" not in text and "nan" not in text:
            raise
    return ast.literal_eval(_NonFinite().visit(ast.parse(text, mode="eval")))


def _blob(texts: list[str]) -> np.ndarray:
    return np.frombuffer("\n".join(texts).encode("utf-8"), dtype=np.uint8)


def _unblob(arr: np.ndarray, n: int, name: str) -> list[str]:
    texts = arr.tobytes().decode("utf-8").split("\n") if n else []
    if len(texts) != n:
        raise InputError(f"corrupt solution file: {name} has {len(texts)} entries, expected {n}")
    return texts


def _save(path: str | Path, arrays: dict[str, Any]) -> Path:
    # Refused rather than written inside: "DIR/" silently becoming DIR.npz (NumPy's way)
    # or DIR/table.npz would both surprise someone.
    example = Path(path) / "table.npz"
    if Path(path).is_dir():
        raise InputError(f"{path} is a directory; give the file to write, e.g. {example}")
    if str(path).endswith(("/", os.sep)):
        raise InputError(
            f"{path} names a directory (it ends with a slash); give the file to write, "
            f"e.g. {example}"
        )
    path = Path(path)
    if path.suffix != ".npz":
        path = path.with_name(path.name + ".npz")  # np.savez would append it silently
    try:
        with open(path, "wb") as fh:
            np.savez_compressed(fh, **arrays)
    except OSError as exc:
        raise InputError(f"cannot write {path}: {exc.strerror}") from None
    return path


def export_chance(solution: Any, path: str | Path, exact: bool = False) -> Path:
    """Write a :class:`~perfectplay.models.chance.ChanceModelSolution`; returns the path."""
    ex = solution.exploration
    keys = [key_text(k, "state key") for k in ex.states.keys()]
    choice_keys = [key_text(k, "choice key") for k in ex.chances.keys()]
    arrays: dict[str, Any] = {
        "format": np.array(FORMAT),
        "version": np.array(VERSION),
        "kind": np.array("chance"),
        "model": np.array(solution.name),
        "start": np.array(ex.graph.start),
        "keys": _blob(keys),
        "value": np.asarray(solution.solution.decision_value, dtype=np.float64),
        "best": np.asarray(solution.solution.best_choice, dtype=np.int32),
        "choice_keys": _blob(choice_keys),
        "choice_value": np.asarray(solution.solution.chance_value, dtype=np.float64),
    }
    if exact:
        exact_solution = solution.exact()
        texts = []
        for x in range(len(keys)):
            v = exact_solution.decision_value(x)
            texts.append("inf" if v is None else f"{v.numerator}/{v.denominator}")
        arrays["exact"] = _blob(texts)
    return _save(path, arrays)


def export_game(solution: Any, path: str | Path) -> Path:
    """Write a :class:`~perfectplay.models.game.GameModelSolution`; returns the path."""
    ex = solution.exploration
    keys = [key_text(k, "position key") for k in ex.positions.keys()]
    best = []
    for rep in ex.reps:
        moves = solution.best_moves(rep)
        best.append(key_text(moves[0], "move") if moves else "")
    arrays = {
        "format": np.array(FORMAT),
        "version": np.array(VERSION),
        "kind": np.array("game"),
        "model": np.array(solution.name),
        "start": np.array(ex.graph.start),
        "keys": _blob(keys),
        "value": np.asarray(solution.solution.value, dtype=np.int8),
        "remoteness": np.asarray(solution.solution.remoteness, dtype=np.int32),
        "best_moves": _blob(best),
    }
    return _save(path, arrays)


@dataclass(frozen=True)
class TableRow:
    """One row of a solved table: the key, its value, and the best choice or move."""

    key: Any
    value: Any
    best: Any


_GAME_VALUES = {4: "win", 3: "tie", 2: "draw", 1: "lose"}


class SolvedTable:
    """A solved table read back from disk; query by key without the model or a solver.

    When loaded with the model (``load_solution(path, model)``) queries take the model's
    own states and apply its ``canonical`` method; otherwise they take stored keys.
    Chance tables answer ``value(key) -> float``; game tables answer
    ``value(key) -> Result`` (see :class:`perfectplay.models.game.Result`).
    """

    def __init__(self, data: dict[str, np.ndarray], canonical: Any = None) -> None:
        self.kind = str(data["kind"])
        self.model_name = str(data["model"])
        self.start = int(data["start"])
        self._data = data
        self._canonical = canonical
        n = len(data["value"])
        self.keys = _unblob(data["keys"], n, "keys")
        self._index: dict[str, int] | None = None
        if self.kind == "chance":
            self.choice_keys = _unblob(
                data["choice_keys"], len(data["choice_value"]), "choice_keys"
            )
            self.exact_texts = _unblob(data["exact"], n, "exact") if "exact" in data else None
        else:
            self.best_moves = _unblob(data["best_moves"], n, "best_moves")

    def __len__(self) -> int:
        return len(self.keys)

    def index(self, key: Any) -> int:
        """Row of ``key`` (a model state when loaded with the model); ``KeyError`` if absent."""
        if self._canonical is not None:
            key = self._canonical(key)
        if self._index is None:
            self._index = {k: i for i, k in enumerate(self.keys)}
        i = self._index.get(repr(key))
        if i is None:
            raise KeyError(f"{describe(key)} is not in the table")
        return i

    def _value(self, i: int) -> Any:
        v = self._data["value"][i]
        if self.kind == "chance":
            return float(v)
        from perfectplay.models.game import Result

        name = _GAME_VALUES[int(v)]
        r = int(self._data["remoteness"][i])
        return Result(name, None if name == "draw" else r)

    def _best(self, i: int) -> Any:
        if self.kind == "chance":
            c = int(self._data["best"][i])
            return None if c < 0 else key_value(self.choice_keys[c])
        text = self.best_moves[i]
        return key_value(text) if text else None

    def value(self, key: Any) -> Any:
        """The stored value of ``key``."""
        return self._value(self.index(key))

    def best(self, key: Any) -> Any:
        """The best choice (chance: the key of the roll) or best move of ``key``; ``None``
        where there is none."""
        return self._best(self.index(key))

    def exact(self, key: Any) -> Any:
        """Exact value (``Fraction``, ``None`` for infinity) if the table was exported with it."""
        from fractions import Fraction

        if self.kind != "chance" or self.exact_texts is None:
            raise KeyError("this table has no exact values (export with exact=True)")
        text = self.exact_texts[self.index(key)]
        return None if text == "inf" else Fraction(text)

    @property
    def start_value(self) -> Any:
        return self._value(self.start)

    def row(self, i: int) -> TableRow:
        return TableRow(key_value(self.keys[i]), self._value(i), self._best(i))

    def __iter__(self) -> Iterator[TableRow]:
        return (self.row(i) for i in range(len(self)))

    def __repr__(self) -> str:
        v = self.start_value
        shown = f"{v:.9g}" if isinstance(v, float) and math.isfinite(v) else str(v)
        return f"<SolvedTable {self.model_name} ({self.kind}): {len(self):,} rows, start {shown}>"


def load_solution(path: str | Path, model: Any = None) -> SolvedTable:
    """Read a table written by ``solution.export(path)``.

    With ``model``, lookups take the model's states (its ``canonical`` method, if any, is
    applied); without it, they take stored keys. Raises :class:`InputError` for a file
    that is missing or not a perfectplay solution.
    """
    try:
        with np.load(Path(path), allow_pickle=False) as npz:
            data = {k: npz[k] for k in npz.files}
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        raise InputError(f"{path}: not a .npz solution file ({exc})") from None
    if str(data.get("format", "")) != FORMAT:
        raise InputError(f"{path}: not a perfectplay solution file")
    if int(data.get("version", -1)) > VERSION:
        raise InputError(f"{path}: written by a newer perfectplay (version {data['version']})")
    canonical = model_attribute(model, "canonical") if model is not None else None
    return SolvedTable(data, canonical if callable(canonical) else None)
