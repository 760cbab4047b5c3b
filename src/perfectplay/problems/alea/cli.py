"""``perfectplay alea``: the registry entry, its hooks and the ``advise`` subcommand.

Only the standard library is imported at module level, so ``perfectplay alea --help``
answers without loading numpy or numba.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any

from perfectplay.cli.common import int_arg, make_parser, quote_token, run
from perfectplay.errors import InputError, PerfectplayError
from perfectplay.problems import Problem
from perfectplay.problems.alea.example import example_text

DESCRIPTION = """\
ICPC World Finals 2023 problem K, "Alea Iacta Est". Roll d dice with a symbol on each
face; after each roll keep any dice and reroll the rest, until the symbols can be
arranged into a dictionary word. Prints the expected number of rolls with optimal play
(9 decimals), or "impossible".

Input (official format): "d w", then d lines of 6 face symbols, then w words of d
symbols; symbols are A-Z and 0-9, 1 <= d <= 6, 1 <= w <= 200000."""

USAGE = """\
perfectplay alea [FILE] [--example] [--explain] [--distribution K] [--exact] [--json]
                        [--stats] [--symmetry {all,faces,dice,none}]
       perfectplay alea advise [FILE] --roll SYMBOLS [--top N | --all] [--exact] [--json]"""

EXAMPLES = """\
examples:
  perfectplay alea --example --explain            the statement's 5 dice and 8 words:
                                                   9.677887141 and the first move
  perfectplay alea game.txt                       official answer for an input file
  perfectplay alea < game.txt                     the same, from stdin
  perfectplay alea game.txt --exact               the answer as a fraction p/q,
                                                   verified optimal in exact arithmetic
  perfectplay alea game.txt --distribution 20     P(word within 1..20 rolls), median and
                                                   90th percentile
  perfectplay alea advise game.txt --roll PXRES   which dice to keep on this roll
  perfectplay alea advise --example --roll PXRES --exact
  perfectplay alea game.txt --json --explain      machine-readable output

