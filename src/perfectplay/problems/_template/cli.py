"""The registry entry: the problem's text, its flags and its hooks. Only the standard
library is imported here: ``perfectplay --help`` reads every entry and must stay instant;
the hooks import the solver when they run."""

from __future__ import annotations

from typing import Any

from perfectplay.problems import Options, Problem, answer_json, hook
from perfectplay.text.numbers import DIGITS

DESCRIPTION = """\
A die with F faces is rolled until it shows T or more; every roll counts. Prints the
expected number of rolls (9 decimals).

Input: one line 'F T' (1 <= T <= F <= 10^9)."""

EXAMPLES = """\
examples:
  printf '6 6\\n' | perfectplay NAME             6.000000000
  perfectplay NAME --example --explain          the answer and why"""


# Hooks of functions that need no option; each imports its module when it runs.
parse = hook(".instance:parse", __package__)
solve = hook(".solution:solve", __package__)


def format(solution: Any, options: Options) -> str:
    from .report import format

    return format(solution, options.digits)


def explain(solution: Any, options: Options) -> str:
    from .report import explain

    return explain(solution, options.digits)


def to_json(solution: Any, options: Options) -> list[dict[str, Any]]:
    inst = solution.instance
    fields = {
        "faces": inst.faces,
        "target": inst.target,
        "answer": format(solution, options),
        "expected_rolls": solution.value,
    }
    return [answer_json(fields, explain(solution, options) if options.explain else None)]


PROBLEM = Problem(
    # The command is the package's folder name (the registry checks it).
    name=__name__.split(".")[-2],
    title="Rolls Until a High Face",
    summary="template: expected rolls of a fair die until it shows T or more",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example="6 5\n",
    parse=parse,
    solve=solve,
    format=format,
    explain=explain,
    to_json=to_json,
    explain_help="also say why",
    digits=DIGITS,
)
