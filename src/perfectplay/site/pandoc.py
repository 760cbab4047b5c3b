"""TeX and Markdown to HTML with MathML, through pandoc.

MathML is rendered by the browser itself, so pages need no script and no network to
show typeset math. A conversion that loses anything fails the build: pandoc's warnings
(math it cannot convert, for one) are errors, and so is a LaTeX command pandoc skips,
except the few listed in :data:`HARMLESS` that only affect print layout.
"""

from __future__ import annotations

import functools
import re
import shutil
import subprocess
from pathlib import Path

from perfectplay.site.errors import SiteError

__all__ = ["convert", "pandoc", "version"]

# Print-layout commands: skipping them loses nothing a web page needs.
HARMLESS = set(
    "maketitle tableofcontents newpage clearpage pagebreak noindent centering smallskip "
    "medskip bigskip vfill hfill linebreak allowbreak raggedright sloppy fussy "
    "thispagestyle pagestyle".split()
)
# A Kattis statement's \problemname{...}: the page already shows the title it names.
HARMLESS.add("problemname")


@functools.cache
def pandoc() -> tuple[str, tuple[int, ...]]:
    """Path and version of pandoc: the one the ``pypandoc-binary`` wheel ships, else PATH's."""
    path = None
    try:
        import pypandoc

        path = pypandoc.get_pandoc_path()
    except (ImportError, OSError):
        path = None
    path = path or shutil.which("pandoc")
    if not path:
        raise SiteError(
            "", "pandoc", "pandoc not found: python3 -m pip install 'perfectplay[site]'"
        )
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    found = re.search(r"(\d+(?:\.\d+)+)", out)
    version = tuple(int(x) for x in found.group(1).split(".")) if found else (0,)
    return path, version


def version() -> str:
    return ".".join(map(str, pandoc()[1]))


def _error(stderr: str, source: str, where: str, text: str) -> SiteError:
    """One line from pandoc's complaint, with the line of the source when it can be found."""
    lines = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    for ln in lines:
        skipped = re.match(r"\[INFO\] Skipped '(.*)' at .* line (\d+)", ln)
        if skipped:
            return SiteError(
                where, source, f"pandoc cannot convert {skipped.group(1)!r}", int(skipped.group(2))
            )
    for i, ln in enumerate(lines):
        if ln.startswith("[WARNING]"):
            message = ln.removeprefix("[WARNING]").strip()
            located = re.search(r" at .*?line (\d+)", message)
            line = int(located.group(1)) if located else None
            # The line is already in the error's location; pandoc's " at FILE line L column C"
            # would only repeat it.
            message = re.sub(r" at \S+ line \d+ column \d+$", "", message)
            include = re.match(r"Could not load include file (.*)$", message)
            if include:
                message = (
                    f"cannot include {include.group(1)!r}: a page is made from this file "
                    "alone (pandoc runs with --sandbox; \\input, \\include and listings "
                    "from files are refused)"
                )
            math = re.match(r"Could not convert TeX math (.*?), rendering as TeX:?$", message)
            if math:
                snippet = math.group(1).strip()
                message = f"pandoc cannot convert the math {snippet!r}"
                if i + 3 < len(lines) and not lines[i + 3].startswith("["):
                    message += f": {lines[i + 3]}"
                line = _find_line(text, snippet.splitlines()[0] if snippet else "")
            return SiteError(where, source, message, line)
    parse = re.search(r"^Error at .*?\(line (\d+), column \d+\):\n(.*)", stderr, re.M | re.S)
    if parse:
        # The message lines, then the offending source line and a caret under it.
        rest = parse.group(2).rstrip("\n").split("\n")
        if len(rest) >= 2 and rest[-1].strip() == "^":
            rest = rest[:-2]
        detail = "; ".join(x.strip() for x in rest if x.strip()) or "syntax error"
        return SiteError(where, source, f"pandoc cannot parse it: {detail}", int(parse.group(1)))
    return SiteError(where, source, f"pandoc failed: {' '.join(lines)[:300] or 'no message'}")


def _find_line(text: str, snippet: str) -> int | None:
    at = text.find(snippet) if snippet else -1
    return text.count("\n", 0, at) + 1 if at >= 0 else None


def _raw_tex_left(html: str) -> str | None:
    """Text outside math and code that still looks like TeX (a ``$`` or a ``\\command``)."""
    visible = re.sub(r"<math\b.*?</math>", " ", html, flags=re.DOTALL)
    visible = re.sub(r"<(pre|code)\b.*?</\1>", " ", visible, flags=re.DOTALL)
    visible = re.sub(r"<[^>]*>", " ", visible)
    found = re.search(r"\$|\\[A-Za-z]+", visible)
    return None if found is None else visible[max(0, found.start() - 20) : found.end() + 20]


def convert(
    root: Path,
    source: str,
    where: str,
    *,
    tex: bool,
    id_prefix: str = "",
    shift: int = 0,
    strict_text: bool = False,
) -> str:
    """Convert the repository file ``source`` (LaTeX when ``tex``, else pandoc Markdown) to an
    HTML fragment. ``strict_text`` also rejects a ``$`` or ``\\command`` left in the text."""
    path, ver = pandoc()
    text = (root / source).read_bytes().decode("utf-8", "replace")
    argv = [
        path,
        "--from=latex" if tex else "--from=markdown",
        "--to=html5",
        "--mathml",
        "--wrap=none",
        "--fail-if-warnings",
        # No \input, \include or image may read a file other than the one converted:
        # the page shows the tree, nothing else on the machine.
        "--sandbox",
        "--syntax-highlighting=none" if ver >= (3, 8) else "--no-highlight",
    ]
    if tex:
        argv.append("--verbose")  # reports every skipped command, which we refuse
    if id_prefix:
        argv.append(f"--id-prefix={id_prefix}")
    if shift:
        argv.append(f"--shift-heading-level-by={shift}")
    argv.append(source)
    try:
        proc = subprocess.run(argv, capture_output=True, cwd=root, timeout=120)
    except subprocess.TimeoutExpired:
        raise SiteError(where, source, "pandoc ran longer than 120 s") from None
    stderr = proc.stderr.decode("utf-8", "replace")
    if proc.returncode != 0:
        raise _error(stderr, source, where, text)
    for ln in stderr.splitlines():
        found = re.match(r"\[INFO\] Skipped '\\([A-Za-z]+)", ln.strip())
        if found and found.group(1) not in HARMLESS:
            raise _error(ln, source, where, text)
    html = proc.stdout.decode("utf-8")
    if strict_text:
        left = _raw_tex_left(html)
        if left is not None:
            raise SiteError(
                where, source, f"raw TeX left in the text after conversion: {left.strip()!r}"
            )
    return html
