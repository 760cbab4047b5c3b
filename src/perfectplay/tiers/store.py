"""Where finished batches and tiers live: a shared work directory, or memory.

Layout of a work directory:

======================  ===============================================================
``tiers.json``          what the directory holds (the job's identity), written first
``tier-T/A-B.npy``      the slice of tier ``T``'s items ``A`` to ``B``, one batch's work
``tier-T.npy``          tier ``T`` finished: its slices merged in item order
======================  ===============================================================

Every file is written to a temporary name and renamed into place
(:func:`perfectplay._util.atomic.atomic_writer`), so a killed writer leaves whole files
only, and a batch run twice writes the same bytes over the same name. A merged tier
exists only once all its slices did; its slices are then removed. Readers open finished
tiers memory-mapped. A directory that cannot be written (a full disk, no permission) is
one :class:`~perfectplay.errors.InputError` naming the path.

Without a directory (``Store(None)``) the same calls keep arrays in memory: the
in-process engine's default, which writes nothing.

>>> import numpy as np, tempfile
>>> s = Store(tempfile.mkdtemp()).open("demo")
>>> s.write_slice(7, 0, 2, np.array([1.0, 2.0])); s.write_slice(7, 2, 3, np.array([3.0]))
>>> s.slices(7)
[(0, 2), (2, 3)]
>>> s.merge(7, 3); s.read(7).tolist(), s.slices(7)
([1.0, 2.0, 3.0], [])
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

import numpy as np

from perfectplay._util.atomic import atomic_writer
from perfectplay.errors import InputError

__all__ = ["Store"]

HEADER = "tiers.json"
FORMAT = "perfectplay-tiers"


class Store:
    """Slices and finished tiers (see the module docstring); ``root`` ``None`` keeps them
    in memory."""

    def __init__(self, root: str | Path | None) -> None:
        self.root = None if root is None else Path(root)
        self._memory: dict[tuple[int, int, int] | int, np.ndarray] = {}
        self._open: dict[int, np.ndarray] = {}

    def __getstate__(self) -> dict[str, object]:
        if self.root is None:
            raise InputError("a solve on other processes needs a work directory (--workdir)")
        return {"root": self.root}

    def __setstate__(self, state: dict[str, object]) -> None:
        self.__init__(state["root"])  # type: ignore[misc]

    # -- the directory ---------------------------------------------------------------------

    def open(self, identity: str) -> Store:
        """Make the directory, or check that it holds the solve ``identity`` (resume)."""
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
                if found.get("job") != identity:
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

    # -- slices ------------------------------------------------------------------------------

    def _slice_path(self, tier: int, start: int, stop: int) -> Path:
        assert self.root is not None
        return self.root / f"tier-{tier}" / f"{start}-{stop}.npy"

    def has_slice(self, tier: int, start: int, stop: int) -> bool:
        if self.root is None:
            return (tier, start, stop) in self._memory
        return self._slice_path(tier, start, stop).is_file()

    def slices(self, tier: int) -> list[tuple[int, int]]:
        """The item ranges of ``tier`` on disk (not merged yet), in order."""
        if self.root is None:
            return sorted(
                (k[1], k[2]) for k in self._memory if isinstance(k, tuple) and k[0] == tier
            )
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
            self._memory[(tier, start, stop)] = values
            return
        path = self._slice_path(tier, start, stop)
        self._write(path, values)

    def _write(self, path: Path, values: np.ndarray) -> None:
        try:
            path.parent.mkdir(exist_ok=True)
            with atomic_writer(path) as fh:
                np.save(fh, np.ascontiguousarray(values), allow_pickle=False)
        except OSError as exc:
            raise _unwritable(exc, path) from None

    # -- finished tiers ----------------------------------------------------------------------

    def has_tier(self, tier: int) -> bool:
        if self.root is None:
            return tier in self._memory
        return (self.root / f"tier-{tier}.npy").is_file()

    def merge(self, tier: int, items: int) -> None:
        """Join ``tier``'s slices (which must cover its ``items``; slices of an earlier
        run with other batch sizes may overlap, with the same values) into the finished
        tier, then remove them."""
        ranges = self.slices(tier)
        if gaps(ranges, items):
            raise InputError(f"tier {tier}: its slices miss items {gaps(ranges, items)[0]}")
        if self.root is None:
            parts = [self._memory.pop((tier, a, b)) for a, b in ranges]
        else:
            parts = [np.load(self._slice_path(tier, a, b), allow_pickle=False) for a, b in ranges]
        if len(parts) == 1:
            merged = parts[0]
        else:
            merged = np.empty(items, parts[0].dtype if parts else np.float64)
            for (a, b), part in zip(ranges, parts, strict=True):
                merged[a:b] = part
        if self.root is None:
            self._memory[tier] = merged
            return
        self._write(self.root / f"tier-{tier}.npy", merged)
        shutil.rmtree(self.root / f"tier-{tier}", ignore_errors=True)

    def read(self, tier: int) -> np.ndarray:
        """Finished tier ``tier``'s values, in item order (memory-mapped)."""
        if self.root is None:
            got = self._memory[tier]
            assert isinstance(got, np.ndarray)
            return got
        if tier not in self._open:
            path = self.root / f"tier-{tier}.npy"
            try:
                self._open[tier] = np.load(path, mmap_mode="r", allow_pickle=False)
            except (OSError, ValueError) as exc:
                raise InputError(f"{path}: cannot read a finished tier ({exc})") from None
        return self._open[tier]

    def forget(self, tier: int) -> None:
        """Drop ``tier`` (memory only: a tier no later one reads)."""
        if self.root is None:
            self._memory.pop(tier, None)
        with contextlib.suppress(KeyError):
            del self._open[tier]


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


def _unwritable(exc: OSError, path: Path) -> InputError:
    return InputError(f"{path}: cannot write there ({exc.strerror or exc})")
