"""``perfectplay solve MODULE:OBJECT``: solve a model written in a user's Python file.

MODULE is a path to a ``.py`` file or the name of an importable module; OBJECT names a
model class (instantiated without arguments, or with ``--param`` values), a model
instance, or a function returning one. Without ``:OBJECT`` the module itself is the
model (its functions ``start``, ``choices``, ``roll``, ... or ``moves``, ``play``, ...).

The summary goes to stdout; progress and timings go to stderr.
"""

from __future__ import annotations

import math
import sys
from typing import Any

from perfectplay.cli.common import (
    add_quiet,
    all_or_nothing,
    digits_arg,
    int_arg,
    make_parser,
    path_arg,
    positive_arg,
    quiet_mode,
    quote_token,
    run,
)
from perfectplay.errors import InputError, OptionError
from perfectplay.models.loading import has_object, load_model
from perfectplay.text.numbers import DIGITS

DESCRIPTION = """\
Solve a game modelled in Python (perfectplay.models): a chance model (one player, dice:
least expected rolls to a goal, or the objective it declares: best expected score, best
chance of an event), a two-player model (win/lose/tie/draw, remoteness) or a two-player
game with dice (the mover's winning chance).
Prints the number of states and the value of the start; the times of the exploration and
of the solve go to stderr."""

EXAMPLES = """\
examples:
  perfectplay solve perfectplay.examples.five_dice:FiveDice --exact
  perfectplay solve perfectplay.examples.five_dice:FiveDice --query "(1, 2, 2, 5, 6)"
  perfectplay solve perfectplay.examples.threes:Threes --exact --json
  perfectplay solve perfectplay.examples.yahtzee_turn:YahtzeeTurn -p rolls=2
  perfectplay solve perfectplay.examples.tictactoe:TicTacToe --query "'X........'"
  perfectplay solve perfectplay.examples.dodgem:Dodgem -p n=4
  perfectplay solve mygame.py:MyGame --export table.npz --distribution 30
  perfectplay solve perfectplay.examples.pig:Pig --distribution 200 --export pig.npz
  perfectplay solve perfectplay.examples.ur:Ur -p pieces=2 --query "4,8/6:3"
  perfectplay solve perfectplay.examples.ur:Ur -p pieces=3 --engine dask --workdir ur3
"""


