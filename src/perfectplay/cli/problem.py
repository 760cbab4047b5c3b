"""The one runner behind every gallery command: ``perfectplay NAME [FILE] [options]``.

What every problem's command shares lives here, once: ``FILE`` (stdin when omitted or
``-``; a terminal on stdin prints the usage instead of waiting), ``--example`` (the
problem's built-in input), ``--json`` (one object a line), ``-q``, the shared flags a
problem declares (``--explain``, ``--exact``, ``--distribution K``, ``--digits N``), the
input size limit, and the error rule (bad input is one line
``perfectplay: FILE:LINE: message`` on stderr and exit status 2). The problem gives its
hooks (:class:`~perfectplay.problems.Problem`): parse, solve, format, explain, and the
rest; this module calls them in turn and prints what they return. Only the standard
library is imported here.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from perfectplay.cli.common import (
    ArgumentParser,
    add_quiet,
    make_parser,
    quiet_mode,
    read_input,
    run,
    source_name,
    stdin_is_terminal,
)
from perfectplay.problems import Problem
from perfectplay.problems import answer_json as _answer_fields
from perfectplay.text.arguments import digits_arg, positive_arg

__all__ = [
    "EXAMPLE_NAME",
    "answer_json",
    "input_name",
    "input_text",
    "main",
    "parser_for",
    "solve_text",
]

EXAMPLE_NAME = "<example>"


def answer_json(fields: Mapping[str, Any], explanation: str | None = None) -> str:
    """One answer of a ``--json`` run as one line (see
    :func:`perfectplay.problems.answer_json`, which gives the object).

    >>> answer_json({"winner": "Alice"}, "Alice moves first.\\n")
    '{"winner": "Alice", "explanation": "Alice moves first."}'
    """
    return json.dumps(_answer_fields(fields, explanation))


def parser_for(problem: Problem) -> ArgumentParser:
    """The argument parser of ``perfectplay NAME``: the shared arguments and the problem's."""
    parser = make_parser(problem.name, problem.description, problem.examples)
    if problem.usage is not None:
        parser.usage = problem.usage.removeprefix("usage: ")
    if problem.with_file:
        parser.add_argument(
            "file",
            nargs="?",
            metavar="FILE",
            help="input in the official format (stdin if omitted or -)",
        )
        parser.add_argument(
            "--example", action="store_true", help="solve the built-in example input instead"
        )
    if problem.to_json is not None:
        parser.add_argument(
            "--json", action="store_true", help="print one JSON object per answer (one a line)"
        )
    if problem.explain_help is not None:
        parser.add_argument("--explain", action="store_true", help=problem.explain_help)
    if problem.distribution_help is not None:
        parser.add_argument(
            "--distribution", type=positive_arg, metavar="K", help=problem.distribution_help
        )
    if problem.exact_help is not None:
        parser.add_argument("--exact", action="store_true", help=problem.exact_help)
    if problem.add_options is not None:
        problem.add_options(parser)
    if problem.digits is not None:
        parser.add_argument(
            "--digits",
            type=digits_arg,
            default=problem.digits,
            metavar="N",
            help=f"decimals of the numbers printed (default {problem.digits})",
        )
    add_quiet(parser)
    return parser


def input_name(problem: Problem, args: argparse.Namespace) -> str:
    """How messages name the input: the file, ``<stdin>`` or ``<example>``."""
    if problem.input_name is not None:
        return problem.input_name(args)
    if problem.with_file and args.example:
        return EXAMPLE_NAME
    return source_name(getattr(args, "file", None))


def input_text(problem: Problem, args: argparse.Namespace) -> str:
    """The input: the problem's own reader, its example, or FILE / stdin read within the
    problem's limit."""
    if problem.read is not None:
        return problem.read(args)
    if args.example:
        return problem.example
    if args.file is None and problem.input_optional and stdin_is_terminal():
        return ""
    return read_input(args.file, max_bytes=problem.max_input_bytes)


def _waits_on_terminal(problem: Problem, args: argparse.Namespace) -> bool:
    """Whether the command would wait for typed input: no FILE, stdin a terminal."""
    if problem.read is not None or problem.input_optional or args.example:
        return False
    return args.file is None and stdin_is_terminal()


def _write(out: str | Iterable[str]) -> None:
    """Write a hook's text (or its chunks as they come), ending with one newline."""
    if isinstance(out, str):
        sys.stdout.write(out if out.endswith("\n") else out + "\n")
        return
    last = "\n"
    for chunk in out:
        if chunk:
            sys.stdout.write(chunk)
            last = chunk
    if not last.endswith("\n"):
        sys.stdout.write("\n")


def solve_text(problem: Problem, args: argparse.Namespace, text: str) -> None:
    """Parse ``text``, solve it and print the answer as ``args`` ask (the hooks' order)."""
    solution = problem.solve(problem.parse(text, args), args)
    if getattr(args, "json", False) and problem.to_json is not None:
        for obj in problem.to_json(solution, args):
            if isinstance(obj, Mapping):
                sys.stdout.write(json.dumps(obj) + "\n")
            else:
                _write(obj)
        return
    if getattr(args, "explain", False) and problem.explain is not None:
        answer = problem.explain(solution, args)
    else:
        answer = problem.format(solution, args)
    blocks: list[str] = []
    if getattr(args, "exact", False) and problem.exact is not None:
        blocks.append(problem.exact(solution, args))
    k = getattr(args, "distribution", None)
    if k is not None and problem.distribution is not None:
        blocks.append(problem.distribution(solution, k, args))
    blocks = [block for block in blocks if block]  # a hook may have nothing to add
    if not blocks:
        _write(answer)
        return
    head = answer if isinstance(answer, str) else "".join(answer)
    _write(problem.separator.join([head.rstrip("\n"), *blocks]))


def main(problem: Problem, argv: list[str]) -> int:
    """Run ``perfectplay NAME argv...``; returns the exit status."""
    if argv and argv[0] in problem.subcommands:
        return main(problem.subcommands[argv[0]], argv[1:])
    parser = parser_for(problem)
    args = parser.parse_args(argv)
    if problem.with_file and args.example and args.file is not None:
        parser.error("give FILE or --example, not both")
    if problem.check is not None and (message := problem.check(args)) is not None:
        parser.error(message)
    if problem.with_file and _waits_on_terminal(problem, args):
        # Nothing was given and nobody is typing on purpose: say how to give input.
        parser.print_usage(sys.stderr)
        print(
            f"perfectplay {problem.name}: give FILE, pipe the input to stdin, or use --example",
            file=sys.stderr,
        )
        return 2

    def body() -> int:
        with quiet_mode(args.quiet):
            solve_text(problem, args, input_text(problem, args))
        return 0

    return run(body, input_name(problem, args))
