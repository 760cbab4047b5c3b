"""Archive entries: finding the folders under ``archive/`` and reading their ``meta.toml``.

An entry is data: a folder with ``meta.toml``, ``statement.md``, ``solution.tex`` and its
samples (the format is in ``archive/README.md``). Everything here only validates and
resolves paths; nothing is run or rendered.

An entry that names its gallery package (``package = "alea"``) shows every file of
``src/perfectplay/problems/alea/`` and every module of the core it imports, directly or
through another shown core module (:func:`package_sources`); its command is
``perfectplay alea``. Entries outside the gallery list ``sources`` and ``command`` instead.
"""

from __future__ import annotations

import ast
import concurrent.futures as cf
import functools
import os
import re
import shutil
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from perfectplay.site.cache import Store, builder_version, digest
from perfectplay.site.checkers import Compare, parse_checker, parse_compare
from perfectplay.site.config import Config
from perfectplay.site.errors import SiteError
from perfectplay.site.importers import find
from perfectplay.site.importers.common import written_or_hidden
from perfectplay.site.importers.found import Found
from perfectplay.site.languages import java_main_class
from perfectplay.site.repo import rel, repo_path
from perfectplay.site.runners import RUNNERS, Included, Runner, includes, runner_for
from perfectplay.site.sandbox import Jail

__all__ = ["Compare", "Entry", "Found", "Sample", "discover", "load", "make_entry", "parse_compare"]

REQUIRED_FILES = ("meta.toml", "statement.md", "solution.tex")
# Any of these marks a folder as an entry, which then must be complete.
ENTRY_MARKERS = (*REQUIRED_FILES, "samples")
KEYS: dict[str, Any] = {
    "title": str,
    "contest": str,
    "year": int,
    "problem": str,
    "package": str,
    "link": str,
    "techniques": list,
    "command": str,
    "sources": list,
    "compare": str,
    "samples": list,
    "timeout": (int, float),
    "checker": str,
    "time_limit": (int, float),
    "memory_limit": int,
    "interactor": str,
}
# A year the sources cannot confirm is left out rather than guessed: the page says so.
# A classic game (not a contest problem) leaves out both "contest" and "problem".
OPTIONAL = {
    "samples",
    "timeout",
    "year",
    "package",
    "command",
    "sources",
    "checker",
    "time_limit",
    "memory_limit",
    "interactor",
    "contest",
    "problem",
}
#: The parts of perfectplay an entry's page shows when its package imports them.
CORE = (
    "graphs/",
    "solvers/",
    "analysis/",
    "models/",
    "objectives.py",
    "results/",
    "lattice/",
    "lattice.py",
    "yahtzee/",
    "reports.py",
    "text/",
    "frontdoor.py",
)
PROBLEMS = "src/perfectplay/problems"
#: ast.parse from several threads at once can fail in CPython 3.11 ("AST constructor
#: recursion depth mismatch"); entries load in threads, so parsing takes turns.
_PARSING = threading.Lock()
DEFAULT_TIMEOUT = 120.0
DEFAULT_OUTPUT_LIMIT = 8 << 20


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
    contest: str  # "" for a classic game
    year: int | None  # None: not known
    problem: str  # "" for a classic game
    package: str | None
    link: str
    techniques: list[str]
    command: str
    sources: list[str]
    compare: Compare
    samples: list[Sample] = field(default_factory=list)
    timeout: float = DEFAULT_TIMEOUT
    output_limit: int = DEFAULT_OUTPUT_LIMIT
    runner: str | None = None  # a built-in runner's language (site.runners.RUNNERS)
    solution_file: str | None = None  # the file the runner builds
    included: list[str] = field(default_factory=list)  # files it includes, transitively
    headers: list[str] = field(default_factory=list)  # stamps of the system headers it reads
    sources_listed: bool = True  # False: the runner's files, found rather than listed
    tests: list[Sample] = field(default_factory=list)  # judge data: tests/N.in, tests/N.ans
    checker: Compare | None = None  # how samples and tests are judged, when not by a program
    checker_protocol: str = ""  # how the checker program is called (site.checkers.PROTOCOLS)
    checker_file: str | None = None  # a checker program
    checker_included: list[str] = field(default_factory=list)
    checker_headers: list[str] = field(default_factory=list)
    memory_limit: int | None = None  # MB of address space a run may use (None: the sandbox's)
    interactor_file: str | None = None  # a program talking with the solution (testlib's way)
    interactor_included: list[str] = field(default_factory=list)
    interactor_headers: list[str] = field(default_factory=list)
    meta: str = ""  # the file its keys come from: meta.toml, problem.yaml, the test file
    statement: str | None = None  # the statement (Markdown, or LaTeX when .tex); None: none
    solution: str | None = None  # the write-up (LaTeX); None: the repository has none
    own_folder: bool = True  # the folder is this entry's alone (site.importers.found.Found)

    @property
    def missing(self) -> list[str]:
        """What the repository does not hold for this entry: the page says so."""
        return [
            what
            for what, there in (
                ("statement", self.statement),
                ("write-up", self.solution),
                ("samples", self.samples),
            )
            if not there
        ]

    @property
    def tests_folder(self) -> str:
        """The folder that holds the judge data (the tests' common folder)."""
        if not self.tests:
            return f"{self.folder}/tests"
        return os.path.commonpath([str(Path(t.input).parent) for t in self.tests])

    @property
    def classic(self) -> bool:
        """A classic game (no contest, no problem letter): listed apart on the index."""
        return not self.problem

    @property
    def heading(self) -> str:
        """The page's title: ``"K. Alea Iacta Est"``, or the title alone for a classic game."""
        return f"{self.problem}. {self.title}" if self.problem else self.title

    @property
    def contest_year(self) -> str:
        """The contest and its year, the year once (``NWERC 2019`` names it already).

        >>> e = Entry("x", "x", "T", "NWERC 2019", 2019, "A", None, "", [], "", [], None)
        >>> e.contest_year, replace(e, contest="NWERC").contest_year
        ('NWERC 2019', 'NWERC 2019')
        """
        if self.year is None or re.search(rf"\b{self.year}\b", self.contest):
            return self.contest
        return f"{self.contest} {self.year}"

    @property
    def url(self) -> str:
        """Site path of the entry's page."""
        return f"archive/{self.id}/index.html"