def main(argv: list[str]) -> int:
    parser = make_parser("solve", DESCRIPTION, EXAMPLES)
    parser.add_argument("model", metavar="MODULE[:OBJECT]", help="the model to solve")
    parser.add_argument(
        "-p",
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="keyword argument for the model class (VALUE is a Python literal); repeatable",
    )
    parser.add_argument(
        "--query",
        action="append",
        default=[],
        metavar="STATE",
        help="print the value of STATE (a Python literal; for a compiled model, its own "
        "notation or a state's number, :K for a throw) and of each choice or move; repeatable",
    )
    parser.add_argument(
        "--export",
        type=path_arg,
        metavar="FILE",
        help="write the solved table to FILE (.npz; a directory is refused); two-player "
        "dice games: every position's value and every move's value; a compiled model: "
        "the directory FILE (new or empty), whatever its name",
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="chance models and two-player dice games: exact fractions, verified optimal "
        "(also in --query and --export)",
    )
    parser.add_argument(
        "--distribution",
        type=positive_arg,
        metavar="K",
        help="chance models: probability of reaching the goal within 1..K of cost; "
        "two-player dice games: probability that the game ends after exactly 1..K moves "
        "(both strategies played), and how it ends for the first mover",
    )
    parser.add_argument(
        "--simulate",
        type=int_arg,
        metavar="N",
        help="chance models and two-player dice games: play N games with the optimal "
        "policy (seeded)",
    )
    parser.add_argument(
        "--seed",
        type=_seed,
        metavar="S",
        help="seed of --simulate, 0 to 4294967295 (2**32-1, the generator's range; default 0)",
    )
    parser.add_argument(
        "--max-states",
        type=int_arg,
        metavar="N",
        help="refuse models with more than N states (default 5,000,000)",
    )
    parser.add_argument(
        "--max-edges",
        type=int_arg,
        metavar="N",
        help="refuse models with more than N moves/outcomes (default 200,000,000)",
    )
    parser.add_argument(
        "--max-per-call",
        type=int_arg,
        metavar="N",
        help="refuse a call of choices(), roll() or moves() that gives more than N items "
        "(default 1,000,000; catches generators that never stop)",
    )
    parser.add_argument(
        "--max-sweeps",
        type=int_arg,
        metavar="N",
        help="chance models: most Gauss-Seidel sweeps for a cycle of rolls too wide for a "
        "direct solve (default 100,000; raise it when refused)",
    )
    parser.add_argument(
        "--max-endless",
        type=int_arg,
        metavar="N",
        help="two-player dice games: largest component where play can go on for ever that "
        "is solved (default 3,000 positions; its memory grows with the square of N)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print one JSON object on one line (value, exact with --exact, solver, sizes, "
        "queries, distribution, simulation, table) instead of the text summary",
    )
    parser.add_argument(
        "--digits",
        type=digits_arg,
        default=DIGITS,
        metavar="N",
        help=f"decimals of the values printed (default {DIGITS})",
    )
    for flag, whose in (
        ("--strategy", "both players (the exact value of the pair)"),
        ("--first", "the first mover (the other plays its best response)"),
        ("--second", "the second mover (the first plays its best response)"),
    ):
        parser.add_argument(
            flag,
            metavar="MODULE:FUNC",
            help=f"two-player dice games: fix the strategy of {whose}; FUNC(state) -> move",
        )
    from perfectplay.tiers.options import add_engine_options

    add_engine_options(parser, "compiled models: the layers")
    add_quiet(parser)
    args = parser.parse_args(argv)
    name = args.model.rsplit(":", 1)[0] if has_object(args.model) else args.model
    return run(lambda: _main_long_ints(args), name)


def _main_long_ints(args: Any) -> int:
    # A model's states and moves may hold integers of any size: print and read them whole.
    from perfectplay._util.ints import long_ints

    with long_ints(), quiet_mode(args.quiet) as quiet:
        args.quiet = quiet  # PERFECTPLAY_QUIET counts as -q
        return _main(args)


def _literal(text: str, what: str) -> Any:
    import ast

    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        raise InputError(f"{what} {quote_token(text)} is not a Python literal") from None


def _params(items: list[str]) -> dict[str, Any]:
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip().isidentifier():
            raise InputError(f"--param {quote_token(item)}: expected NAME=VALUE")
        text = value.strip()
        # A bare word is a string (-p rules=blitz); it was never a Python literal.
        bare = text.isidentifier() and text not in ("True", "False", "None")
        out[key.strip()] = text if bare else _literal(text, f"--param {key.strip()}:")
    return out


