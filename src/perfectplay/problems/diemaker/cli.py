"""``perfectplay diemaker``: ICPC Japan Domestic 2014 F, A Die Maker."""

from __future__ import annotations

import argparse
import sys
import textwrap
from typing import TYPE_CHECKING

from perfectplay.cli.common import make_parser, read_input, run, source_name

if TYPE_CHECKING:
    from perfectplay.problems.diemaker.solver import Solution

DESCRIPTION = """\
A blank die is rolled on a board; each roll (E, N, S, W) adds 1 to the face that comes to
the bottom. For each order of six numbers (on the faces in any arrangement), print
characters p..q of the lexicographically first roll sequence that makes the die, or
'impossible'.

Input (the contest's format): datasets of two lines, 't1 t2 t3 t4 t5 t6' (0 <= t <= 5000)
and 'p q' (1 <= p <= q <= t1 + ... + t6); a line '0 0 0 0 0 0' ends the input; at most
40 datasets."""

EXAMPLES = """\
examples:
  perfectplay diemaker --example             three small orders
  perfectplay diemaker orders.txt            contest input from a file
  perfectplay diemaker --full --explain -    whole sequences, runs and the finished die
  printf '1 2 3 4 5 6\\n1 1\\n0 0 0 0 0 0\\n' | perfectplay diemaker --full
"""

EXAMPLE_INPUT = """\
1 1 1 1 1 1
1 6
0 0 2 2 2 4
1 10
0 0 0 0 0 2
1 2
0 0 0 0 0 0
"""

def main(argv: list[str]) -> int:
    parser = make_parser("diemaker", DESCRIPTION, EXAMPLES)
    parser.add_argument("file", nargs="?", help="input file (default: stdin; '-' for stdin)")
    parser.add_argument(
        "--full", action="store_true", help="print the whole sequence instead of p..q"
    )
    parser.add_argument(
        "--explain",
        action="store_true",
        help="after each answer, the sequence in runs, the finished die and search counts",
    )
    parser.add_argument(
        "--no-limits",
        action="store_true",
        help="accept t up to 10^12 and any number of datasets (the search does not mind)",
    )
    parser.add_argument("--example", action="store_true", help="solve a built-in example input")
    args = parser.parse_args(argv)
    if args.example and args.file is not None:
        parser.error("give either FILE or --example")
    name = "<example>" if args.example else source_name(args.file)
    return run(lambda: _main(args), name)


def _main(args: argparse.Namespace) -> int:
    from perfectplay._util.progress import Progress
    from perfectplay.problems.diemaker.dataset import format, parse
    from perfectplay.problems.diemaker.solver import find

    text = EXAMPLE_INPUT if args.example else read_input(args.file)
    instance = parse(text, limits=not args.no_limits)
    progress = Progress("diemaker")
    total = len(instance.datasets)
    out = sys.stdout
    for i, d in enumerate(instance.datasets, start=1):
        whole = args.full or args.explain
        first, last = (1, d.length) if args.full else (d.first, d.last)
        # Impossibility first (the search is small whatever the length), then the answer
        # in chunks: memory in proportion to a chunk, however long the answer.
        solution = find(d.targets, stop=None if whole else last)
        if solution is None:
            out.write(format([None]))
        else:
            for chunk in solution.chunks(first, last):
                out.write(chunk)
            out.write("\n")
        if args.explain:
            out.write(_explain(d.targets, solution))
        progress.update(i, "datasets", total)
    progress.done()
    return 0


def _explain(targets: tuple[int, ...], solution: Solution | None) -> str:
    numbers = " ".join(map(str, targets))
    if solution is None:
        n = sum(targets)
        why = (
            f"{numbers}: however the numbers are placed, some pair of opposite faces would "
            f"need more than {(n + 1) // 2} of the {n} rolls; a pair gets at most every other "
            "roll, since the die never lands on the same opposite pair twice in a row"
        )
        return textwrap.fill(why, 88, initial_indent="  ", subsequent_indent="  ") + "\n"
    faces = solution.faces()
    runs = solution.runs()
    shown = " ".join(runs[:40]) + (f" ... ({len(runs) - 40} more runs)" if len(runs) > 40 else "")
    stats = solution.path.stats
    die = ", ".join(f"{pos} {n}" for pos, n in faces.items())
    opposite = (("top", "bottom"), ("north", "south"), ("east", "west"))
    pairs = "  ".join(f"{faces[a]}|{faces[b]}" for a, b in opposite)
    jumps = f"{stats.jumps} jump" + ("" if stats.jumps == 1 else "s")
    return (
        f"  {numbers}: {solution.length} rolls: {shown}\n"
        f"  die at the end: {die}; opposite faces {pairs}\n"
        f"  search: {stats.steps} single steps, {jumps} over {stats.jumped_moves} rolls, "
        f"{stats.oracle_calls} oracle calls, {stats.backtracks} backtracks\n"
    )
