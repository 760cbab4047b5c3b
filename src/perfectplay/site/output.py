"""Writing the site: into a fresh folder beside the output, swapped in whole.

The output folder is replaced only once every file is written, so a failed build leaves
the previous site as it was; a file equal to the previous build's is hard-linked to it.
"""

from __future__ import annotations

import fcntl
import glob
import os
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path

from perfectplay.site.errors import SiteError

__all__ = ["BACKGROUND_REMOVAL", "MARKER", "check_output", "write_site"]

MARKER = ".perfectplay-site"
#: Above this many files and folders, the previous build is removed in the background
#: (see _swap).
BACKGROUND_REMOVAL = 2000
#: Seconds after which a half-written site folder no build holds is removed.
ABANDONED_AFTER = 60.0


def check_output(root: Path, out: Path) -> None:
    """Refuse an output folder the build must not replace, before any work is done."""
    if out == root or out in root.parents:
        raise SiteError("", str(out), "refusing to build into the repository or above it")
    # Folders the build reads (or git owns): output there would be read back or mixed in.
    for inside in ("archive", "docs", "src", "tests", ".git"):
        if out.is_relative_to(root / inside):
            raise SiteError("", str(out), f"refusing to build inside {inside}/")
    # Fail before the build, not after it: the nearest existing ancestor must be a
    # writable folder.
    parent = out.parent
    while not parent.exists():
        parent = parent.parent
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".perfectplay-probe-", dir=parent))
    except OSError as exc:
        problem = exc.strerror or str(exc)
        raise SiteError("", str(out), f"cannot create folders in {parent}: {problem}") from None
    if out.exists():
        if not out.is_dir():
            raise SiteError("", str(out), "output exists and is not a folder")
        if any(out.iterdir()) and not (out / MARKER).is_file():
            raise SiteError(
                "",
                str(out),
                f"refusing to replace a non-empty folder without {MARKER}: "
                "it was not written by a site build",
            )


def write_site(out: Path, files: Iterable[tuple[str, bytes]]) -> int:
    """Write ``files`` (site path, bytes) as the new site at ``out``; the number written."""
    try:
        return _write_files(out, files)
    except OSError as exc:
        problem = exc.strerror or str(exc)
        raise SiteError("", str(out), f"cannot write the site: {problem}") from None


def _write_files(out: Path, files: Iterable[tuple[str, bytes]]) -> int:
    out.parent.mkdir(parents=True, exist_ok=True)
    _remove_abandoned(out)
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.building-", dir=out.parent))
    # Held until the process ends, however it ends: a folder nobody holds was abandoned.
    held = os.open(tmp, os.O_RDONLY | os.O_DIRECTORY)
    try:
        fcntl.flock(held, fcntl.LOCK_EX)
        count = 0
        folders: set[Path] = set()

        def put(relative: str, data: bytes) -> None:
            nonlocal count
            path = tmp / relative
            if path.parent not in folders:
                path.parent.mkdir(parents=True, exist_ok=True)
                folders.add(path.parent)
            if not _link_if_same(out / relative, path, data):
                path.write_bytes(data)
            count += 1

        for relative, data in files:
            put(relative, data)
        # Last: a folder a killed build left half written does not pass for a site.
        put(MARKER, b"written by perfectplay site build; replaced whole by the next build\n")
        tmp.chmod(0o755)
        # Folders count as files do: removing one costs as much on such a disk.
        _swap(out, tmp, background=count + len(folders) > BACKGROUND_REMOVAL)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        os.close(held)
    return count


def _remove_abandoned(out: Path) -> None:
    """Remove the folders builds killed with -9 left half written beside ``out``: those
    no running build holds locked (a build writing beside it now holds its own)."""
    for folder in out.parent.glob(f".{glob.escape(out.name)}.building-*"):
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            # A folder made this minute may be one a build has not locked yet.
            if time.time() - os.fstat(fd).st_ctime < ABANDONED_AFTER:
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            continue  # a build is writing it
        else:
            shutil.rmtree(folder, ignore_errors=True)
        finally:
            os.close(fd)


def _swap(out: Path, tmp: Path, background: bool = False) -> None:
    """Put ``tmp`` in place of the output folder (two renames; the old copy is removed
    only after the new one is in place). A large old copy is removed by a detached
    ``rm -rf``: on a disk that discards freed blocks at once, removing thousands of
    files takes seconds the build need not wait for."""
    if not out.exists():
        os.rename(tmp, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rmdir(old)
    os.rename(out, old)
    try:
        os.rename(tmp, out)
    except BaseException:
        os.rename(old, out)
        raise
    rm = shutil.which("rm") if background else None
    if rm is not None:
        try:
            subprocess.Popen(
                [rm, "-rf", "--", str(old)],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            return
        except OSError:
            pass
    shutil.rmtree(old, ignore_errors=True)


def _link_if_same(old: Path, new: Path, data: bytes) -> bool:
    """Hard-link ``new`` to the previous build's ``old`` when it holds exactly ``data``: an
    unchanged file costs no write, and removing the previous build frees nothing of it."""
    try:
        info = os.lstat(old)
        if not stat.S_ISREG(info.st_mode) or info.st_size != len(data):
            return False
        if old.read_bytes() != data:
            return False
        os.link(old, new)
        return True
    except OSError:
        return False
