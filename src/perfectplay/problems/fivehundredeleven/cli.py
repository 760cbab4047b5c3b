"""``perfectplay fivehundredeleven``: the registry entry and its hooks (standard library only)."""

from __future__ import annotations

from typing import Any

from perfectplay.problems import Options, Problem, hook

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


parse = hook(".instance:parse", __package__)
solve = hook(".solution:solve", __package__)
format = hook(".report:format", __package__)
explain = hook(".report:explain", __package__)


def to_json(solution: Any, options: Options) -> list[dict[str, Any]]:
    obj: dict[str, Any] = {
        "cards": list(solution.model.instance.cards),
        "winner": solution.winner,
        "cards_played": solution.remoteness,
    }
    if options.explain:  # --explain's details are fields of their own here
        obj["first_moves"] = [
            {
                "cards": list(m.cards),
                "memory": m.memory,
                "value": m.value.name.lower(),
                "cards_played": m.remoteness,
            }
            for m in solution.first_moves()
        ]
        obj["line"] = [
            {"player": who, "card": card, "memory": memory} for who, card, memory in solution.line()
        ]
    return [obj]


PROBLEM = Problem(
    name="fivehundredeleven",
    title="FiveHundredEleven",
    summary="TopCoder SRM 511, FiveHundredEleven: who wins the OR-card game",
    description=DESCRIPTION,
    examples=EXAMPLES,
    example="5\n3 5 7 9 510\n",
    parse=parse,
    solve=solve,
    format=format,
    explain=explain,
    to_json=to_json,
    explain_help="also print a winning first card (or each first card and its refutation), "
    "the length of the game and one optimal line of play",
)
