"""``perfectplay diemaker``: the registry entry and its hooks (standard library only)."""

from __future__ import annotations

import argparse
import json
import sys

from perfectplay.problems import Problem

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

def add_options(parser: argparse.ArgumentParser) -> None:
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


def run(args: argparse.Namespace, text: str) -> int:
    # Answers are written as they are found: an input of 40 long orders shows progress in
    # the output itself.
    from perfectplay._util.progress import Progress
    from perfectplay.problems.diemaker.instance import parse
    from perfectplay.problems.diemaker.report import IMPOSSIBLE, explain, format
    from perfectplay.problems.diemaker.solution import find

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
        if args.json:
            head = {"dataset": i, "line": d.line, "targets": list(d.targets), "first": first,
                    "last": last, "possible": solution is not None}
            out.write(json.dumps(head)[:-1] + ', "answer": "')
            if solution is None:
                out.write(IMPOSSIBLE)
            else:
                for chunk in solution.chunks(first, last):
                    out.write(chunk)  # the letters E, N, S, W: nothing to escape
            out.write('"')
            if args.explain:
                why = explain(d.targets, solution).rstrip("\n")
                out.write(', "explanation": ' + json.dumps(why))
            out.write("}\n")
        else:
            if solution is None:
                out.write(format([None]))
            else:
                for chunk in solution.chunks(first, last):
                    out.write(chunk)
                out.write("\n")
            if args.explain:
                out.write(explain(d.targets, solution))
        progress.update(i, "datasets", total)
    progress.done()
    return 0


PROBLEM = Problem(
    name="diemaker",
    title="A Die Maker",
    summary="ICPC Japan 2014 F, A Die Maker: lexicographically first roll sequence",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=EXAMPLE_INPUT,
    add_options=add_options,
    run=run,
)
