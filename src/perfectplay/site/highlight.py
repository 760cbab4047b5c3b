"""Syntax highlighting with Pygments, keeping the text of the file intact.

Every line becomes ``<span id="PREFIX-N">`` (so a URL can point at a line); line numbers
are drawn by CSS counters, which are not part of the text, so the text content of the
block is exactly the file. :func:`code_block` checks that before returning.
"""

from __future__ import annotations

import functools
import html
import os
import re

from pygments import highlight as _highlight
from pygments.formatters import HtmlFormatter
from pygments.lexer import Lexer
from pygments.lexers import (
    TextLexer,
    find_lexer_class_for_filename,
    get_lexer_by_name,
    guess_lexer,
)
from pygments.util import ClassNotFound

__all__ = ["byte_notes", "code_block", "highlight_fragment", "plain_block", "stylesheet", "text_of"]

STYLE = "friendly"
LEXER_OPTIONS = {"stripnl": False, "stripall": False, "ensurenl": False, "tabsize": 0}


@functools.lru_cache(maxsize=1024)
def _lexer_class(basename: str) -> type[Lexer] | None:
    """Pygments' lexer for a file name (its lookup scans every plugin: once per name)."""
    found = find_lexer_class_for_filename(basename)
    return found if isinstance(found, type) else None


def _lexer(filename: str = "", language: str = "", text: str = "") -> Lexer:
    try:
        if language:
            return get_lexer_by_name(language, **LEXER_OPTIONS)
    except ClassNotFound:
        pass
    found = _lexer_class(os.path.basename(filename)) if filename and not language else None
    if found is not None:
        return found(**LEXER_OPTIONS)
    if text.startswith("#!"):  # a script without a suffix: its interpreter line tells
        try:
            return guess_lexer(text, **LEXER_OPTIONS)
        except ClassNotFound:
            pass
    return TextLexer(**LEXER_OPTIONS)


def text_of(fragment: str) -> str:
    """The text a browser shows for an HTML fragment without generated content.

    >>> text_of('<pre><span id="a-1">x &lt; 1\\n</span></pre>')
    'x < 1\\n'
    """
    return html.unescape(re.sub(r"<[^>]*>", "", fragment))


def _attributes(attrs: dict[str, str] | None) -> str:
    return "".join(f' {k}="{html.escape(v)}"' for k, v in (attrs or {}).items())


def code_block(
    text: str,
    *,
    filename: str = "",
    language: str = "",
    prefix: str = "",
    attrs: dict[str, str] | None = None,
) -> str:
    """``text`` as a highlighted ``<pre>`` (line spans ``PREFIX-N`` when ``prefix``; ``attrs``
    are set on the ``<pre>``, whose text content is exactly ``text``).

    >>> block = code_block("x = 1\\n", filename="a.py", prefix="f1")
    >>> text_of(block) == "x = 1\\n", 'id="f1-1"' in block
    (True, True)
    """
    # Pygments reads "\r\n" as "\n"; show what it shows, the raw link keeps the bytes.
    text = text.replace("\r\n", "\n")
    options = {"linespans": prefix} if prefix else {}
    formatter = HtmlFormatter(style=STYLE, cssclass="hl", **options)
    out = str(_highlight(text, _lexer(filename, language, text), formatter))
    # Pygments wraps in <div class="hl"><pre><span></span>...</pre></div>: that empty span
    # keeps a first empty line, which HTML would drop right after <pre>.
    out = out.rstrip("\n").replace("<pre>", f"<pre{_attributes(attrs)}>", 1)
    if text_of(out) == text + "\n":
        # Pygments ends the last line; the file did not. Only closing tags follow that "\n".
        last = out.rfind("\n")
        out = out[:last] + out[last + 1 :]
    if text_of(out) != text:
        # Pygments drops a byte-order mark and reads a lone "\r" as a line end: such a file
        # is shown unhighlighted rather than altered.
        return plain_block(text, attrs)
    return out


def byte_notes(text: str) -> list[str]:
    """What a reader cannot see in the ``<pre>`` of ``text``: the bytes a browser hides or
    shows differently (the page says so; the raw copy has them all).

    >>> for note in byte_notes("\\ufeffa\\rb\\r\\n"):
    ...     print(note)
    starts with a UTF-8 byte-order mark (invisible)
    ends 1 line with CR LF (shown as a plain line end)
    has 1 carriage return not followed by a line feed (a browser shows it as a space)
    >>> byte_notes("x = 1\\n")
    []
    """
    notes = []
    if text.startswith("\ufeff"):
        notes.append("starts with a UTF-8 byte-order mark (invisible)")
    crlf = text.count("\r\n")
    lone = text.count("\r") - crlf
    if crlf:
        lines = "line" if crlf == 1 else "lines"
        notes.append(f"ends {crlf} {lines} with CR LF (shown as a plain line end)")
    if lone:
        what = "carriage return" if lone == 1 else "carriage returns"
        notes.append(
            f"has {lone} {what} not followed by a line feed (a browser shows "
            f"{'it' if lone == 1 else 'each'} as a space)"
        )
    return notes


def plain_block(text: str, attrs: dict[str, str] | None = None) -> str:
    """``text`` in a ``<pre>`` without highlighting (sample input and output)."""
    # HTML drops one newline right after <pre>; an empty span before the text keeps it.
    # A raw carriage return would be read as a line end by the browser: keep it a character.
    body = html.escape(text, quote=False).replace("\r", "&#13;")
    return f'<pre class="plain"{_attributes(attrs)}><span></span>{body}</pre>'


def stylesheet() -> str:
    """The CSS of the highlighting style, scoped to ``.hl``."""
    return str(HtmlFormatter(style=STYLE, cssclass="hl").get_style_defs(".hl"))


_FENCED = re.compile(r'<pre(?: class="([^"]*)")?><code>(.*?)</code></pre>', re.DOTALL)


def highlight_fragment(fragment: str) -> str:
    """Highlight the code blocks pandoc wrote as ``<pre class="LANG"><code>``.

    >>> "hl" in highlight_fragment('<pre class="python"><code>x = 1</code></pre>')
    True
    >>> highlight_fragment('<pre><code>a &lt; b</code></pre>')
    '<pre class="plain"><span></span>a &lt; b</pre>'
    """

    def one(match: re.Match[str]) -> str:
        text = html.unescape(match.group(2))
        language = (match.group(1) or "").split()[-1:] or [""]
        if language[0] in ("", "text", "plain", "txt"):
            return plain_block(text)
        try:
            get_lexer_by_name(language[0])
        except ClassNotFound:
            return plain_block(text)
        return code_block(text, language=language[0])

    return _FENCED.sub(one, fragment)
