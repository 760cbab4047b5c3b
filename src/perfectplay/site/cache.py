"""What a build remembers for the next one: checked runs and pandoc conversions.

Each record is named by the hash of everything its result depends on (the builder's own
version among them), so a record is either right for the tree being built or never looked
up: nothing is invalidated, changed inputs simply ask for another name. A record is
written whole (to a temporary file, then renamed), so a build stopped half-way leaves no
half record. ``force`` reads nothing (every entry is run again) but still writes.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["Store", "builder_version", "digest"]

HERE = Path(__file__).resolve().parent


@functools.cache
def builder_version() -> str:
    """The perfectplay version and a hash of the builder's own code: a change to how pages
    are checked or converted makes every record new.

    >>> len(builder_version().split("+")[1])
    16
    """
    from perfectplay import __version__

    h = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return f"{__version__}+{h.hexdigest()[:16]}"


def digest(parts: Iterable[str | bytes]) -> str:
    """One hash of several parts (each length-prefixed, so no two lists collide).

    >>> digest(["ab", "c"]) != digest(["a", "bc"])
    True
    """
    h = hashlib.sha256()
    for part in parts:
        data = part.encode("utf-8") if isinstance(part, str) else part
        h.update(len(data).to_bytes(8, "little") + data)
    return h.hexdigest()[:40]


class Store:
    """JSON records under ``folder/<kind>/<key>.json``."""

    def __init__(self, folder: Path, force: bool = False) -> None:
        self.folder = folder
        self.force = force
        self.hits = 0
        self.misses = 0

    def get(self, kind: str, key: str) -> Any | None:
        if self.force:
            self.misses += 1
            return None
        try:
            value = json.loads((self.folder / kind / f"{key}.json").read_bytes())
        except (OSError, ValueError):
            self.misses += 1
            return None
        self.hits += 1
        return value

    def put(self, kind: str, key: str, value: Any) -> None:
        folder = self.folder / kind
        tmp = None
        try:
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".record-", dir=folder)
            with os.fdopen(fd, "wb") as f:
                f.write(json.dumps(value, sort_keys=True).encode("utf-8"))
            os.replace(tmp, folder / f"{key}.json")
        except OSError:
            # A cache that cannot be written only makes the next build slower.
            if tmp is not None:
                Path(tmp).unlink(missing_ok=True)
