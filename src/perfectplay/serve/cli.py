"""``perfectplay serve``: play any solved game in the browser, with every option's value.

The command builds every game it serves before the server starts (models imported,
tables loaded, rule sets solved), binds 127.0.0.1 on a free port unless told otherwise,
prints the address and opens the browser. Requests then only read those solutions.

>>> args = parser().parse_args(["perfectplay.examples.pig:Pig", "-p", "goal=20", "--no-browser"])
>>> args.games, args.param, args.host, args.port, args.browser
(['perfectplay.examples.pig:Pig'], ['goal=20'], '127.0.0.1', 0, False)
"""

from __future__ import annotations

import argparse
import socket
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfectplay._util.interrupts import deferrable
from perfectplay.errors import InputError, PerfectplayError

if TYPE_CHECKING:
    from perfectplay.serve.games import ServedGame

__all__ = ["build_games", "main", "parser", "serve"]

DESCRIPTION = """\
Play any solved game in the browser: for the position in front of you every option with
its value and its loss against the best; dice rolled in the page or set by hand; two-player
games against the perfect opponent or hot-seat; undo, redo, hints, the game's record.

Serves the games named here (models as MODULE:OBJECT, saved tables with --load, rule sets
with --rules), and the built-in Yahtzee rule sets (solved when first played, seconds each,
unless named with --rules or loaded with --load). The page and its JSON API are local:
127.0.0.1 unless --host says otherwise, nothing fetched from outside.
"""

EXAMPLES = """\
examples:
  perfectplay serve                                      the Yahtzee rule sets
  perfectplay serve --load american.table --no-browser   a saved Yahtzee table
  perfectplay serve perfectplay.examples.pig:Pig -p goal=20
  perfectplay serve perfectplay.examples.tictactoe:TicTacToe --rules mini.py:MINI
"""


def parser() -> argparse.ArgumentParser:
    """The command's arguments."""
    p = argparse.ArgumentParser(
        prog="perfectplay serve",
        description=DESCRIPTION,
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "games", nargs="*", metavar="MODEL",
        help="a model to solve and serve, MODULE:OBJECT or file.py:OBJECT",
    )  # fmt: skip
    p.add_argument(
        "-p", "--param", action="append", default=[], metavar="NAME=VALUE",
        help="a parameter of the model named just before it (a Python literal, or a bare "
        "word for a string), e.g. perfectplay.examples.pig:Pig -p goal=20",
    )  # fmt: skip
    p.add_argument(
        "--rules", action="append", default=[], metavar="NAME",
        help="a Yahtzee rule set to solve at start: a built-in name or file.py:NAME",
    )  # fmt: skip
    p.add_argument(
        "--load", action="append", default=[], metavar="TABLE",
        help="serve a saved table (a Yahtzee table, a model's .npz, or a compiled model's "
        "table directory with its model named too)",
    )  # fmt: skip
    p.add_argument(
        "--alea", action="append", default=[], metavar="FILE",
        help="an Alea Iacta Est instance in the official input format (dice, then words)",
    )  # fmt: skip
    p.add_argument(
        "--only", action="store_true",
        help="serve only the games named here, not the built-in ones (the Yahtzee rule "
        "sets, the Alea Iacta Est example)",
    )  # fmt: skip
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument(
        "--allow-host", action="append", default=[], metavar="NAME",
        help="another name the server may be reached by (the Host header; with --host: "
        "the address, this machine's name and addresses and localhost are accepted)",
    )  # fmt: skip
    p.add_argument("--port", type=_port, default=0, help="port to listen on (a free one)")
    p.add_argument(
        "--workers", type=_workers, default=None, metavar="N",
        help="server processes sharing the solved games (default: one per core)",
    )  # fmt: skip
    p.add_argument(
        "--no-browser", dest="browser", action="store_false", help="do not open the browser"
    )
    return p


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, not {text[:20]!r}")
    return int(text)