def _main(args: Any) -> int:
    import time

    from perfectplay.errors import ModelError
    from perfectplay.models import model_kind, solve_model
    from perfectplay.models.explore import model_name

    # --distribution's limits are the analysis' own (MAX_K, and the work k * edges once
    # the game is known); K alone is checked before a long solve.
    if args.distribution is not None:
        from perfectplay.analysis.distribution import check_work

        check_work(args.distribution)
    if args.simulate is not None and not 1 <= args.simulate <= 100_000_000:
        raise OptionError("--simulate N must be 1..100000000")
    if args.seed is not None and args.simulate is None:
        raise OptionError("--seed is the seed of --simulate: add --simulate N")
    args.seed = args.seed or 0
    for flag, top in (
        ("max_states", 2**31 - 1),
        ("max_edges", 2**62 - 1),
        ("max_per_call", 2**62 - 1),
        ("max_sweeps", 2**62 - 1),
        ("max_endless", 2**31 - 1),
    ):
        value = getattr(args, flag)
        if value is not None and not 1 <= value <= top:
            raise OptionError(f"--{flag.replace('_', '-')} must be 1..{top:,}")
    model = load_model(args.model, _params(args.param))
    if getattr(model, "compiled_model", False) is True:  # queries are the model's notation
        from perfectplay.compiled.cli import solve_command

        return solve_command(model, args)
    from perfectplay.tiers.options import engine_options

    if engine_options(args) is not None:
        raise InputError("--engine, --workdir, --scheduler and --workers apply to compiled models")
    queries = [_literal(q, "--query") for q in args.query]
    try:
        kind = model_kind(model)
    except ModelError as exc:  # say which object the command line named
        raise ModelError(f"{args.model}: {exc}") from None
    if kind != "stochastic":
        for flag in ("strategy", "first", "second", "max_endless"):
            if getattr(args, flag):
                raise InputError(
                    f"--{flag.replace('_', '-')} applies to two-player dice games; "
                    f"{model_name(model)} is {kind}"
                )
    if kind == "stochastic":
        for flag in ("max_sweeps",):
            if getattr(args, flag):
                raise InputError(
                    f"--{flag.replace('_', '-')} is not available for two-player dice games "
                    f"({model_name(model)})"
                )
        return _solve_stochastic(model, args, queries)
    if kind == "game":
        for flag in ("exact", "distribution", "simulate", "max_sweeps"):
            if getattr(args, flag):
                raise InputError(
                    f"--{flag.replace('_', '-')} applies to chance models; "
                    f"{model_name(model)} is two-player"
                )
    limits = {
        k: v
        for k in ("max_states", "max_edges", "max_per_call")
        if (v := getattr(args, k)) is not None
    }
    _check_export(args)
    t0 = time.perf_counter()
    sol = solve_model(model, progress=not args.quiet, max_sweeps=args.max_sweeps, **limits)
    if args.json:
        # The table is written first, so that the one JSON object can name it.
        table = _export(sol, args)
        if sol.kind == "chance":
            _json_chance(sol, args, table, queries)
        else:
            _json_game(sol, table, queries)
    else:
        # All or nothing: a query or report refused half-way prints none of the summary.
        with all_or_nothing():
            if sol.kind == "chance":
                _report_chance(sol, args, queries)
            else:
                _report_game(sol, queries)
        table = _export(sol, args)
        if table is not None:
            print(f"table: {table['path']} ({table['rows']:,} rows)")
    if not args.quiet:
        _timings(sol, t0)
    return 0


def _check_export(args: Any) -> None:
    """Refuse an ``--export`` path that cannot name a table before solving (status 1)."""
    if args.export:
        from perfectplay.results.table import table_path

        table_path(args.export)


def _export(sol: Any, args: Any) -> dict[str, Any] | None:
    """Write ``--export``'s table; its path and number of rows (``None``: not asked)."""
    if not args.export:
        return None
    if sol.kind == "game":
        path = sol.export(args.export)
    else:
        path = sol.export(args.export, exact=args.exact)
    rows = sol.n_states if sol.kind == "chance" else sol.n_positions
    from perfectplay._util.progress import note

    note(f"wrote the table to {path} ({rows:,} rows)")
    return {"path": str(path), "rows": rows}


def _timings(sol: Any, t0: float) -> None:
    import time

    print(
        f"perfectplay: time: explore {sol.explore_seconds:.3f} s, solve "
        f"{sol.solve_seconds:.3f} s, total {time.perf_counter() - t0:.3f} s",
        file=sys.stderr,
    )


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}" + ("" if n == 1 else "s")


def _fmt(v: float, digits: int = DIGITS) -> str:
    from perfectplay.text.numbers import decimal_text

    return decimal_text(v, digits)


def _json_value(v: float) -> float | str | None:
    """A float for JSON: ``inf`` and ``nan`` are not JSON numbers, so they are words."""
    return v if v == v and abs(v) != float("inf") else str(v)


