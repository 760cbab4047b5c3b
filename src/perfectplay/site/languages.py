"""What a runner must know about a language beyond its compiler's name.

- Java runs by its main class: the class that declares ``main``, which need not be named
  after the file (a Kattis submission is often ``Main`` in any file); a public class is
  compiled from a copy named after it, as ``javac`` requires.
- Any language runs by the command templates of ``site.toml``::

      [languages.pas]
      compile = "fpc -O2 -o{bin} {src}"   # optional: without it, nothing is compiled
      run = "{bin}"

  with ``{src}`` the source's absolute path, ``{dir}`` the folder the program is compiled
  into (its cache folder, writable while compiling) and ``{bin}`` the file ``{dir}/solution``.
"""

from __future__ import annotations

import re
import shlex
from pathlib import Path

__all__ = ["PLACEHOLDERS", "expand", "java_main_class", "java_public_class"]

PLACEHOLDERS = ("{src}", "{bin}", "{dir}")
_COMMENTS = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"", re.DOTALL)
_CLASS = re.compile(r"\b(public\s+)?(?:(?:final|abstract|static)\s+)*class\s+([A-Za-z_$][\w$]*)")
_MAIN = re.compile(
    r"\bstatic\s+(?:public\s+)?void\s+main\s*\(|\bpublic\s+static\s+void\s+main\s*\("
)


def _code(text: str) -> str:
    """Java source without comments and string literals (which may name classes)."""
    return _COMMENTS.sub(lambda m: " " * len(m.group(0)), text)


def java_public_class(text: str) -> str | None:
    """The public top-level class of a Java source (its file must be named after it).

    >>> java_public_class("import x;\\npublic final class Main { }")
    'Main'
    >>> java_public_class("class A {} // public class B") is None
    True
    """
    found = next((m for m in _CLASS.finditer(_code(text)) if m.group(1)), None)
    return found.group(2) if found else None


def java_main_class(text: str) -> str | None:
    """The class that declares ``main`` (the last class opened before it); None when no
    class does.

    >>> java_main_class("class Help {}\\nclass Main { public static void main(String[] a) {} }")
    'Main'
    >>> java_main_class("public class solution { static public void main(String[] a) {} }")
    'solution'
    """
    code = _code(text)
    main = _MAIN.search(code)
    if main is None:
        return None
    before = [m for m in _CLASS.finditer(code) if m.start() < main.start()]
    return before[-1].group(2) if before else None


def expand(template: str, source: Path, folder: Path) -> list[str]:
    """A ``site.toml`` command template as an argv, its placeholders filled in.

    >>> expand("gcc -O2 -o {bin} {src}", Path("/r/a.c"), Path("/c/x"))
    ['gcc', '-O2', '-o', '/c/x/solution', '/r/a.c']
    """
    values = {"src": str(source), "dir": str(folder), "bin": str(folder / "solution")}
    return [
        re.sub(r"\{(src|bin|dir)\}", lambda m: values[m.group(1)], word)
        for word in shlex.split(template)
    ]
