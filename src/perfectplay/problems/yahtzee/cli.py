"""``perfectplay yahtzee``: the registry entry, its hooks and the ``advise`` subcommand.

Only the standard library is imported at module level, so ``perfectplay yahtzee --help``
answers without loading numpy or numba; ``advise --load TABLE`` answers without numba.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any, NamedTuple

from perfectplay.errors import InputError, PerfectplayError
from perfectplay.problems import Options, Problem
from perfectplay.problems.yahtzee.report import SCORE_DIGITS
from perfectplay.text.arguments import int_arg, path_arg, positive_arg
from perfectplay.text.parse import quote_token
from perfectplay.tiers.options import add_engine_options, engine_options

DESCRIPTION = """\
Solitaire Yahtzee and its family, solved exactly: 13 turns (15 in Yatzy), each up to three
rolls of five dice keeping any of them, then one box of the scorecard filled. The optimal
strategy maximises the expected final score (bonuses included); the whole table of
scorecards is solved by backward induction in a few seconds.

Input (official format): an optional first line 'rules NAME' (default american), then one
situation per line ('#' comments and blank lines skipped), fields separated by ';':
  dice 1 3 3 5 6; rolls left 2; filled ones=3 fives=15 yahtzee=50
'rolls left' counts the rerolls still allowed (0 after the last roll); 'filled' lists boxes
with their points (a bare name: points unknown, then give 'upper N', the upper total, and
'bonus yes|no', whether the Yahtzee box holds 50); 'score N' sets the points so far.
Output: per situation, the best action and its expected final score (7 decimals), e.g.
'keep 3 3 299.2136875'; for an input without situations, the optimal expected final
score of the empty card (american: 254.5896095).

Rules (--rules): american (35 bonus at 63, 100 per extra Yahtzee, free joker),
american-forced-joker, american-no-joker, american-no-bonus, yatzy; maxi (Maxi Yatzy, 6
dice, 20 boxes: about 46 minutes on 2 cores and 1.8 GB to solve), maxi-saved (with saved
throws: 'saved N' in a situation gives the throws carried, 'rolls left' then counts them
too); or MODULE:NAME /
file.py:NAME naming a perfectplay.yahtzee.Rules written in Python (docs/yahtzee.md)."""

USAGE = """\
perfectplay yahtzee [FILE] [--example] [--rules NAME] [--load TABLE] [--save TABLE] [--json]
                          [--simulate N [--seed S]] [--distribution [--plot FILE]]
                          [--digits N] [-q]
                          [--engine threads|processes|dask] [--workdir DIR]
                          [--scheduler ADDR] [--workers N]
       perfectplay yahtzee advise SITUATION [--rules NAME] [--load TABLE] [--save TABLE]
                          [--top N | --all] [--json] [--digits N] [-q]
       perfectplay yahtzee advise (--file FILE | -) [...]"""

EXAMPLES = """\
examples:
  perfectplay yahtzee                              254.5896095, the empty card (american)
  perfectplay yahtzee --rules yatzy                248.4399894
  perfectplay yahtzee --example                    the best action in three situations
  perfectplay yahtzee --save american.table
                                                   solve once, keep the table
  perfectplay yahtzee advise --load american.table "dice 1 3 3 5 6; rolls left 2"
                                                   every keep with its expected final score
  perfectplay yahtzee advise --load american.table \\
      "dice 2 2 2 2 2; rolls 0; filled twos=6 yahtzee=50"
                                                   an extra Yahtzee: bonus and joker
  perfectplay yahtzee --rules mine.py:MY_RULES     rules written in Python
  perfectplay yahtzee --simulate 10000 --seed 1    play 10,000 games: mean, deviation, histogram
  perfectplay yahtzee --distribution --plot d.png  the exact final-score distribution
  perfectplay yahtzee --rules yatzy --engine dask --workdir /shared/yatzy
                                                   solve on Dask, tiers kept (and resumed)