def _json_chance(sol: Any, args: Any, table: dict[str, Any] | None, queries: list[Any]) -> None:
    import json

    from perfectplay.text.numbers import fraction_text

    g = sol.graph
    v = sol.start_value
    obj = g.objective
    out: dict[str, Any] = {
        "model": sol.name,
        "objective": sol.objective_text,
        "sense": obj.sense,
        "measure": obj.measure,
        "solver": sol.solver,
        "value": _json_value(v),
        "states": g.n_decision,
        "rolls": g.n_chance,
        "edges": g.n_edges,
    }
    if args.exact:
        out["exact"] = fraction_text(sol.exact_value(), obj)
    if queries:
        out["queries"] = [_query_chance_json(sol, state, args.exact) for state in queries]
    if args.distribution:
        from perfectplay.reports import distribution_json

        out["distribution"] = distribution_json(g, sol.solution, args.distribution)
        out["distribution"]["unit"] = _unit(sol)
    if table is not None:
        out["table"] = table
    if args.simulate:
        runs = sol.simulate(args.simulate, args.seed)
        out["simulation"] = {
            "runs": int(runs.size),
            "seed": args.seed,
            "mean": float(runs.mean()),
            "standard_error": float(runs.std(ddof=1)) / runs.size**0.5 if runs.size > 1 else None,
        }
    print(json.dumps(out))


def _report_chance(sol: Any, args: Any, queries: list[Any]) -> None:
    g = sol.graph
    print(f"model: {sol.name} (chance; objective: {sol.objective_text}; solver: {sol.solver})")
    print(
        f"states: {g.n_decision:,} decision, {_count(g.n_chance, 'roll')}, "
        f"{_count(g.n_edges, 'edge')} "
        f"(retry property: {'yes' if sol.exploration.retry else 'no'})"
    )
    v = sol.start_value
    print(
        f"start value: {_fmt(v, args.digits)}"
        + ("  (the goal cannot be reached)" if math.isinf(v) else "")
    )
    if args.exact:
        from perfectplay.text.numbers import fraction_text

        print(f"exact: {fraction_text(sol.exact_value(), g.objective)}  (verified optimal)")
    first = sol.policy_choice(sol.exploration.state_reps[0])
    if first is not None:
        print(f"first choice: {first!r}")
    for state in queries:
        _query_chance(sol, state, args.exact, args.digits)
    if args.distribution:
        _distribution(sol, args.distribution, args.digits)
    if args.simulate:
        _simulation(sol, args.simulate, args.seed)


def _query_chance_json(sol: Any, state: Any, exact: bool) -> dict[str, Any]:
    """One ``--query`` of a chance model in ``--json``: the state's value and every
    choice's, the best marked."""
    from perfectplay.text.numbers import fraction_text

    obj: dict[str, Any] = {"state": repr(state), "value": _json_value(sol.value(state))}
    if exact:
        obj["exact"] = fraction_text(sol.exact_value(state), sol.graph.objective)
    obj["goal"] = bool(sol.is_goal(state))
    if obj["goal"]:
        obj["options"] = []
        return obj
    # The fields of Solution.options_json (action: the label, regret, best: tied with the
    # best), so the command and the API answer alike; "choice" (the repr) is the old name.
    obj["options"] = [
        {
            "action": o.label,
            "choice": repr(o.choice),
            "value": _json_value(o.value),
            "regret": _json_value(o.regret),
            "best": o.best,
        }
        for o in sol.options(state)
    ]
    return obj


def _query_chance(sol: Any, state: Any, exact: bool, digits: int = DIGITS) -> None:
    print()
    value = sol.value(state)
    obj = sol.graph.objective
    noun = _noun(obj)
    line = f"state {state!r}: {noun} {_fmt(value, digits)}"
    if exact:
        from perfectplay.text.numbers import fraction_text

        line += f" = {fraction_text(sol.exact_value(state), obj)}"
    if sol.is_goal(state):
        print(line + " (goal)")
        return
    print(line)
    options = sol.options(state)
    if not options:
        print("  no choices")
        return
    best = set(map(repr, sol.best(state)))
    width = max(len("choice"), *(len(repr(o.choice)) for o in options))
    print(f"  {'choice':<{width}}  {noun}")
    for o in options:
        mark = "  best" if repr(o.choice) in best else ""
        print(f"  {o.choice!r:<{width}}  {_fmt(o.value, digits)}{mark}")


