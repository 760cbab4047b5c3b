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
import sys
from typing import TYPE_CHECKING, Any

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
        help="a parameter of the models' classes (a Python literal), e.g. -p goal=20",
    )  # fmt: skip
    p.add_argument(
        "--rules", action="append", default=[], metavar="NAME",
        help="a Yahtzee rule set to solve at start: a built-in name or file.py:NAME",
    )  # fmt: skip
    p.add_argument(
        "--load", action="append", default=[], metavar="TABLE",
        help="serve a saved table (a Yahtzee table or a model's .npz)",
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
    p.add_argument("--port", type=_port, default=0, help="port to listen on (a free one)")
    p.add_argument(
        "--no-browser", dest="browser", action="store_false", help="do not open the browser"
    )
    return p


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, not {text[:20]!r}")
    return int(text)


def _say(text: str) -> None:
    print(f"perfectplay serve: {text}", file=sys.stderr, flush=True)


def build_games(args: argparse.Namespace) -> list[ServedGame]:
    """Every game the arguments name, solved or loaded, then the built-in rule sets not
    already among them (unsolved until played) unless ``--only``."""
    import perfectplay
    from perfectplay.problems.yahtzee.instance import resolve_rules
    from perfectplay.serve.games import ModelGame, ScorecardTable
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

    params = parameters(args.param)
    if params and not args.games:
        raise InputError("-p sets a parameter of a model: name the model (MODULE:OBJECT)")
    user_rules = []
    for spec in args.rules:
        rules = resolve_rules(spec)
        user_rules.append(rules)
        _say(f"solving {rules.name} rules" + (" (about 10 s)" if spec in RULES else "") + "...")
        add(ScorecardTable(f"yahtzee-{slug(rules.name)}", rules, perfectplay.solve(rules)))
    for path in args.load:
        _say(f"loading {path}...")
        table = _load(path, user_rules)
        if isinstance(table, YahtzeeSolution):
            add(ScorecardTable(f"yahtzee-{slug(table.rules.name)}", table.rules, table))
        else:
            add(ModelGame(slug(table.name), table, f"{table.name} (table {path})"))
    for spec in args.games:
        model = load_model(spec, params)
        name = spec.rpartition(":")[2]
        title = name + (f"({', '.join(f'{k}={v!r}' for k, v in params.items())})" if params else "")
        _say(f"solving {title}...")
        add(ModelGame(slug(title), perfectplay.solve(model), title, model))
    for path in args.alea:
        add(_alea(path, path))
    named = {g.rules.name for g in games if isinstance(g, ScorecardTable)}
    if not args.only or not games:
        if not args.alea:
            add(_alea(None, "the statement's example"))
        for name, rules in RULES.items():
            if name not in named:
                add(ScorecardTable(f"yahtzee-{slug(name)}", rules, notify=_say))
    return games


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


def serve(games: list[ServedGame], host: str, port: int, browser: bool) -> int:
    """Run the server until interrupted; prints its address first."""
    import socket
    import threading
    import webbrowser

    import uvicorn

    from perfectplay.serve.app import create_app

    loopback = host in ("127.0.0.1", "localhost", "::1")
    if not loopback:
        _say(
            f"warning: listening on {host}: anyone who can reach this machine on that "
            "address can use this server"
        )
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # IPPROTO_TCP named: asyncio turns Nagle's algorithm off (TCP_NODELAY) only on sockets
    # that say so, and a response written in two parts would otherwise wait 40 ms for the
    # client's delayed acknowledgement.
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        raise PerfectplayError(f"cannot listen on {host}:{port}: {exc.strerror}") from None
    sock.listen(2048)  # connections made once the address is printed wait for the server
    bound = sock.getsockname()[1]
    shown = f"[{host}]" if family == socket.AF_INET6 else host
    url = f"http://{shown}:{bound}/"
    app = create_app(games, hosts=[] if loopback else ["*"])
    print(f"perfectplay serve: {url} (Ctrl-C stops it)", flush=True)
    if browser:
        threading.Timer(0.5, webbrowser.open, args=(url,)).start()
    config = uvicorn.Config(app, log_level="warning", access_log=False, server_header=False)
    uvicorn.Server(config).run(sockets=[sock])
    return 0


def main(argv: list[str]) -> int:
    """``perfectplay serve ARGS``; returns the exit status."""
    args = parser().parse_args(argv)
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
    try:
        games = build_games(args)
        return serve(games, args.host, args.port, args.browser)
    except PerfectplayError as exc:
        print(f"perfectplay serve: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
