"""The gallery: one package per solved problem, all of one shape, found by a registry.

Every problem package has the same files (copy ``problems/_template/`` to start one, and
read ``docs/adding-a-problem.md``):

* ``__init__.py``: the package's public API, cheap to import (no numpy or numba);
* ``instance.py``: ``parse(text) -> Instance``, raising
  :class:`~perfectplay.errors.InputError` with the line of the first bad input;
* ``build.py`` or ``model.py``: the graph (or the model the explorer turns into one);
* ``solution.py``: the result plus the problem's decoder (its states in its own words);
* ``report.py``: ``format(solution) -> str``, the official output, and
  ``explain(solution) -> str``, the answer in words;
* ``cli.py``: the registry entry ``PROBLEM``, a :class:`Problem`: its flags as data and
  its hooks (parse, solve, format, explain, ...); the command line (``perfectplay.cli``)
  runs every entry through one runner, and no problem imports it.

:data:`REGISTRY` maps each command name to its :class:`Problem`. It is discovered from the
subpackages of this package (names starting with ``_`` are skipped), so adding a problem
edits neither this file, nor the command line, nor the site. Discovery imports only each
package's ``cli.py``, which imports the standard library, this module and
:mod:`perfectplay.text` (no numpy, no numba; its hooks import the solver when they run):
``perfectplay --help`` stays instant.

>>> from perfectplay.problems import REGISTRY, discover
>>> REGISTRY["alea"].title
'Alea Iacta Est'
>>> sorted(REGISTRY) == sorted(discover())
True
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Any, NamedTuple

__all__ = ["Options", "Problem", "REGISTRY", "answer_json", "discover", "get", "hook"]

#: Inputs larger than this are refused before they are parsed (see ``read_input``).
DEFAULT_MAX_INPUT_BYTES = 64 << 20


#: A hook's view of the command line's options: the parsed arguments (``args.json``,
#: ``args.explain``, ``args.digits`` and the problem's own flags).
Options = argparse.Namespace


class Problem(NamedTuple):
    """A gallery problem as the command line and the site see it: text, flags and hooks.

    The generic runner (:mod:`perfectplay.cli.problem`) reads ``FILE`` (or stdin, or the
    :attr:`example`), then calls the hooks in turn and prints what they return; it owns
    the shared flags (``--example``, ``--json``, ``-q``, and ``--explain``, ``--exact``,
    ``--distribution K``, ``--digits N`` where the problem declares them) and the error
    rules. Every hook receives the parsed options as its last argument; errors are
    :class:`~perfectplay.errors.PerfectplayError` (an
    :class:`~perfectplay.errors.InputError` with the line for bad input).

    Attributes:
        name: the command, ``perfectplay NAME``; also the package name.
        title: the problem's title as its contest gives it.
        summary: one line for ``perfectplay --help`` and the CLI reference.
        description: the ``--help`` text: the rules in brief, the input and the output.
        examples: the ``--help`` epilog, one command a line.
        example: an input in the official format, solved by ``--example``.
        parse: ``parse(text, options) -> instance``.
        solve: ``solve(instance, options) -> solution``.
        format: ``format(solution, options)``: the text to print, the official output
            (the problem decides how ``--exact`` shows in it): a string, or an iterable
            of strings written as they come (long answers, progress in the output).
        explain: ``explain(solution, options)``: what ``--explain`` prints instead of
            :attr:`format` (the answer and why).
        exact: ``exact(solution, options) -> str``: a block printed after the answer with
            ``--exact``, when the exact value does not replace the answer itself.
        distribution: ``distribution(solution, k, options) -> str``: the block printed
            after the answer with ``--distribution K``.
        to_json: ``to_json(solution, options)``: the objects ``--json`` prints, one a
            line: each a dict (the runner writes it), or an iterable of strings that
            together spell one JSON object (an answer too long to hold in memory).
        separator: what stands between the answer and the ``exact`` and
            ``distribution`` blocks.
        explain_help, exact_help, distribution_help: the help of ``--explain``,
            ``--exact`` and ``--distribution K``; ``None``: the problem has no such flag.
        digits: the decimals of the floats the answer prints by default; ``--digits N``
            changes them (``None``: the answer has no floats, and no such flag).
        add_options: adds the problem's own flags to an argparse parser (importing only
            argparse and :mod:`perfectplay.text.arguments`).
        check: ``check(options)``: a usage error as one message (``None``: all is well),
            reported the way argparse reports one.
        read: ``read(options) -> text``: the input, for a command that does not read
            ``FILE`` (``with_file=False``).
        input_name: ``input_name(options) -> str``: how messages call that input.
        with_file: whether the command takes ``FILE`` and ``--example``.
        usage: a usage line instead of argparse's, when the problem has subcommands.
        subcommands: ``perfectplay NAME SUB ...`` runs ``subcommands[SUB]``, a problem
            entry of its own, through the same runner.
        max_input_bytes: the largest input read.
        input_optional: without FILE, a terminal on stdin means an empty input (the
            problem answers something without input) instead of printing the usage.
    """

    name: str
    title: str
    summary: str
    description: str
    examples: str
    example: str
    parse: Callable[[str, Options], Any]
    solve: Callable[[Any, Options], Any]
    format: Callable[[Any, Options], str | Iterable[str]]
    explain: Callable[[Any, Options], str | Iterable[str]] | None = None
    exact: Callable[[Any, Options], str] | None = None
    distribution: Callable[[Any, int, Options], str] | None = None
    to_json: Callable[[Any, Options], Iterable[Mapping[str, Any] | Iterable[str]]] | None = None
    separator: str = "\n"
    explain_help: str | None = None
    exact_help: str | None = None
    distribution_help: str | None = None
    digits: int | None = None
    add_options: Callable[[argparse.ArgumentParser], None] | None = None
    check: Callable[[Options], str | None] | None = None
    read: Callable[[Options], str] | None = None
    input_name: Callable[[Options], str] | None = None
    with_file: bool = True
    usage: str | None = None
    # A NamedTuple (not a dataclass) keeps `perfectplay --help` from importing dataclasses.
    subcommands: Mapping[str, Problem] = MappingProxyType({})
    max_input_bytes: int = DEFAULT_MAX_INPUT_BYTES
    input_optional: bool = False

    @property
    def package(self) -> str:
        """The problem's package: ``perfectplay.problems`` and then :attr:`name`."""
        return f"{__name__}.{self.name.split()[0]}"