The advise subcommand has its own help: perfectplay yahtzee advise --help"""

ADVISE_DESCRIPTION = """\
Every option of one situation with its expected final score under optimal play, best
first: which dice to keep while rerolls are left (keeping all of them included), which
box to fill after the last roll. SITUATION is one line of the input format, e.g.
  dice 1 3 3 5 6; rolls left 2; filled ones=3 fives=15 yahtzee=50
or give --file FILE (or -, standard input) with one situation per line."""

ADVISE_EXAMPLES = """\
examples:
  perfectplay yahtzee advise "dice 1 3 3 5 6; rolls left 2"          solves first (seconds)
  perfectplay yahtzee advise --load american.table "dice 66612; rolls 1; filled sixes=24"
  perfectplay yahtzee advise --load american.table --top 3 --json "dice 12345; rolls 0"
  perfectplay yahtzee advise --load yatzy.table --file situations.txt"""

EXAMPLE = """\
rules american
# the first roll of the game
dice 1 3 3 5 6; rolls left 2
# after the last roll, four boxes left
dice 2 3 4 5 5; rolls left 0; filled ones=3 twos=6 threes=9 fours=12 fives=15 \
three_of_a_kind=22 four_of_a_kind=0 full_house=25 yahtzee=0
# an extra Yahtzee while the Yahtzee box holds 50 and the sixes are filled
dice 6 6 6 6 6; rolls 0; filled sixes=24 yahtzee=50
"""


def _table_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        metavar="NAME",
        help="the rule set: american (default), american-forced-joker, american-no-joker, "
        "american-no-bonus, yatzy, maxi, maxi-saved, or MODULE:NAME naming a Rules object "
        "in Python",
    )
    parser.add_argument(
        "--load",
        type=path_arg,
        metavar="TABLE",
        help="answer from a table saved by --save instead of solving",
    )
    parser.add_argument(
        "--save", type=path_arg, metavar="TABLE", help="write the solved table to TABLE"
    )
    parser.add_argument(
        "--no-cache",
        action="store_true",
        help="solve again instead of reading the table cached by an earlier run (tables are "
        "cached under $PERFECTPLAY_CACHE_DIR, else $XDG_CACHE_HOME/perfectplay, else "
        "~/.cache/perfectplay; --engine and --workdir never read it)",
    )


def add_options(parser: argparse.ArgumentParser) -> None:
    """The flags of ``perfectplay yahtzee`` beyond FILE, --example and --json."""
    _table_options(parser)
    parser.add_argument(
        "--simulate",
        type=_games,
        metavar="N",
        help="also play N games with the optimal strategy: mean, standard deviation, histogram",
    )
    parser.add_argument("--seed", type=_seed, metavar="S", help="the simulation's seed (default 0)")
    parser.add_argument(
        "--distribution",
        action="store_true",
        help="also the exact distribution of the final score under the optimal strategy "
        "(mean, standard deviation, median, percentiles)",
    )
    parser.add_argument(
        "--plot",
        type=path_arg,
        metavar="FILE",
        help="with --distribution: draw it to FILE (PNG, SVG or PDF; needs matplotlib, "
        "the 'plot' extra)",
    )
    add_engine_options(parser, "the solve's tiers (boxes filled)")


def _games(text: str) -> int:
    value = positive_arg(text)
    if value > 10**8:
        raise argparse.ArgumentTypeError(f"at most 100000000 games, got {value}")
    return value


def _seed(text: str) -> int:
    try:
        value = int_arg(text)
    except argparse.ArgumentTypeError:
        shown = quote_token(text)
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {shown}") from None
    if not 0 <= value < 2**63:
        raise argparse.ArgumentTypeError(f"expected an integer from 0 to 2**63 - 1, got {value}")
    return value


def _play_reports(args: argparse.Namespace, table: Any) -> tuple[list[str], dict[str, Any]]:
    """The --simulate and --distribution reports (text lines and JSON fields)."""
    from perfectplay.problems.yahtzee.report import distribution_text, simulation_text

    lines: list[str] = []
    fields: dict[str, Any] = {}
    if args.simulate:
        from perfectplay.yahtzee.simulate import simulate

        result = simulate(table, args.simulate, seed=args.seed or 0)
        lines.append(simulation_text(result))
        fields["simulation"] = result.to_json()
    if args.distribution:
        from perfectplay.yahtzee.distribution import plot, score_distribution

        dist = score_distribution(table)
        lines.append(distribution_text(dist))
        fields["distribution"] = dist.to_json()
        if args.plot:
            plot(dist, args.plot)
            lines.append(f"plot: {args.plot}")
            fields["plot"] = args.plot
    return lines, fields


def _rules(args: argparse.Namespace) -> Any:
    from perfectplay.problems.yahtzee.instance import resolve_rules

    if args.rules is None:
        return None
    try:
        return resolve_rules(args.rules)
    except InputError as exc:
        raise PerfectplayError(f"--rules: {exc.message}") from None


def _table(args: argparse.Namespace, rules: Any) -> Any:
    """The table: loaded (``--load``) before the input is read, so the input is checked
    against the table's rules; ``None`` when it must be solved after parsing."""
    from perfectplay.problems.yahtzee.solution import solve

    if args.load is None:
        return None
    if engine_options(args) is not None:
        raise PerfectplayError("--load reads a solved table: --engine and --workdir solve one")
    return solve(rules, load=args.load, save=args.save)


