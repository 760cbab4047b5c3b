"""The directory a layered solve works in, which is also the saved table.

Layout (all arrays are NumPy ``.npy`` files, read memory-mapped):

=======================  ==================================================================
``table.json``           the header: ``format`` (``"perfectplay-compiled"``), ``version``
                         (1), ``model`` (its name), ``class`` (``module:qualname``),
                         ``parameters`` (the keyword arguments that rebuild it),
                         ``params`` (its ``int64`` parameters), ``start`` (the start
                         state), ``start_value`` (``null`` when the game is over at once),
                         ``layers`` (the layer ids, ascending) and ``sizes`` (positions
                         per layer)
``keys-L.npy``           layer ``L``'s positions: sorted ``int64`` states
``value-L.npy``          layer ``L``'s values, the mover's winning chance (``float64``, or
                         ``float32`` in a table saved so)
``done-L.json``          written last, after ``value-L.npy``: the layer's certified error
                         ``bound``, its ``sweeps`` and ``seconds``
=======================  ==================================================================

Every file is written to a temporary name and renamed into place, so a killed solve
leaves whole files only: a layer with its ``done-L.json`` is finished and a solve
started again in the same directory resumes after it.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from perfectplay.errors import InputError

__all__ = ["FORMAT", "VERSION", "Workdir"]

FORMAT = "perfectplay-compiled"
VERSION = 1
HEADER = "table.json"


class Workdir:
    """The files of one layered solve (see the module docstring)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._open: dict[str, np.ndarray] = {}  # arrays read so far, memory-mapped once
        # Done records read so far: a layer once finished stays finished (its files are
        # only ever replaced whole), and a solve reads each of them once per layer that
        # reaches it.
        self._done: dict[int, dict[str, Any]] = {}
        #: What a solver derives from the finished layers and keeps for the life of this
        #: object (the layered solver's store of finished values).
        self.cache: dict[str, Any] = {}

    def create(self) -> Workdir:
        """Make the directory (an existing file there is an :class:`InputError`)."""
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"{self.path} is a file; a compiled solve works in a directory")
        self.path.mkdir(parents=True, exist_ok=True)
        return self

    # -- the header --------------------------------------------------------------------

    def header(self) -> dict[str, Any] | None:
        """The header, or ``None`` before the exploration finished."""
        try:
            text = (self.path / HEADER).read_text()
        except FileNotFoundError:
            return None
        try:
            head = json.loads(text)
        except json.JSONDecodeError:
            raise InputError(f"{self.path / HEADER}: corrupt table header") from None
        if not isinstance(head, dict) or head.get("format") != FORMAT:
            raise InputError(f"{self.path}: not a perfectplay compiled table")
        if head.get("version") != VERSION:
            raise InputError(
                f"{self.path}: table version {head.get('version')!r}; this perfectplay reads "
                f"version {VERSION}"
            )
        return head

    def write_header(self, head: dict[str, Any]) -> None:
        self._write_json(HEADER, {"format": FORMAT, "version": VERSION, **head})

    # -- layers -------------------------------------------------------------------------

    def keys(self, layer: int) -> np.ndarray:
        """Layer ``layer``'s sorted states (memory-mapped)."""
        return self._load(f"keys-{layer}.npy")

    def write_keys(self, layer: int, keys: np.ndarray) -> None:
        self._write_array(f"keys-{layer}.npy", keys)

    def values(self, layer: int) -> np.ndarray:
        """Layer ``layer``'s values (memory-mapped)."""
        return self._load(f"value-{layer}.npy")

    def finished(self, layer: int) -> dict[str, Any] | None:
        """The record of a finished layer (its bound, sweeps, seconds), else ``None``."""
        if layer in self._done:
            return self._done[layer]
        try:
            done = json.loads((self.path / f"done-{layer}.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if not isinstance(done, dict):
            return None
        self._done[layer] = done
        return done

    def finish(self, layer: int, values: np.ndarray, record: dict[str, Any]) -> None:
        """Write a finished layer: its values, then the record that marks it done."""
        self._write_array(f"value-{layer}.npy", values)
        self._write_json(f"done-{layer}.json", record)
        self._done[layer] = record

    # -- files --------------------------------------------------------------------------

    def _load(self, name: str) -> np.ndarray:
        if name in self._open:
            return self._open[name]
        try:
            arr: np.ndarray = np.load(self.path / name, mmap_mode="r", allow_pickle=False)
        except FileNotFoundError:
            raise InputError(f"{self.path}: {name} is missing") from None
        except ValueError as exc:
            raise InputError(f"{self.path / name}: corrupt array ({exc})") from None
        self._open[name] = arr
        return arr

    def _write_array(self, name: str, arr: np.ndarray) -> None:
        self._open.pop(name, None)
        self._write(name, lambda fh: np.save(fh, np.ascontiguousarray(arr), allow_pickle=False))

    def _write(self, name: str, write: Callable[[Any], Any]) -> None:
        # Written to a temporary name and renamed, not fsynced: a killed process leaves
        # whole files either way (the kernel writes its page cache out), and a solve of
        # a few hundred layers would otherwise wait on the disk for each (a power cut
        # may lose the last layers, which a resumed solve redoes, since their done
        # record is written after their values and read only when both are there).
        target = self.path / name
        tmp = target.with_name(f".{name}.{os.getpid()}.tmp")
        try:
            with open(tmp, "wb") as fh:
                write(fh)
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise

    def _write_json(self, name: str, data: dict[str, Any]) -> None:
        text = json.dumps(data, indent=1).encode()
        self._write(name, lambda fh: fh.write(text))