def hook(target: str, package: str | None = None) -> Callable[[Any, Options], Any]:
    """A hook that imports its function only when called: ``hook(".report:format",
    __package__)`` calls ``format(x)`` of the package's ``report`` module with the hook's
    first argument (a problem's functions that need no option). The registry entry stays
    free of numpy, and its hooks are not written out one by one.

    >>> from types import SimpleNamespace
    >>> hook("perfectplay.text.numbers:decimal_text")(0.5, SimpleNamespace())
    '0.500000000'
    """
    module_name, _, function = target.partition(":")

    def call(first: Any, options: Options) -> Any:
        module = importlib.import_module(module_name, package)
        return getattr(module, function)(first)

    call.__name__ = call.__qualname__ = function
    call.__doc__ = f"``{target}`` of ``{package or ''}`` (imported when called)."
    return call


def answer_json(fields: Mapping[str, Any], explanation: str | None = None) -> dict[str, Any]:
    """One answer of a ``--json`` run: the problem's fields, then ``"explanation"`` (what
    ``--explain`` prints, without its final newlines) when given.

    >>> answer_json({"winner": "Alice"}, "Alice moves first.\\n")
    {'winner': 'Alice', 'explanation': 'Alice moves first.'}
    >>> answer_json({"winner": "Bob"})
    {'winner': 'Bob'}
    """
    if explanation is None:
        return dict(fields)
    return {**fields, "explanation": explanation.rstrip("\n")}


def discover(path: Iterable[str] | None = None, prefix: str = f"{__name__}.") -> dict[str, Problem]:
    """Every problem package under ``path`` (default: this package), by command name.

    A package is a problem when its ``cli`` module defines ``PROBLEM``; packages whose
    name starts with ``_`` (the template) are skipped. The order is alphabetical, so the
    command list does not depend on the file system.
    """
    # A directory listing, not pkgutil.iter_modules: that imports inspect, a tenth of
    # `perfectplay --help`.
    names: set[str] = set()
    for base in __path__ if path is None else path:
        with os.scandir(base) as entries:
            names.update(
                e.name
                for e in entries
                if e.is_dir() and os.path.isfile(os.path.join(e.path, "__init__.py"))
            )
    return {
        name: _entry(name, prefix)
        for name in sorted(names)
        if name.isidentifier() and not name.startswith("_")
    }


def get(name: str) -> Problem | None:
    """The problem whose command is ``name``, or ``None``; imports that problem's
    ``cli.py`` alone (the command line runs one problem without discovering the rest).

    >>> get("alea").title, get("nonesuch"), get("_template")
    ('Alea Iacta Est', None, None)
    """
    if _registry is not None:
        return _registry.get(name)
    if not name.isidentifier() or name.startswith("_"):
        return None
    try:
        found = importlib.util.find_spec(f"{__name__}.{name}.cli")
    except ModuleNotFoundError:
        return None
    return None if found is None else _entry(name, f"{__name__}.")


def _entry(name: str, prefix: str) -> Problem:
    module = importlib.import_module(f"{prefix}{name}.cli")
    problem = getattr(module, "PROBLEM", None)
    if not isinstance(problem, Problem):
        raise TypeError(f"{module.__name__} has no PROBLEM entry (a Problem)")
    if problem.name != name:
        raise ValueError(
            f"{module.__name__}: PROBLEM.name {problem.name!r} is not the package name {name!r}"
        )
    return problem


_registry: Mapping[str, Problem] | None = None


def __getattr__(name: str) -> Any:
    # Built on first use: importing perfectplay.problems alone imports no problem.
    global _registry
    if name == "REGISTRY":
        if _registry is None:
            _registry = MappingProxyType(discover())
        return _registry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), "REGISTRY"])
