"""``perfectplay query TABLE [STATE ...]``: answer from a saved table, without the model.

Any table a solution saved (``--export`` of ``perfectplay solve``, ``--save`` of
``perfectplay yahtzee``) is read with :func:`perfectplay.load`; each STATE is answered with
its value and, where a choice is to be made, every option with its value, its regret
against the best and whether it is best (ties are all best). A model's table takes its
stored keys as Python writes them (``"(1, 2, 2, 5, 6)"``, ``"'X........'"``); a Yahtzee
table takes the situation notation of ``perfectplay yahtzee advise``. Without a STATE it
answers the start.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from perfectplay._util.command import make_parser, run
from perfectplay.cli.common import all_or_nothing
from perfectplay.errors import InputError, OptionError
from perfectplay.text.arguments import digits_arg
from perfectplay.text.numbers import DIGITS, decimal_text

__all__ = ["main"]

DESCRIPTION = """\
Answer from a saved table without solving again and without the model: the value of
each STATE and every option with its value, its regret against the best and whether it
is best. STATE is a stored key as Python writes it for a model's table, or a situation
("dice 1 3 3 5 6; rolls left 2; filled ones=3") for a Yahtzee table; no STATE: the start.
"""

EXAMPLES = """\
examples:
  perfectplay solve perfectplay.examples.five_dice:FiveDice --export dice.npz
  perfectplay query dice.npz "(1, 2, 2, 5, 6)"            value and every keep
  perfectplay yahtzee --save american.table
  perfectplay query american.table "dice 1 3 3 5 6; rolls left 2" --top 3
  perfectplay query dice.npz "(1, 2, 2, 5, 6)" --json     one JSON object a state
  perfectplay solve perfectplay.examples.ur:Ur -p pieces=2 --export ur2
  perfectplay query ur2 "4/6" --model perfectplay.examples.ur:Ur    a compiled model's table
"""


def _parser() -> argparse.ArgumentParser:
    p = make_parser("query", DESCRIPTION, EXAMPLES)
    p.add_argument("table", metavar="TABLE", help="a table saved by --export or --save")
    p.add_argument("states", metavar="STATE", nargs="*", help="states to answer (the start)")
    p.add_argument(
        "--rules",
        metavar="NAME",
        help="a Yahtzee table of a user's rule set: file.py:NAME (built-in rules are named "
        "by the table)",
    )
    p.add_argument(
        "--model",
        metavar="MODULE:CLASS",
        help="a compiled model's table (a directory): the model's class (file.py:Class or "
        "module:Class), rebuilt with the table's parameters, to read positions in its "
        "notation and answer every move",
    )
    p.add_argument("--top", type=int, metavar="N", help="show the N best options only")
    p.add_argument("--digits", type=digits_arg, default=DIGITS, metavar="N",
                   help=f"decimals of values (default {DIGITS})")  # fmt: skip
    p.add_argument("--json", action="store_true", help="one JSON object per state")
    return p


def _state(table: Any, text: str) -> Any:
    """The state a typed STATE names in ``table``'s own terms."""
    if table.kind == "scorecard":
        from perfectplay.problems.yahtzee.instance import parse_situation

        return parse_situation(text, table.game)
    from perfectplay.results.table import key_value

    try:
        return key_value(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise InputError(
            f"{text[:60]!r} is not a stored key (a Python literal such as (1, 2, 2) or 'X..')"
        ) from None


def _value_text(value: Any, digits: int) -> str:
    return decimal_text(value, digits) if isinstance(value, float) else str(value)


def _answer(table: Any, text: str | None, top: int | None, digits: int) -> dict[str, Any]:
    state = None if text is None else _state(table, text)
    if table.kind == "scorecard" and state is not None:
        options = table.options(state)
        value = options[0].value if options else table.value(state)
    else:
        value = table.value(state)
        over = getattr(table, "is_over", None)
        options = (
            [] if state is None or (over is not None and over(state)) else table.options(state)
        )
    if top is not None:
        options = options[:top]
    return {"state": text, "value": value, "options": options, "digits": digits}


def _print_text(answer: dict[str, Any], objective: str) -> None:
    digits = answer["digits"]
    where = "start" if answer["state"] is None else answer["state"]
    print(f"{where}: {_value_text(answer['value'], digits)} ({objective})")
    options = answer["options"]
    if not options:
        return
    values = [_value_text(o.value, digits) for o in options]
    regrets = [decimal_text(o.regret, digits) for o in options]
    wv, wr = max(map(len, values)), max(map(len, regrets))
    print(f"  {'value':>{wv}}  {'regret':>{wr}}  option")
    for o, v, r in zip(options, values, regrets, strict=True):
        print(f"  {v:>{wv}}  {r:>{wr}}  {o.label}{'  best' if o.best else ''}")


def _json(answer: dict[str, Any]) -> str:
    from perfectplay.results.options import value_json

    return json.dumps(
        {
            "state": answer["state"],
            "value": value_json(answer["value"]),
            "options": [o.to_json() for o in answer["options"]],
        }
    )


def main(argv: list[str]) -> int:
    """Run ``perfectplay query argv...``; returns the exit status."""
    args = _parser().parse_intermixed_args(argv)
    if args.top is not None and args.top < 1:
        _parser().error("--top must be at least 1")

    def body() -> int:
        import perfectplay

        rules = None
        if args.rules is not None:
            from perfectplay.problems.yahtzee.instance import resolve_rules

            rules = resolve_rules(args.rules)
        model = None
        if args.model is not None:
            from perfectplay.models.loading import load_object

            if not args.model.strip():
                raise OptionError("--model names a model's class: MODULE:CLASS or file.py:CLASS")
            try:
                model = load_object(args.model)
            except InputError as exc:  # the loader's words need the name they are about
                raise OptionError(f"--model {args.model}: {exc.message}") from None
        table = perfectplay.load(args.table, model=model, rules=rules)
        # A compiled model's table, known by what it offers (as export knows it):
        # importing its class would load numba for every other table too.
        if callable(getattr(table, "layer_tables", None)):
            return _compiled(table, args)
        objective = table.objective.describe()
        with all_or_nothing():
            for text in args.states or [None]:
                answer = _answer(table, text, args.top, args.digits)
                if args.json:
                    print(_json(answer))
                else:
                    _print_text(answer, objective)
        sys.stdout.flush()
        return 0

    return run(body, "query")


def _compiled(sol: Any, args: Any) -> int:
    """A compiled model's table: each position as ``perfectplay solve --query`` answers
    it (its value, then every outcome's moves), the start without a STATE."""
    from perfectplay.compiled.cli import query_data, query_lines

    if args.states and sol.model is None:
        raise InputError(
            f"{args.table}: a compiled model's table reads positions with its model: "
            "give --model MODULE:CLASS"
        )
    with all_or_nothing():
        for text in args.states or [None]:
            if text is None:
                value = sol.value()
                if args.json:
                    print(json.dumps({"state": None, "value": value}))
                else:
                    print(f"start: {decimal_text(value, args.digits)} (winning chance)")
                continue
            if args.json:
                print(json.dumps(query_data(sol, text)))
            else:
                print("\n".join(query_lines(sol, text, args.digits)))
    sys.stdout.flush()
    return 0