def _noun(obj: Any) -> str:
    # Today's wording for the default objective (scripts read it); the objective's own
    # noun otherwise ("expected points", "probability").
    from perfectplay.objectives import MIN_COST

    return "expected cost" if obj == MIN_COST else obj.noun


def _unit(sol: Any) -> str:
    from perfectplay.objectives import MIN_COST

    obj = sol.graph.objective
    if obj == MIN_COST:
        return "rolls" if getattr(sol.model, "cost", None) is None else "cost"
    return str(obj.unit)


def _distribution(sol: Any, k_max: int, digits: int = DIGITS) -> None:
    from perfectplay.reports import distribution_report

    print()
    print(distribution_report(sol.graph, sol.solution, k_max, unit=_unit(sol), digits=digits))


def _simulation(sol: Any, runs: int, seed: int) -> None:
    if math.isinf(sol.start_value):  # -inf: a score that no play finishes for sure
        print("\nsimulation: the goal cannot be reached")
        return
    costs = sol.simulate(runs, seed)
    mean = float(costs.mean())
    se = float(costs.std(ddof=1)) / runs**0.5 if runs > 1 else float("nan")
    what = "cost" if sol.graph.objective.measure == "cost" else "outcome"
    print(
        f"\nsimulation: {runs:,} games (seed {seed}): mean {what} {mean:.6f} "
        f"(standard error {se:.6f}), max {int(costs.max())}"
    )


def _json_game(sol: Any, table: dict[str, Any] | None, queries: list[Any]) -> None:
    """The ``--json`` summary of a two-player model: sizes, counts of each outcome, the
    start's value and remoteness, the best first moves, the queries and the table."""
    import json

    start = sol.start_value
    out: dict[str, Any] = {
        "model": sol.name,
        "kind": "game",
        "solver": sol.solver,
        "positions": sol.n_positions,
        "moves": sol.graph.n_moves,
        "counts": {v.name.lower(): k for v, k in sol.counts().items()},
        "value": start.value.name.lower(),
        "remoteness": start.remoteness,
        "best_moves": [repr(m) for m in sol.best_moves(sol.exploration.reps[0])],
    }
    if queries:
        out["queries"] = [_query_game_json(sol, position) for position in queries]
    if table is not None:
        out["table"] = table
    print(json.dumps(out))


def _query_game_json(sol: Any, position: Any) -> dict[str, Any]:
    # is_over first: value() and options() take None for the start, a query names a state.
    sol.is_over(position)
    value = sol.value(position)
    return {
        "position": repr(position),
        "value": value.value.name.lower(),
        "remoteness": value.remoteness,
        "moves": [
            {
                "action": m.label,
                "move": repr(m.action),
                "value": m.value.value.name.lower(),
                "remoteness": m.value.remoteness,
                "regret": m.regret,
                "best": m.best,
            }
            for m in sol.options(position)
        ],
    }


def _report_game(sol: Any, queries: list[Any]) -> None:
    counts = ", ".join(f"{k:,} {v}" for v, k in sol.counts().items() if k)
    print(f"model: {sol.name} (two-player; solver: {sol.solver})")
    print(f"positions: {sol.n_positions:,}, moves: {sol.graph.n_moves:,} ({counts})")
    print(f"start value: {sol.start_value} for the player to move first")
    best = sol.best_moves(sol.exploration.reps[0])
    if best:
        print(f"best first moves: {', '.join(map(repr, best))}")
    for position in queries:
        print()
        sol.is_over(position)  # None is a state here, not the start (as for value())
        value = sol.value(position)
        print(f"position {position!r}: {value} for the player to move")
        moves = sol.moves(position)
        if not moves:
            print("  the game is over" if sol.graph.terminal[sol.position_id(position)] else "")
            continue
        best_moves = set(map(repr, sol.best_moves(position)))
        width = max(len("move"), *(len(repr(m.move)) for m in moves))
        print(f"  {'move':<{width}}  value for the mover")
        for m in moves:
            shown = str(m.value)
            mark = "  best" if repr(m.move) in best_moves else ""
            print(f"  {m.move!r:<{width}}  {shown}{mark}")


