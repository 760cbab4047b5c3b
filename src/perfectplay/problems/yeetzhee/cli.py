"""``perfectplay yeetzhee``: the registry entry and its hooks (standard library only)."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from perfectplay.cli.common import int_arg, quote_token
from perfectplay.errors import InputError
from perfectplay.problems import Problem

DESCRIPTION = """\
Kick Start 2020 Round F, Yeetzhee: N dice with M faces are rolled one at a time; after each
roll the die is kept or rolled again (every roll counts). The final values must form the
target groups A_1 <= ... <= A_K (K distinct values, the i-th appearing A_i times). Prints the
minimal expected number of rolls under optimal play, one line 'Case #x: y' per case.

Input (official format): T, then for each case a line 'N M K' and K lines A_1 .. A_K.
Limits: T <= 100, 2 <= N, M <= 50, 1 <= K <= min(N, M)."""

EXAMPLES = """\
examples:
  perfectplay yeetzhee --example                 the statement's two sample cases
  perfectplay yeetzhee cases.in                  official input from a file
  printf '1\\n5 6 3\\n1\\n1\\n3\\n' | perfectplay yeetzhee --explain
                                                 the optimal rule for every grouping
  perfectplay yeetzhee cases.in --case 2 --distribution 20
                                                 P(done within k rolls), k = 1..20
  perfectplay yeetzhee cases.in --exact          exact fractions, verified optimal
"""

#: The statement's sample (two cases).
EXAMPLE_INPUT = "2\n3 6 2\n1\n2\n5 2 1\n5\n"



def _at_least_one(text: str) -> int:
    value = int_arg(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"K must be at least 1, got {quote_token(text)}")
    return value


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--case", type=int_arg, metavar="I", help="only case I (1-based)")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="one case: the optimal keep/reroll rule for every grouping optimal play reaches "
        "(with --exact: of the exactly verified policy, float near-ties repaired)",
    )
    parser.add_argument(
        "--distribution",
        type=_at_least_one,
        metavar="K",
        help="one case: P(target reached within k rolls) for k = 1..K, median, 90th percentile",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="exact fractions p/q, with the policy verified optimal in rational arithmetic",
    )
    parser.add_argument(
        "--stats", action="store_true", help="groupings, edges and times per case on stderr"
    )


def run(args: argparse.Namespace, text: str) -> str:
    from perfectplay.problems.yeetzhee import solve_instance
    from perfectplay.problems.yeetzhee.instance import parse

    cases = parse(text)
    numbers = list(range(1, len(cases) + 1))
    if args.case is not None:
        if not 1 <= args.case <= len(cases):
            raise InputError(f"--case {args.case}: the input has {len(cases)} case(s)")
        numbers = [args.case]
    single = args.explain or args.distribution is not None
    if single and len(numbers) != 1:
        raise InputError(
            f"--explain and --distribution work on one case; the input has {len(cases)}: "
            "choose one with --case I"
        )

    from perfectplay._util.progress import Progress

    solutions = []
    records: list[str] = []
    # A file of large cases runs for a minute: say so on stderr (PERFECTPLAY_QUIET=1 hushes).
    progress = Progress("yeetzhee")
    # Small cases solve interpreted, faster than numba loads; after a budget of
    # interpreted work the rest run compiled (perfectplay._util.jit.INTERPRETED_BUDGET).
    for done, i in enumerate(numbers, start=1):
        t0 = time.perf_counter()
        sol = solve_instance(cases[i - 1])
        if args.stats:
            g = sol.model.graph
            print(
                f"perfectplay: case {i}: {sol.n_groupings:,} groupings, "
                f"{g.outcome_idx.shape[0]:,} outcome edges, solved in "
                f"{time.perf_counter() - t0:.4f} s",
                file=sys.stderr,
            )
        # Multi-case reports keep the text only: a hundred large cases' graphs would hold
        # gigabytes.
        if args.json:
            records.append(_json(args, i, sol))
        elif args.exact and not single:
            from perfectplay.cli.reports import fraction_text

            records.append(f"Case #{i}: {fraction_text(sol.exact_value())}\n")
        else:
            solutions.append((i, sol))
        progress.update(done, "cases solved", len(numbers))
    progress.done()
    if args.json:
        return "\n".join(records)

    if not single:
        if args.exact:
            return "".join(records)
        return "".join(f"Case #{i}: {sol.value:.9f}\n" for i, sol in solutions)

    i, sol = solutions[0]
    if args.exact:
        # The float policy may have settled a near-tie the wrong way; show the repaired one.
        sol = sol.exact_policy()
    parts = []
    if args.explain:
        parts.append(sol.explain().rstrip("\n"))
    else:
        parts.append(f"Case #{i}: {sol.value:.9f}")
    if args.exact:
        from perfectplay.cli.reports import fraction_text

        parts.append(f"exact: {fraction_text(sol.exact_value())}")
    if args.distribution is not None:
        from perfectplay.cli.reports import distribution_report

        parts.append(distribution_report(sol.model.graph, sol.chance, args.distribution))
    return "\n\n".join(parts)


def _json(args: argparse.Namespace, i: int, sol: Any) -> str:
    """Case ``i`` as one JSON object on one line."""
    from perfectplay.cli.problem import answer_json
    from perfectplay.cli.reports import fraction_text

    obj: dict = {
        "case": i, "n": sol.n, "m": sol.m, "groups": list(sol.groups),
        "answer": f"{sol.value:.9f}", "expected_rolls": sol.value,
        "groupings": sol.n_groupings,
    }
    if args.exact:
        obj["exact"] = fraction_text(sol.exact_policy().exact_value())
        obj["verified_optimal"] = True
    if args.distribution is not None:
        obj["distribution"] = {"within": sol.distribution(args.distribution)[1:].tolist()}
    why = None
    if args.explain:
        why = (sol.exact_policy() if args.exact else sol).explain()
    return answer_json(obj, why)


PROBLEM = Problem(
    name="yeetzhee",
    title="Yeetzhee",
    summary="Kick Start 2020 F, Yeetzhee: expected rolls to shape dice into groups",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=EXAMPLE_INPUT,
    add_options=add_options,
    run=run,
)
