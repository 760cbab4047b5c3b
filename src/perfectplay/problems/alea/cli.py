"""``perfectplay alea``: the registry entry, its hooks and the ``advise`` subcommand.

Only the standard library is imported at module level, so ``perfectplay alea --help``
answers without loading numpy or numba.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import Any

from perfectplay.errors import InputError, PerfectplayError
from perfectplay.problems import Options, Problem
from perfectplay.problems.alea.example import example_text
from perfectplay.text.arguments import positive_arg
from perfectplay.text.numbers import DIGITS

DESCRIPTION = """\
ICPC World Finals 2023 problem K, "Alea Iacta Est". Roll d dice with a symbol on each
face; after each roll keep any dice and reroll the rest, until the symbols can be
arranged into a dictionary word. Prints the expected number of rolls with optimal play
(9 decimals), or "impossible".

Input (official format): "d w", then d lines of 6 face symbols, then w words of d
symbols; symbols are A-Z and 0-9, 1 <= d <= 6, 1 <= w <= 200000."""

USAGE = """\
perfectplay alea [FILE] [--example] [--explain] [--distribution K] [--exact] [--json]
                        [--stats] [--symmetry {all,faces,dice,none}] [--digits N] [-q]
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


def parse(text: str, options: Options) -> Any:
    """The instance; the time it took is kept for ``--stats``."""
    from perfectplay.problems.alea.instance import parse

    t0 = time.perf_counter()
    instance = parse(text)
    options.timings = {"parse": time.perf_counter() - t0}
    return instance


def solve(instance: Any, options: Options) -> Any:
    """Build and solve, with ``--exact`` verify in exact arithmetic, with ``--stats`` say
    the sizes and times on stderr."""
    timings = getattr(options, "timings", {})
    sol = _solve(instance, options, timings)
    if options.exact:
        t = time.perf_counter()
        _exact(sol)  # computed once: the answer's hooks read sol.exact_value()
        timings["exact"] = time.perf_counter() - t
    if options.stats:
        _print_stats(sol, timings)
    return sol


def _solve(instance: Any, options: Options, timings: dict[str, float]) -> Any:
    """Build and solve; fills ``timings``."""
    from perfectplay.problems.alea.build import build
    from perfectplay.problems.alea.solution import AleaSolution
    from perfectplay.solvers.retry import solve_retry

    t0 = time.perf_counter()
    merge_faces, merge_dice = SYMMETRY[getattr(options, "symmetry", "all")]
    graph = build(instance, merge_faces=merge_faces, merge_dice=merge_dice)
    t1 = time.perf_counter()
    chance = solve_retry(graph.graph)
    timings.update(build=t1 - t0, solve=time.perf_counter() - t1)
    return AleaSolution(instance, graph, chance)


def _exact(sol: Any) -> Any:
    """The verified exact solution, with a progress note on stderr for large graphs."""
    from perfectplay._util.progress import Progress

    n = sol.graph.graph.n_chance
    progress = Progress("alea --exact", delay=0.0 if n > 20_000 else 3600.0)
    progress.update(n, "kept sets to evaluate in exact arithmetic")
    exact = sol.exact()
    progress.done("verified optimal")
    return exact


def _percentile(sol: Any, q: float) -> int | None:
    from perfectplay.reports import percentile_text

    text = percentile_text(sol.graph.graph, sol.chance, q)
    return int(text) if text.isdigit() else None


def format(sol: Any, options: Options) -> str:
    """The official answer, or with ``--exact`` the exact fraction ``p/q``."""
    from perfectplay.problems.alea.report import format_answer
    from perfectplay.text.numbers import fraction_text

    exact = sol.exact_value() if options.exact else None
    if exact is not None:
        return fraction_text(exact)
    return format_answer(sol.value, options.digits)


def explain(sol: Any, options: Options) -> str:
    from perfectplay.problems.alea.report import explain_text

    return format(sol, options) + "\n" + explain_text(sol, options.digits)


def distribution(sol: Any, k: int, options: Options) -> str:
    from perfectplay.reports import distribution_report

    return distribution_report(sol.graph.graph, sol.chance, k, digits=options.digits)