def discover(
    root: Path,
    config: Config | None = None,
    jail: Jail | None = None,
    jobs: int = 1,
    store: Store | None = None,
    failures: dict[str, SiteError] | None = None,
) -> list[Entry]:
    """All entries of the archive at ``root``, sorted by id, each validated (``jobs`` at
    once: a C or C++ entry asks its preprocessor, in ``jail``, what it includes, unless
    ``store`` remembers the answer for the same files). With ``failures``, an entry that
    cannot be read (a bad ``meta.toml``, a missing file) is left out and its error kept
    there under its id, instead of stopping the build.

    Entry folders are those under ``archive/`` (perfectplay's layout), or those matching the
    ``entries`` patterns of ``site.toml``; an entry's id is its folder relative to the
    literal start of its pattern (``competitive_programming/*/*/*`` gives ``icpc/2023/K-x``).
    A repository in another layout (``layout`` in ``site.toml``) is read by its importer.
    """
    config = config or Config()
    if config.layout != "perfectplay":

        def read(reader: Callable[[], Found | None]) -> Entry | None:
            found = reader()
            return None if found is None else make_entry(root, found, config, jail, store)

        readers = find(root, config)
        _refuse_unmatched(config, bool(readers), lambda c: bool(find(root, c)))
        return _checked(_load_all(readers, read, jobs, failures))
    found = _entry_folders(root, config)
    _refuse_unmatched(config, bool(found), lambda c: bool(_entry_folders(root, c)))
    folders = sorted(found.items(), key=lambda item: item[0].as_posix())

    def attempt(item: tuple[Path, str]) -> Entry | None:
        return load(root, item[0], item[1], config, jail, store)

    return _checked(_load_all(folders, attempt, jobs, failures))


