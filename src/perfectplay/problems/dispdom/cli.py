"""``perfectplay dispdom``: the registry entry and its hooks (standard library only)."""

from __future__ import annotations

from typing import Any

from perfectplay.problems import Options, Problem, answer_json, hook

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


parse = hook(".instance:parse", __package__)
solve = hook(".solution:solve", __package__)
format = hook(".report:format", __package__)
explain = hook(".report:explain", __package__)


def to_json(solution: Any, options: Options) -> list[dict[str, Any]]:
    why = explain(solution, options) if options.explain else None
    return [answer_json({"winner": format(solution, options)}, why)]


PROBLEM = Problem(
    name="dispdom",
    title="Disappearing Dominoes",
    summary="CodeChef DISPDOM: disappearing dominoes, win/lose/draw",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example="10 2 10\n0000011000\n",
    parse=parse,
    solve=solve,
    format=format,
    explain=explain,
    to_json=to_json,
    explain_help="also print who wins the plain game and in how many moves, the winner's "
    "first move, one optimal line of play and the number of canonical states",
    # A strip is at most 64 cells: a larger input is refused before it is read whole.
    max_input_bytes=1 << 20,
)
