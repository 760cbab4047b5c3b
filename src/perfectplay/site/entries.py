"""Archive entries: finding the folders under ``archive/`` and reading their ``meta.toml``.

An entry is data: a folder with ``meta.toml``, ``statement.md``, ``solution.tex`` and its
samples (the format is in ``archive/README.md``). Everything here only validates and
resolves paths; nothing is run or rendered.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from perfectplay.site.errors import SiteError
from perfectplay.site.repo import rel, repo_path

__all__ = ["Compare", "Entry", "Sample", "discover", "load", "parse_compare"]

REQUIRED_FILES = ("meta.toml", "statement.md", "solution.tex")
# Any of these marks a folder as an entry, which then must be complete.
ENTRY_MARKERS = (*REQUIRED_FILES, "samples")
KEYS: dict[str, Any] = {
    "title": str,
    "contest": str,
    "year": int,
    "problem": str,
    "link": str,
    "techniques": list,
    "command": str,
    "sources": list,
    "compare": str,
    "samples": list,
    "timeout": (int, float),
}
# A year the sources cannot confirm is left out rather than guessed: the page says so.
OPTIONAL = {"samples", "timeout", "year"}
DEFAULT_TIMEOUT = 120.0


@dataclass(frozen=True)
class Compare:
    """How a sample's output is checked: ``exact`` or ``float`` with a tolerance."""

    mode: str
    tolerance: float = 0.0

    def __str__(self) -> str:
        return "exact" if self.mode == "exact" else f"float {self.tolerance:g}"


@dataclass(frozen=True)
class Sample:
    name: str  # shown on the page: the input's file name without suffix
    input: str  # repository-relative paths
    answer: str


@dataclass
class Entry:
    """One archive folder, validated. Paths are repository-relative POSIX strings."""

    id: str  # folder relative to archive/, e.g. "icpc/2023/K-alea-iacta-est"
    folder: str  # repository-relative, e.g. "archive/icpc/2023/K-alea-iacta-est"
    title: str
    contest: str
    year: int | None  # None: not known
    problem: str
    link: str
    techniques: list[str]
    command: str
    sources: list[str]
    compare: Compare
    samples: list[Sample] = field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT

    @property
    def meta(self) -> str:
        return f"{self.folder}/meta.toml"

    @property
    def statement(self) -> str:
        return f"{self.folder}/statement.md"

    @property
    def solution(self) -> str:
        return f"{self.folder}/solution.tex"

    @property
    def url(self) -> str:
        """Site path of the entry's page."""
        return f"archive/{self.id}/index.html"


def parse_compare(text: str) -> Compare | None:
    """``"exact"`` or ``"float TOL"`` with 0 <= TOL < 1; None when malformed.

    >>> parse_compare("float 1e-6")
    Compare(mode='float', tolerance=1e-06)
    >>> parse_compare("exact"), parse_compare("fuzzy")
    (Compare(mode='exact', tolerance=0.0), None)
    """
    words = text.split()
    if words == ["exact"]:
        return Compare("exact")
    if len(words) == 2 and words[0] == "float":
        try:
            tol = float(words[1])
        except ValueError:
            return None
        if 0 <= tol < 1:
            return Compare("float", tol)
    return None


def discover(root: Path) -> list[Entry]:
    """All entries under ``root/archive``, sorted by id, each validated."""
    archive = root / "archive"
    if not archive.is_dir():
        raise SiteError("", "archive", "no archive/ folder in the repository")
    folders = set()
    for marker in ENTRY_MARKERS:
        for found in archive.rglob(marker):
            if ".git" not in found.parts and found.parent != archive:
                folders.add(found.parent)
    return [load(root, folder) for folder in sorted(folders, key=lambda p: p.as_posix())]