def _check_plotting() -> None:
    """Refuse ``--plot`` before any work when matplotlib is missing (the distribution
    takes half a minute to compute; the refusal should not wait for it)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise PerfectplayError("--plot needs matplotlib: pip install 'perfectplay[plot]'")


class Parsed(NamedTuple):
    """The input read against its rules, and the table when ``--load`` gave it."""

    instance: Any
    table: Any


class Solved(NamedTuple):
    """The table and the input's answers."""

    table: Any
    instance: Any
    answers: Any


def parse(text: str, options: Options) -> Parsed:
    from perfectplay.problems.yahtzee.instance import stream

    if options.plot and not options.distribution:
        raise PerfectplayError("--plot draws the distribution: add --distribution")
    if options.seed is not None and not options.simulate:
        raise PerfectplayError("--seed is the seed of --simulate: add --simulate N")
    if options.plot:
        _check_plotting()
    engine_options(options)  # flags that do not go together stop before any work
    rules = _rules(options)
    table = _table(options, rules)
    return Parsed(stream(text, table.game if table is not None else rules), table)


def solve(parsed: Parsed, options: Options) -> Solved:
    """The table (loaded, or solved now) and the answers, computed as they are printed:
    an input of many situations is answered in constant memory."""
    from perfectplay.problems.yahtzee.solution import iter_answers, solve

    table = parsed.table
    if table is None:
        tiers = engine_options(options)
        table = solve(
            parsed.instance.rules,
            save=options.save,
            # --engine or --workdir asks for a solve on the tier runner (resumed from the
            # work directory), which a table in the cache would silently skip.
            cache=not options.no_cache and tiers is None,
            tiers=tiers,
        )
    return Solved(table, parsed.instance, iter_answers(table, parsed.instance.situations))


def format(solved: Solved, options: Options) -> Iterator[str]:
    """The official output, line by line as the answers come, then the reports
    ``--simulate`` and ``--distribution`` ask (computed first, as a failed report prints
    nothing)."""
    from perfectplay.problems.yahtzee.report import format_lines

    lines, _ = _play_reports(options, solved.table)
    for line in format_lines(solved.table, solved.answers, options.digits):
        yield line + "\n"
    for line in lines:
        yield line + "\n"


