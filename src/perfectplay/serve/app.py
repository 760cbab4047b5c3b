"""The web application: a stateless JSON API over the served games, and the page.

Routes (documented one by one in ``docs/serve.md``):

==========================================  ====================================================
``GET  /``                                  the page (``static/index.html``)
``GET  /static/NAME``                       the page's script and style sheet
``GET  /api/games``                         every served game (:meth:`ServedGame.describe`)
``GET  /api/games/ID``                      one of them
``POST /api/games/ID/options``              a state's value and options (or chance outcomes)
``GET  /api/games/ID/options?state=...``    the same, for a quick look from a terminal
``POST /api/games/ID/apply``                what a choice leads to
``POST /api/games/ID/parse``                a typed state, checked and written back
==========================================  ====================================================

Safe by default: request bodies (:data:`MAX_BODY`) and query strings (:data:`MAX_QUERY`)
are bounded, the ``Host`` header must name this server (no DNS rebinding, whatever the
address listened on), every response
carries a Content-Security-Policy that allows nothing but this server (no inline script,
no outside source), the page's files are read once from the package (no path a client
sends is ever opened), and every error is a 4xx (a 500 only for a fault of the server or
of a served model) with a one-line JSON body ``{"error": "..."}``, never a traceback.

>>> from starlette.testclient import TestClient
>>> import perfectplay
>>> from perfectplay.examples.tictactoe import TicTacToe
>>> from perfectplay.serve.games import ModelGame
>>> client = TestClient(create_app([ModelGame("tictactoe", perfectplay.solve(TicTacToe()))]))
>>> r = client.post("/api/games/tictactoe/options", json={"state": "'XX.OO....'"})
>>> r.status_code, r.json()["value"], r.json()["options"][0]["next"]
(200, {'outcome': 'win', 'remoteness': 1}, "'XXXOO....'")
>>> client.post("/api/games/tictactoe/options", json={"state": "'XXXXX'"}).json()
{'error': "position 'XXXXX' is not reachable from the start of TicTacToe"}
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any

from perfectplay.errors import PerfectplayError
from perfectplay.serve.answers import DEFAULT_BYTES, AnswerCache, encode

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

    from perfectplay.serve.games import ServedGame

__all__ = ["BODY_SECONDS", "CSP", "MAX_BODY", "MAX_QUERY", "create_app", "host_names"]

#: The largest request body read (a state and an action are far smaller).
MAX_BODY = 16 * 1024
#: The longest query string read.
MAX_QUERY = 4 * 1024
#: Seconds a request body may take to arrive (a client that declares more bytes than it
#: sends is answered 408 rather than holding its connection open).
BODY_SECONDS = 5.0

#: The Content-Security-Policy of every response: this server only, no inline script or
#: style, no frames, no plugins.
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

#: The headers added to every response.
SECURITY = (
    (b"content-security-policy", CSP.encode()),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cache-control", b"no-store"),
)

#: The page's files, by the name the page asks for, and their media types.
ASSETS = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "style.css": "text/css; charset=utf-8",
}

LOOPBACK = ("127.0.0.1", "localhost", "[::1]")


def host_names(host: str, allowed: Sequence[str] = ()) -> list[str]:
    """The ``Host`` names a server listening on ``host`` answers for, besides the loopback
    ones and the address a request came in on (:class:`Guard`): ``host`` itself, this
    machine's name and addresses, and ``allowed`` (``--allow-host``). A name that
    resolves to this machine through someone else's DNS (rebinding) is none of these.

    >>> names = host_names("0.0.0.0", ["board.example"])
    >>> "0.0.0.0" in names and "board.example" in names and "evil.example" not in names
    True
    >>> host_names("::", [])[0]
    '[::]'
    """
    import socket

    def bracketed(name: str) -> str:
        return f"[{name}]" if ":" in name and not name.startswith("[") else name

    names = [host]
    for name in {socket.gethostname(), socket.getfqdn()}:
        names.append(name)
        try:
            names += [str(a[4][0]) for a in socket.getaddrinfo(name, None)]
        except OSError:  # a name that does not resolve: the name alone
            continue
    return list(dict.fromkeys(bracketed(n.lower()) for n in [*names, *allowed] if n))


log = logging.getLogger("perfectplay.serve")


def _error(status: int, message: str) -> Response:
    from starlette.responses import JSONResponse

    line = " ".join(str(message).split())  # one line, whatever the message held
    return JSONResponse({"error": line[:500]}, status_code=status)


class Guard:
    """ASGI middleware: bounds the query string and the declared body size, checks the
    ``Host`` header, and adds the security headers to every response."""

    def __init__(self, app: ASGIApp, hosts: Sequence[str]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        problem = self._problem(scope, headers)

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY]}
            await send(message)

        if problem is not None:
            await _error(*problem)(scope, receive, secured)
            return
        await self.app(scope, receive, secured)

    def _problem(self, scope: Scope, headers: dict[str, str]) -> tuple[int, str] | None:
        if len(scope.get("query_string", b"")) > MAX_QUERY:
            return 414, f"the query string is longer than {MAX_QUERY} bytes"
        length = headers.get("content-length", "0")
        if not length.isdigit() or int(length) > MAX_BODY:
            return 413, f"the request body is larger than {MAX_BODY} bytes"
        host = headers.get("host", "")
        name = (host.rsplit(":", 1)[0] if not host.endswith("]") else host).lower()
        # The address the request came in on names this server too (a listener on 0.0.0.0
        # is reached by whichever address of the machine the client chose).
        here = scope.get("server") or ("", None)
        if "*" not in self.hosts and name not in self.hosts and name.strip("[]") != here[0]:
            return (
                421,
                f"this server answers for {', '.join(sorted(self.hosts))}, not {host[:60]!r}",
            )
        return None


async def _body(request: Request) -> dict[str, Any]:
    """The JSON object of a request, read up to :data:`MAX_BODY` bytes whatever the
    ``Content-Length`` said, within :data:`BODY_SECONDS`."""
    import asyncio

    chunks: list[bytes] = []

    async def read() -> None:
        size = 0
        async for chunk in request.stream():
            size += len(chunk)
            if size > MAX_BODY:
                raise _Refused(413, f"the request body is larger than {MAX_BODY} bytes")
            chunks.append(chunk)

    try:
        await asyncio.wait_for(read(), BODY_SECONDS)
    except TimeoutError:
        raise _Refused(408, f"the request body did not arrive within {BODY_SECONDS:g} s") from None
    try:
        data = json.loads(b"".join(chunks) or b"{}")
    except (ValueError, RecursionError):
        raise _Refused(400, "the request body is not JSON") from None
    if not isinstance(data, dict):
        raise _Refused(400, 'the request body must be a JSON object, e.g. {"state": "..."}')
    return data


class _Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


Handler = Callable[["Request"], Awaitable["Response"]]


def _answer(handler: Handler) -> Handler:
    """Every API answer goes through here: a user's error becomes a 4xx with its one line,
    anything else a 500 with one line (the traceback goes to the server's log only)."""

    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except _Refused as exc:
            return _error(exc.status, str(exc))
        except PerfectplayError as exc:
            return _error(400, str(exc))
        except Exception as exc:
            log.exception("%s %s failed", request.method, request.url.path)
            return _error(500, f"internal error: {type(exc).__name__}")

    return guarded


def create_app(
    games: Sequence[ServedGame],
    hosts: Sequence[str] = ("testserver",),
    cache_bytes: int = DEFAULT_BYTES,
) -> Starlette:
    """The application serving ``games`` (ids must be distinct), answering requests whose
    ``Host`` is one of ``hosts`` (:func:`host_names`), a loopback name or the address the
    request came in on (``"*"``: any), keeping up to
    ``cache_bytes`` of answers (:class:`~perfectplay.serve.answers.AnswerCache`)."""
    from starlette.applications import Starlette
    from starlette.concurrency import run_in_threadpool
    from starlette.exceptions import HTTPException
    from starlette.middleware import Middleware
    from starlette.responses import JSONResponse, Response
    from starlette.routing import Route

    cache = AnswerCache(cache_bytes)
    by_id = {g.id: g for g in games}
    if len(by_id) != len(games):
        raise ValueError("two served games have the same id")
    folder = resources.files("perfectplay.serve") / "static"
    assets = {name: (folder / name).read_bytes() for name in ASSETS}

    def game_of(request: Request) -> ServedGame:
        game = by_id.get(request.path_params["game"])
        if game is None:
            raise _Refused(404, f"no game {request.path_params['game'][:60]!r} is served here")
        return game

    async def run(game: ServedGame, route: str, work: Callable[..., Any], *args: Any) -> Response:
        # The answers are CPU work of a millisecond under the GIL: a worker thread would
        # only add its hand-over (and the GIL's switch interval) to every request. A rule
        # set solved on first use takes seconds: that one goes to a thread.
        if not game.ready:
            body = encode(await run_in_threadpool(work, *args))
        elif all(isinstance(a, str) for a in args):  # the key of a kept answer
            body = cache.get_or_make((game.id, route, *args), lambda: work(*args))
        else:  # not text: the game refuses it
            body = encode(work(*args))
        return Response(body, media_type="application/json")

    def state_of(data: dict[str, Any]) -> Any:
        if "state" not in data and "situation" not in data:
            raise _Refused(400, 'give the state: {"state": "..."} (or "situation" for Yahtzee)')
        return data.get("state", data.get("situation"))

    async def page(request: Request) -> Response:
        return Response(assets["index.html"], media_type=ASSETS["index.html"])

    async def asset(request: Request) -> Response:
        name = request.path_params["name"]
        if name not in assets:
            raise _Refused(404, "no such file")
        return Response(assets[name], media_type=ASSETS[name])

    async def list_games(request: Request) -> Response:
        return JSONResponse({"games": [g.describe() for g in games]})

    async def one_game(request: Request) -> Response:
        return JSONResponse(game_of(request).describe())

    async def options(request: Request) -> Response:
        game = game_of(request)
        if request.method == "GET":
            data: dict[str, Any] = dict(request.query_params)
        else:
            data = await _body(request)
        return await run(game, "options", game.position, state_of(data))

    async def apply(request: Request) -> Response:
        game = game_of(request)
        data = await _body(request)
        if "action" not in data:
            raise _Refused(400, 'give the action: {"state": "...", "action": "..."}')
        return await run(game, "apply", game.apply, state_of(data), data["action"])

    async def parse(request: Request) -> Response:
        game = game_of(request)
        return await run(game, "parse", game.parsed, state_of(await _body(request)))

    async def refused(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        return _error(status, getattr(exc, "detail", "") or "refused")

    routes = [  # the most asked first: the router tries them in order
        Route("/api/games/{game}/options", _answer(options), methods=["GET", "POST"]),
        Route("/api/games/{game}/apply", _answer(apply), methods=["POST"]),
        Route("/api/games/{game}/parse", _answer(parse), methods=["POST"]),
        Route("/api/games/{game}", _answer(one_game)),
        Route("/api/games", _answer(list_games)),
        Route("/static/{name}", _answer(asset)),
        Route("/", _answer(page)),
    ]
    allowed = [*LOOPBACK, *hosts]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(Guard, hosts=allowed)],
        exception_handlers={HTTPException: refused, Exception: refused},
    )
    app.state.answers = cache  # this process's kept answers (hits and misses counted)
    return app