def _load_function(spec: str, flag: str) -> Any:
    """The function named by ``MODULE:FUNC`` (a path to a .py file or a module name)."""
    if not has_object(spec):
        raise InputError(f"{flag} {quote_token(spec)}: expected MODULE:FUNC")
    module_ref, name = spec.rsplit(":", 1)
    module = load_model(module_ref)
    func = getattr(module, name, None)
    if not callable(func):
        raise InputError(f"{flag}: module {quote_token(module_ref)} has no function {name}")
    return func


def _solve_stochastic(model: Any, args: Any, queries: list[Any]) -> int:
    import json
    import time

    from perfectplay.models.stochastic import solve_stochastic_model
    from perfectplay.reports import move_distribution_json, move_distribution_report
    from perfectplay.text.numbers import fraction_text

    first = second = None
    if args.strategy:
        first = second = _load_function(args.strategy, "--strategy")
    if args.first:
        first = _load_function(args.first, "--first")
    if args.second:
        second = _load_function(args.second, "--second")
    limits = {k: v for k in ("max_states", "max_per_call") if (v := getattr(args, k)) is not None}
    _check_export(args)
    t0 = time.perf_counter()
    sol = solve_stochastic_model(
        model,
        first=first,
        second=second,
        max_endless=args.max_endless,
        progress=not args.quiet,
        **limits,
    )
    fixed = first is not None or second is not None
    exact = sol.exact_value() if args.exact else None
    dist = sol.move_distribution(args.distribution) if args.distribution else None
    games = None
    if args.simulate:
        # The first mover's result of each game: 1 win, 0 loss, 1/2 tie or endless.
        results = sol.simulate(args.simulate, args.seed)
        se = float(results.std(ddof=1)) / args.simulate**0.5 if args.simulate > 1 else 0.0
        games = {"games": args.simulate, "seed": args.seed, "mean": float(results.mean()),
                 "standard_error": se}  # fmt: skip
    if getattr(args, "json", False):
        out: dict[str, Any] = {
            "model": sol.name,
            "kind": "stochastic",
            "solver": sol.solver,
            "positions": sol.n_positions,
            "value": sol.start_value,
            "bound": sol.solution.bound,
        }
        if exact is not None:
            out["exact"] = f"{exact.numerator}/{exact.denominator}"
        if dist is not None:
            out["distribution"] = move_distribution_json(dist)
        if queries:
            out["queries"] = [
                query_stochastic_json(sol, (state, 0) if fixed else state, args.exact)
                for state in queries
            ]
        if games is not None:
            out["simulation"] = games
        table = _export(sol, args)
        if table is not None:
            out["table"] = table
        print(json.dumps(out))
        return 0
    # All or nothing, as the other kinds: a query refused prints none of the summary.
    with all_or_nothing():
        print(f"model: {sol.name} (two-player with dice; solver: {sol.solver})")
        g = sol.graph
        print(f"positions: {g.n_positions:,}, moves: {g.n_chance:,}, outcomes: {g.n_outcomes:,}")
        who = {
            (True, True): "the first mover's winning chance, both strategies fixed",
            (True, False): "the first mover's winning chance (fixed) against a best response",
            (False, True): "the first mover's winning chance (best response) against the fixed "
            "second mover",
            (False, False): "the first mover's winning chance, both optimal",
        }[(first is not None, second is not None)]
        print(
            f"start value: {_fmt(sol.start_value, args.digits)}  "
            f"({who}; error at most {sol.solution.bound:.1g})"
        )
        if exact is not None:
            print(f"exact: {fraction_text(exact)}  (verified optimal)")
        if not fixed or first is None:
            move = sol.best_move()
            if move is not None:
                print(f"best first move: {move!r}")
        for state in queries:
            print()
            print(query_stochastic(sol, (state, 0) if fixed else state, args.exact, args.digits))
        if dist is not None:
            print()
            print(move_distribution_report(dist, digits=args.digits))
        if games is not None:
            print(
                f"\nsimulation: {args.simulate:,} games (seed {args.seed}): the first mover "
                f"scored {games['mean']:.6f} (standard error {games['standard_error']:.6f})"
            )
    table = _export(sol, args)
    if table is not None:
        print(f"table: {table['path']} ({table['rows']:,} rows)")
    if not args.quiet:
        _timings(sol, t0)
    return 0


