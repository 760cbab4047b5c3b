"""The site: a full ``perfectplay site build`` of this repository, every sample run.

Target: under 30 s for the five gallery entries on the project's 2-core machines. The
first run warms the caches (numba's compiled kernels, the page cache) and is not timed;
if it fails, the row shows the build's one-line error instead of a time.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

from common import PERFECTPLAY, ROOT, Row, time_command


def run(quick: bool) -> list[Row]:
    with tempfile.TemporaryDirectory(prefix="perfectplay-bench-site-") as tmp:
        out = Path(tmp) / "site"
        cmd = [*PERFECTPLAY, "site", "build", "--quiet", "--root", str(ROOT), "--out", str(out)]
        warm = subprocess.run(cmd, capture_output=True, text=True)
        if warm.returncode != 0:
            error = (warm.stderr.strip().splitlines() or ["no message"])[-1]
            return [Row("site", "full build", f"build failed: {error}", target="< 30 s")]
        manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
        entries = len(manifest["entries"])
        samples = sum(len(e["samples"]) for e in manifest["entries"])
        pages = len(list(out.rglob("*.html")))
        first = _snapshot(out)
        timing = time_command(cmd, repeats=1 if quick else 3)
        same = "identical bytes" if _snapshot(out) == first else "OUTPUT DIFFERS between builds"
    case = f"full build: {entries} entries, {samples} samples run, {pages} pages"
    figure = f"{timing} · {same}"
    return [Row("site", case, figure, target="< 30 s")]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }
