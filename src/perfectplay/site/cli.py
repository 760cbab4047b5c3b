"""``perfectplay site build`` and ``perfectplay site serve``.

Nothing heavy is imported until a subcommand runs, so ``perfectplay site --help`` answers
at once and works without the ``site`` extra installed.
"""

from __future__ import annotations

import argparse
import signal
import sys
from pathlib import Path

from perfectplay._util.command import make_parser, run
from perfectplay.errors import PerfectplayError

__all__ = ["main"]

DESCRIPTION = """\
Build the static site of the archive (archive/) and the documentation (docs/) from the
repository tree, or preview it on 127.0.0.1. Every page is generated from the files of the
tree: statements, write-ups (solution.tex, via pandoc to MathML), the implementation's
source files and the samples, which are run during the build and checked against their
answers. An entry that fails (a sample or test judged wrong, a program that does not
build, a checker that fails) is shown failing on its page and the index, and the build
exits with status 1 after writing the site (--fail-fast stops at the first failure
instead). Any other problem stops the build with one line naming the entry, the file and
what is wrong (exit status 2), and the output folder is left as it was."""

EXAMPLES = """\
examples:
  perfectplay site new my-archive             a new archive of one example entry
  perfectplay site build --root my-archive    ... built into my-archive/site-out/
  perfectplay site build                      build into site-out/ of the repository
  perfectplay site build --out /tmp/site      build elsewhere (the folder is replaced whole)
  perfectplay site build --force              run every entry's checks again
  perfectplay site serve                      build, then preview at http://127.0.0.1:8000/
  perfectplay site serve --no-build --port 0  serve the last build on a free port
  perfectplay site reference                  regenerate docs/reference/ (API and CLI)
  perfectplay site reference --check          exit 1 when docs/reference/ is out of date
"""


def _parser() -> argparse.ArgumentParser:
    parser = make_parser("site", DESCRIPTION, EXAMPLES)
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    sub.required = True
    for name, summary in (
        ("build", "write the static site"),
        ("serve", "build (unless --no-build) and serve on 127.0.0.1"),
    ):
        p = sub.add_parser(name, help=summary, description=summary)
        p.add_argument(
            "--root",
            type=Path,
            help="the repository (default: found from the "
            "working directory: the folder holding site.toml, or archive/ and pyproject.toml)",
        )
        p.add_argument("--out", type=Path, help="output folder (default: ROOT/site-out)")
        p.add_argument(
            "--jobs",
            type=int,
            default=None,
            metavar="N",
            help="programs run at once (default: the number of cores, at most 8)",
        )
        p.add_argument("--quiet", action="store_true", help="no progress or summary on stderr")
        p.add_argument(
            "--cache",
            type=Path,
            metavar="DIR",
            help="where solutions are compiled and runs remembered "
            "(default: $XDG_CACHE_HOME/perfectplay-site)",
        )
        p.add_argument(
            "--force",
            action="store_true",
            help="run every entry's checks again, even those unchanged since the last build",
        )
        p.add_argument(
            "--trust",
            action="store_true",
            help="run the archive's programs without a sandbox where bubblewrap is missing "
            "or cannot run (only for a repository you trust; see docs/own-archive.md)",
        )
        judging = p.add_mutually_exclusive_group()
        judging.add_argument(
            "--keep-going",
            dest="fail_fast",
            action="store_false",
            help="judge every entry; a failing one is shown failing on its page and the "
            "index, and the build exits with status 1 after writing the site (the default)",
        )
        judging.add_argument(
            "--fail-fast",
            dest="fail_fast",
            action="store_true",
            help="stop at the first failure (a sample, a test, a program that does not "
            "build) with one line, exit status 2, leaving the previous site as it was",
        )
        p.set_defaults(fail_fast=False)  # store_false would make the default True
        if name == "serve":
            p.add_argument("--port", type=_port, default=8000, help="port (0: any free port)")
            p.add_argument("--no-build", action="store_true", help="serve the existing output")
    p = sub.add_parser(
        "new",
        help="write a new archive of one example entry into DIR (then: site build --root DIR)",
        description="Write site.toml and one example entry (statement, write-up, solution, "
        "samples and judge tests) into DIR, which must be absent or empty.",
    )
    p.add_argument("folder", type=Path, metavar="DIR", help="the new archive's folder")
    p = sub.add_parser(
        "reference",
        help="write docs/reference/api.md and cli.md from the docstrings and --help",
        description="Write the API and command-line references into docs/reference/ so "
        "that a reader of the repository finds them (the site builds them itself).",
    )
    p.add_argument("--root", type=Path, help="the repository (default: found as for build)")
    p.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file is out of date"
    )
    return parser


