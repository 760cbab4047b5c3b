"""``perfectplay yeetzhee``: the registry entry and its hooks (standard library only)."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

from perfectplay.errors import InputError, PerfectplayError
from perfectplay.problems import Options, Problem, answer_json
from perfectplay.text.arguments import int_arg
from perfectplay.text.numbers import DIGITS

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


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--case", type=int_arg, metavar="I", help="only case I (1-based)")
    parser.add_argument(
        "--stats", action="store_true", help="groupings, edges and times per case on stderr"
    )


class Cases:
    """The cases to answer, solved one at a time as they are read (a hundred large
    cases' graphs would hold gigabytes; a multi-case report keeps only the text)."""

    def __init__(self, cases: list[Any], numbers: list[int], options: Options) -> None:
        self.cases, self.numbers, self.options = cases, numbers, options
        self.single = options.explain or options.distribution is not None
        self._first: tuple[int, Any] | None = None

    def solved(self) -> Iterator[tuple[int, Any]]:
        """``(case number, solution)`` in turn, with progress on stderr."""
        from perfectplay._util.jit import work_ahead

        # Small cases solve interpreted, faster than numba loads; cases that add up to
        # more run compiled from the first (perfectplay._util.jit.work_ahead).
        with work_ahead(self._work()):
            yield from self._each()

    def _work(self) -> int:
        """About the nodes plus edges of all the graphs to solve (0 for one case)."""
        from perfectplay.problems.yeetzhee.build import estimate_items
        from perfectplay.problems.yeetzhee.instance import check_instance

        if len(self.numbers) < 2:
            return 0
        total = 0
        for i in self.numbers:
            case = self.cases[i - 1]
            try:
                total += estimate_items(case.n, check_instance(case.n, case.m, case.groups))
            except PerfectplayError:  # reported when the case is solved, in its turn
                pass
        return total

    def _each(self) -> Iterator[tuple[int, Any]]:
        from perfectplay._util.progress import Progress
        from perfectplay.problems.yeetzhee import solve_instance

        # A file of large cases runs for a minute: say so on stderr (-q hushes).
        progress = Progress("yeetzhee")
        for done, i in enumerate(self.numbers, start=1):
            t0 = time.perf_counter()
            sol = solve_instance(self.cases[i - 1])
            if self.options.stats:
                g = sol.model.graph
                print(
                    f"perfectplay: case {i}: {sol.n_groupings:,} groupings, "
                    f"{g.outcome_idx.shape[0]:,} outcome edges, solved in "
                    f"{time.perf_counter() - t0:.4f} s",
                    file=sys.stderr,
                )
            yield i, sol
            progress.update(done, "cases solved", len(self.numbers))
        progress.done()

    def first(self) -> tuple[int, Any]:
        """The one case of a single-case report (``--explain``, ``--distribution``); with
        ``--exact`` its exactly verified policy (float near-ties repaired)."""
        if self._first is None:
            i, sol = next(iter(self.solved()))
            self._first = (i, sol.exact_policy() if self.options.exact else sol)
        return self._first


def parse(text: str, options: Options) -> list[Any]:
    from perfectplay.problems.yeetzhee.instance import parse

    return parse(text)


def solve(cases: list[Any], options: Options) -> Cases:
    """The cases ``--case`` chooses, to be solved as the answer is written."""
    numbers = list(range(1, len(cases) + 1))
    if options.case is not None:
        if not 1 <= options.case <= len(cases):
            raise InputError(f"--case {options.case}: the input has {len(cases)} case(s)")
        numbers = [options.case]
    found = Cases(cases, numbers, options)
    if found.single and len(numbers) != 1:
        raise InputError(
            f"--explain and --distribution work on one case; the input has {len(cases)}: "
            "choose one with --case I"
        )
    return found


def _value(sol: Any, options: Options) -> str:
    from perfectplay.text.numbers import decimal_text

    return decimal_text(sol.value, options.digits)


def format(found: Cases, options: Options) -> Iterator[str]:
    """``Case #x: y`` a line, written as each case is solved (``--exact``: ``p/q``)."""
    if found.single:
        i, sol = found.first()
        yield f"Case #{i}: {_value(sol, options)}"
        return
    from perfectplay.text.numbers import fraction_text

    for i, sol in found.solved():
        shown = fraction_text(sol.exact_value()) if options.exact else _value(sol, options)
        yield f"Case #{i}: {shown}\n"


def _explain(sol: Any, options: Options) -> str:
    # The table's column is a summary (6 decimals) until --digits asks for more or fewer.
    table = 6 if options.digits == DIGITS else options.digits
    return str(sol.explain(options.digits, table))


def explain(found: Cases, options: Options) -> str:
    return _explain(found.first()[1], options).rstrip("\n")


def exact(found: Cases, options: Options) -> str:
    """The ``exact: p/q`` block of a single-case report (a multi-case report prints the
    fractions as its answers)."""
    from perfectplay.text.numbers import fraction_text

    return f"exact: {fraction_text(found.first()[1].exact_value())}" if found.single else ""


def distribution(found: Cases, k: int, options: Options) -> str:
    from perfectplay.reports import distribution_report

    sol = found.first()[1]
    return distribution_report(sol.model.graph, sol.chance, k, digits=options.digits)


def to_json(found: Cases, options: Options) -> Iterator[dict[str, Any]]:
    """Each case as one JSON object."""
    from perfectplay.text.numbers import fraction_text

    for i, sol in found.solved():
        obj: dict[str, Any] = {
            "case": i,
            "n": sol.n,
            "m": sol.m,
            "groups": list(sol.groups),
            "answer": _value(sol, options),
            "expected_rolls": sol.value,
            "groupings": sol.n_groupings,
        }
        if options.exact:
            obj["exact"] = fraction_text(sol.exact_policy().exact_value())
            obj["verified_optimal"] = True
        # --explain and --distribution show the policy the text does: with --exact, the
        # exactly verified one (float near-ties repaired).
        shown = sol.exact_policy() if options.exact else sol
        if options.distribution is not None:
            obj["distribution"] = _distribution_json(shown, options.distribution)
        why = _explain(shown, options) if options.explain else None
        yield answer_json(obj, why)


def _distribution_json(sol: Any, k: int) -> dict[str, Any]:
    """``within`` (P(done within k rolls) for k = 1..K), ``median`` and ``percentile_90``,
    as the text table and ``perfectplay alea --json`` give them."""
    from perfectplay.reports import percentile_text, require_table

    cdf = sol.distribution(k)  # refuses too much work first
    require_table(k, digits=17)
    graph, chance = sol.model.graph, sol.chance
    median, p90 = (percentile_text(graph, chance, q) for q in (0.5, 0.9))
    return {
        "within": cdf[1:].tolist(),
        "median": int(median) if median.isdigit() else None,
        "percentile_90": int(p90) if p90.isdigit() else None,
    }


PROBLEM = Problem(
    name="yeetzhee",
    title="Yeetzhee",
    summary="Kick Start 2020 F, Yeetzhee: expected rolls to shape dice into groups",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=EXAMPLE_INPUT,
    parse=parse,
    solve=solve,
    format=format,
    explain=explain,
    exact=exact,
    distribution=distribution,
    to_json=to_json,
    separator="\n\n",
    explain_help="one case: the optimal keep/reroll rule for every grouping optimal play "
    "reaches (with --exact: of the exactly verified policy, float near-ties repaired)",
    distribution_help="one case: P(target reached within k rolls) for k = 1..K, median, "
    "90th percentile",
    exact_help="exact fractions p/q, with the policy verified optimal in rational arithmetic",
    digits=DIGITS,
    add_options=add_options,
)
