"""The one runner behind every gallery command: ``perfectplay NAME [FILE] [options]``.

What every problem's command shares lives here, once: ``FILE`` (stdin when omitted or
``-``), ``--example`` (the problem's built-in input), ``--json``, the input size limit,
and the error rule (bad input is one line ``perfectplay: FILE:LINE: message`` on stderr
and exit status 2). The problem adds its own flags and its ``run`` hook
(:class:`~perfectplay.problems.Problem`). Only the standard library is imported here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Mapping
from typing import Any

from perfectplay.cli.common import ArgumentParser, make_parser, read_input, run, source_name
from perfectplay.problems import Problem

EXAMPLE_NAME = "<example>"


def answer_json(fields: Mapping[str, Any], explanation: str | None = None) -> str:
    """One answer of a ``--json`` run as one line: the problem's fields, then
    ``"explanation"`` (what ``--explain`` prints, without its final newlines) when given.

    >>> answer_json({"winner": "Alice"}, "Alice moves first.\\n")
    '{"winner": "Alice", "explanation": "Alice moves first."}'
    >>> answer_json({"winner": "Bob"})
    '{"winner": "Bob"}'
    """
    if explanation is None:
        return json.dumps(fields)
    return json.dumps({**fields, "explanation": explanation.rstrip("\n")})


def parser_for(problem: Problem) -> ArgumentParser:
    """The argument parser of ``perfectplay NAME``: the shared arguments and the problem's."""
    parser = make_parser(problem.name, problem.description, problem.examples)
    if problem.usage is not None:
        parser.usage = problem.usage.removeprefix("usage: ")
    add_input_arguments(parser, problem)
    problem.add_options(parser)
    return parser


def add_input_arguments(parser: argparse.ArgumentParser, problem: Problem) -> None:
    """``FILE``, ``--example`` and ``--json`` (also used by subcommands such as alea's advise)."""
    parser.add_argument(
        "file", nargs="?", metavar="FILE",
        help="input in the official format (stdin if omitted or -)",
    )
    parser.add_argument(
        "--example", action="store_true", help="solve the built-in example input instead"
    )
    parser.add_argument(
        "--json", action="store_true", help="print one JSON object per answer instead of text"
    )


def input_text(problem: Problem, args: argparse.Namespace) -> str:
    """The input: the problem's example, or FILE / stdin read within the problem's limit."""
    if args.example:
        return problem.example
    if problem.input_optional and args.file is None and sys.stdin.isatty():
        return ""
    return read_input(args.file, max_bytes=problem.max_input_bytes)


def input_name(args: argparse.Namespace) -> str:
    """How messages name the input: the file, ``<stdin>`` or ``<example>``."""
    return EXAMPLE_NAME if args.example else source_name(args.file)


def check_input_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.example and args.file is not None:
        parser.error("give FILE or --example, not both")


def main(problem: Problem, argv: list[str]) -> int:
    """Run ``perfectplay NAME argv...``; returns the exit status."""
    if argv and argv[0] in problem.subcommands:
        return int(problem.subcommands[argv[0]](argv[1:]) or 0)
    parser = parser_for(problem)
    args = parser.parse_args(argv)
    check_input_arguments(parser, args)

    def body() -> int:
        out = problem.run(args, input_text(problem, args))
        if isinstance(out, str):
            sys.stdout.write(out if out.endswith("\n") else out + "\n")
            return 0
        return int(out)

    return run(body, input_name(args))