def _workers(text: str) -> int:
    if not text.isdigit() or not 1 <= int(text) <= 256:
        raise argparse.ArgumentTypeError(
            f"expected a number of processes 1..256, not {text[:20]!r}"
        )
    return int(text)


def _say(text: str) -> None:
    print(f"perfectplay serve: {text}", file=sys.stderr, flush=True)


def build_games(args: argparse.Namespace) -> list[ServedGame]:
    """Every game the arguments name, solved or loaded, then the built-in rule sets not
    already among them (unsolved until played) unless ``--only``."""
    import perfectplay
    from perfectplay.problems.yahtzee.instance import resolve_rules
    from perfectplay.serve.games import ModelGame, ScorecardTable
    from perfectplay.serve.scorecard import solve_once
    from perfectplay.serve.specs import load_model, parameters, slug
    from perfectplay.yahtzee.ruleset import RULES
    from perfectplay.yahtzee.solution import YahtzeeSolution

    games: list[ServedGame] = []
    taken: set[str] = set()

    def add(game: ServedGame) -> None:
        base, n = game.id, 2
        while game.id in taken:
            game.id, n = f"{base}-{n}", n + 1
        taken.add(game.id)
        games.append(game)

    if args.param and not args.games:
        raise InputError("-p sets a parameter of a model: name the model (MODULE:OBJECT)")
    named = getattr(args, "models", None)  # each model with its own -p (main reads them)
    if named is None:
        named = [(spec, list(args.param)) for spec in args.games]
    user_rules = []
    for spec in args.rules:
        rules = resolve_rules(spec)
        user_rules.append(rules)
        about = " (about 10 s)" if spec in RULES else ""

        def said(text: str, about: str = about) -> None:
            _say(text.replace(" (seconds)", about))

        # The disk cache `perfectplay yahtzee` keeps: rules solved before are read from it.
        table = solve_once(rules, said)
        add(ScorecardTable(f"yahtzee-{slug(rules.name)}", rules, table))
    models = [(spec, load_model(spec, params), params)
              for spec, params in ((spec, parameters(given)) for spec, given in named)]  # fmt: skip
    for path in args.load:
        _say(f"loading {path}...")
        if Path(path).is_dir():  # a compiled model's table: played with its model
            model = _model_of_table(path, models)
            solution = perfectplay.load(path, model)
            add(_served(slug(solution.name), solution, f"{solution.name} (table {path})"))
            continue
        table = _load(path, user_rules)
        if isinstance(table, YahtzeeSolution):
            add(ScorecardTable(f"yahtzee-{slug(table.rules.name)}", table.rules, table))
        else:
            add(ModelGame(slug(table.name), table, f"{table.name} (table {path})"))
    for spec, model, params in models:
        name = spec.rpartition(":")[2]
        title = name + (f"({_listed(params)})" if params else "")
        _say(f"solving {title}...")
        add(_served(slug(title), perfectplay.solve(model), title, model))
    for path in args.alea:
        add(_alea(path, path))
    served = {g.rules.name for g in games if isinstance(g, ScorecardTable)}
    if not args.only or not games:
        if not args.alea:
            add(_alea(None, "the statement's example"))
        for name, rules in RULES.items():
            if name not in served:
                add(ScorecardTable(f"yahtzee-{slug(name)}", rules, notify=_say))
    return games


def _served(game_id: str, solution: Any, title: str, model: Any = None) -> ServedGame:
    """The adapter of a model's solution: a compiled model's (states in its notation,
    throws then moves), else any other model's (states as Python literals)."""
    from perfectplay.compiled.solution import CompiledSolution
    from perfectplay.serve.compiled import CompiledGame
    from perfectplay.serve.games import ModelGame

    if isinstance(solution, CompiledSolution):
        return CompiledGame(game_id, solution, title)
    return ModelGame(game_id, solution, title, model)


def _listed(params: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v!r}" for k, v in params.items())


