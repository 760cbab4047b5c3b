"""Text and JSON: the official output, the summary naming the rules, advice for a situation.

Values are expected final scores (the score so far included) printed with 7 decimals.

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.problems.yahtzee.instance import parse
>>> from perfectplay.problems.yahtzee.solution import answer, solve
>>> mini = Rules("mini", (Category.upper(1, "ones"), Category("chance", sum)), dice=2,
...              faces=3, rolls=2, upper_threshold=0)
>>> sol = solve(mini)
>>> print(format(sol, []))
6.3264746
>>> inst = parse("dice 1 3; rolls left 0", mini)
>>> print(format(sol, answer(sol, inst)))
score ones 5.6666667
>>> print(summary(sol))
mini rules. Optimal expected final score from an empty card: 6.3264746
>>> print(advice_text(sol, inst.situations[0].situation, answer(sol, inst)[0].options))
situation: dice 1 3, no rolls left; empty card
best: score ones, expected final score 5.6666667
options, best first (expected final score):
  5.6666667  score ones
  5.1111111  score chance
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from perfectplay.problems.yahtzee.solution import Answer
    from perfectplay.yahtzee.distribution import ScoreDistribution
    from perfectplay.yahtzee.simulate import SimulationResult
    from perfectplay.yahtzee.solution import Situation, YahtzeeOption, YahtzeeSolution

__all__ = [
    "SCORE_DIGITS",
    "advice_json",
    "advice_text",
    "answer_json",
    "format",
    "format_lines",
    "format_option",
    "format_value",
    "option_json",
    "situation_json",
    "situation_text",
    "summary",
    "value_json",
]


#: Decimals of a score in the official output (the archived statement's format).
SCORE_DIGITS = 7


def format_value(value: float, digits: int = SCORE_DIGITS) -> str:
    """A value with 7 decimals, as the official output prints it.

    >>> format_value(254.58960948196255)
    '254.5896095'
    """
    return f"{value:.{digits}f}"


def format_option(option: YahtzeeOption, digits: int = SCORE_DIGITS) -> str:
    """``keep 3 3 305.2165668``: the action and its expected final score."""
    return f"{option.action} {format_value(option.value, digits)}"


def format(solution: YahtzeeSolution, answers: Iterable[Answer], digits: int = SCORE_DIGITS) -> str:
    """The official output: one line per situation (its best action and value), or the
    empty card's value when the input has no situation."""
    return "\n".join(format_lines(solution, answers, digits))


def format_lines(
    solution: YahtzeeSolution, answers: Iterable[Answer], digits: int = SCORE_DIGITS
) -> Iterator[str]:
    """The lines of :func:`format` (without their ends), one at a time, as the answers
    come."""
    empty = True
    for a in answers:
        empty = False
        yield format_option(a.best, digits)
    if empty:
        yield format_value(solution.value(), digits)


def summary(solution: YahtzeeSolution, digits: int = SCORE_DIGITS) -> str:
    """The rules and the optimal expected final score of the empty card, in one line."""
    rules = solution.rules
    about = f": {rules.description}" if rules.description else ""
    return (
        f"{rules.name} rules{about}. Optimal expected final score from an empty card: "
        f"{format_value(solution.value(), digits)}"
    )


def _score_unknown(situation: Situation) -> bool:
    card = situation.card
    return card.score is None and any(v is None for v in card.filled.values())


def situation_text(situation: Situation) -> str:
    """The situation in words: ``dice 1 3 3 5 6, 2 rolls left; filled ones=3 yahtzee=50``."""
    card = situation.card
    r = situation.rolls_left
    rolls = "no rolls left" if r == 0 else f"{r} roll{'s' if r != 1 else ''} left"
    parts = [f"dice {' '.join(map(str, situation.dice))}, {rolls}"]
    if card.filled:
        parts.append(
            "filled " + " ".join(k if v is None else f"{k}={v}" for k, v in card.filled.items())
        )
    else:
        parts.append("empty card")
    if card.upper is not None:
        parts.append(f"upper {card.upper}")
    if card.kind_holds is not None:
        parts.append(f"bonus {'yes' if card.kind_holds else 'no'}")
    if card.score is not None:
        parts.append(f"score {card.score}")
    if card.saved is not None:
        parts.append(f"saved {card.saved}")
    return "; ".join(parts)


