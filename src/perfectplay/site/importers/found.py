"""What an importer finds of one entry, before the builder validates it into an
:class:`~perfectplay.site.entries.Entry` (:func:`~perfectplay.site.entries.make_entry`)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["Found"]


@dataclass
class Found:
    """One entry as a layout's importer finds it (:mod:`perfectplay.site.importers`): its
    folder and id, the ``meta.toml`` keys its files say (``derived``: read from the
    repository's own files, so the keys a user would have to write get defaults), and
    where its files are (None: the repository has none, or ``meta.toml``'s rules find
    them: ``solution.<ext>``, ``samples/``, ``tests/``)."""

    folder: Path
    id: str
    meta: dict[str, Any]
    meta_file: str  # repository-relative: the file the keys come from
    meta_text: str = ""  # its text, for the line of a bad key
    statement: str | None = None
    writeup: str | None = None
    solution: str | None = None
    samples: list[tuple[str, str]] | None = None
    tests: list[tuple[str, str]] | None = None
    strict: bool = False  # every file required (perfectplay's own archive)
    derived: bool = False
    # The folder is the entry's own: its runs may read any file of it, so all of them key
    # the runs. False where the folder holds other entries (oj-verify's test files).
    own_folder: bool = True
