"""What pandoc makes of a statement, a write-up or a doc, made safe to put in a page.

Markdown passes raw HTML through, so a statement could carry a ``<script>``, an
``onerror=`` handler, a ``javascript:`` or ``file:`` link or a ``<style>`` that loads from
the network. Every converted fragment goes through an allow-list HTML sanitizer (``nh3``,
Rust's ammonia): the tags and attributes pandoc writes (MathML included), links only
``http(s)``, relative or ``#fragment``, and inline styles only without ``url(`` and
without a ``position`` that lifts the element over the page. The
pages' Content-Security-Policy (:data:`POLICY`) forbids outside loads and inline scripts
as a second wall.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import nh3

__all__ = ["POLICY", "clean"]

#: The Content-Security-Policy of every page: the site's own files only, no inline script,
#: nothing posted elsewhere (``frame-ancestors`` is not allowed in a ``<meta>`` policy).
#: Inline ``style`` attributes stay allowed: pandoc aligns table columns with them, and a
#: style loads nothing without ``url(``, which the sanitizer refuses.
POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; "
    "form-action 'self'; object-src 'none'"
)

_HTML = {
    "a",
    "abbr",
    "b",
    "blockquote",
    "br",
    "caption",
    "cite",
    "code",
    "col",
    "colgroup",
    "dd",
    "del",
    "details",
    "dfn",
    "div",
    "dl",
    "dt",
    "em",
    "figcaption",
    "figure",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "i",
    "img",
    "input",
    "ins",
    "kbd",
    "li",
    "mark",
    "ol",
    "p",
    "pre",
    "q",
    "s",
    "samp",
    "section",
    "small",
    "span",
    "strong",
    "sub",
    "summary",
    "sup",
    "table",
    "tbody",
    "td",
    "tfoot",
    "th",
    "thead",
    "tr",
    "u",
    "ul",
    "var",
    "wbr",
    "nav",
    "aside",
    "header",
    "footer",
    "article",
    "main",
}
#: Presentation MathML, as pandoc's ``--mathml`` writes it.
_MATHML = {
    "math",
    "semantics",
    "annotation",
    "mrow",
    "mi",
    "mn",
    "mo",
    "ms",
    "mtext",
    "mspace",
    "msub",
    "msup",
    "msubsup",
    "munder",
    "mover",
    "munderover",
    "mfrac",
    "msqrt",
    "mroot",
    "mstyle",
    "mpadded",
    "mphantom",
    "menclose",
    "mfenced",
    "mtable",
    "mtr",
    "mtd",
    "mlabeledtr",
    "mmultiscripts",
    "mprescripts",
    "none",
    "merror",
    "maligngroup",
    "malignmark",
}
_COMMON = {"id", "class", "title", "lang", "dir", "style", "role", "aria-hidden", "aria-label"}
_MATHML_ATTRIBUTES = {
    "display",
    "xmlns",
    "encoding",
    "mathvariant",
    "stretchy",
    "fence",
    "separator",
    "form",
    "accent",
    "accentunder",
    "lspace",
    "rspace",
    "largeop",
    "movablelimits",
    "symmetric",
    "maxsize",
    "minsize",
    "width",
    "height",
    "depth",
    "voffset",
    "linethickness",
    "notation",
    "open",
    "close",
    "separators",
    "displaystyle",
    "scriptlevel",
    "columnalign",
    "columnspacing",
    "columnlines",
    "rowalign",
    "rowspacing",
    "rowlines",
    "frame",
    "framespacing",
    "equalrows",
    "equalcolumns",
    "side",
    "minlabelspacing",
    "mathsize",
    "columnspan",
    "rowspan",
    "align",
    "bevelled",
    "numalign",
    "denomalign",
    "charalign",
}
_ATTRIBUTES: dict[str, set[str]] = {
    "a": {"href"},
    "img": {"src", "alt", "width", "height"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "col": {"span", "width"},
    "ol": {"start", "type", "reversed"},
    "li": {"value"},
    "input": {"type", "checked", "disabled"},  # a task list's boxes
    "details": {"open"},
    **{tag: set(_MATHML_ATTRIBUTES) for tag in _MATHML},
}


#: A style placing its element over the page (``position: fixed`` and the like): a
#: statement could cover the site's header, title and verdicts with its own.
_PLACED = re.compile(r"position\s*:\s*(fixed|absolute|sticky)")


def _attribute(element: str, name: str, value: str) -> str | None:
    """Drop a style that could load something or cover the page, and any input but a
    disabled checkbox."""
    if name == "style":
        lowered = value.lower().replace("\\", "")
        if "url(" in lowered or "@import" in lowered or "expression(" in lowered:
            return None
        if _PLACED.search(re.sub(r"/\*.*?\*/", "", lowered, flags=re.S)):
            return None
    if element == "input" and name == "type" and value != "checkbox":
        return None
    return value


@functools.cache
def _options() -> dict[str, Any]:
    return {
        "tags": _HTML | _MATHML,
        "clean_content_tags": {"script", "style"},
        "attributes": {"*": _COMMON, **_ATTRIBUTES},
        "attribute_filter": _attribute,
        "generic_attribute_prefixes": {"data-"},
        "url_schemes": {"http", "https"},
        "strip_comments": False,  # the docs' <!-- perfectplay:... --> directives
        "link_rel": None,
    }


def clean(fragment: str) -> str:
    """``fragment`` with every tag, attribute and URL off the allow-list removed.

    >>> clean('<p onclick="x()">a<script>alert(1)</script> <a href="javascript:x">b</a></p>')
    '<p>a <a>b</a></p>'
    >>> clean('<a href="../x.md#y">r</a> <a href="https://e.org/">e</a>')
    '<a href="../x.md#y">r</a> <a href="https://e.org/">e</a>'
    >>> clean('<math display="block"><mi>x</mi></math><style>@import url(http://e)</style>')
    '<math display="block"><mi>x</mi></math>'
    >>> clean('<div style="position: fixed; inset: 0">x</div><p style="width: 5%">y</p>')
    '<div>x</div><p style="width: 5%">y</p>'
    """
    return nh3.clean(fragment, **_options())