def query_stochastic_json(sol: Any, state: Any, exact: bool = False) -> dict[str, Any]:
    """One ``--query`` of a two-player dice game in ``--json``: the mover's winning
    chance and every move's, the solved move marked ``best``.

    >>> from perfectplay.examples.pig import Piglet
    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> out = query_stochastic_json(solve_stochastic_model(Piglet(goal=2)), (0, 0, 1), True)
    >>> out["exact"], [(o["move"], o["best"]) for o in out["options"]]
    ('5/7', [("'roll'", True), ("'hold'", False)])
    """
    from perfectplay.text.numbers import fraction_text

    obj: dict[str, Any] = {"state": repr(state), "value": sol.value(state)}
    if exact:
        obj["exact"] = fraction_text(sol.exact_value(state))
    obj["over"] = bool(sol.is_over(state))
    if obj["over"]:
        obj["options"] = []
        return obj
    # The fields of Solution.options_json: best marks every move tied with the best (as
    # the API does), not only the one the solved strategy plays; "move" is the old name.
    obj["options"] = [
        {
            "action": o.label,
            "move": repr(o.move),
            "value": o.value,
            "regret": _json_value(o.regret),
            "best": o.best,
        }
        for o in sol.options(state)
    ]
    return obj


def query_stochastic(sol: Any, state: Any, exact: bool = False, digits: int = DIGITS) -> str:
    """The ``--query`` lines of a two-player dice game: the mover's winning chance in
    ``state`` and every move's, the solved move marked ``best``. ``sol`` is a
    :class:`~perfectplay.models.stochastic.StochasticModelSolution` or a table loaded
    with :func:`~perfectplay.models.load_solution` (the same answers, without solving).

    >>> from perfectplay.examples.pig import Piglet
    >>> from perfectplay.models.stochastic import solve_stochastic_model
    >>> print(query_stochastic(solve_stochastic_model(Piglet(goal=2)), (0, 0, 1), exact=True))
    state (0, 0, 1): winning chance 0.714285714 for the player to move = 5/7
      move    winning chance
      'roll'  0.714285714  best
      'hold'  0.600000000
    """
    from perfectplay.text.numbers import fraction_text

    value = _fmt(sol.value(state), digits)
    line = f"state {state!r}: winning chance {value} for the player to move"
    if exact:
        line += f" = {fraction_text(sol.exact_value(state))}"
    if sol.is_over(state):
        return line + "\n  the game is over"
    best = repr(sol.best_move(state))
    options = sol.options(state)
    width = max(len("move"), *(len(repr(o.move)) for o in options))
    lines = [line, f"  {'move':<{width}}  winning chance"]
    for o in options:
        mark = "  best" if repr(o.move) == best else ""
        lines.append(f"  {o.move!r:<{width}}  {_fmt(o.value, digits)}{mark}")
    return "\n".join(lines)


def _seed(text: str) -> int:
    import argparse

    # numba's generator takes a 32-bit seed: a larger one would silently wrap around.
    if not (text.isascii() and text.isdigit()) or len(text) > 10 or int(text) >= 2**32:
        raise argparse.ArgumentTypeError(f"a seed is 0 to 4294967295, not {text[:24]!r}")
    return int(text)
