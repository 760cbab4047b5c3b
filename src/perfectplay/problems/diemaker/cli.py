"""``perfectplay diemaker``: the registry entry and its hooks (standard library only)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator
from typing import Any

from perfectplay.problems import Options, Problem

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
        "--no-limits",
        action="store_true",
        help="accept t up to 10^12 and any number of datasets (the search does not mind)",
    )


def parse(text: str, options: Options) -> Any:
    from perfectplay.problems.diemaker.instance import parse

    return parse(text, limits=not options.no_limits)


def solve(instance: Any, options: Options) -> Iterator[tuple[int, Any, Any, int, int]]:
    """``(number, dataset, solution, first, last)`` for each dataset, found as the answer
    is written: an input of 40 long orders shows progress in the output itself."""
    from perfectplay._util.progress import Progress
    from perfectplay.problems.diemaker.solution import find

    progress = Progress("diemaker")
    total = len(instance.datasets)
    for i, d in enumerate(instance.datasets, start=1):
        whole = options.full or options.explain
        first, last = (1, d.length) if options.full else (d.first, d.last)
        # Impossibility first (the search is small whatever the length), then the answer
        # in chunks: memory in proportion to a chunk, however long the answer.
        yield i, d, find(d.targets, stop=None if whole else last), first, last
        progress.update(i, "datasets", total)
    progress.done()


def format(found: Iterator[tuple[int, Any, Any, int, int]], options: Options) -> Iterator[str]:
    """Each answer (``--explain``: and its explanation) in chunks, as it is found."""
    from perfectplay.problems.diemaker.report import explain, format

    for _, d, solution, first, last in found:
        if solution is None:
            yield format([None])
        else:
            yield from solution.chunks(first, last)
            yield "\n"
        if options.explain:
            yield explain(d.targets, solution)


def to_json(
    found: Iterator[tuple[int, Any, Any, int, int]], options: Options
) -> Iterator[Iterator[str]]:
    """Each dataset as one JSON object, its answer written in chunks."""
    for i, d, solution, first, last in found:
        yield _json_chunks(i, d, solution, first, last, options)


def _json_chunks(
    i: int, d: Any, solution: Any, first: int, last: int, options: Options
) -> Iterator[str]:
    from perfectplay.problems.diemaker.report import IMPOSSIBLE, explain

    head = {
        "dataset": i,
        "line": d.line,
        "targets": list(d.targets),
        "first": first,
        "last": last,
        "possible": solution is not None,
    }
    yield json.dumps(head)[:-1] + ', "answer": "'
    if solution is None:
        yield IMPOSSIBLE
    else:
        yield from solution.chunks(first, last)  # the letters E, N, S, W: nothing to escape
    yield '"'
    if options.explain:
        why = explain(d.targets, solution).rstrip("\n")
        yield ', "explanation": ' + json.dumps(why)
    yield "}\n"


PROBLEM = Problem(
    name="diemaker",
    title="A Die Maker",
    summary="ICPC Japan 2014 F, A Die Maker: lexicographically first roll sequence",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=EXAMPLE_INPUT,
    parse=parse,
    solve=solve,
    format=format,
    explain=format,
    to_json=to_json,
    explain_help="after each answer, the sequence in runs, the finished die and search counts",
    add_options=add_options,
)
