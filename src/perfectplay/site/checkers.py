"""How an entry's output is judged: built-in comparisons and checker programs.

An entry's ``checker`` (in ``meta.toml``, or for every entry in ``site.toml``) is either a
built-in comparison or a program called by the protocol its author wrote it for:

- ``exact``: the same lines, trailing spaces and trailing blank lines aside;
- ``tokens`` / ``tokens-nocase``: the same whitespace-separated tokens (testlib's
  ``wcmp``, Kattis' default validator), the second ignoring case;
- ``float ABS REL``: tokens, numbers within an absolute or a relative error (testlib's
  ``rcmp``, Kattis' ``float_tolerance``); ``float TOL`` is ``float TOL TOL``;
- ``testlib:PROGRAM``: called ``PROGRAM INPUT OUTPUT ANSWER``; exit 0 accepts, 1 (wrong
  answer) and 2 (presentation error) reject, 3 is the checker's own failure, 7 gives
  points (a partial answer: not a pass); its standard error is the message;
- ``kattis:PROGRAM`` (an ICPC output validator): called ``PROGRAM INPUT ANSWER
  FEEDBACK_DIR < OUTPUT``; exit 42 accepts, 43 rejects; ``judgemessage.txt`` in the
  feedback folder is the message;
- ``perfectplay:PROGRAM``: how this builder called a bare program name before:
  ``PROGRAM INPUT ANSWER OUTPUT``, exit 0 (or 42) accepts, 1, 2 or 43 rejects.

A bare program name is refused with a message saying what to write: its argument order
was ambiguous, and a testlib checker called that way accepted wrong programs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "PROTOCOLS",
    "CheckerFailed",
    "Compare",
    "ProgramCall",
    "compare",
    "parse_checker",
    "parse_compare",
    "program_call",
    "program_verdict",
]

#: The protocols a checker program may follow, and how each is called.
PROTOCOLS = {
    "testlib": "PROGRAM INPUT OUTPUT ANSWER, exit 0 accepts, 1 or 2 rejects",
    "kattis": "PROGRAM INPUT ANSWER FEEDBACK_DIR < OUTPUT, exit 42 accepts, 43 rejects",
    "perfectplay": "PROGRAM INPUT ANSWER OUTPUT, exit 0 accepts, 1 rejects",
}
_MODES = ("exact", "tokens", "tokens-nocase")
#: What a bare checker name was called with before protocols were named.
_OLD_ACCEPT = frozenset({0, 42})
_OLD_REJECT = frozenset({1, 2, 43})


@dataclass(frozen=True)
class Compare:
    """A built-in comparison: ``exact``, ``tokens``, ``tokens-nocase`` or ``float`` with an
    absolute ``tolerance`` and a ``relative`` one (None: the same as the absolute one).

    >>> str(Compare("float", 1e-6)), str(Compare("float", 1e-9, 1e-6)), str(Compare("tokens"))
    ('float 1e-06', 'float 1e-09 1e-06', 'tokens')
    """

    mode: str
    tolerance: float = 0.0
    relative: float | None = None

    def __str__(self) -> str:
        if self.mode != "float":
            return self.mode
        if self.relative is None:
            return f"float {self.tolerance:g}"
        return f"float {self.tolerance:g} {self.relative:g}"


def parse_compare(text: str) -> Compare | None:
    """A built-in comparison from its text; None when ``text`` is not one.

    >>> parse_compare("float 1e-6")
    Compare(mode='float', tolerance=1e-06, relative=None)
    >>> parse_compare("float 0 1e-9").relative, parse_compare("tokens-nocase").mode
    (1e-09, 'tokens-nocase')
    >>> parse_compare("exact"), parse_compare("fuzzy"), parse_compare("float 2")
    (Compare(mode='exact', tolerance=0.0, relative=None), None, None)
    """
    words = text.split()
    if len(words) == 1 and words[0] in _MODES:
        return Compare(words[0])
    if len(words) in (2, 3) and words[0] == "float":
        try:
            tolerances = [float(w) for w in words[1:]]
        except ValueError:
            return None
        if not all(0 <= t < 1 for t in tolerances):
            return None
        return Compare("float", tolerances[0], tolerances[1] if len(tolerances) == 2 else None)
    return None


def parse_checker(text: str) -> Compare | tuple[str, str] | str:
    """A ``checker`` value: a :class:`Compare`, a ``(protocol, program)`` pair, or (a
    string) why the value is neither.

    >>> parse_checker("tokens"), parse_checker("testlib:check.cpp")
    (Compare(mode='tokens', tolerance=0.0, relative=None), ('testlib', 'check.cpp'))
    >>> print(parse_checker("check.cpp"))  # doctest: +ELLIPSIS
    'checker' "check.cpp" names no protocol: write "testlib:check.cpp" (...
    """
    found = parse_compare(text)
    if found is not None:
        return found
    protocol, colon, program = text.strip().partition(":")
    if colon and protocol in PROTOCOLS and program.strip():
        return protocol, program.strip()
    words = text.split()
    if len(words) == 1 and not colon:
        name = words[0]
        return (
            f"'checker' \"{name}\" names no protocol: write "
            + ", ".join(f'"{p}:{name}" ({how})' for p, how in PROTOCOLS.items())
            + "; the last is how a bare name was called before"
        )
    return (
        f"'checker' must be exact, tokens, tokens-nocase, \"float ABS [REL]\" or "
        f"PROTOCOL:PROGRAM with PROTOCOL one of {', '.join(PROTOCOLS)}, not {text!r}"
    )


def _clip(text: str, width: int = 60) -> str:
    text = text if len(text) <= width else text[: width - 3] + "..."
    return repr(text)


def compare(output: str, answer: str, how: Compare) -> str | None:
    """None when ``output`` agrees with ``answer``; otherwise what differs first.

    ``exact`` ignores trailing spaces on lines and trailing blank lines; the others compare
    whitespace-separated tokens (so spacing and line breaks never matter), ``float`` with
    numbers within its absolute or relative tolerance and anything else exactly.

    >>> compare("9.6778871\\n", "9.677887141\\n", Compare("float", 1e-6)) is None
    True
    >>> compare("impossible", "1.0", Compare("float", 1e-6))
    "token 1: got 'impossible', expected '1.0'"
    >>> compare("Alice \\n\\n", "Alice", Compare("exact")) is None
    True
    >>> compare(" YES  1\\n", "yes\\n1", Compare("tokens-nocase")) is None
    True
    >>> compare("YES", "yes", Compare("tokens"))
    "token 1: got 'YES', expected 'yes'"
    """
    if how.mode == "exact":
        return _compare_lines(output, answer)
    got, want = output.split(), answer.split()
    for i, (g, w) in enumerate(zip(got, want, strict=False), start=1):
        if g == w or (how.mode == "tokens-nocase" and g.casefold() == w.casefold()):
            continue
        if how.mode != "float":
            return f"token {i}: got {_clip(g)}, expected {_clip(w)}"
        try:
            a, b = float(g), float(w)
        except ValueError:
            return f"token {i}: got {_clip(g)}, expected {_clip(w)}"
        if not (math.isfinite(a) and math.isfinite(b)):
            return f"token {i}: got {_clip(g)}, expected {_clip(w)}"
        relative = how.tolerance if how.relative is None else how.relative
        if abs(a - b) > how.tolerance and abs(a - b) > relative * abs(b):
            return f"token {i}: got {g}, expected {w} (tolerance {str(how)[6:]})"
    if len(got) != len(want):
        return f"got {len(got)} tokens, expected {len(want)}"
    return None


def _compare_lines(output: str, answer: str) -> str | None:
    got = [line.rstrip() for line in output.splitlines()]
    want = [line.rstrip() for line in answer.splitlines()]
    while got and not got[-1]:
        got.pop()
    while want and not want[-1]:
        want.pop()
    for i, (g, w) in enumerate(zip(got, want, strict=False), start=1):
        if g != w:
            return f"line {i}: got {_clip(g)}, expected {_clip(w)}"
    if len(got) != len(want):
        return f"got {len(got)} lines, expected {len(want)}"
    return None


class CheckerFailed(Exception):
    """The checker itself failed (crashed, timed out, or said so: testlib's FAIL): not a
    verdict on the solution."""


@dataclass(frozen=True)
class ProgramCall:
    """How to start a checker program: its arguments after the program, what it reads on
    standard input, and whether it needs a writable feedback folder."""

    arguments: tuple[str, ...]
    stdin: bytes
    feedback: str | None = None


def program_call(protocol: str, folder: Path, output: bytes) -> ProgramCall:
    """The call of a ``protocol`` checker on the files ``input``, ``answer`` and ``output``
    written in ``folder`` (and its ``feedback`` folder for Kattis).

    >>> program_call("testlib", Path("/j"), b"").arguments
    ('/j/input', '/j/output', '/j/answer')
    >>> program_call("kattis", Path("/j"), b"7").arguments
    ('/j/input', '/j/answer', '/j/feedback/')
    """
    files = {name: str(folder / name) for name in ("input", "answer", "output")}
    if protocol == "testlib":
        return ProgramCall((files["input"], files["output"], files["answer"]), b"")
    if protocol == "kattis":
        feedback = str(folder / "feedback")
        return ProgramCall((files["input"], files["answer"], feedback + "/"), output, feedback)
    return ProgramCall((files["input"], files["answer"], files["output"]), b"")


def _first_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return _clip(lines[0].strip(), 200)[1:-1] if lines else ""


def program_verdict(
    protocol: str, returncode: int, stdout: bytes, stderr: bytes, feedback: bytes = b""
) -> str | None:
    """None when the checker accepted; otherwise the rejection, as the page shows it.
    Raises :class:`CheckerFailed` when the checker's ending is no verdict.

    >>> program_verdict("testlib", 0, b"", b"ok 3 numbers")
    >>> program_verdict("testlib", 1, b"", b"wrong answer 1st numbers differ\\n")
    'wrong answer 1st numbers differ'
    >>> program_verdict("testlib", 2, b"", b"extra tokens")
    'presentation error: extra tokens'
    >>> program_verdict("kattis", 43, b"", b"", b"too long\\n")
    'rejected by the validator: too long'
    >>> program_verdict("testlib", 3, b"", b"answer file is empty")
    Traceback (most recent call last):
    ...
    perfectplay.site.checkers.CheckerFailed: testlib FAIL (exit 3): answer file is empty
    """
    # Python reports an uncaught exception with status 1, a rejection's status: its
    # traceback tells the two apart.
    if b"Traceback (most recent call last)" in stderr:
        raise CheckerFailed(f"exited with status {returncode}: {_last_line(stderr)}")
    if protocol == "testlib":
        said = _first_line(stderr) or _first_line(stdout)
        if returncode == 0:
            return None
        if returncode in (1, 2):
            kind = "wrong answer" if returncode == 1 else "presentation error"
            # testlib itself starts its message with the verdict ("wrong answer ...").
            return said if said.startswith(kind) else f"{kind}: {said}" if said else kind
        if returncode == 7:
            return f"partially accepted (testlib points): {said}"
        if returncode == 3:
            raise CheckerFailed(f"testlib FAIL (exit 3): {said or 'no message'}")
    elif protocol == "kattis":
        said = _first_line(feedback) or _first_line(stderr)
        if returncode == 42:
            return None
        if returncode == 43:
            return f"rejected by the validator: {said}" if said else "rejected by the validator"
    else:
        if returncode in _OLD_ACCEPT:
            return None
        if returncode in _OLD_REJECT:
            return f"rejected by the checker: {_first_line(stdout or stderr)}"
    raise CheckerFailed(f"exited with status {returncode}: {_last_line(stderr) or 'no message'}")


def _last_line(data: bytes) -> str:
    lines = data.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else ""
