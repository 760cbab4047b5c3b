"""The directory a layered solve works in, which is also the saved table.

Layout (all arrays are NumPy ``.npy`` files):

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

A :class:`Workdir` reads each small file once: the records and the small arrays it has
read or written are kept in memory, since a solve reads each finished layer many times;
larger arrays are memory-mapped when asked for and not kept mapped. A *private* work
directory (the temporary one of a solve in one process, which nothing else reads and
which is removed with its solution) is not written at all while what it holds fits in
memory (:data:`HOLD_BYTES`): only larger arrays go to its files.

>>> import tempfile
>>> wd = Workdir(tempfile.mkdtemp()).create()
>>> wd.write_keys(3, np.array([2, 5, 7]))
>>> again = Workdir(wd.path)
>>> again.keys(3).tolist(), again.keys(3) is again.keys(3), again.keys(3).flags.writeable
([2, 5, 7], True, False)
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from perfectplay.errors import InputError

__all__ = ["FORMAT", "HOLD_BYTES", "VERSION", "Workdir"]

FORMAT = "perfectplay-compiled"
# The names a solve writes: the header, the layers' files, the layers each reaches, the
# tier runner's record and slices (other engines), and hidden temporary files.
_OURS = re.compile(
    r"(table|reads|tiers)\.json|(keys|value)--?\d+\.npy|done--?\d+\.json|tier-\d+|\..*"
)
VERSION = 1
HEADER = "table.json"

#: The most bytes of arrays one work directory keeps in memory; arrays of at most
#: :data:`SMALL_BYTES` are kept (the rest are memory-mapped), those of a private
#: directory of any size while they fit.
HOLD_BYTES = 128 << 20
SMALL_BYTES = 1 << 20

# The header np.save writes for a one-dimensional array (format 1.0): read without
# ast.literal_eval (a layer's file is opened often); any other header goes to np.load.
_NPY_HEAD = re.compile(
    rb"\{'descr': '([<>|=]?[a-zA-Z]\d*)', 'fortran_order': False, 'shape': \((\d+),\), \} *\n"
)
_NPY_MAGIC = b"\x93NUMPY\x01\x00"
_PEEK = 256


def _ours(name: str) -> bool:
    return _OURS.fullmatch(name) is not None


class Workdir:
    """The files of one layered solve (see the module docstring); ``private`` when no
    other process or object reads the directory (its solve's temporary one)."""

    def __init__(self, path: str | Path, *, private: bool = False) -> None:
        self.path = Path(path)
        self.private = private
        self._arrays: dict[str, np.ndarray] = {}  # read or written so far, read-only
        self._held = 0  # bytes of those that are in memory
        self._head: dict[str, Any] | None = None
        # Done records read so far: a layer once finished stays finished (its files are
        # only ever replaced whole), and a solve reads each of them once per layer that
        # reaches it.
        self._done: dict[int, dict[str, Any]] = {}
        #: What a solver derives from the finished layers and keeps for the life of this
        #: object (the layered solver's store of finished values).
        self.cache: dict[str, Any] = {}

    def create(self) -> Workdir:
        """Make the directory (an existing file there is an :class:`InputError`, and so is
        a directory that holds files other than a solve's: a solve never writes among
        someone's files, nor takes them for its own)."""
        if self.path.exists() and not self.path.is_dir():
            raise InputError(f"{self.path} is a file; a compiled solve works in a directory")
        if self.path.is_dir():
            stranger = next((p.name for p in self.path.iterdir() if not _ours(p.name)), None)
            if stranger is not None:
                raise InputError(
                    f"{self.path} holds {stranger!r}, which no solve wrote: give a new or "
                    "empty directory, or one a solve worked in"
                )
        self.path.mkdir(parents=True, exist_ok=True)
        return self

    # -- the header --------------------------------------------------------------------

    def header(self) -> dict[str, Any] | None:
        """The header, or ``None`` before the exploration finished (read once; do not
        change the dict returned)."""
        if self._head is not None:
            return self._head
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
        self._head = head
        return head

    def write_header(self, head: dict[str, Any]) -> None:
        full = {"format": FORMAT, "version": VERSION, **head}
        self._write_json(HEADER, full)
        self._head = full

    # -- layers -------------------------------------------------------------------------

    def keys(self, layer: int) -> np.ndarray:
        """Layer ``layer``'s sorted states (read-only)."""
        return self._load(f"keys-{layer}.npy")

    def write_keys(self, layer: int, keys: np.ndarray) -> None:
        """Write layer ``layer``'s states (the array is handed over: do not change it)."""
        self._write_array(f"keys-{layer}.npy", keys)

    def values(self, layer: int) -> np.ndarray:
        """Layer ``layer``'s values (read-only)."""
        return self._load(f"value-{layer}.npy")

    def finished(self, layer: int) -> dict[str, Any] | None:
        """The record of a finished layer (its bound, sweeps, seconds), else ``None``."""
        if layer in self._done:
            return self._done[layer]
        if self.private:  # its records are all in memory
            return None
        try:
            done = json.loads((self.path / f"done-{layer}.json").read_text())
        except (FileNotFoundError, json.JSONDecodeError):
            return None
        if not isinstance(done, dict):
            return None
        self._done[layer] = done
        return done

    def finish(self, layer: int, values: np.ndarray, record: dict[str, Any]) -> None:
        """Write a finished layer: its values (handed over), then the record that marks
        it done."""
        self._write_array(f"value-{layer}.npy", values)
        self._write_json(f"done-{layer}.json", record)
        self._done[layer] = record

    # -- files --------------------------------------------------------------------------

    def _load(self, name: str) -> np.ndarray:
        if name in self._arrays:
            return self._arrays[name]
        path = self.path / name
        try:
            with open(path, "rb") as fh:
                arr = self._read(fh, path)
        except FileNotFoundError:
            raise InputError(f"{self.path}: {name} is missing") from None
        except ValueError as exc:
            raise InputError(f"{path}: corrupt array ({exc})") from None
        if not isinstance(arr, np.memmap):
            # A mapped array is not kept: the pages a reader touched would stay in this
            # process's memory (its resident size) for as long as the map lives, and a
            # big solve reads every finished layer once; mapping again is cheap.
            self._arrays[name] = arr
        return arr

    def _read(self, fh: Any, path: Path) -> np.ndarray:
        """The array in the open file ``fh``: in memory when small, else mapped."""
        peek = fh.read(_PEEK)
        found = _NPY_HEAD.match(peek, 10) if peek.startswith(_NPY_MAGIC) else None
        if found is None:  # not a header np.save writes for our arrays: numpy reads it
            arr: np.ndarray = np.load(path, mmap_mode="r", allow_pickle=False)
            return arr
        offset = found.end()
        if offset != 10 + int.from_bytes(peek[8:10], "little"):
            raise ValueError("its header's length is not the one it states")
        dtype = np.dtype(found.group(1).decode())
        count = int(found.group(2))
        nbytes = count * dtype.itemsize
        if os.fstat(fh.fileno()).st_size != offset + nbytes:
            raise ValueError(f"{os.fstat(fh.fileno()).st_size} bytes, not {offset + nbytes}")
        if self._keeps(nbytes, written=False):
            fh.seek(offset)
            arr = np.fromfile(fh, dtype, count)
            arr.flags.writeable = False
            self._held += nbytes
            return arr
        return np.memmap(fh, dtype, "r", offset, (count,))

    def _keeps(self, nbytes: int, written: bool) -> bool:
        """Whether an array of ``nbytes`` is kept in memory."""
        small = nbytes <= SMALL_BYTES or (written and self.private)
        return small and self._held + nbytes <= HOLD_BYTES

    def _write_array(self, name: str, arr: np.ndarray) -> None:
        old = self._arrays.pop(name, None)
        if old is not None and not isinstance(old, np.memmap):
            self._held -= old.nbytes
        arr = np.ascontiguousarray(arr)
        if self._keeps(arr.nbytes, written=True):
            kept = arr.view()
            kept.flags.writeable = False  # as a memory-mapped one: kernels see one type
            self._arrays[name] = kept
            self._held += arr.nbytes
            if self.private:
                return
        self._write(name, lambda fh: np.save(fh, arr, allow_pickle=False))

    def _write(self, name: str, write: Callable[[Any], Any]) -> None:
        target = self.path / name
        if self.private:  # nobody else reads it, nothing resumes from it
            with open(target, "wb") as fh:
                write(fh)
            return
        # Written to a temporary name and renamed, not fsynced: a killed process leaves
        # whole files either way (the kernel writes its page cache out), and a solve of
        # a few hundred layers would otherwise wait on the disk for each (a power cut
        # may lose the last layers, which a resumed solve redoes, since their done
        # record is written after their values and read only when both are there).
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
        if self.private:  # kept by the caller (the header, the done records)
            return
        text = json.dumps(data, indent=1).encode()
        self._write(name, lambda fh: fh.write(text))
