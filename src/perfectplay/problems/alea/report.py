"""Text a person reads: the official answer, the explanation of the first move, advice.

>>> from perfectplay.problems.alea.solution import solve
>>> sol = solve(["AAAAAA", "BBBBBB"], ["AB"])
>>> format_answer(sol.value), format_answer(float("inf"))
('1.000000000', 'impossible')
"""

from __future__ import annotations

import math
import textwrap

from perfectplay.problems.alea.solution import AleaSolution, Keep, roll_symbols
from perfectplay.text.numbers import DIGITS, fraction_text


def format_answer(value: float, digits: int = DIGITS) -> str:
    """The official output: the expected number of rolls with 9 decimals (``digits``), or
    ``impossible``."""
    return f"{value:.{digits}f}" if math.isfinite(value) else "impossible"


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _dice_list(indices: tuple[int, ...]) -> str:
    nums = [str(i + 1) for i in indices]
    return f"die {nums[0]}" if len(nums) == 1 else f"dice {', '.join(nums)}"


def _wrap(text: str, indent: str = "") -> list[str]:
    return textwrap.wrap(text, width=88, initial_indent=indent, subsequent_indent=indent + "  ")


def pattern(keep: Keep, roll: str, d: int) -> str:
    """The roll with rerolled dice shown as ``_``: ``P _ R E S``."""
    return " ".join(roll[i] if i in keep.keep else "_" for i in range(d))


def describe_keep(keep: Keep) -> str:
    """``keep P R E S (dice 1, 3, 4, 5) and reroll die 2`` in words."""
    if not keep.keep:
        return "reroll the die" if len(keep.reroll) == 1 else f"reroll all {len(keep.reroll)} dice"
    letters = " ".join(keep.letters)
    return f"keep {letters} ({_dice_list(keep.keep)}) and reroll {_dice_list(keep.reroll)}"


def explain_text(sol: AleaSolution, digits: int = DIGITS) -> str:
    """The optimal first move in words, what the first roll leads to, and an example."""
    inst = sol.instance
    d = inst.d
    lines = []
    if not sol.possible:
        lines.append(
            f"No word can be formed: no roll of these {_plural(d, 'die', 'dice')} shows the "
            f"symbols of any of the {_plural(inst.w, 'word', 'words')}, in any order."
        )
        return "\n".join(lines)
    lines.append(f"With optimal play a word takes {sol.value:.{digits}f} rolls on average.")
    lines.append("First move: roll the die." if d == 1 else f"First move: roll all {d} dice.")
    lines += _wrap(
        "After every roll: stop if the symbols can be arranged into a word; otherwise keep "
        "the dice the strategy says and reroll the others (`perfectplay alea advise FILE "
        "--roll SYMBOLS` tells which, for any roll)."
    )
    first = sol.first_roll()
    lines.append("After the first roll:")
    lines.append(f"  {first.word:8.2%}  it already spells a word")
    for k, p in enumerate(first.keep_counts):
        if p > 0:
            what = "reroll everything" if k == 0 else f"keep {_plural(k, 'die', 'dice')}"
            lines.append(f"  {p:8.2%}  {what}")
    if first.common_keeps:
        common = ", ".join(f"{' '.join(letters)} ({p:.2%})" for letters, p in first.common_keeps)
        lines += _wrap(f"most frequent keeps: {common}", indent="  ")
    roll = sol.example_roll()
    # best_keep is None for a word; example_roll avoids words, but a None is no crash.
    best = None if roll is None else sol.best_keep(roll)
    if roll is not None and best is not None:
        lines += _wrap(
            f"Example: on a first roll of {' '.join(roll)}, {describe_keep(best)}: "
            f"{best.expected_rolls:.{digits}f} rolls still expected, this reroll included "
            f"(rerolling everything: {sol.value:.{digits}f})."
        )
    return "\n".join(lines)


def advice_text(
    sol: AleaSolution, roll: str, top: int | None = 10, exact: bool = False, digits: int = DIGITS
) -> str:
    """Advice for one roll: the best play and the other options with their values."""
    symbols = roll_symbols(sol.instance.dice, roll)
    text = "".join(symbols)
    shown = " ".join(symbols)
    d = sol.instance.d
    if sol.is_word(text):
        return f"{shown} spells {sol.word_for(text)}: done, no more rolls needed."
    if not sol.possible:
        return f"{shown}: no word can ever be formed with these dice, whatever you keep."
    options = sol.options(text, exact=exact)
    best = options[0]
    lines = [
        f"roll {shown}: {describe_keep(best)}.",
        f"Expected rolls from here with optimal play: {best.expected_rolls:.{digits}f} "
        "(the reroll included).",
        "Options, best first (_ = reroll that die):",
    ]
    shown_options = options if top is None else options[:top]
    width = max(len(f"{o.expected_rolls:.{digits}f}") for o in shown_options)
    for o in shown_options:
        line = f"  {o.expected_rolls:>{width}.{digits}f}  {pattern(o, text, d)}"
        if exact and o.exact is not None:
            line += f"  = {fraction_text(o.exact)}"
        lines.append(line)
    hidden = len(options) - len(shown_options)
    if hidden > 0:
        lines.append(f"  ... {_plural(hidden, 'more option', 'more options')} (--all shows them)")
    return "\n".join(lines)
