"""``perfectplay solve`` for a compiled model: what the command prints.

Positions in ``--query`` are in the model's own notation (its ``parse``): a position
prints its value and, for each chance outcome, its moves with their values; a position
with ``:K`` prints the moves after outcome ``K`` only.
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

from perfectplay.compiled.model import CompiledModel
from perfectplay.errors import InputError
from perfectplay.text.numbers import DIGITS, decimal_text

__all__ = ["query_data", "query_lines", "solve_command"]

_NOT_HERE = (
    "exact",
    "distribution",
    "simulate",
    "strategy",
    "first",
    "second",
    "max_endless",
    "max_states",
    "max_edges",
    "max_per_call",
)


def solve_command(model: CompiledModel, args: Any) -> int:
    """Solve ``model`` for the command line (``args`` as ``perfectplay solve`` parsed
    them) and print the summary, the queries and the table written."""
    from perfectplay.compiled.solve import solve_compiled

    for flag in _NOT_HERE:
        if getattr(args, flag, None):
            raise InputError(
                f"--{flag.replace('_', '-')} does not apply to a compiled model ({model.name})"
            )
    t0 = time.perf_counter()
    from perfectplay.tiers.options import engine_options

    kwargs: dict[str, Any] = {"progress": not args.quiet, **(engine_options(args) or {})}
    if args.max_sweeps:
        kwargs["max_sweeps"] = args.max_sweeps
    sol = solve_compiled(model, **kwargs)
    # Every query is answered before anything is printed: a bad one is its one line
    # alone, as with the other kinds of model.
    queries = [query_data(sol, text) for text in args.query or ()]
    table = sol.save(args.export) if args.export else None
    if args.json:
        out: dict[str, Any] = {
            "model": sol.name,
            "solver": sol.solver,
            "value": sol.value(),
            "bound": sol.bound,
            "positions": sol.n_positions,
            "layers": len(sol.layers),
        }
        if args.query:
            out["queries"] = queries
        if table is not None:
            out["table"] = {"path": str(table), "rows": sol.n_positions}
        print(json.dumps(out))
    else:
        print(f"model: {sol.name} (compiled, two players with dice; solver: {sol.solver})")
        layers = len(sol.layers)
        print(f"positions: {sol.n_positions:,} in {layers:,} layer{'s' * (layers != 1)}")
        print(
            f"start value: {decimal_text(sol.value(), args.digits)} for the player to move first "
            f"(certified to {sol.bound:.1e})"
        )
        for q in queries:
            print()
            for line in _lines(q, args.digits):
                print(line)
        if table is not None:
            print(f"table: {table} ({sol.n_positions:,} rows)")
    if not args.quiet:
        print(
            f"perfectplay: time: explore {sol.explore_seconds:.3f} s, solve "
            f"{sol.solve_seconds:.3f} s, total {time.perf_counter() - t0:.3f} s",
            file=sys.stderr,
        )
    return 0


def query_lines(sol: Any, text: str, digits: int = DIGITS) -> list[str]:
    """The lines ``--query TEXT`` prints: the position's value, then each outcome's moves
    (or only those of the outcome after ``:``), best first, values with ``digits``
    decimals (``--digits``).

    >>> from perfectplay.compiled import solve_compiled
    >>> from perfectplay.examples.pig_compiled import CompiledPig
    >>> print("\\n".join(query_lines(solve_compiled(CompiledPig(goal=10)), "(0, 0, 8)")))
    position (0, 0, 8): 0.881762613 for the player to move
      roll  0.881762613  best
      hold  0.366336178
    """
    return _lines(query_data(sol, text), digits)


def _lines(q: dict[str, Any], digits: int) -> list[str]:
    """The lines of a query's data (:func:`query_data`)."""
    lines = [f"position {q['position']}: {decimal_text(q['value'], digits)} for the player to move"]
    for o in q["outcomes"]:
        if not o["moves"]:
            lines.append("  the game is over")
            break
        indent = "  "
        if q["throws"] > 1:
            lines.append(f"  {o['label']} (weight {o['weight']}):")
            indent = "    "
        width = max(len(m["move"]) for m in o["moves"])
        for m in o["moves"]:
            mark = "  best" if m["best"] else ""
            lines.append(f"{indent}{m['move']:<{width}}  {decimal_text(m['value'], digits)}{mark}")
    return lines


def query_data(sol: Any, text: str) -> dict[str, Any]:
    """What ``--query TEXT`` answers, as data (``--json``'s ``"queries"``): the position
    as the model writes it and its number, its value for the player to move, how many
    outcomes its throw has, and for each (or the one after ``:``) its label, weight and
    moves (label, value, regret, best, next state).

    >>> from perfectplay.compiled import solve_compiled
    >>> from perfectplay.examples.pig_compiled import CompiledPig
    >>> q = query_data(solve_compiled(CompiledPig(goal=10)), "(0, 0, 8)")
    >>> [(m["move"], round(m["value"], 4), m["best"]) for m in q["outcomes"][0]["moves"]]
    [('roll', 0.8818, True), ('hold', 0.3663, False)]
    """
    model = sol.model
    position, _, throw = text.rpartition(":") if ":" in text else (text, "", "")
    state = sol.position(position)
    # The position's own value first: a position the table lacks is then named as typed,
    # not as the first position its moves lead to.
    value = sol.value(state)
    weights = _weights(sol, state)
    rolls = (
        [_throw(model, state, text, throw, len(weights))]
        if throw.strip()
        else list(range(len(weights)))
    )
    outcomes = []
    for r in rolls:
        options = sol.options((state, r))
        moves = [
            {
                "action": o.label,  # the name Solution.options_json gives it
                "move": o.label,
                "value": o.value,
                "regret": o.regret,
                "best": o.best,
                "state": int(o.state),
            }
            for o in options
        ]
        outcomes.append(
            {
                "outcome": r,
                "label": model.outcome_label(state, r),
                "weight": weights[r],
                "moves": moves,
            }
        )
        if not options:
            break
    return {
        "position": model.describe(state),
        "state": int(state),
        "value": value,
        "throws": len(weights),
        "outcomes": outcomes,
    }


def _throw(model: Any, state: int, text: str, throw: str, n: int) -> int:
    """The outcome number after ``:`` in ``text`` (``n`` outcomes), checked; a wrong one
    is refused with the outcomes' labels (a Masters throw of 0 counts 4: ``:0``)."""
    try:
        roll = int(throw)
    except ValueError:
        roll = -1
    if not 0 <= roll < n:
        named = ", ".join(f"{r}: {model.outcome_label(state, r)}" for r in range(n))
        raise InputError(
            f"{text!r}: after ':' comes the number of one of the position's outcomes, "
            f"0..{n - 1} ({named}), not {throw.strip()!r}"
        )
    return roll


def _weights(sol: Any, state: int) -> list[int]:
    import numpy as np

    from perfectplay.compiled.kernels import kernels_for

    model = sol.model
    k = kernels_for(model)
    p = np.ascontiguousarray(model.params, dtype=np.int64)
    if float(k.outcome(state, p)) >= 0.0:
        return [1]
    weights = k.turn(state, p, model.max_rolls, model.max_moves)[0]
    return [int(w) for w in weights]
