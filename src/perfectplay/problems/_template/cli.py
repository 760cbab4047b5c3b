"""The registry entry and its two hooks. Only the standard library is imported here:
``perfectplay --help`` reads every entry and must stay instant."""

from __future__ import annotations

import argparse

from perfectplay.problems import Problem

DESCRIPTION = """\
A die with F faces is rolled until it shows T or more; every roll counts. Prints the
expected number of rolls (9 decimals).

Input: one line 'F T' (1 <= T <= F <= 10^9)."""

EXAMPLES = """\
examples:
  printf '6 6\\n' | perfectplay NAME             6.000000000
  perfectplay NAME --example --explain          the answer and why"""


def add_options(parser: argparse.ArgumentParser) -> None:
    """The problem's own flags (FILE, --example and --json come from the runner)."""
    parser.add_argument("--explain", action="store_true", help="also say why")


def run(args: argparse.Namespace, text: str) -> str:
    """Parse, solve, and return what to print (heavy modules load only here)."""
    from perfectplay.cli.problem import answer_json

    from .instance import parse
    from .report import explain, format
    from .solution import solve

    solution = solve(parse(text))
    if args.json:
        inst = solution.instance
        fields = {"faces": inst.faces, "target": inst.target,
                  "answer": format(solution), "expected_rolls": solution.value}
        return answer_json(fields, explain(solution) if args.explain else None)
    return explain(solution) if args.explain else format(solution)


PROBLEM = Problem(
    # The command is the package's folder name (the registry checks it).
    name=__name__.split(".")[-2],
    title="Rolls Until a High Face",
    summary="template: expected rolls of a fair die until it shows T or more",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example="6 5\n",
    add_options=add_options,
    run=run,
)
