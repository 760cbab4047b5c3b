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
from perfectplay.text.numbers import decimal_text

__all__ = ["query_lines", "solve_command"]

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
        if table is not None:
            out["table"] = {"path": str(table), "rows": sol.n_positions}
        print(json.dumps(out))
    else:
        print(f"model: {sol.name} (compiled, two players with dice; solver: {sol.solver})")
        print(f"positions: {sol.n_positions:,} in {len(sol.layers):,} layers")
        print(
            f"start value: {decimal_text(sol.value(), args.digits)} for the player to move first "
            f"(certified to {sol.bound:.1e})"
        )
        for text in args.query:
            print()
            for line in query_lines(sol, text):
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


def query_lines(sol: Any, text: str) -> list[str]:
    """The lines ``--query TEXT`` prints: the position's value, then each outcome's moves
    (or only those of the outcome after ``:``), best first.

    >>> from perfectplay.compiled import solve_compiled
    >>> from perfectplay.examples.pig_compiled import CompiledPig
    >>> print("\\n".join(query_lines(solve_compiled(CompiledPig(goal=10)), "(0, 0, 8)")))
    position (0, 0, 8): 0.881763 for the player to move
      roll  0.881763  best
      hold  0.366336
    """
    model = sol.model
    position, _, throw = text.rpartition(":") if ":" in text else (text, "", "")
    state = sol.position(position)
    lines = [f"position {model.describe(state)}: {sol.value(state):.6f} for the player to move"]
    weights = _weights(sol, state)
    outcomes = [int(throw)] if throw else list(range(len(weights)))
    for r in outcomes:
        options = sol.options((state, r))
        if not options:
            lines.append("  the game is over")
            break
        indent = "  "
        if len(weights) > 1:
            lines.append(f"  {model.roll_label(r)} (weight {weights[r]}):")
            indent = "    "
        width = max(len(o.label) for o in options)
        for o in options:
            mark = "  best" if o.best else ""
            lines.append(f"{indent}{o.label:<{width}}  {o.value:.6f}{mark}")
    return lines


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