def to_json(solved: Solved, options: Options) -> Iterator[dict[str, Any]]:
    """One object per answer (the table's value for an input without situations), then
    one with the reports."""
    from perfectplay.problems.yahtzee.report import answer_json, value_json

    table = solved.table
    _, fields = _play_reports(options, table)
    if not solved.instance.situations:
        yield {**value_json(table), **fields}
        return
    for a in solved.answers:
        yield answer_json(table, a)
    if fields:
        yield fields


def _advise_parse(text: str, options: Options) -> Parsed:
    from perfectplay.problems.yahtzee.instance import (
        Instance,
        Line,
        Streamed,
        parse_situation,
        stream,
    )

    rules = _rules(options)
    table = _table(options, rules)
    instance: Instance | Streamed
    if options.file is None:
        from perfectplay.yahtzee.ruleset import rules as builtin

        chosen = table.game if table is not None else rules or builtin("american")
        situation = parse_situation(text, chosen)
        instance = Instance(
            table.rules if table is not None else chosen, (Line(1, situation, text),)
        )
    else:
        instance = stream(text, table.game if table is not None else rules)
        if not instance.situations:
            raise InputError("no situation in the input")
    return Parsed(instance, table)


def _advise_format(solved: Solved, options: Options) -> Iterator[str]:
    """The summary line, then each situation's advice as it is computed (a blank line
    between two)."""
    from perfectplay.problems.yahtzee.report import advice_text, summary

    top = None if options.all else options.top
    yield summary(solved.table, options.digits) + "\n"
    for i, a in enumerate(solved.answers):
        text = advice_text(solved.table, a.line.situation, a.options, top, options.digits)
        yield ("\n\n" if i else "") + text


def _advise_json(solved: Solved, options: Options) -> Iterator[dict[str, Any]]:
    from perfectplay.problems.yahtzee.report import advice_json

    top = None if options.all else options.top
    for a in solved.answers:
        yield advice_json(solved.table, a.line.situation, a.options, top)


def _advise_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "situation",
        nargs="?",
        metavar="SITUATION",
        help='one situation, e.g. "dice 1 3 3 5 6; rolls left 2" (- reads them from stdin)',
    )
    parser.add_argument(
        "--file",
        type=path_arg,
        metavar="FILE",
        help="advise on every situation of FILE (the input format; - for stdin)",
    )
    _table_options(parser)
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--top", type=positive_arg, metavar="N", help="show the N best options")
    shown.add_argument("--all", action="store_true", help="show every option (the default)")


def _advise_check(options: Options) -> str | None:
    if options.situation is not None and options.file is not None:
        return "give SITUATION or --file, not both"
    if options.situation is None and options.file is None:
        return "give a SITUATION, --file FILE, or - to read situations from stdin"
    if options.situation == "-":
        options.file = "-"
    return None


def _advise_read(options: Options) -> str:
    from perfectplay._util.command import read_input

    return options.situation if options.file is None else read_input(options.file)


def _advise_name(options: Options) -> str:
    from perfectplay._util.command import source_name

    return "situation" if options.file is None else source_name(options.file)


ADVISE = Problem(
    name="yahtzee advise",
    title="Solitaire Yahtzee: advice for one situation",
    summary="every option of one situation with its expected final score",
    description=ADVISE_DESCRIPTION,
    examples=ADVISE_EXAMPLES,
    example=EXAMPLE,
    parse=_advise_parse,
    solve=solve,
    format=_advise_format,
    to_json=_advise_json,
    add_options=_advise_options,
    check=_advise_check,
    read=_advise_read,
    input_name=_advise_name,
    with_file=False,
    digits=SCORE_DIGITS,
)

PROBLEM = Problem(
    name="yahtzee",
    title="Solitaire Yahtzee",
    summary="Solitaire Yahtzee and Yatzy: optimal expected score, advice for any situation",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=EXAMPLE,
    parse=parse,
    solve=solve,
    format=format,
    to_json=to_json,
    add_options=add_options,
    usage=USAGE,
    subcommands={"advise": ADVISE},
    input_optional=True,
    digits=SCORE_DIGITS,
)
