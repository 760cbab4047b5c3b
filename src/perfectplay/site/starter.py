"""``perfectplay site new DIR``: an archive of one entry, ready to build.

The folder gets a ``site.toml`` and one entry in the layout
``competitive_programming/<contest>/<year>/<slug>/``: statement, write-up, a solution
(C++ when ``g++`` is installed, else Python), two samples and three judge tests. It is the
smallest archive the builder accepts, meant to be edited into one's own.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from perfectplay.site.errors import SiteError

__all__ = ["ENTRY", "create"]

ENTRY = "competitive_programming/example/2024/A-sum-of-two"

SITE_TOML = """\
# The site of this archive (perfectplay site build). Every key is optional.
title = "My archive"
description = "Contest problems I solved, each with its statement, a write-up and the code."
entries = ["competitive_programming/*/*/*"]   # folders that hold entries (glob patterns)
time_limit = 10                               # seconds one run may take
output_limit = 8388608                        # bytes one run may print

[flags]                                       # compiler flags of the built-in runners
cpp = "-O2 -std=gnu++17"
"""

META = """\
title = "Sum of Two"
contest = "Example Contest"
year = 2024
problem = "A"
link = "https://example.org/example/2024/A"
techniques = ["implementation"]
compare = "exact"
"""

STATEMENT = """\
## Task

Given two integers $a$ and $b$, print $a + b$.

## Input

One line with $a$ and $b$, $|a|, |b| \\le 10^{9}$.

## Output

One line with the sum.

*Credit: an example entry written by `perfectplay site new`; replace it with your own
([link](https://example.org/example/2024/A)).*
"""

SOLUTION_TEX = """\
\\documentclass{article}
\\usepackage{amsmath}
\\begin{document}
\\section*{Observation}
The sum of two numbers of absolute value at most $10^9$ is at most $2 \\cdot 10^9$ in
absolute value, which needs a 64-bit integer.
\\section*{Complexity}
$O(1)$.
\\end{document}
"""

SOLUTION_CPP = """\
// Sum of Two: read a and b, print a + b in 64 bits (the sum may pass 2^31).
#include <cstdio>

int main() {
    long long a = 0, b = 0;
    if (std::scanf("%lld %lld", &a, &b) != 2) return 1;
    std::printf("%lld\\n", a + b);
    return 0;
}
"""

SOLUTION_PY = """\
\"\"\"Sum of Two: read a and b, print a + b.\"\"\"

import sys

a, b = map(int, sys.stdin.read().split())
print(a + b)
"""

CASES = {
    "samples/1": ("1 2\n", "3\n"),
    "samples/2": ("-5 5\n", "0\n"),
    "tests/1": ("1000000000 1000000000\n", "2000000000\n"),
    "tests/2": ("-1000000000 -1000000000\n", "-2000000000\n"),
    "tests/3": ("0 0\n", "0\n"),
}


def create(folder: Path) -> list[str]:
    """Write the starter archive into ``folder`` (absent or empty); return the files
    written, relative to it. Refuses a folder that holds anything.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     files = create(Path(d) / "mine")
    >>> files[0], any(f.endswith("/tests/3.ans") for f in files)
    ('site.toml', True)
    """
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        raise SiteError(
            "", str(folder), "refusing to write a new archive into a non-empty folder or a file"
        )
    cpp = shutil.which("g++") is not None
    files = {
        "site.toml": SITE_TOML,
        # what every build writes, kept out of the repository: the site, and the folders
        # it is written into and swapped with (left behind by a build killed with -9)
        ".gitignore": "site-out/\n.site-out.*/\n",
        f"{ENTRY}/meta.toml": META,
        f"{ENTRY}/statement.md": STATEMENT,
        f"{ENTRY}/solution.tex": SOLUTION_TEX,
        f"{ENTRY}/solution.cpp" if cpp else f"{ENTRY}/solution.py": (
            SOLUTION_CPP if cpp else SOLUTION_PY
        ),
    }
    for name, (stdin, answer) in CASES.items():
        files[f"{ENTRY}/{name}.in"] = stdin
        files[f"{ENTRY}/{name}.ans"] = answer
    try:
        for name, text in files.items():
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    except OSError as exc:
        raise SiteError("", str(folder), f"cannot write: {exc.strerror or exc}") from None
    return list(files)
