"""The ICPC/Kattis problem package format (https://www.kattis.com/problem-package-format):
a folder per problem, found by its ``problem.yaml``::

    problem.yaml                  name, source, source_url, limits, validation
    problem_statement/problem.en.tex   (or .md; statement/ in the 2023 format)
    data/sample/*.in  *.ans       the samples
    data/secret/**/*.in  *.ans    the judge data, in nested groups
    submissions/accepted/*        the shown solution: the first one a built-in runner runs
    output_validators/NAME/       a custom validator, passed on as checker "kattis:..."

The keys of ``meta.toml`` come from ``problem.yaml`` (title, contest and link from
``name``, ``source`` and ``source_url``; the time limit from ``limits``; the year from
``source`` when it names one, else from the first commit of the folder) and the problem's
short name (its folder's name) is the problem code.
"""

from __future__ import annotations

import functools
import re
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from perfectplay.site.config import Config
from perfectplay.site.errors import SiteError
from perfectplay.site.importers.common import (
    entry_id,
    matches,
    natural,
    pairs,
    read_inside,
    under,
    year_of,
)
from perfectplay.site.importers.found import Found
from perfectplay.site.repo import Git
from perfectplay.site.runners import RUNNERS, runner_for

__all__ = ["STATEMENTS", "find", "found_in"]

#: Where a package keeps its statement, in the order they are preferred (English first).
STATEMENTS = tuple(
    f"{folder}/problem{lang}.{ext}"
    for folder in ("problem_statement", "statement")
    for lang in (".en", "")
    for ext in ("md", "tex")
)
WRITEUPS = ("problem_statement/solution.en.tex", "problem_statement/solution.tex")


def find(root: Path, config: Config) -> list[Callable[[], Found | None]]:
    """Every folder holding ``problem.yaml`` that ``entries`` matches (default: anywhere)."""
    git = Git(root)
    return [
        functools.partial(found_in, root, path.parent, base, config, git)
        for path, base in matches(root, config.entries, "/problem.yaml")
        if path.is_file()
    ]


def found_in(root: Path, folder: Path, base: str, config: Config, git: Git | None = None) -> Found:
    """What the package in ``folder`` says about itself."""
    ident = entry_id(root, base, folder)
    meta_file = under(root, folder / "problem.yaml")
    text = read_inside(root, folder / "problem.yaml", ident)
    yaml_data = _yaml(text, ident, meta_file)
    statement = next((under(root, folder / s) for s in STATEMENTS if (folder / s).is_file()), None)
    meta: dict[str, Any] = {"problem": folder.name}
    name = yaml_data.get("name")
    if isinstance(name, dict):  # the 2023 format: a name per language
        name = name.get("en") or next(iter(name.values()), None)
    if not isinstance(name, str) and statement and statement.endswith(".tex"):
        found = re.search(r"\\problemname\{([^}]*)\}", read_inside(root, root / statement, ident))
        name = found.group(1) if found else None
    meta["title"] = name.strip() if isinstance(name, str) and name.strip() else folder.name
    source = yaml_data.get("source")
    if isinstance(source, dict):
        yaml_data.setdefault("source_url", source.get("url"))
        source = source.get("name")
    meta["contest"] = source.strip() if isinstance(source, str) and source.strip() else "Kattis"
    url = yaml_data.get("source_url")
    if isinstance(url, str) and re.fullmatch(r"https?://\S+", url.strip()):
        meta["link"] = url.strip()
    year = re.search(r"\b(19|20)\d\d\b", meta["contest"])
    if year:
        meta["year"] = int(year.group(0))
    elif git is not None and (first := year_of(git, root, folder)) is not None:
        meta["year"] = first
    limits = yaml_data.get("limits")
    if isinstance(limits, dict) and isinstance(limits.get("time_limit"), int | float):
        meta["timeout"] = float(limits["time_limit"])
    compare = _compare(yaml_data.get("validator_flags"))
    if compare is not None:
        meta["compare"] = compare
    validators = folder / "output_validators"
    if _custom(yaml_data) and validators.is_dir():
        programs = sorted(p for p in validators.iterdir() if not p.name.startswith("."))
        if programs:
            program = _program(root, programs[0], config, ident)
            meta["checker"] = f"kattis:{program.relative_to(folder).as_posix()}"
    data = folder / "data"
    return Found(
        folder,
        ident,
        meta,
        meta_file,
        statement=statement,
        writeup=next((under(root, folder / w) for w in WRITEUPS if (folder / w).is_file()), None),
        solution=_accepted(root, folder, ident),
        samples=pairs(root, data / "sample", ident),
        tests=pairs(root, data / "secret", ident, recursive=True),
        derived=True,
    )