def advice_text(
    solution: YahtzeeSolution,
    situation: Situation,
    options: Sequence[YahtzeeOption],
    top: int | None = None,
    digits: int = SCORE_DIGITS,
) -> str:
    """Advice for one situation: the best option, then every option with its expected
    final score, best first (the first ``top`` of them when given). The command prints
    :func:`summary` above it."""
    best = options[0]
    lines = [
        f"situation: {situation_text(situation)}",
        f"best: {best.action}, expected final score {format_value(best.value, digits)}",
    ]
    if _score_unknown(situation):
        lines.append(
            "(the score so far is unknown: values count the points still to come; "
            "give 'score N' to add it)"
        )
    shown = list(options if top is None else options[:top])
    width = max(len(format_value(o.value, digits)) for o in shown)
    lines.append("options, best first (expected final score):")
    lines += [f"  {format_value(o.value, digits):>{width}}  {o.action}" for o in shown]
    hidden = len(options) - len(shown)
    if hidden:
        lines.append(f"  ... {hidden} more option{'s' if hidden != 1 else ''} (--all shows them)")
    return "\n".join(lines)


def _face(label: Any) -> Any:
    return label if isinstance(label, int | float | str) else str(label)


def option_json(option: YahtzeeOption) -> dict[str, Any]:
    """An option as JSON: ``action``, ``value`` (a float), ``keep`` (the dice kept, or
    ``None``), ``box`` (the box filled, or ``None``)."""
    return {
        "action": str(option.action),
        "value": option.value,
        "keep": None if option.action.keep is None else [_face(d) for d in option.action.keep],
        "box": option.action.box,
    }


def ranked_option_json(option: YahtzeeOption) -> dict[str, Any]:
    """:func:`option_json` with ``regret`` and ``best`` (tied with the best): the fields of
    :meth:`~perfectplay.results.surface.Solution.options_json`, for each listed option."""
    return {**option_json(option), "regret": option.regret, "best": option.best}


def situation_json(situation: Situation) -> dict[str, Any]:
    """A situation as JSON (the fields of the text format)."""
    card = situation.card
    out = {
        "dice": [_face(d) for d in situation.dice],
        "rolls_left": situation.rolls_left,
        "filled": dict(card.filled),
        "upper": card.upper,
        "bonus": card.kind_holds,
        "score": card.score,
    }
    if card.saved is not None:  # only where the situation gave it (rules that save throws)
        out["saved"] = card.saved
    return out


def value_json(solution: YahtzeeSolution) -> dict[str, Any]:
    """The answer to an empty input: the rules and the empty card's value."""
    value = solution.value()
    return {"rules": solution.rules.name, "answer": format_value(value), "value": value}


def answer_json(solution: YahtzeeSolution, answer: Answer) -> dict[str, Any]:
    """One line of the official output as JSON: the situation, the best option."""
    best = answer.best
    return {
        "rules": solution.rules.name,
        "line": answer.line.line,
        "situation": situation_json(answer.line.situation),
        "answer": format_option(best),
        **option_json(best),
    }


def advice_json(
    solution: YahtzeeSolution,
    situation: Situation,
    options: Sequence[YahtzeeOption],
    top: int | None = None,
) -> dict[str, Any]:
    """Advice as JSON: ``value`` (the best option's), ``best``, ``options`` (the first
    ``top``, or all) and ``more_options`` (how many were left out)."""
    shown = list(options if top is None else options[:top])
    return {
        "rules": solution.rules.name,
        "situation": situation_json(situation),
        "score_known": not _score_unknown(situation),
        "value": options[0].value,
        "best": str(options[0].action),
        "options": [ranked_option_json(o) for o in shown],
        "more_options": len(options) - len(shown),
    }


def simulation_text(result: SimulationResult, bins: int = 12) -> str:
    """The --simulate report: the statistics (estimates: 6 decimals, as every command
    writes a simulation's), then a histogram of the scores as bars."""
    head = (
        f"simulated {result.games:,} games (seed {result.seed}): mean {result.mean:.6f}, "
        f"standard deviation {result.std:.6f}, standard error {result.standard_error:.6f}"
    )
    counts, edges = result.histogram(bins)
    top = max(int(counts.max()), 1)
    rows = [
        f"  {edges[i]:7.1f} - {edges[i + 1]:7.1f} {int(c):>9,} {'#' * round(40 * int(c) / top)}"
        for i, c in enumerate(counts)
    ]
    return "\n".join([head, *rows])


def distribution_text(dist: ScoreDistribution) -> str:
    """The --distribution report: mean, standard deviation, median and percentiles."""
    qs = (1, 5, 10, 25, 50, 75, 90, 95, 99)
    cuts = ", ".join(f"{q}%: {dist.percentile(q)}" for q in qs)
    import numpy as np

    top = int(np.flatnonzero(dist.pmf)[-1]) + dist.low if dist.pmf.any() else dist.low
    return (
        f"final score distribution (exact): mean {dist.mean:.7f}, standard deviation "
        f"{dist.std:.4f}, median {dist.median}, highest possible {top}\n"
        f"  percentiles {cuts}"
    )