def _refuse_unmatched(config: Config, any_found: bool, finds: Callable[[Config], bool]) -> None:
    """Refuse the ``entries`` patterns of ``site.toml`` that find no entry (``finds``: whether
    the tree has an entry under a config): a pattern with a typo would publish a site
    without them, or an empty one, in place of the last."""
    if not config.entries_given:
        return
    patterns = config.entries
    if any_found and len(patterns) > 1:
        patterns = tuple(p for p in patterns if not finds(replace(config, entries=(p,))))
    elif any_found:
        return
    if patterns:
        said = ", ".join(repr(p) for p in patterns)
        raise SiteError(
            "",
            "site.toml",
            f"'entries' pattern{'s' if len(patterns) > 1 else ''} {said} "
            f"match{'' if len(patterns) > 1 else 'es'} no entry folder",
        )


def _entry_folders(root: Path, config: Config) -> dict[Path, str]:
    """The entry folders of perfectplay's layout the ``entries`` patterns find, each with
    its pattern's literal folder."""
    found: dict[Path, str] = {}
    hidden = written_or_hidden(root)
    for pattern in config.entries:
        base = config.base_of(pattern)
        if pattern.endswith("/**") and base == pattern[:-3]:
            archive = root / base
            if not archive.is_dir():
                if config.own:
                    raise SiteError("", base, f"no {base}/ folder in the repository")
                continue
            # Any marker below the base marks its folder as an entry.
            candidates = {
                f.parent for m in ENTRY_MARKERS for f in archive.rglob(m) if f.parent != archive
            }
        else:
            candidates = {p for p in root.glob(pattern) if p.is_dir()}
        for folder in candidates:
            # Not the raw copies of a site a build wrote: `entries = ["**"]` published the
            # previous build's site-out/raw/ as entries, one more copy each build.
            if hidden(folder):
                continue
            if not any((folder / m).exists() for m in ENTRY_MARKERS):
                continue  # a folder the pattern matches that holds no entry
            found.setdefault(folder, base)
    return found


def _load_all(
    items: list[Any],
    load_one: Callable[[Any], Entry | None],
    jobs: int,
    failures: dict[str, SiteError] | None,
) -> list[Entry]:
    """Load every item, ``jobs`` at once; with ``failures``, an entry's own error (one
    that names the entry) is kept there under its id instead of stopping the build."""

    def attempt(item: Any) -> Entry | SiteError | None:
        try:
            return load_one(item)
        except SiteError as exc:
            if failures is None or not exc.where:
                raise  # the build's own problem, not the entry's
            return exc

    with cf.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        # map() raises the first error in folder order: the message does not depend on timing.
        loaded = list(pool.map(attempt, items))
    entries = []
    for found_entry in loaded:
        if isinstance(found_entry, SiteError):
            assert failures is not None
            failures[found_entry.where] = found_entry
        elif found_entry is not None:
            entries.append(found_entry)
    return entries


def _checked(entries: list[Entry]) -> list[Entry]:
    """The entries sorted by id, which must differ."""
    seen: dict[str, str] = {}
    for e in entries:
        if e.id in seen:
            raise SiteError(e.id, e.folder, f"same entry id as {seen[e.id]}: patterns overlap")
        seen[e.id] = e.folder
    return sorted(entries, key=lambda e: e.id)


def _line_of(text: str, key: str) -> int | None:
    match = re.search(rf"^\s*{re.escape(key)}\s*=", text, re.MULTILINE)
    return text.count("\n", 0, match.start()) + 1 if match else None