def _model_of_table(path: str, models: list[tuple[str, Any, dict[str, Any]]]) -> Any:
    """The model named on the command line that a compiled table was solved from (its
    class and parameters, as the table records them), taken out of ``models``: it is
    served from the table, not solved again. A table no model named matches is refused:
    its model is imported only when the command line names it."""
    import perfectplay

    head = perfectplay.load(path).head  # type: ignore[attr-defined]
    recorded = str(head.get("class", ""))
    holds = f"the table holds {head.get('model', 'a model')}"
    table_params = head.get("parameters") or {}
    for i, (_, model, _) in enumerate(models):
        same_class = recorded.rpartition(":")[2] == type(model).__qualname__
        if same_class and [int(x) for x in getattr(model, "params", [])] == head.get("params"):
            return models.pop(i)[1]
    for spec, model, _ in models:
        if recorded.rpartition(":")[2] == type(model).__qualname__:
            given = getattr(model, "parameters", None)  # a compiled model's, by name
            given = (given() if callable(given) else given) or {}
            raise InputError(
                f"{path}: the table was solved with other parameters than the {spec} named "
                f"here: {holds}, solved with {_listed(table_params) or 'its defaults'}; the "
                f"model named has {_listed(given) or 'its defaults'} (-p)"
            )
    hint = " ".join(f"-p {k}={v}" for k, v in table_params.items())
    example = (
        f"perfectplay serve --load {path} {recorded or 'MODULE:CLASS'} {hint or '-p NAME=VALUE'}"
    )
    what = (
        f"{', '.join(spec for spec, _, _ in models)} is not the table's model: {holds}, "
        f"solved from {recorded or 'another class'}; name that model, e.g. {example}"
        if models
        else f"a compiled model's table is served with its model: name it too, e.g. "
        f"{example} ({holds})"
    )
    raise InputError(f"{path}: {what}")


def _alea(path: str | None, what: str) -> ServedGame:
    """Alea Iacta Est: the instance in ``path`` (the official input), or the statement's
    example."""
    from perfectplay.problems.alea import EXAMPLE_DICE, EXAMPLE_WORDS, parse, solve_instance
    from perfectplay.serve.gallery import AleaGame

    _say(f"solving Alea Iacta Est, {what}...")
    if path is None:
        from perfectplay.problems.alea import solve

        return AleaGame("alea", solve(list(EXAMPLE_DICE), list(EXAMPLE_WORDS)),
                        "Alea Iacta Est (the statement's example)")  # fmt: skip
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read(1 << 26)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    try:
        instance = parse(text)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None
    return AleaGame("alea", solve_instance(instance), f"Alea Iacta Est ({path})")


def _load(path: str, user_rules: list[Any]) -> Any:
    import perfectplay

    try:
        return perfectplay.load(path)
    except InputError:
        for rules in user_rules:  # a Yahtzee table of the user's own rules
            try:
                return perfectplay.load(path, rules=rules)
            except InputError:
                continue
        raise


def host_warning(host: str, allow: list[str]) -> str:
    """The warning for a server listening on ``host``, not a loopback address: who can
    reach it, and the names it answers for (an IPv6 address in brackets, as in a URL).

    >>> host_warning("::", [])
    "warning: listening on [::]: anyone who can reach this machine on that address can use \
this server; it answers requests that name it (the Host header) by this machine's name or \
addresses, localhost (--allow-host NAME adds a name)"
    """
    shown = f"[{host}]" if ":" in host else host
    names = "".join(f", {a}" for a in allow)
    return (
        f"warning: listening on {shown}: anyone who can reach this machine on that "
        "address can use this server; it answers requests that name it (the Host "
        f"header) by this machine's name or addresses, localhost{names} "
        "(--allow-host NAME adds a name)"
    )


