"""Files written whole or not at all.

:func:`atomic_writer` opens a temporary file beside the target; when the block ends
without an error the file is flushed to disk and renamed over the target in one step
(:func:`os.replace`), so a reader sees the old file or the new one, never half of one;
two writers of one path leave one of the two whole files (the last renamed wins); an
error or a kill leaves the old file as it was and no temporary file behind (a kill -9
leaves at most a ``.NAME.*.tmp`` file, which never looks like the finished one).

>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "table.bin"
>>> with atomic_writer(target) as fh:
...     _ = fh.write(b"new")
>>> target.read_bytes()
b'new'
>>> try:
...     with atomic_writer(target) as fh:
...         _ = fh.write(b"half")
...         raise RuntimeError("disk full")
... except RuntimeError:
...     pass
>>> target.read_bytes(), sorted(p.name for p in target.parent.iterdir())
(b'new', ['table.bin'])
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_writer", "write_bytes"]


@contextlib.contextmanager
def atomic_writer(path: str | os.PathLike[str]) -> Iterator[IO[bytes]]:
    """A binary file to write ``path`` through (see the module docstring). A symbolic
    link is written through (its target replaced, the link kept); a path that holds
    something other than a regular file (a device such as ``/dev/full``, a pipe, a
    directory) is refused with :class:`IsADirectoryError` or :class:`OSError` naming
    it, before anything is written: renaming over it would replace it.

    >>> import tempfile, pathlib
    >>> with atomic_writer("/dev/null") as fh:
    ...     pass
    Traceback (most recent call last):
    ...
    OSError: [Errno 22] not a regular file (a device, a pipe or a socket): '/dev/null'
    """
    target = _regular_target(Path(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        # mkstemp creates 0600; a table is as readable as any file the user writes.
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _regular_target(path: Path) -> Path:
    """The file a write of ``path`` replaces: a link's target; refused where the path
    holds anything but a regular file."""
    import errno
    import stat

    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target
    except OSError:  # unreadable: the write itself says why
        return target
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a directory", str(path))
    if not stat.S_ISREG(mode):
        raise OSError(errno.EINVAL, "not a regular file (a device, a pipe or a socket)", str(path))
    return target


def write_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """Write ``data`` to ``path`` atomically (see :func:`atomic_writer`).

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
    >>> write_bytes(path, b"whole"); path.read_bytes()
    b'whole'
    """
    with atomic_writer(path) as fh:
        fh.write(data)
