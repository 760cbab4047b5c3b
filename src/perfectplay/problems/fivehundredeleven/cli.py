"""``perfectplay fivehundredeleven``: who wins TopCoder SRM 511's card game."""

from __future__ import annotations

from perfectplay.cli.common import make_parser, read_input, run, source_name

DESCRIPTION = """\
TopCoder SRM 511 "FiveHundredEleven". The memory starts at 0; Fox Ciel and Toastman take
turns, Fox Ciel first, playing a card nobody has played and setting memory = memory OR
card. Whoever makes the memory 511 loses, and whoever has no card left loses.

Input: N (1..50), then N card values (0..511), separated by any whitespace.
Output: the winner with perfect play, "Fox Ciel" or "Toastman".
"""

EXAMPLES = """\
examples:
  printf '5\\n3 5 7 9 510\\n' | perfectplay fivehundredeleven             Fox Ciel
  printf '1\\n511\\n' | perfectplay fivehundredeleven --explain            why Toastman wins
  perfectplay fivehundredeleven cards.txt --explain   the winning first card and the game length
"""


def main(argv: list[str]) -> int:
    parser = make_parser("fivehundredeleven", DESCRIPTION, EXAMPLES)
    parser.add_argument("file", nargs="?", help="input file (default: stdin, also '-')")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also print a winning first card (or each first card and its refutation), "
        "the length of the game and one optimal line of play",
    )
    args = parser.parse_args(argv)
    return run(lambda: _main(args), source_name(args.file))


def _main(args) -> int:
    from perfectplay.problems import fivehundredeleven as game

    solution = game.solve(game.parse(read_input(args.file)))
    print(game.explain(solution) if args.explain else game.format(solution))
    return 0