def serve(
    games: list[ServedGame],
    host: str,
    port: int,
    browser: bool,
    workers: int = 1,
    allow: list[str] | None = None,
) -> int:
    """Run the server until interrupted, in ``workers`` processes
    (:mod:`perfectplay.serve.workers`); prints its address first. Requests must name it
    (the ``Host`` header): a loopback name, or with another ``host`` that address, this
    machine's name and addresses, or one of ``allow``."""
    import threading
    import webbrowser

    import uvicorn

    from perfectplay.serve.app import create_app, host_names
    from perfectplay.serve.workers import can_fork, listening_sockets, run_workers

    shown = f"[{host}]" if ":" in host else host
    loopback = host in ("127.0.0.1", "localhost", "::1")
    if not loopback:
        _say(host_warning(host, allow or []))
    workers = workers if can_fork() else 1
    try:
        sockets = listening_sockets(host, port, workers)
    except OSError as exc:
        raise PerfectplayError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    bound = sockets[0].getsockname()[1]
    url = f"http://{shown}:{bound}/"
    for game in games:
        game.warm()
    app = create_app(games, hosts=host_names(host, allow or []) if not loopback else allow or [])
    config = uvicorn.Config(
        app, log_level="warning", access_log=False, server_header=False,
        timeout_graceful_shutdown=5,
    )  # fmt: skip

    def run(sock: socket.socket) -> None:
        uvicorn.Server(config).run(sockets=[sock])

    def open_browser() -> None:
        if browser:
            threading.Timer(0.5, webbrowser.open, args=(url,)).start()

    print(f"perfectplay serve: {url} (Ctrl-C stops it)", flush=True)
    if workers == 1:
        open_browser()
        run(sockets[0])
        return 0
    _say(f"{workers} worker processes")
    return run_workers(run, sockets, workers, _say, started=open_browser)


def _default_workers() -> int:
    from perfectplay.serve.workers import default_workers

    return default_workers()


def _fork_safe_threads() -> None:
    """Numba's threads for its parallel kernels (a rule set solved on first play), of a
    kind that a forked worker can start again: GNU OpenMP's, once used, abort a forked
    child's parallel kernel. The user's own ``NUMBA_THREADING_LAYER`` is kept."""
    import os

    if "NUMBA_THREADING_LAYER" not in os.environ:
        import numba

        numba.config.THREADING_LAYER = "workqueue"  # type: ignore[attr-defined]


class _Stopped(Exception):
    """``SIGTERM`` arrived: the server stops as on Ctrl-C."""


@deferrable  # a compiled model's kernels hold it until they return, as they hold Ctrl-C
def _stop(signum: int, frame: object) -> None:
    raise _Stopped


def main(argv: list[str]) -> int:
    """``perfectplay serve ARGS``; returns the exit status: 0 when stopped by Ctrl-C or
    ``SIGTERM`` (one line says so), 2 for a refusal."""
    import os
    import signal

    p = parser()
    # Models and options in any order (a model after a -p), each -p its model's.
    args = p.parse_intermixed_args(argv)
    from perfectplay.serve.specs import models_and_params

    args.models = models_and_params(argv, p)
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError as exc:
        print(
            f"perfectplay serve: needs the serve extra ({exc.name} is missing): "
            "pip install 'perfectplay[serve]'",
            file=sys.stderr,
        )
        return 2
    # Numba's error colours (colorama) reset the terminal when the process exits, a stray
    # ESC[0m after the Ctrl-C.
    os.environ.setdefault("NUMBA_DISABLE_ERROR_MESSAGE_HIGHLIGHTING", "1")
    # Ctrl-C and SIGTERM stop the server the same way, at any moment, the start-up solve
    # included: SIGINT even where it was ignored (a server started with `&` by a script);
    # uvicorn passes either on once it has shut down.
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _stop)
    try:
        workers = args.workers or _default_workers()
        if workers > 1:
            _fork_safe_threads()
        games = build_games(args)
        status = serve(games, args.host, args.port, args.browser, workers, args.allow_host)
    except PerfectplayError as exc:
        print(f"perfectplay serve: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, _Stopped):
        status = 0
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if status == 0:
        _say("stopped")
    return status