def _program(root: Path, path: Path, config: Config, ident: str) -> Path:
    """The source file of a validator: ``path`` itself, or the one program of the folder
    ``path`` (the format's program in a directory: ``validate.py``, or ``validate.cpp``
    with the headers it includes). Of several sources, the one named ``validate`` (or
    ``validator``) is the program."""
    if not path.is_dir():
        return path
    sources = sorted(
        p for p in path.iterdir() if p.is_file() and runner_for(p.name, config.languages)
    )
    named = [p for p in sources if p.stem in ("validate", "validator")]
    if len(sources) == 1 or len(named) == 1:
        return sources[0] if len(sources) == 1 else named[0]
    names = ", ".join(p.name for p in sources)
    raise SiteError(
        ident,
        under(root, path),
        f"several programs in the validator's folder ({names}): name the one to run validate.EXT"
        if sources
        else "no program in the validator's folder (a source file in a language the builder runs)",
    )


def _yaml(text: str, ident: str, meta_file: str) -> dict[str, Any]:
    try:
        import yaml  # type: ignore[import-untyped]
    except ImportError:  # pragma: no cover - PyYAML comes with the site extra
        raise SiteError(
            ident, meta_file, "reading problem.yaml needs PyYAML (pip install pyyaml)"
        ) from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = mark.line + 1 if mark is not None else None
        raise SiteError(ident, meta_file, f"malformed YAML: {exc}".splitlines()[0], line) from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SiteError(ident, meta_file, "problem.yaml must be a mapping of keys")
    return data


def _custom(data: dict[str, Any]) -> bool:
    """Whether the package's output is checked by its own validator."""
    validation = data.get("validation", "")
    return "custom" in str(validation) or isinstance(data.get("custom_validation"), str)


def _compare(flags: Any) -> str | None:
    """The default validator's comparison when its flags give a float tolerance; None: the
    judges' default comparison.

    >>> _compare("float_tolerance 1e-6"), _compare(None)
    ('float 1e-06', None)
    """
    words = str(flags or "").split()
    for i, word in enumerate(words[:-1]):
        if word in ("float_tolerance", "float_absolute_tolerance", "float_relative_tolerance"):
            try:
                tol = float(words[i + 1])
            except ValueError:
                continue
            return f"float {tol:g}"
    return None


def _installed(name: str) -> str | None:
    runner = runner_for(name)
    assert runner is not None
    return shutil.which(runner.tool) if runner.compiled else sys.executable


def _accepted(root: Path, folder: Path, ident: str) -> str:
    """The accepted submission the page shows and runs: the first, in name order, that a
    built-in runner builds (a wrong_answer/ or time_limit_exceeded/ one is never shown)."""
    accepted = folder / "submissions" / "accepted"
    files = (
        sorted((p for p in accepted.iterdir() if p.is_file()), key=lambda p: natural(p.name))
        if accepted.is_dir()
        else []
    )
    runnable = [p for p in files if runner_for(p.name) is not None]
    # A language whose compiler is installed first: the page shows what the build can run.
    runnable.sort(key=lambda p: _installed(p.name) is None)
    if runnable:
        return under(root, runnable[0])
    known = ", ".join(e for r in RUNNERS.values() for e in r.extensions)
    raise SiteError(
        ident,
        under(root, accepted),
        f"no accepted submission in a language with a built-in runner ({known})",
    )