def load(
    root: Path,
    folder: Path,
    base: str = "archive",
    config: Config | None = None,
    jail: Jail | None = None,
    store: Store | None = None,
) -> Entry:
    """Read and validate one entry folder in perfectplay's layout (its id: the folder
    relative to ``base``). perfectplay's own archive needs every file of
    :data:`REQUIRED_FILES`; someone else's needs only ``meta.toml`` (the page says what
    else is missing)."""
    config = config or Config()
    folder_rel = rel(root, folder)
    entry_id = rel(root / base, folder)
    for name in REQUIRED_FILES if config.own else ("meta.toml",):
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
    read = Found(
        folder,
        entry_id,
        meta,
        meta_rel,
        text,
        statement=_present(folder, folder_rel, "statement.md"),
        writeup=_present(folder, folder_rel, "solution.tex"),
        strict=config.own,
    )
    return make_entry(root, read, config, jail, store)


def _present(folder: Path, folder_rel: str, name: str) -> str | None:
    """``folder_rel/name`` when the folder holds that file (a link is followed only when
    the page shows it, by :meth:`~perfectplay.site.tree.Tree.check_inside`)."""
    return f"{folder_rel}/{name}" if (folder / name).is_file() else None


def make_entry(
    root: Path,
    found: Found,
    config: Config | None = None,
    jail: Jail | None = None,
    store: Store | None = None,
) -> Entry:
    """The validated :class:`Entry` of what an importer found."""
    config = config or Config()
    folder = found.folder
    folder_rel = rel(root, folder)
    entry_id = found.id
    meta_rel, text = found.meta_file, found.meta_text
    meta = found.meta
    if found.derived:
        # Keys a repository in another layout has no place for: the page shows none.
        meta = {"title": folder.name, "techniques": [], "compare": _judges_compare(), **meta}

    def fail(message: str, key: str | None = None) -> SiteError:
        return SiteError(entry_id, meta_rel, message, _line_of(text, key) if key else None)

    for key in meta:
        if key not in KEYS:
            raise fail(f"unknown key {key!r} (known: {', '.join(KEYS)})", key)
    for key, kind in KEYS.items():
        if key not in meta:
            if key in OPTIONAL or (found.derived and key == "link"):
                continue
            raise fail(f"missing key {key!r}")
        value = meta[key]
        if not isinstance(value, kind) or isinstance(value, bool):
            expected = {str: "a string", int: "an integer", list: "a list"}.get(kind, "a number")
            raise fail(f"{key!r} must be {expected}, not {type(value).__name__}", key)
        if isinstance(value, str) and not value.strip():
            raise fail(f"{key!r} is empty", key)
    if ("contest" in meta) != ("problem" in meta):
        given, missing = ("contest", "problem") if "contest" in meta else ("problem", "contest")
        raise fail(
            f"missing key {missing!r} (a contest problem gives both 'contest' and 'problem'; "
            "a classic game neither)",
            given,
        )
    if "year" in meta and "contest" not in meta:
        raise fail("'year' is the contest's year: a classic game has none", "year")
    for key in ("techniques", "sources"):
        if key in meta and (
            not (meta[key] or found.derived)
            or not all(isinstance(v, str) and v.strip() for v in meta[key])
        ):
            raise fail(f"{key!r} must be a non-empty list of non-empty strings", key)
    package = meta.get("package")
    runner: Runner | None = None
    solution_file: str | None = None
    if found.solution is not None:
        solution_file = found.solution
        runner = _runner_of(entry_id, solution_file, config)
    elif package is None and "command" not in meta:
        # No command: the built-in runner of the folder's solution.<ext>.
        named = sorted(
            p.name
            for p in folder.iterdir()
            if p.stem == "solution" and p.suffix != ".tex" and p.is_file()
        )
        if not named:
            raise fail(
                "missing key 'command' (or 'package', naming a gallery problem, "
                "or a solution.<ext> file for a built-in runner)"
            )
        if len(named) > 1:
            raise SiteError(
                entry_id,
                f"{folder_rel}/{named[0]}",
                f"several solution files ({', '.join(named)}): keep one or give a 'command'",
            )
        solution_file = f"{folder_rel}/{named[0]}"
        runner = _runner_of(entry_id, solution_file, config)
    elif package is None:
        for key in ("command", "sources"):
            if key not in meta:
                raise fail(f"missing key {key!r} (or 'package', naming a gallery problem)")
    else:
        for key in ("command", "sources"):
            if key in meta:
                raise fail(f"{key!r} comes from 'package'; give one or the other", key)
        if (
            not re.fullmatch(r"[a-z][a-z0-9_]*", package)
            or not (root / PROBLEMS / package / "__init__.py").is_file()
        ):
            raise fail(f"'package' {package!r} is not a package in {PROBLEMS}/", "package")
    if "link" in meta and not re.fullmatch(r"https?://\S+", meta["link"]):
        raise fail("'link' must be an http(s) URL", "link")
    if "year" in meta and not 1900 <= meta["year"] <= 2999:
        raise fail(f"'year' {meta['year']} is not a plausible year", "year")
    compare = parse_compare(meta["compare"])
    if compare is None:
        raise fail(
            f'\'compare\' must be "exact", "tokens", "tokens-nocase" or "float ABS [REL]", '
            f"not {meta['compare']!r}",
            "compare",
        )
    if "timeout" in meta and "time_limit" in meta:
        raise fail("'time_limit' and 'timeout' say the same: give one", "time_limit")
    limit_key = "time_limit" if "time_limit" in meta else "timeout"
    timeout = float(meta.get(limit_key, config.time_limit))
    if not 0 < timeout <= 3600:
        raise fail(f"{limit_key!r} must be between 0 and 3600 seconds", limit_key)
    memory_limit = meta.get("memory_limit", config.memory_limit)
    if memory_limit is not None and not 1 <= memory_limit <= 1 << 20:
        raise fail("'memory_limit' must be between 1 and 1048576 MB", "memory_limit")

    sources = []
    if package is not None:
        sources = package_sources(root, package)
    for i, source in enumerate(meta.get("sources", ())):
        path = repo_path(root, source, entry_id, meta_rel, f"sources[{i}]")
        sources.append(rel(root, path))
    included: list[str] = []
    headers: list[str] = []
    if runner is not None and solution_file is not None:
        if runner.scans_includes:
            read = _includes(root, solution_file, entry_id, config, jail, store)
            included, headers = read.tree, read.stamp()
        elif runner.language == "python" and not runner.run_template:
            included = local_imports(root, solution_file)
        if "sources" not in meta:
            sources = [solution_file, *included]
    if len(set(sources)) != len(sources):
        raise fail("'sources' lists a file twice", "sources")
    if runner is not None and solution_file is not None:
        main = None
        if runner.language == "java":
            main = java_main_class((root / solution_file).read_text("utf-8", "replace"))
        command = runner.shown_command(
            Path(solution_file).name, config.flags.get(runner.language, ""), main
        )
    elif package is not None:
        command = f"perfectplay {package}"
    else:
        command = meta["command"].strip()

    if found.samples is not None:
        samples = _named(found.samples)
    else:
        samples = _samples(root, folder, entry_id, meta_rel, meta.get("samples"), fail)
    if not samples and found.strict:
        raise SiteError(entry_id, f"{folder_rel}/samples", "an entry needs at least one sample")
    tests = _named(found.tests) if found.tests is not None else _tests(root, folder, entry_id)
    checker: Compare | None = compare
    protocol = ""
    checker_file: str | None = None
    checker_included: list[str] = []
    checker_headers: list[str] = []
    # The entry's checker, else the site's (a program of the site's is named from the root).
    judge_text: str | None = meta.get("checker")
    base_rel, key = folder_rel, "checker"
    if judge_text is None and config.checker is not None:
        judge_text, base_rel, key = config.checker, "", "site.toml checker"
    if judge_text is not None:
        parsed = parse_checker(judge_text)
        if isinstance(parsed, str):
            if key == "checker":
                raise fail(parsed, "checker")
            raise SiteError("", "site.toml", parsed)
        if isinstance(parsed, Compare):
            checker = parsed
        else:
            protocol, program = parsed
            checker = None
            checker_file, checker_included, checker_headers = _program_file(
                root, base_rel, program, (entry_id, meta_rel, key), "checker", config, jail, store
            )
    interactor: tuple[str | None, list[str], list[str]] = (None, [], [])
    if "interactor" in meta:
        interactor = _program_file(
            root,
            folder_rel,
            meta["interactor"],
            (entry_id, meta_rel, "interactor"),
            "interactor",
            config,
            jail,
            store,
        )
    return Entry(
        id=entry_id,
        folder=folder_rel,
        title=meta["title"].strip(),
        contest=meta.get("contest", "").strip(),
        year=meta.get("year"),
        problem=meta.get("problem", "").strip(),
        package=package,
        link=meta.get("link", ""),
        techniques=[t.strip() for t in meta["techniques"]],
        command=command,
        sources=sources,
        compare=compare,
        samples=samples,
        timeout=timeout,
        output_limit=config.output_limit,
        runner=runner.language if runner else None,
        solution_file=solution_file,
        included=included,
        headers=headers,
        sources_listed=package is not None or "sources" in meta,
        tests=tests,
        checker=checker,
        checker_protocol=protocol,
        checker_file=checker_file,
        checker_included=checker_included,
        checker_headers=checker_headers,
        memory_limit=memory_limit,
        interactor_file=interactor[0],
        interactor_included=interactor[1],
        interactor_headers=interactor[2],
        meta=meta_rel,
        statement=found.statement,
        solution=found.writeup,
        own_folder=found.own_folder,
    )