The advise subcommand has its own help: perfectplay alea advise --help"""

ADVISE_DESCRIPTION = """\
Advice for one roll of Alea Iacta Est: which dice to keep and which to reroll, with the
expected number of rolls still to come (this reroll included) for each option, best
first. SYMBOLS are the symbols showing, one per die in input order (PXRES or
"P X R E S")."""

ADVISE_EXAMPLES = """\
examples:
  perfectplay alea advise --example --roll PXRES
  perfectplay alea advise game.txt --roll "A B 3" --all --exact
  perfectplay alea advise game.txt --roll AB3 --json"""

SYMMETRY = {
    "all": (True, True),
    "faces": (True, False),
    "dice": (False, True),
    "none": (False, False),
}


def _positive(text: str) -> int:
    try:
        value = int_arg(text)
    except argparse.ArgumentTypeError:
        shown = quote_token(text)
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {shown}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _read(text: str):
    from perfectplay.problems.alea.instance import parse

    return parse(text)


def _solve(instance, args: argparse.Namespace, timings: dict[str, float]):
    """Build and solve; returns the solution (and fills ``timings``)."""
    from perfectplay.problems.alea.build import build
    from perfectplay.problems.alea.solution import AleaSolution
    from perfectplay.solvers.retry import solve_retry

    t0 = time.perf_counter()
    merge_faces, merge_dice = SYMMETRY[getattr(args, "symmetry", "all")]
    graph = build(instance, merge_faces=merge_faces, merge_dice=merge_dice)
    t1 = time.perf_counter()
    chance = solve_retry(graph.graph)
    timings.update(build=t1 - t0, solve=time.perf_counter() - t1)
    return AleaSolution(instance, graph, chance)


def _exact(sol) -> Any:
    """The verified exact solution, with a progress note on stderr for large graphs."""
    from perfectplay._util.progress import Progress

    n = sol.graph.graph.n_chance
    progress = Progress("alea --exact", delay=0.0 if n > 20_000 else 3600.0)
    progress.update(n, "kept sets to evaluate in exact arithmetic")
    exact = sol.exact()
    progress.done("verified optimal")
    return exact


def _percentile(sol, q: float) -> int | None:
    from perfectplay.cli.reports import percentile_text

    text = percentile_text(sol.graph.graph, sol.chance, q)
    return int(text) if text.isdigit() else None


def run_command(args: argparse.Namespace, text: str) -> int:
    """The ``run`` hook: the answer (and what the flags ask for) on stdout."""
    from perfectplay.cli.reports import distribution_report, fraction_text
    from perfectplay.problems.alea.report import explain_text, format_answer

    t0 = time.perf_counter()
    instance = _read(text)
    timings = {"parse": time.perf_counter() - t0}
    sol = _solve(instance, args, timings)
    exact = None
    if args.exact:
        t = time.perf_counter()
        exact = _exact(sol).value
        timings["exact"] = time.perf_counter() - t
    if args.json:
        print(json.dumps(_solve_json(sol, args, exact), indent=2))
    else:
        out = [fraction_text(exact) if exact is not None else format_answer(sol.value)]
        if args.explain:
            out.append(explain_text(sol))
        if args.distribution:
            out.append(distribution_report(sol.graph.graph, sol.chance, args.distribution))
        sys.stdout.write("\n".join(out) + "\n")
    if args.stats:
        _print_stats(sol, timings)
    return 0


def _solve_json(sol, args: argparse.Namespace, exact) -> dict[str, Any]:
    from perfectplay.cli.reports import fraction_text
    from perfectplay.problems.alea.report import format_answer

    inst = sol.instance
    obj: dict[str, Any] = {
        "dice": list(inst.dice),
        "words": inst.w,
        "answer": format_answer(sol.value),
        "expected_rolls": sol.value if sol.possible else None,
    }
    if args.exact:
        obj["exact"] = fraction_text(exact) if exact is not None else None
        obj["verified_optimal"] = True
    if args.explain and sol.possible:
        first = sol.first_roll()
        obj["first_roll"] = {
            "word": first.word,
            "keep_counts": list(first.keep_counts),
            "common_keeps": [{"letters": s, "probability": p} for s, p in first.common_keeps],
        }
        roll = sol.example_roll()
        # best_keep is None for a word; example_roll avoids words, but a None is no crash.
        best = None if roll is None else sol.best_keep(roll)
        if best is not None:
            obj["first_roll"]["example"] = {"roll": roll, **_keep_json(best)}
    if args.distribution:
        cdf = sol.distribution(args.distribution)
        obj["distribution"] = {
            "within": cdf[1:].tolist(),
            "median": _percentile(sol, 0.5),
            "percentile_90": _percentile(sol, 0.9),
        }
    if args.stats:
        obj["graph"] = sol.sizes()
    return obj


def _keep_json(keep) -> dict[str, Any]:
    from perfectplay.cli.reports import fraction_text

    obj = {
        "keep": [i + 1 for i in keep.keep],
        "reroll": [i + 1 for i in keep.reroll],
        "letters": keep.letters,
        "expected_rolls": keep.expected_rolls if math.isfinite(keep.expected_rolls) else None,
    }
    if keep.exact is not None:
        obj["exact"] = fraction_text(keep.exact)
    return obj


def _print_stats(sol, timings: dict[str, float]) -> None:
    from perfectplay.problems.alea.build import useful_symbols
    from perfectplay.problems.alea.solution import symmetry_counts

    sizes = sol.sizes()
    counts = symmetry_counts(sol.instance.dice, useful_symbols(sol.instance))
    lines = [
        f"graph: {sizes['decision_nodes']:,} decision nodes (rolls + start), "
        f"{sizes['chance_nodes']:,} chance nodes (kept sets), "
        f"{sizes['choice_edges']:,} choice edges, {sizes['outcome_edges']:,} outcome edges",
        "rolls / kept sets: "
        + "; ".join(
            f"{label} {counts[key][0]:,} / {counts[key][1]:,}"
            for key, label in (
                ("none", "ordered"),
                ("faces", "faces merged"),
                ("dice", "identical dice merged"),
                ("both", "both"),
                ("all", "and useless faces blank"),
            )
        ),
        "time: " + ", ".join(f"{k} {v * 1000:.0f} ms" for k, v in timings.items()),
    ]
    for line in lines:
        print(f"perfectplay: alea: {line}", file=sys.stderr)


def _advise_command(args: argparse.Namespace) -> int:
    from perfectplay.cli.problem import input_text
    from perfectplay.problems.alea.report import advice_text
    from perfectplay.problems.alea.solution import roll_symbols

    instance = _read(input_text(PROBLEM, args))
    try:
        roll = "".join(roll_symbols(instance.dice, args.roll))
    except InputError as exc:
        raise PerfectplayError(f"--roll {args.roll!r}: {exc.message}") from None
    sol = _solve(instance, args, {})
    if args.exact and sol.possible:
        _exact(sol)
    top = None if args.all else args.top
    if not args.json:
        print(advice_text(sol, roll, top=top, exact=args.exact))
        return 0
    options = sol.options(roll, exact=args.exact) if sol.possible else []
    obj = {
        "roll": roll,
        "word": sol.word_for(roll),
        "expected_rolls": sol.roll_value(roll) if sol.possible else None,
        "options": [_keep_json(o) for o in (options if top is None else options[:top])],
        "more_options": max(0, len(options) - top) if top is not None else 0,
    }
    print(json.dumps(obj, indent=2))
    return 0


def _advise(argv: list[str]) -> int:
    from perfectplay.cli.problem import add_input_arguments, check_input_arguments, input_name

    parser = make_parser("alea advise", ADVISE_DESCRIPTION, ADVISE_EXAMPLES)
    add_input_arguments(parser, PROBLEM)
    parser.add_argument(
        "--roll", required=True, metavar="SYMBOLS", help="the symbols showing, one per die"
    )
    parser.add_argument("--top", type=_positive, default=10, metavar="N", help="show N options")
    parser.add_argument("--all", action="store_true", help="show every option")
    parser.add_argument("--exact", action="store_true", help="add each option's exact value")
    args = parser.parse_args(argv)
    check_input_arguments(parser, args)
    return run(lambda: _advise_command(args), input_name(args))


def add_options(parser: argparse.ArgumentParser) -> None:
    """The flags of ``perfectplay alea`` beyond FILE, --example and --json."""
    parser.add_argument(
        "--explain", action="store_true", help="also explain the optimal first move in words"
    )
    parser.add_argument(
        "--distribution",
        type=_positive,
        metavar="K",
        help="also P(word within k rolls) for k = 1..K, the median and 90th percentile",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="print the answer as an exact fraction p/q, verified optimal",
    )
    parser.add_argument("--stats", action="store_true", help="graph sizes and timings on stderr")
    parser.add_argument(
        "--symmetry",
        choices=sorted(SYMMETRY),
        default="all",
        help="which symmetries to use (measurement; the answer does not change)",
    )


PROBLEM = Problem(
    name="alea",
    title="Alea Iacta Est",
    summary="ICPC WF 2023 K, Alea Iacta Est: expected rolls to spell a word",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=example_text(),
    add_options=add_options,
    run=run_command,
    usage=USAGE,
    subcommands={"advise": _advise},
)
