"""A solved table as rows other programs read: CSV, JSON lines or Parquet.

One row per state (:data:`STATE_COLUMNS`), or with ``options=True`` one row per option of
every state where a choice is made (:data:`OPTION_COLUMNS`). Keys and options are the
texts :func:`perfectplay.load` and ``perfectplay query`` take back (a key as Python writes
it); values are floats, or for a game without dice an outcome word with a remoteness.
Parquet needs ``pyarrow`` (``pip install 'perfectplay[parquet]'``). Every file is written
whole or not at all (:func:`perfectplay._util.atomic.atomic_writer`).

>>> import pathlib, tempfile, csv
>>> import perfectplay
>>> from perfectplay.examples.five_dice import FiveDice
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> table = perfectplay.load(perfectplay.solve(FiveDice(dice=2)).save(folder / "t.npz"))
>>> path = export_rows(table, folder / "t.csv", "csv")
>>> rows = list(csv.DictReader(open(path)))
>>> rows[0]["key"], rows[0]["value"], len(rows) == len(table)
('()', '6.0', True)
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from perfectplay._util.atomic import atomic_writer
from perfectplay.errors import InputError, WriteError
from perfectplay.results.options import Result
from perfectplay.results.table import SolvedTable

__all__ = ["COMPILED_COLUMNS", "FORMATS", "OPTION_COLUMNS", "STATE_COLUMNS", "export_rows"]

FORMATS = ("csv", "jsonl", "parquet")
#: One row per state: its key, its value (a float, or the outcome word), the remoteness
#: (games without dice; empty otherwise), whether the game is over there, and the best
#: options' labels joined by `` | ``.
STATE_COLUMNS = ("key", "value", "remoteness", "over", "best")
#: One row per option: the state's key, the option's label, its value, remoteness, regret
#: and whether it is best.
OPTION_COLUMNS = ("key", "option", "value", "remoteness", "regret", "best")
#: A compiled model's table, one row per position: its integer state (which ``perfectplay
#: query TABLE KEY --model MODULE:CLASS`` takes back), its layer and the mover's winning
#: chance.
COMPILED_COLUMNS = ("key", "layer", "value")


def _value(value: Any) -> tuple[Any, Any]:
    if isinstance(value, Result):
        return str(value.value), value.remoteness
    return float(value), None


def _state_rows(table: SolvedTable) -> Iterator[dict[str, Any]]:
    for key, text in zip(table.states(), table.keys, strict=True):
        over = table.is_over(key)
        value, remoteness = _value(table.value(key))
        best = "" if over else " | ".join(o.label for o in table.options(key) if o.best)
        yield {"key": text, "value": value, "remoteness": remoteness, "over": over, "best": best}


def _option_rows(table: SolvedTable) -> Iterator[dict[str, Any]]:
    for key, text in zip(table.states(), table.keys, strict=True):
        if table.is_over(key):
            continue
        for o in table.options(key):
            value, remoteness = _value(o.value)
            yield {
                "key": text, "option": o.label, "value": value, "remoteness": remoteness,
                "regret": o.regret, "best": o.best,
            }  # fmt: skip


def _json_safe(row: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v if not (isinstance(v, float) and not math.isfinite(v)) else repr(v))
        for k, v in row.items()
    }


def export_rows(table: Any, path: str | Path, fmt: str, options: bool = False) -> Path:
    """Write ``table`` (a loaded model table) to ``path`` as ``fmt`` (see the module
    docstring); returns the path written."""
    if fmt not in FORMATS:
        raise InputError(f"unknown format {fmt!r}: {', '.join(FORMATS)}")
    # A compiled model's table (a layer above this one: known by what it offers).
    if callable(getattr(table, "layer_tables", None)):
        return _compiled_rows(table, Path(path), fmt, options)
    if not isinstance(table, SolvedTable):
        # The command prefixes "perfectplay: export: ", so the message does not say export.
        raise InputError(
            f"a {table.kind} table cannot be written as rows yet, only a model's table (.npz)"
        )
    if not options and table.kind == "chance" and "choice_ptr" not in table._data:
        raise InputError("this table (version 1) holds only the policy's choice")
    if fmt == "parquet":  # before any work: the install command, not a late failure
        _need_pyarrow()
    columns = OPTION_COLUMNS if options else STATE_COLUMNS
    rows = _option_rows(table) if options else _state_rows(table)
    path = Path(path)
    try:
        with atomic_writer(path) as fh:
            if fmt == "csv":
                text = io.TextIOWrapper(fh, encoding="utf-8", newline="")
                writer = csv.DictWriter(text, columns)
                writer.writeheader()
                writer.writerows(rows)
                text.flush()
                text.detach()
            elif fmt == "jsonl":
                for row in rows:
                    fh.write((json.dumps(_json_safe(row)) + "\n").encode())
            else:
                _parquet(fh, list(rows), columns)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _compiled_rows(table: Any, path: Path, fmt: str, options: bool) -> Path:
    """A compiled model's table, one row per position (:data:`COMPILED_COLUMNS`), written
    a layer at a time from its arrays (a table of 10^8 positions never becomes 10^8
    Python rows at once)."""
    if options:
        raise InputError(
            "a compiled model's table is written one row per position; its moves are "
            "answered by perfectplay query TABLE STATE --model MODULE:CLASS"
        )
    if fmt == "parquet":
        _need_pyarrow()
    try:
        with atomic_writer(path) as fh:
            if fmt == "parquet":
                _compiled_parquet(fh, table)
                return path
            if fmt == "csv":
                fh.write((",".join(COMPILED_COLUMNS) + "\n").encode())
            for layer, keys, values in table.layer_tables():
                for start in range(0, keys.size, 1 << 16):
                    k = keys[start : start + (1 << 16)].tolist()
                    v = values[start : start + (1 << 16)].tolist()
                    if fmt == "csv":
                        text = "".join(f"{a},{layer},{b!r}\n" for a, b in zip(k, v, strict=True))
                    else:
                        text = "".join(
                            f'{{"key": {a}, "layer": {layer}, "value": {b!r}}}\n'
                            for a, b in zip(k, v, strict=True)
                        )
                    fh.write(text.encode())
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    return path


def _compiled_parquet(fh: Any, table: Any) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    schema = pa.schema([("key", pa.int64()), ("layer", pa.int64()), ("value", pa.float64())])
    with pq.ParquetWriter(fh, schema) as writer:
        for layer, keys, values in table.layer_tables():
            layers = np.full(keys.size, layer, np.int64)
            writer.write_table(
                pa.table([np.asarray(keys), layers, np.asarray(values, np.float64)], schema=schema)
            )


def _need_pyarrow() -> None:
    import importlib.util

    if importlib.util.find_spec("pyarrow") is None:
        raise InputError("Parquet needs pyarrow: pip install 'perfectplay[parquet]'")


def _parquet(fh: Any, rows: list[dict[str, Any]], columns: tuple[str, ...]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    data = {c: [row[c] for row in rows] for c in columns}
    pq.write_table(pa.table(data), fh)