def _reference(args: argparse.Namespace) -> int:
    from perfectplay._util.extras import require

    require("site", "site reference")  # it highlights code with pygments
    from perfectplay.site.reference import stale, write

    root = _root(args)
    if args.check:
        old = stale(root)
        for path in old:
            print(
                f"perfectplay: site: {path} is out of date: run 'perfectplay site reference'",
                file=sys.stderr,
            )
        return 1 if old else 0
    for path in write(root):
        print(f"perfectplay: site: wrote {path}", file=sys.stderr)
    return 0


def _root(args: argparse.Namespace) -> Path:
    from perfectplay.site.errors import SiteError
    from perfectplay.site.repo import find_root

    if args.root is not None:
        root: Path = args.root.resolve()
        if not (root / "archive").is_dir() and not (root / "site.toml").is_file():
            raise SiteError(
                "", str(args.root), "not an archive: no archive/ folder and no site.toml"
            )
        return root
    found = find_root()
    if found is None:
        raise SiteError(
            "",
            str(Path.cwd()),
            "no archive here: neither this folder nor one above it holds site.toml (or "
            "archive/ and pyproject.toml); run inside your repository or pass --root",
        )
    return found


def _count(n: int, one: str, many: str = "") -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def _port(text: str) -> int:
    if not text.isdigit() or not 0 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"a port is 0 to 65535, not {text[:20]!r}")
    return int(text)


def _build(args: argparse.Namespace) -> tuple[Path, int]:
    """Build the site; its folder and how many entries failed."""
    try:
        from perfectplay.site.build import build
    except ImportError as exc:
        raise PerfectplayError(
            f"site: the site's dependencies are missing ({exc.name}): "
            "python3 -m pip install -e '.[site]'"
        ) from None
    root = _root(args)
    out = args.out if args.out is not None else root / "site-out"
    if args.jobs is not None and not 1 <= args.jobs <= 64:
        raise PerfectplayError("site: --jobs must be between 1 and 64")
    # A TERM stops the build as Ctrl-C does: the programs it runs are killed with it.
    previous = signal.signal(signal.SIGTERM, _interrupt)
    try:
        result = build(
            root,
            out,
            jobs=args.jobs,
            quiet=args.quiet,
            cache=args.cache,
            force=args.force,
            trust=args.trust,
            keep_going=not args.fail_fast,
            fail_fast=args.fail_fast,
        )
    finally:
        signal.signal(signal.SIGTERM, previous)
    if not args.quiet:
        unchanged = f", {result.reused} unchanged since the last build" if result.reused else ""
        print(
            f"perfectplay: site: {_count(result.entries, 'entry', 'entries')} "
            f"({_count(result.samples, 'sample')} run and checked{unchanged}), "
            f"{_count(result.docs, 'documentation page')}, {result.files} files in "
            f"{result.out} ({result.seconds:.1f} s)",
            file=sys.stderr,
        )
    for failure in result.failed:
        print(f"perfectplay: site: failed: {failure}", file=sys.stderr)
    if result.failed:
        print(
            f"perfectplay: site: {_count(len(result.failed), 'entry', 'entries')} failed "
            "(shown on their pages and the index)",
            file=sys.stderr,
        )
    return result.out, len(result.failed)


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _new(args: argparse.Namespace) -> int:
    from perfectplay.site.starter import create

    files = create(args.folder)
    print(
        f"perfectplay: site: wrote {len(files)} files into {args.folder}; build the site with "
        f"'perfectplay site build --root {args.folder}'",
        file=sys.stderr,
    )
    return 0


def _serve(args: argparse.Namespace) -> int:
    from perfectplay.site.serve import serve

    if args.no_build:
        root = args.root.resolve() if args.root else None
        out = args.out or ((root or _root(args)) / "site-out")
        if not (out / "index.html").is_file():
            raise PerfectplayError(f"site: nothing to serve in {out}: run 'perfectplay site build'")
    else:
        out, _ = _build(args)  # a failing entry is shown failing on the served site
    return serve(out, args.port)


def main(argv: list[str]) -> int:
    args = _parser().parse_args(argv)
    if args.action == "build":

        def build() -> int:
            _, failed = _build(args)
            return 1 if failed else 0

        return run(build, "site")
    if args.action == "reference":
        return run(lambda: _reference(args), "site")
    if args.action == "new":
        return run(lambda: _new(args), "site")
    return run(lambda: _serve(args), "site")
