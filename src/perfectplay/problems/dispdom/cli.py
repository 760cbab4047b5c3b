"""``perfectplay dispdom``: CodeChef DISPDOM, the disappearing dominoes."""

from __future__ import annotations

from perfectplay.cli.common import make_parser, read_input, run, source_name

DESCRIPTION = """\
CodeChef DISPDOM "Disappearing Dominoes". On a strip of N cells ('1' blocked, '0' empty)
Alice and Bob alternate, Alice first, covering K consecutive empty cells with a domino; a
domino placed on turn T disappears at the start of turn T + D. Whoever cannot move loses.

Input: "N K D" on one line (1 <= N <= 64, 1 <= K <= N, 1 <= D <= 10^18), then the strip.
Output: "Alice", "Bob", or "Draw" if the game goes on forever: the winner of the plain game
(no disappearing) wins if and only if they can force a win in fewer than D moves.

States are multisets of empty-segment lengths, not bitmasks of cells, so N = 64 takes a
few seconds at most and N = 30 a few milliseconds.
"""

EXAMPLES = """\
examples:
  printf '10 2 10\\n0000011000\\n' | perfectplay dispdom                 Alice
  printf '16 4 3\\n0000000001010000\\n' | perfectplay dispdom --explain   Draw, and why
  perfectplay dispdom strip.txt --explain      the winner's first move, the game length,
                                               one optimal line drawn on the strip
"""


def main(argv: list[str]) -> int:
    parser = make_parser("dispdom", DESCRIPTION, EXAMPLES)
    parser.add_argument("file", nargs="?", help="input file (default: stdin, also '-')")
    parser.add_argument(
        "--explain",
        action="store_true",
        help="also print who wins the plain game and in how many moves, the winner's "
        "first move, one optimal line of play and the number of canonical states",
    )
    args = parser.parse_args(argv)
    return run(lambda: _main(args), source_name(args.file))


def _main(args) -> int:
    from perfectplay.problems import dispdom as game

    solution = game.solve(game.parse(read_input(args.file, max_bytes=1 << 20)))
    print(game.explain(solution) if args.explain else game.format(solution))
    return 0