def _program_file(
    root: Path,
    base: str,
    name: str,
    where: tuple[str, str, str],
    what: str,
    config: Config,
    jail: Jail | None,
    store: Store | None,
) -> tuple[str, list[str], list[str]]:
    """A program of the entry besides its solution (a checker, an interactor), named
    relative to ``base``: its path, and for C and C++ the files of the tree it includes and
    the stamps of the system headers it reads."""
    entry_id, meta_rel, key = where
    path = rel(
        root, repo_path(root, f"{base}/{name}" if base else name, entry_id, meta_rel, f"'{key}'")
    )
    runner = runner_for(path, config.languages)
    if runner is None:
        raise SiteError(
            entry_id,
            path,
            f"no built-in runner for {Path(path).suffix!r} {what}s: write it in one of "
            f"{', '.join(r.name for r in RUNNERS.values())}",
        )
    if runner.compiled and _which(runner.tool) is None:
        raise SiteError(
            entry_id, path, f"the {runner.name} runner needs {runner.tool}, which is not installed"
        )
    if not runner.scans_includes:
        return path, [], []
    read = _includes(root, path, entry_id, config, jail, store)
    return path, read.tree, read.stamp()


def _judges_compare() -> str:
    """The comparison judges use when a problem names none: by token where the builder has
    it (Kattis' default validator, testlib's ``wcmp``), else byte for byte after trimming
    line ends."""
    return "tokens" if parse_compare("tokens") is not None else "exact"


