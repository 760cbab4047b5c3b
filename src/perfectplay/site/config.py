"""The site's configuration: ``site.toml`` at the archive's root (optional).

Without the file the site is perfectplay's own: entries are the folders under ``archive/``
and the pages carry perfectplay's name. Someone else's archive says what it is called and
where its entries live::

    title = "My solutions"
    description = "Contest problems I solved, with proofs."
    entries = ["competitive_programming/*/*/*"]   # glob patterns of entry folders
    time_limit = 10                               # seconds one run may take
    output_limit = 8388608                        # bytes one run may print

    checker = "tokens"                            # how entries without one are judged
    memory_limit = 256                            # MB one run may use

    [flags]                                       # compiler flags of the built-in runners
    cpp = "-O2 -std=gnu++17"

    [languages.pas]                               # any language, by command templates
    compile = "fpc -O2 -o{bin} {src}"
    run = "{bin}"

A repository in another layout says which (:mod:`perfectplay.site.importers`)::

    layout = "kattis"          # ICPC/Kattis problem packages (problem.yaml), as they are
    layout = "oj-verify"       # *.test.cpp files naming their PROBLEM, a library around them
    data = "library-checker-problems"             # oj-verify: the local test data
    layout = "globs"           # anything else, said by patterns:
    entries = "contests/*/*"
    solution = "*.cpp"         # relative to each entry folder
    samples = "tests/*.in"     # each with its .ans (or .out)

A key the builder does not know stops the build (typos do not pass silently).
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
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
    "entries": (list, str),
    "time_limit": (int, float),
    "output_limit": int,
    "flags": dict,
    # The judge's settings (checkers, limits, languages): keep them in this block.
    "checker": str,
    "memory_limit": int,
    "languages": dict,
    # The layout block: which importer reads the tree, and its patterns.
    "layout": str,
    "data": str,
    "solution": str,
    "samples": str,
    "tests": str,
    "statement": str,
    "writeup": str,
}
#: The layouts an archive may be in; ``globs`` names its files by the keys below.
LAYOUTS = ("perfectplay", "kattis", "oj-verify", "globs")
GLOB_KEYS = ("solution", "samples", "tests", "statement", "writeup")
#: Where each layout looks for entries unless ``entries`` says otherwise.
DEFAULT_ENTRIES = {"perfectplay": ("archive/**",), "kattis": ("**",), "oj-verify": ("**",)}


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
    # The judge's settings: the entries' default checker, memory limit (MB: None, the
    # sandbox's own), and languages given by command templates (``[languages.EXT]``).
    checker: str | None = None
    memory_limit: int | None = None
    languages: dict[str, dict[str, str]] = field(default_factory=dict)
    layout: str = "perfectplay"
    data: str | None = None  # oj-verify: the folder of local test data
    globs: dict[str, str] = field(default_factory=dict)  # layout "globs": GLOB_KEYS
    entries_given: bool = False  # ``entries`` is site.toml's: each pattern must find one

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
                (list, str): "a list or a string",
            }
            raise fail(f"{key!r} must be {expected.get(kind, 'a number')}", key)
        if isinstance(value, str) and not value.strip():
            raise fail(f"{key!r} is empty", key)
    layout, data_folder, globs = _layout(data, fail)
    patterns = data.get("entries", list(DEFAULT_ENTRIES.get(layout, Config.entries)))
    if isinstance(patterns, str):
        patterns = [patterns]
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
    judge = _judge_settings(data, fail)
    return Config(
        title=data.get("title", "perfectplay").strip(),
        description=data["description"].strip() if "description" in data else None,
        entries=tuple(p.strip() for p in patterns),
        entries_given="entries" in data,
        time_limit=time_limit,
        output_limit=output_limit,
        flags=flags,
        own=False,
        layout=layout,
        data=data_folder,
        globs=globs,
        **judge,
    )


def _judge_settings(data: dict[str, Any], fail: Any) -> dict[str, Any]:
    """The judge's keys of ``site.toml``: ``checker``, ``memory_limit`` and the
    ``[languages.EXT]`` tables (``compile`` and ``run`` templates)."""
    found: dict[str, Any] = {}
    if "checker" in data:
        found["checker"] = data["checker"].strip()
    if "memory_limit" in data:
        if not 1 <= data["memory_limit"] <= 1 << 20:
            raise fail("'memory_limit' must be between 1 and 1048576 MB", "memory_limit")
        found["memory_limit"] = data["memory_limit"]
    languages: dict[str, dict[str, str]] = {}
    for ext, table in data.get("languages", {}).items():
        if not re.fullmatch(r"[A-Za-z0-9_+-]+", ext) or not isinstance(table, dict):
            raise fail(f"'languages.{ext}' must be a table named by a file extension", "languages")
        unknown = set(table) - {"compile", "run"}
        if unknown or "run" not in table:
            raise fail(
                f"'languages.{ext}' holds 'run' and optionally 'compile' (not "
                f"{', '.join(sorted(unknown)) or 'nothing'})",
                "languages",
            )
        if not all(isinstance(v, str) and v.strip() for v in table.values()):
            raise fail(f"'languages.{ext}' commands must be non-empty strings", "languages")
        languages[ext.lower()] = {k: v.strip() for k, v in table.items()}
    found["languages"] = languages
    return found


def _layout(
    data: dict[str, Any], fail: Callable[[str, str], SiteError]
) -> tuple[str, str | None, dict[str, str]]:
    """The layout block of ``site.toml``: the layout, its data folder and its globs."""
    layout = data.get("layout", "perfectplay")
    if layout not in LAYOUTS:
        raise fail(f"'layout' must be one of {', '.join(LAYOUTS)}, not {layout!r}", "layout")
    globs = {k: data[k].strip() for k in GLOB_KEYS if k in data}
    if globs and layout != "globs":
        raise fail(f'{next(iter(globs))!r} is a key of layout = "globs"', next(iter(globs)))
    if layout == "globs" and ("entries" not in data or "solution" not in globs):
        raise fail("layout = \"globs\" needs 'entries' and 'solution' patterns", "layout")
    folders = {**globs, **({"data": data["data"]} if "data" in data else {})}
    for key, value in folders.items():
        pure = PurePosixPath(value)
        if pure.is_absolute() or ".." in pure.parts or ".git" in pure.parts:
            raise fail(f"{key!r} {value!r} must stay inside the archive", key)
    if "data" in data and layout != "oj-verify":
        raise fail("'data' is a key of layout = \"oj-verify\"", "data")
    return layout, data.get("data", "").strip() or None, globs