def _line_of(text: str, key: str) -> int | None:
    match = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def load(root: Path, folder: Path) -> Entry:
    """Read and validate one entry folder."""
    folder_rel = rel(root, folder)
    entry_id = rel(root / "archive", folder)
    for name in REQUIRED_FILES:
        if not (folder / name).is_file():
            raise SiteError(entry_id, f"{folder_rel}/{name}", "required file is missing")
    meta_rel = f"{folder_rel}/meta.toml"
    try:
        text = (folder / "meta.toml").read_bytes().decode("utf-8")
        meta = tomllib.loads(text)
    except UnicodeDecodeError:
        raise SiteError(entry_id, meta_rel, "not UTF-8 text") from None
    except tomllib.TOMLDecodeError as exc:
        found = re.search(r"\(at line (\d+), column \d+\)", str(exc))
        line = int(found.group(1)) if found else None
        message = re.sub(r"\s*\(at line \d+, column \d+\)", "", str(exc))
        raise SiteError(entry_id, meta_rel, f"malformed TOML: {message}", line) from None

    def fail(message: str, key: str | None = None) -> SiteError:
        return SiteError(entry_id, meta_rel, message, _line_of(text, key) if key else None)

    for key in meta:
        if key not in KEYS:
            raise fail(f"unknown key {key!r} (known: {', '.join(KEYS)})", key)
    for key, kind in KEYS.items():
        if key not in meta:
            if key in OPTIONAL:
                continue
            raise fail(f"missing key {key!r}")
        value = meta[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            expected = {str: "a string", int: "an integer", list: "a list"}.get(kind, "a number")
            raise fail(f"{key!r} must be {expected}, not {type(value).__name__}", key)
        if isinstance(value, str) and not value.strip():
            raise fail(f"{key!r} is empty", key)
    for key in ("techniques", "sources"):
        if not meta[key] or not all(isinstance(v, str) and v.strip() for v in meta[key]):
            raise fail(f"{key!r} must be a non-empty list of non-empty strings", key)
    if not re.fullmatch(r"https?://\S+", meta["link"]):
        raise fail("'link' must be an http(s) URL", "link")
    if "year" in meta and not 1900 <= meta["year"] <= 2999:
        raise fail(f"'year' {meta['year']} is not a plausible year", "year")
    compare = parse_compare(meta["compare"])
    if compare is None:
        raise fail(
            f'\'compare\' must be "exact" or "float TOL", not {meta["compare"]!r}', "compare"
        )
    timeout = float(meta.get("timeout", DEFAULT_TIMEOUT))
    if not 0 < timeout <= 3600:
        raise fail("'timeout' must be between 0 and 3600 seconds", "timeout")

    sources = []
    for i, source in enumerate(meta["sources"]):
        path = repo_path(root, source, entry_id, meta_rel, f"sources[{i}]")
        sources.append(rel(root, path))
    if len(set(sources)) != len(sources):
        raise fail("'sources' lists a file twice", "sources")

    samples = _samples(root, folder, entry_id, meta_rel, meta.get("samples"), fail)
    if not samples:
        raise SiteError(entry_id, f"{folder_rel}/samples", "an entry needs at least one sample")
    return Entry(
        id=entry_id,
        folder=folder_rel,
        title=meta["title"].strip(),
        contest=meta["contest"].strip(),
        year=meta.get("year"),
        problem=meta["problem"].strip(),
        link=meta["link"],
        techniques=[t.strip() for t in meta["techniques"]],
        command=meta["command"].strip(),
        sources=sources,
        compare=compare,
        samples=samples,
        timeout=timeout,
    )


def _natural(name: str) -> list:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _samples(root, folder, entry_id, meta_rel, listed, fail) -> list[Sample]:
    """The samples named in meta, or every ``samples/*.in`` with its ``.ans`` when unnamed."""
    if listed is None:
        pairs = []
        sample_dir = folder / "samples"
        inputs = sorted(sample_dir.glob("*.in"), key=lambda p: _natural(p.name))
        for path in inputs:
            answer = path.with_suffix(".ans")
            if not answer.is_file():
                raise SiteError(
                    entry_id, rel(root, answer), f"answer of sample {path.name} is missing"
                )
            pairs.append((rel(root, path), rel(root, answer)))
        for path in sorted(sample_dir.glob("*.ans")):
            if not path.with_suffix(".in").is_file():
                raise SiteError(entry_id, rel(root, path), "answer without an input (.in) file")
    else:
        pairs = []
        folder_rel = rel(root, folder)
        for i, item in enumerate(listed):
            if not isinstance(item, dict) or set(item) != {"input", "answer"}:
                raise fail(f"samples[{i}] must have exactly the keys 'input' and 'answer'", "input")
            found = []
            for key in ("input", "answer"):
                value = item[key]
                if not isinstance(value, str):
                    raise fail(f"samples[{i}].{key} must be a string path", key)
                # Sample paths are relative to the entry folder.
                path = repo_path(
                    root, f"{folder_rel}/{value}", entry_id, meta_rel, f"samples[{i}].{key}"
                )
                found.append(rel(root, path))
            pairs.append((found[0], found[1]))
    names = [Path(inp).stem for inp, _ in pairs]
    if len(set(names)) != len(names):
        raise fail("two samples have the same input file name", "samples")
    return [Sample(Path(inp).stem, inp, ans) for inp, ans in pairs]