def _runner_of(entry_id: str, solution_file: str, config: Config) -> Runner:
    """The runner of an entry's solution file (built in, or a ``[languages.EXT]``
    template of ``site.toml``), which must be installed."""
    runner = runner_for(solution_file, config.languages)
    if runner is None:
        raise SiteError(
            entry_id,
            solution_file,
            f"no built-in runner for {Path(solution_file).suffix!r} files (known: "
            f"{', '.join(e for r in RUNNERS.values() for e in r.extensions)}): "
            "give a 'command' in meta.toml, or a [languages.EXT] template in site.toml",
        )
    if runner.compiled and _which(runner.tool) is None:
        raise SiteError(
            entry_id,
            solution_file,
            f"the {runner.name} runner needs {runner.tool}, which is not installed "
            "(or give a 'command' in meta.toml)",
        )
    return runner


def _named(pairs: list[tuple[str, str]]) -> list[Sample]:
    """Samples or tests of (input, answer) paths, named by the input's path below the
    folder the pairs share ("secret/group1/01" keeps its groups apart)."""
    stems = [inp.rsplit(".", 1)[0] for inp, _ in pairs]
    common = os.path.commonpath([str(Path(stem).parent) for stem in stems]) if stems else ""
    start = len(common) + 1 if common else 0
    return [Sample(stem[start:], inp, ans) for stem, (inp, ans) in zip(stems, pairs, strict=True)]


