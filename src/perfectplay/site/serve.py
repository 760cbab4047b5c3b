"""A local preview server for a built site: static files on 127.0.0.1 only."""

from __future__ import annotations

import functools
import posixpath
import sys
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from perfectplay.errors import PerfectplayError
from perfectplay.site.sanitize import POLICY

__all__ = ["Handler", "make_server", "serve"]

# Raw copies of sources are shown as text, not offered as downloads.
TEXT_TYPES = {
    suffix: "text/plain; charset=utf-8"
    for suffix in (".py", ".tex", ".toml", ".md", ".in", ".ans", ".txt", ".cfg", ".jsonl", "")
}


class Handler(SimpleHTTPRequestHandler):
    extensions_map = {
        **SimpleHTTPRequestHandler.extensions_map,
        **TEXT_TYPES,
        ".js": "text/javascript; charset=utf-8",
        ".html": "text/html; charset=utf-8",
        ".css": "text/css; charset=utf-8",
        ".svg": "image/svg+xml",
        ".woff2": "font/woff2",
    }

    def end_headers(self) -> None:
        # The pages' own policy as a header too, and every raw copy of the tree in a
        # sandbox (an opaque origin, no script): a file of someone's repository opened
        # here must not act as the site. No type is guessed from the bytes.
        policy = POLICY
        path = posixpath.normpath(unquote(urlsplit(self.path).path)).lstrip("/")
        if path.startswith(("raw/", "raw-text/")):  # as the file is found: %72aw is raw
            policy += "; sandbox"
        self.send_header("Content-Security-Policy", policy)
        self.send_header("X-Content-Type-Options", "nosniff")
        super().end_headers()

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        if getattr(self.server, "verbose", True):
            super().log_message(format, *args)


def make_server(out: Path, port: int = 0, verbose: bool = False) -> ThreadingHTTPServer:
    """An HTTP server for folder ``out`` bound to 127.0.0.1 (``port`` 0: a free port).

    >>> import tempfile
    >>> server = make_server(Path(tempfile.gettempdir()))
    >>> server.server_address[0]
    '127.0.0.1'
    >>> server.server_close()
    """
    handler = functools.partial(Handler, directory=str(out))
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    except OSError as exc:
        raise PerfectplayError(f"site: cannot listen on 127.0.0.1:{port}: {exc.strerror}") from None
    server.verbose = verbose  # type: ignore[attr-defined]  # read back by Handler.log_message
    server.daemon_threads = True
    return server


def serve(out: Path, port: int = 8000) -> int:
    """Serve ``out`` until interrupted."""
    server = make_server(out, port, verbose=True)
    host, bound = server.server_address[:2]
    host = host.decode() if isinstance(host, bytes) else host
    print(
        f"perfectplay: site: serving {out} at http://{host}:{bound}/ (Ctrl-C stops)",
        file=sys.stderr,
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0
