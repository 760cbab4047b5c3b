"""The site's configuration: ``site.toml`` at the archive's root (optional).

Without the file the site is perfectplay's own: entries are the folders under ``archive/``
and the pages carry perfectplay's name. Someone else's archive says what it is called and
where its entries live::

    title = "My solutions"
    description = "Contest problems I solved, with proofs."
    entries = ["competitive_programming/*/*/*"]   # glob patterns of entry folders
    time_limit = 10                               # seconds one run may take
    output_limit = 8388608                        # bytes one run may print

    [flags]                                       # compiler flags of the built-in runners
    cpp = "-O2 -std=gnu++17"

A key the builder does not know stops the build (typos do not pass silently).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from perfectplay.site.errors import SiteError

__all__ = ["CONFIG_FILE", "Config", "DEFAULT_FLAGS", "load_config"]

CONFIG_FILE = "site.toml"
DEFAULT_TIME_LIMIT = 120.0
DEFAULT_OUTPUT_LIMIT = 8 << 20
#: Compiler flags of the built-in runners unless ``[flags]`` says otherwise.
DEFAULT_FLAGS: dict[str, str] = {
    "c": "-O2 -std=gnu17",
    "cpp": "-O2 -std=gnu++17",
    "java": "",
    "rust": "-O --edition 2021",
    "go": "",
}
_KEYS: dict[str, type | tuple[type, ...]] = {
    "title": str,
    "description": str,
    "entries": list,
    "time_limit": (int, float),
    "output_limit": int,
    "flags": dict,
}


@dataclass(frozen=True)
class Config:
    """What ``site.toml`` says, defaults filled in (``own``: no file, perfectplay's site).

    >>> Config().title, Config().entries
    ('perfectplay', ('archive/**',))
    """

    title: str = "perfectplay"
    description: str | None = None
    entries: tuple[str, ...] = ("archive/**",)
    time_limit: float = DEFAULT_TIME_LIMIT
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    flags: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_FLAGS))
    own: bool = True

    def base_of(self, pattern: str) -> str:
        """The literal folder a pattern starts with: entry ids are relative to it.

        >>> Config().base_of("competitive_programming/*/*/*")
        'competitive_programming'
        """
        parts = []
        for part in PurePosixPath(pattern).parts:
            if any(c in part for c in "*?["):
                break
            parts.append(part)
        return "/".join(parts)


def _line_of(text: str, key: str) -> int | None:
    match = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def load_config(root: Path) -> Config:
    """Read ``root/site.toml``; the defaults when there is none.

    Raises :class:`SiteError` naming the file for malformed TOML, an unknown key, a
    value of the wrong type or a pattern that leaves the archive.
    """
    path = root / CONFIG_FILE
    if not path.is_file():
        return Config()
    try:
        text = path.read_bytes().decode("utf-8")
        data: dict[str, Any] = tomllib.loads(text)
    except UnicodeDecodeError:
        raise SiteError("", CONFIG_FILE, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise SiteError(
            "", CONFIG_FILE, f"malformed TOML: {message}", int(found.group(1)) if found else None
        ) from None

    def fail(message: str, key: str) -> SiteError:
        return SiteError("", CONFIG_FILE, message, _line_of(text, key))

    for key, value in data.items():
        if key not in _KEYS:
            raise fail(f"unknown key {key!r} (known: {', '.join(_KEYS)})", key)
        kind = _KEYS[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            expected: dict[Any, str] = {
                str: "a string",
                int: "an integer",
                list: "a list",
                dict: "a table",
            }
            raise fail(f"{key!r} must be {expected.get(kind, 'a number')}", key)
        if isinstance(value, str) and not value.strip():
            raise fail(f"{key!r} is empty", key)
    patterns = data.get("entries", list(Config.entries))
    if not patterns or not all(isinstance(p, str) and p.strip() for p in patterns):
        raise fail("'entries' must be a non-empty list of glob patterns", "entries")
    for pattern in patterns:
        pure = PurePosixPath(pattern)
        if pure.is_absolute() or ".." in pure.parts or ".git" in pure.parts:
            raise fail(f"'entries' pattern {pattern!r} must stay inside the archive", "entries")
        if not pure.parts:  # "." or "./": the root itself, which glob cannot match
            raise fail(
                f"'entries' pattern {pattern!r} names no folder (e.g. 'problems/*')", "entries"
            )
    flags = dict(DEFAULT_FLAGS)
    for name, value in data.get("flags", {}).items():
        if name not in DEFAULT_FLAGS:
            raise fail(f"unknown key 'flags.{name}' (known: {', '.join(DEFAULT_FLAGS)})", name)
        if not isinstance(value, str):
            raise fail(f"'flags.{name}' must be a string", name)
        flags[name] = value
    time_limit = float(data.get("time_limit", DEFAULT_TIME_LIMIT))
    if not 0 < time_limit <= 3600:
        raise fail("'time_limit' must be between 0 and 3600 seconds", "time_limit")
    output_limit = int(data.get("output_limit", DEFAULT_OUTPUT_LIMIT))
    if not 1 <= output_limit <= 1 << 30:
        raise fail("'output_limit' must be between 1 byte and 1 GiB", "output_limit")
    return Config(
        title=data.get("title", "perfectplay").strip(),
        description=data["description"].strip() if "description" in data else None,
        entries=tuple(p.strip() for p in patterns),
        time_limit=time_limit,
        output_limit=output_limit,
        flags=flags,
        own=False,
    )