def _includes(
    root: Path,
    source: str,
    entry_id: str,
    config: Config,
    jail: Jail | None,
    store: Store | None,
) -> Included:
    """What ``source`` includes: remembered by ``store`` under the tool, the flags and the
    source's bytes, and reused while every file the preprocessor read is unchanged."""
    language = "c" if source.endswith(".c") else "cpp"
    tool = _which(RUNNERS[language].tool)
    flags = config.flags.get(language, "")
    key = None
    if store is not None:
        key = digest([builder_version(), str(tool), flags, source, (root / source).read_bytes()])
        found: Any = store.get("includes", key)
        try:
            read = Included(list(found["tree"]), list(found["system"]))
            if found["files"] == _digests(root, read.tree) and found["stamps"] == read.stamp():
                return read
        except (TypeError, KeyError, ValueError, OSError):
            pass
    read = includes(root, source, entry_id, tool=tool, flags=flags, jail=jail)
    if store is not None and key is not None:
        store.put(
            "includes",
            key,
            {
                "tree": read.tree,
                "system": read.system,
                "files": _digests(root, read.tree),
                "stamps": read.stamp(),
            },
        )
    return read


def _digests(root: Path, files: list[str]) -> list[str]:
    return [digest([(root / path).read_bytes()]) for path in files]


def _natural(name: str) -> list[int | str]:
    return [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]


def _samples(
    root: Path,
    folder: Path,
    entry_id: str,
    meta_rel: str,
    listed: Any,
    fail: Callable[[str, str | None], SiteError],
) -> list[Sample]:
    """The samples named in meta, or every ``samples/*.in`` with its ``.ans`` when unnamed."""
    if listed is None:
        pairs = _pairs(root, folder, "samples", entry_id, "sample")
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


def _which(tool: str) -> str | None:
    """``shutil.which`` asked once per tool and PATH (a build loads many entries)."""
    return _which_on(tool, os.environ.get("PATH", ""))


@functools.lru_cache(maxsize=64)
def _which_on(tool: str, path: str) -> str | None:
    return shutil.which(tool, path=path)


def _tests(root: Path, folder: Path, entry_id: str) -> list[Sample]:
    """The judge data: every ``tests/*.in`` with its ``.ans``, in natural order."""
    return [
        Sample(Path(inp).stem, inp, ans) for inp, ans in _pairs(root, folder, "tests", entry_id)
    ]


def _pairs(
    root: Path, folder: Path, sub: str, entry_id: str, kind: str = ""
) -> list[tuple[str, str]]:
    """Every ``sub/*.in`` of an entry folder with its ``.ans`` (repository-relative), in
    natural order; either without the other is an error. One directory listing; only a
    file that is a symbolic link (or a folder that is one) is resolved and checked."""
    where = folder / sub
    if not where.is_dir():
        return []
    base = f"{rel(root, folder)}/{sub}"
    if where.is_symlink() and not where.resolve().is_relative_to(root.resolve()):
        raise SiteError(entry_id, base, "a link to a folder outside the repository")
    with os.scandir(where) as listing:
        files = {e.name: e.is_symlink() or where.is_symlink() for e in listing if e.is_file()}

    def checked(name: str) -> str:
        path = f"{base}/{name}"
        if files[name]:
            return rel(root, repo_path(root, path, entry_id, path, "file"))
        return path

    pairs = []
    for name in sorted((n for n in files if n.endswith(".in")), key=_natural):
        answer = name[:-3] + ".ans"
        if answer not in files:
            if kind:
                raise SiteError(entry_id, f"{base}/{answer}", f"answer of {kind} {name} is missing")
            raise SiteError(entry_id, f"{base}/{name}", f"test {name} has no answer ({answer})")
        pairs.append((checked(name), checked(answer)))
    for name in sorted(files):
        if name.endswith(".ans") and name[:-4] + ".in" not in files:
            raise SiteError(entry_id, f"{base}/{name}", "answer without an input (.in) file")
    return pairs


