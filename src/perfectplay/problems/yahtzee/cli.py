"""``perfectplay yahtzee``: the registry entry, its hooks and the ``advise`` subcommand.

Only the standard library is imported at module level, so ``perfectplay yahtzee --help``
answers without loading numpy or numba; ``advise --load TABLE`` answers without numba.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from perfectplay.cli.common import int_arg, make_parser, path_arg, quote_token, run
from perfectplay.errors import InputError, PerfectplayError
from perfectplay.problems import Problem

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
american-forced-joker, american-no-joker, american-no-bonus, yatzy; or MODULE:NAME /
file.py:NAME naming a perfectplay.yahtzee.Rules written in Python (docs/yahtzee.md)."""

USAGE = """\
perfectplay yahtzee [FILE] [--example] [--rules NAME] [--load TABLE] [--save TABLE] [--json]
                          [--simulate N [--seed S]] [--distribution [--plot FILE]]
       perfectplay yahtzee advise SITUATION [--rules NAME] [--load TABLE] [--save TABLE]
                          [--top N | --all] [--json]
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


def _positive(text: str) -> int:
    try:
        value = int_arg(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected a positive integer, got {quote_token(text)}"
        ) from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {value}")
    return value


def _table_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--rules",
        metavar="NAME",
        help="the rule set: american (default), american-forced-joker, american-no-joker, "
        "american-no-bonus, yatzy, or MODULE:NAME naming a Rules object in Python",
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


def add_options(parser: argparse.ArgumentParser) -> None:
    """The flags of ``perfectplay yahtzee`` beyond FILE, --example and --json."""
    _table_options(parser)
    parser.add_argument(
        "--simulate",
        type=_games,
        metavar="N",
        help="also play N games with the optimal strategy: mean, standard deviation, histogram",
    )
    parser.add_argument(
        "--seed", type=_seed, default=0, metavar="S", help="the simulation's seed (default 0)"
    )
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


def _games(text: str) -> int:
    value = _positive(text)
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

        result = simulate(table, args.simulate, seed=args.seed)
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
    return solve(rules, load=args.load, save=args.save)


def run_command(args: argparse.Namespace, text: str) -> str:
    """The ``run`` hook: the official output (or one JSON object per answer)."""
    from perfectplay.problems.yahtzee.instance import parse
    from perfectplay.problems.yahtzee.report import answer_json, format, value_json
    from perfectplay.problems.yahtzee.solution import answer, solve

    if args.plot and not args.distribution:
        raise PerfectplayError("--plot draws the distribution: add --distribution")
    if args.plot:  # before the solve, not after it
        from perfectplay._util.extras import require

        require("plot", "--plot")
    rules = _rules(args)
    table = _table(args, rules)
    instance = parse(text, table.game if table is not None else rules)
    if table is None:
        table = solve(instance.rules, save=args.save)
    answers = answer(table, instance)
    lines, fields = _play_reports(args, table)
    if args.json:
        if not answers:
            return json.dumps({**value_json(table), **fields})
        return "\n".join(json.dumps(answer_json(table, a)) for a in answers) + (
            "\n" + json.dumps(fields) if fields else ""
        )
    return "\n".join([format(table, answers), *lines])


def _advise_command(args: argparse.Namespace) -> int:
    from perfectplay.cli.common import read_input
    from perfectplay.problems.yahtzee.instance import Instance, Line, parse, parse_situation
    from perfectplay.problems.yahtzee.report import advice_json, advice_text, summary
    from perfectplay.problems.yahtzee.solution import solve

    rules = _rules(args)
    table = _table(args, rules)
    if args.situation is not None and args.situation != "-":
        from perfectplay.yahtzee.ruleset import rules as builtin

        chosen = table.game if table is not None else rules or builtin("american")
        situation = parse_situation(args.situation, chosen)
        instance = Instance(
            table.rules if table is not None else chosen, (Line(1, situation, args.situation),)
        )
    else:
        instance = parse(read_input(args.file), table.game if table is not None else rules)
        if not instance.situations:
            raise InputError("no situation in the input")
    if table is None:
        table = solve(instance.rules, save=args.save)
    top = None if args.all else args.top
    blocks = []
    for line in instance.situations:
        options = table.options(line.situation)
        if args.json:
            blocks.append(json.dumps(advice_json(table, line.situation, options, top)))
        else:
            blocks.append(advice_text(table, line.situation, options, top))
    if args.json:
        sys.stdout.write("\n".join(blocks) + "\n")
    else:
        sys.stdout.write(summary(table) + "\n" + "\n\n".join(blocks) + "\n")
    return 0


def _advise(argv: list[str]) -> int:
    from perfectplay.cli.common import source_name

    parser = make_parser("yahtzee advise", ADVISE_DESCRIPTION, ADVISE_EXAMPLES)
    parser.add_argument(
        "situation", nargs="?", metavar="SITUATION",
        help="one situation, e.g. \"dice 1 3 3 5 6; rolls left 2\" (- reads them from stdin)",
    )
    parser.add_argument(
        "--file", type=path_arg, metavar="FILE",
        help="advise on every situation of FILE (the input format; - for stdin)",
    )
    _table_options(parser)
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--top", type=_positive, metavar="N", help="show the N best options")
    shown.add_argument("--all", action="store_true", help="show every option (the default)")
    parser.add_argument("--json", action="store_true", help="one JSON object per situation")
    args = parser.parse_args(argv)
    if args.situation is not None and args.file is not None:
        parser.error("give SITUATION or --file, not both")
    if args.situation is None and args.file is None:
        parser.error("give a SITUATION, --file FILE, or - to read situations from stdin")
    if args.situation == "-":
        args.file = "-"
    name = "situation" if args.file is None else source_name(args.file)
    return run(lambda: _advise_command(args), name)


PROBLEM = Problem(
    name="yahtzee",
    title="Solitaire Yahtzee",
    summary="Solitaire Yahtzee and Yatzy: optimal expected score, advice for any situation",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example=EXAMPLE,
    add_options=add_options,
    run=run_command,
    usage=USAGE,
    subcommands={"advise": _advise},
    input_optional=True,
)