def to_json(sol: Any, options: Options) -> list[dict[str, Any]]:
    from perfectplay.problems.alea.report import format_answer
    from perfectplay.text.numbers import fraction_text

    inst = sol.instance
    obj: dict[str, Any] = {
        "dice": list(inst.dice),
        "words": inst.w,
        "answer": format_answer(sol.value, options.digits),
        "expected_rolls": sol.value if sol.possible else None,
    }
    if options.exact:
        exact = sol.exact_value()
        obj["exact"] = fraction_text(exact) if exact is not None else None
        obj["verified_optimal"] = True
    if options.explain and sol.possible:
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
    if options.distribution:
        from perfectplay.reports import require_table

        cdf = sol.distribution(options.distribution)  # refuses too much work first
        require_table(options.distribution, digits=17)
        obj["distribution"] = {
            "within": cdf[1:].tolist(),
            "median": _percentile(sol, 0.5),
            "percentile_90": _percentile(sol, 0.9),
        }
    if options.stats:
        obj["graph"] = sol.sizes()
    return [obj]


def _keep_json(keep: Any) -> dict[str, Any]:
    from perfectplay.text.numbers import fraction_text

    obj = {
        "keep": [i + 1 for i in keep.keep],
        "reroll": [i + 1 for i in keep.reroll],
        "letters": keep.letters,
        "expected_rolls": keep.expected_rolls if math.isfinite(keep.expected_rolls) else None,
    }
    if keep.exact is not None:
        obj["exact"] = fraction_text(keep.exact)
    return obj


def _print_stats(sol: Any, timings: dict[str, float]) -> None:
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


class Advice:
    """The answer of ``alea advise``: the solution and the roll asked about."""

    def __init__(self, sol: Any, roll: str) -> None:
        self.sol, self.roll = sol, roll


def _advise_parse(text: str, options: Options) -> Any:
    from perfectplay.problems.alea.instance import parse
    from perfectplay.problems.alea.solution import roll_symbols

    instance = parse(text)
    try:
        options.roll_symbols = "".join(roll_symbols(instance.dice, options.roll))
    except InputError as exc:
        raise PerfectplayError(f"--roll {options.roll!r}: {exc.message}") from None
    return instance


def _advise_solve(instance: Any, options: Options) -> Advice:
    sol = _solve(instance, options, {})
    if options.exact and sol.possible:
        _exact(sol)
    return Advice(sol, options.roll_symbols)


def _top(options: Options) -> int | None:
    return None if options.all else options.top


def _advise_format(advice: Advice, options: Options) -> str:
    from perfectplay.problems.alea.report import advice_text

    return advice_text(
        advice.sol, advice.roll, top=_top(options), exact=options.exact, digits=options.digits
    )


def _advise_json(advice: Advice, options: Options) -> list[dict[str, Any]]:
    sol, roll, top = advice.sol, advice.roll, _top(options)
    opts = sol.options(roll, exact=options.exact) if sol.possible else []
    return [
        {
            "roll": roll,
            "word": sol.word_for(roll),
            "expected_rolls": sol.roll_value(roll) if sol.possible else None,
            "options": [_keep_json(o) for o in (opts if top is None else opts[:top])],
            "more_options": max(0, len(opts) - top) if top is not None else 0,
        }
    ]


def _advise_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--roll", required=True, metavar="SYMBOLS", help="the symbols showing, one per die"
    )
    parser.add_argument("--top", type=positive_arg, default=10, metavar="N", help="show N options")
    parser.add_argument("--all", action="store_true", help="show every option")


def add_options(parser: argparse.ArgumentParser) -> None:
    """The flags of ``perfectplay alea`` beyond the runner's."""
    parser.add_argument("--stats", action="store_true", help="graph sizes and timings on stderr")
    parser.add_argument(
        "--symmetry",
        choices=sorted(SYMMETRY),
        default="all",
        help="which symmetries to use (measurement; the answer does not change)",
    )


ADVISE = Problem(
    name="alea advise",
    title="Alea Iacta Est: advice for one roll",
    summary="which dice to keep on one roll",
    description=ADVISE_DESCRIPTION,
    examples=ADVISE_EXAMPLES,
    example=example_text(),
    parse=_advise_parse,
    solve=_advise_solve,
    format=_advise_format,
    to_json=_advise_json,
    exact_help="add each option's exact value",
    digits=DIGITS,
    add_options=_advise_options,
)

PROBLEM = Problem(
    name="alea",
    title="Alea Iacta Est",
    summary="ICPC WF 2023 K, Alea Iacta Est: expected rolls to spell a word",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=example_text(),
    parse=parse,
    solve=solve,
    format=format,
    explain=explain,
    distribution=distribution,
    to_json=to_json,
    explain_help="also explain the optimal first move in words",
    distribution_help="also P(word within k rolls) for k = 1..K, the median and 90th percentile",
    exact_help="print the answer as an exact fraction p/q, verified optimal",
    digits=DIGITS,
    add_options=add_options,
    usage=USAGE,
    subcommands={"advise": ADVISE},
)