# The template's files in the order a reader follows the solution; other files of the
# package come between the graph and the result.
_READING_ORDER = {
    "__init__.py": 0,
    "instance.py": 1,
    "model.py": 2,
    "build.py": 3,
    "solution.py": 4,
    "report.py": 5,
    "cli.py": 6,
}


def package_sources(root: Path, package: str) -> list[str]:
    """The files an entry of gallery package ``package`` shows, repository-relative.

    First every file of the package (the template's files in reading order, any others
    after the graph), then the core
    modules (:data:`CORE`) those files import, and the core modules those import in turn,
    by path. Imports are read from the files' syntax trees; nothing is imported.
    """
    folder = root / PROBLEMS / package
    own = sorted(
        (
            p
            for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
        ),
        key=lambda p: (_READING_ORDER.get(rel(folder, p), 3.5), rel(root, p)),
    )
    src = root / "src"
    core: set[str] = set()
    todo = [p for p in own if p.suffix == ".py"]
    while todo:
        path = todo.pop()
        for found in _imported_files(src, path):
            shown = rel(src / "perfectplay", found)
            if shown.startswith(CORE) or shown in CORE:
                path_rel = rel(root, found)
                if path_rel not in core:
                    core.add(path_rel)
                    todo.append(found)
    return [rel(root, p) for p in own] + sorted(core)


def local_imports(root: Path, source: str) -> list[str]:
    """The modules of the tree a Python program imports from its own folder (the first
    folder on its ``sys.path``), directly or through one another, repository-relative in
    name order: ``from helper import f`` beside ``solution.py`` finds ``helper.py``. Read
    from the syntax trees; nothing is imported. A link out of the repository is left out.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / "a.py").write_text("import b\\nfrom c.d import x\\nimport os\\n")
    ...     _ = (Path(d) / "b.py").write_text("from e import y\\n")
    ...     for name in ("c/d.py", "e.py"):
    ...         (Path(d) / name).parent.mkdir(exist_ok=True)
    ...         _ = (Path(d) / name).write_text("")
    ...     local_imports(Path(d), "a.py")
    ['b.py', 'c/d.py', 'e.py']
    """
    path = root / source
    folder = path.parent
    found: set[Path] = set()
    todo = [path]
    while todo:
        for module in _imported_files(folder, todo.pop()):
            if module not in found and module != path and module.resolve().is_relative_to(root):
                found.add(module)
                todo.append(module)
    return sorted(rel(root, p) for p in found)


def _imported_files(src: Path, path: Path) -> list[Path]:
    """The files of ``src`` that the imports of the module at ``path`` load."""
    try:
        with _PARSING:
            tree = ast.parse(path.read_bytes(), filename=str(path))
    except (SyntaxError, ValueError):
        return []  # the page shows the file as it is; its imports cannot be known
    parts = list(path.relative_to(src).with_suffix("").parts)
    here = parts if parts[-1] == "__init__" else parts[:-1]
    if here and here[-1] == "__init__":
        here = here[:-1]
    found: list[Path] = []

    def module_file(name: str) -> Path | None:
        stem = src.joinpath(*name.split("."))
        for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
            if candidate.is_file():
                return candidate
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            hits = [module_file(a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = here[: len(here) - node.level + 1] if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            # ``from pkg import name``: the submodule pkg/name.py when there is one, else
            # the file that defines the name (pkg's own).
            hits = [module_file(f"{module}.{a.name}") or module_file(module) for a in node.names]
        else:
            continue
        found += [h for h in hits if h is not None and h != path]
    return found
