"""Where finished batches live: a shared work directory, or memory.

Layout of a work directory:

======================  ===============================================================
``tiers.json``          what the directory holds (the job's identity), written first
``tier-T/A-B.npy``      the slice of tier ``T``'s items ``A`` to ``B``, one batch's work
======================  ===============================================================

A tier *is* its slices: nothing merges them. A tier is finished when its slices cover
its items, and the batches that read it open the slices memory-mapped, where the
workers that computed them left them, so no process copies a tier between two tiers
(the driver merged each finished tier into one file in an earlier version, which kept
every worker waiting; a directory from that version, with ``tier-T.npy`` files, still
resumes and reads). A reader is told which slices make up a tier (:meth:`Store.know`:
the driver sends their ranges with each batch), so it opens them by name and never
trusts a directory listing, which a network filesystem may serve stale.

Every file is written to a temporary name and renamed into place
(:func:`perfectplay._util.atomic.atomic_writer`), so a killed writer leaves whole files
only, and a batch run twice writes the same bytes over the same name. A directory that
cannot be written (a full disk, no permission) is one
:class:`~perfectplay.errors.InputError` naming the path.

Without a directory (``Store(None)``) the same calls keep arrays in memory: the
in-process engine's default, which writes nothing.

>>> import numpy as np, tempfile
>>> s = Store(tempfile.mkdtemp()).open("demo")
>>> s.write_slice(7, 0, 2, np.array([1.0, 2.0])); s.write_slice(7, 2, 3, np.array([3.0]))
>>> s.slices(7)
[(0, 2), (2, 3)]
>>> s.read(7).tolist(), [(a, b) for a, b, _ in s.parts(7)]
([1.0, 2.0, 3.0], [(0, 2), (2, 3)])
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from pathlib import Path

import numpy as np

from perfectplay._util.atomic import atomic_writer
from perfectplay.errors import InputError, WriteError

__all__ = ["Store", "gaps"]

HEADER = "tiers.json"
FORMAT = "perfectplay-tiers"

#: Item ranges ``(start, stop)``, sorted.
Ranges = tuple[tuple[int, int], ...]


class Store:
    """Slices of tiers (see the module docstring); ``root`` ``None`` keeps them in
    memory."""

    def __init__(self, root: str | Path | None) -> None:
        self.root = None if root is None else Path(root)
        # By tier, then by range: a tier's slices are found without a scan of every
        # tier's (a plan of many tiers would be quadratic).
        self._memory: dict[int, dict[tuple[int, int], np.ndarray]] = {}
        self._open: dict[int, dict[tuple[int, int], np.ndarray]] = {}  # memory-mapped
        self._known: dict[int, Ranges] = {}

    def __getstate__(self) -> dict[str, object]:
        if self.root is None:
            raise InputError("a solve on other processes needs a work directory (--workdir)")
        return {"root": self.root}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["root"])  # type: ignore[misc]

    # -- the directory ---------------------------------------------------------------------

    def open(self, identity: str, same: Callable[[str], bool] | None = None) -> Store:
        """Make the directory, or check that it holds the solve ``identity`` (resume;
        ``same`` may accept another spelling of it: :meth:`Job.same_identity`)."""
        if self.root is None:
            return self
        head = self.root / HEADER
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            if head.is_file():
                try:
                    found = json.loads(head.read_text())
                except (json.JSONDecodeError, UnicodeDecodeError):
                    raise InputError(f"{head}: not a tier runner's header") from None
                if not isinstance(found, dict) or found.get("format") != FORMAT:
                    raise InputError(f"{head}: not a tier runner's header")
                job = found.get("job")
                if job != identity and not (same is not None and same(str(job))):
                    raise InputError(
                        f"{self.root} holds another solve ({found.get('job')}); "
                        "give an empty or new --workdir"
                    )
                return self
            text = json.dumps({"format": FORMAT, "job": identity}, indent=1).encode()
            with atomic_writer(head) as fh:
                fh.write(text)
        except OSError as exc:
            raise _unwritable(exc, self.root) from None
        return self

    # -- writing -----------------------------------------------------------------------------

    def _slice_path(self, tier: int, start: int, stop: int) -> Path:
        assert self.root is not None
        return self.root / f"tier-{tier}" / f"{start}-{stop}.npy"

    def has_slice(self, tier: int, start: int, stop: int) -> bool:
        if self.root is None:
            return (start, stop) in self._memory.get(tier, {})
        return self._slice_path(tier, start, stop).is_file()

    def slices(self, tier: int) -> list[tuple[int, int]]:
        """The item ranges of ``tier`` on disk, in order (a directory listing: the
        driver's view when it releases a tier)."""
        if self.root is None:
            return sorted(self._memory.get(tier, {}))
        found = []
        folder = self.root / f"tier-{tier}"
        if folder.is_dir():
            for p in folder.glob("*-*.npy"):
                a, _, b = p.stem.partition("-")
                if a.isdigit() and b.isdigit():
                    found.append((int(a), int(b)))
        return sorted(found)

    def write_slice(self, tier: int, start: int, stop: int, values: np.ndarray) -> None:
        """Write a batch's values (whole or not at all)."""
        if values.shape != (stop - start,):
            raise ValueError(f"tier {tier} batch {start}-{stop}: {values.shape} values")
        if self.root is None:
            self._memory.setdefault(tier, {})[(start, stop)] = values
            return
        path = self._slice_path(tier, start, stop)
        try:
            path.parent.mkdir(exist_ok=True)
            with atomic_writer(path) as fh:
                np.save(fh, np.ascontiguousarray(values), allow_pickle=False)
        except OSError as exc:
            raise _unwritable(exc, path) from None

    # -- reading -----------------------------------------------------------------------------

    def know(self, tier: int, ranges: Iterable[tuple[int, int]]) -> None:
        """Read ``tier`` from the slices ``ranges`` (which cover it; the driver's word,
        sent with each batch that reads the tier)."""
        self._known[tier] = tuple(sorted(ranges))

    def has_tier(self, tier: int) -> bool:
        """Whether ``tier`` is on disk merged into one file (``tier-T.npy``, as a work
        directory of an earlier version holds finished tiers)."""
        return self.root is not None and self._merged(tier).is_file()

    def _merged(self, tier: int) -> Path:
        assert self.root is not None
        return self.root / f"tier-{tier}.npy"

    def parts(self, tier: int) -> list[tuple[int, int, np.ndarray]]:
        """``tier``'s values as ``(start, stop, values)`` per slice, in order, each
        memory-mapped (a reader that scatters values where it keeps them copies each
        once; :meth:`read` joins them)."""
        ranges = self._known.get(tier)
        if ranges is None:
            if self.has_tier(tier):
                merged = self._load(tier, -1, -1, self._merged(tier))
                return [(0, len(merged), merged)]
            ranges = tuple(self.slices(tier))
        elif not ranges:
            return []  # a tier of no items
        if not ranges or gaps(list(ranges), max(b for _, b in ranges)):
            where = "memory" if self.root is None else self.root / f"tier-{tier}"
            raise InputError(f"{where}: tier {tier} is not finished (its slices: {ranges})")
        if self.root is None:
            return [(a, b, self._memory[tier][(a, b)]) for a, b in ranges]
        return [(a, b, self._load(tier, a, b, self._slice_path(tier, a, b))) for a, b in ranges]

    def _load(self, tier: int, start: int, stop: int, path: Path) -> np.ndarray:
        opened = self._open.setdefault(tier, {})
        if (start, stop) not in opened:
            try:
                opened[(start, stop)] = np.load(path, mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise InputError(f"{path}: cannot read a finished slice ({exc})") from None
        return opened[(start, stop)]

    def read(self, tier: int) -> np.ndarray:
        """Finished tier ``tier``'s values, in item order: memory-mapped when it is one
        slice, else its slices joined into a new array."""
        parts = self.parts(tier)
        if not parts:
            return np.empty(0)
        if len(parts) == 1:
            return parts[0][2]
        out = np.empty(max(b for _, b, _ in parts), parts[0][2].dtype)
        for a, b, values in parts:  # slices of two runs may overlap, with equal values
            out[a:b] = values
        return out

    def forget(self, tier: int) -> None:
        """Drop what is open of ``tier`` (in memory: its values too, for a tier no later
        one reads)."""
        self._open.pop(tier, None)
        self._memory.pop(tier, None)
        self._known.pop(tier, None)


def gaps(ranges: list[tuple[int, int]], items: int) -> list[tuple[int, int]]:
    """The parts of ``[0, items)`` that no range of ``ranges`` (sorted, possibly
    overlapping, from an earlier run with other batch sizes) covers.

    >>> gaps([(0, 4), (6, 8)], 10)
    [(4, 6), (8, 10)]
    """
    out: list[tuple[int, int]] = []
    at = 0
    for a, b in ranges:
        if a > at:
            out.append((at, a))
        at = max(at, b)
    if at < items:
        out.append((at, items))
    return out


def _unwritable(exc: OSError, path: Path) -> WriteError:
    """The one line of a slice or header not written (status 1, as any file asked for)."""
    why = exc.strerror or str(exc)
    if "requested and" in why:  # numpy's short write: the disk filled up
        why = f"the disk is full ({why})"
    return WriteError(f"cannot write {path}: {why}")
