"""The ``perfectplay`` command: a thin dispatcher.

``perfectplay NAME ...`` runs the gallery problem ``NAME`` from
:data:`perfectplay.problems.REGISTRY` through the generic runner
(:mod:`perfectplay.cli.problem`), or one of the two tool commands in :data:`TOOLS`.
Nothing heavy is imported here, so ``perfectplay --help`` answers at once.
"""

from __future__ import annotations

import sys

__all__ = ["TOOLS", "commands", "main", "usage"]

# The commands that are not gallery problems: name -> (module with main(argv), summary).
TOOLS: dict[str, tuple[str, str]] = {
    "solve": ("perfectplay.cli.solve", "solve your own game modelled in Python (MODULE:OBJECT)"),
    "site": ("perfectplay.site.cli", "build or preview the archive and documentation site"),
    "serve": ("perfectplay.serve.cli", "play any solved game in the browser, options valued"),
    "query": ("perfectplay.cli.query", "answer from a saved table, without the model"),
    "export": ("perfectplay.cli.export", "a saved table as CSV, JSON lines or Parquet rows"),
}

EXAMPLES = """\
examples:
  perfectplay alea --example --explain     the statement's five dice and eight words
  perfectplay alea words.txt               official input format from a file
  perfectplay alea --help                  options of one command
"""


def commands() -> dict[str, str]:
    """Every command with its one-line summary: the registry's problems, then the tools."""
    from perfectplay.problems import REGISTRY

    found = {name: problem.summary for name, problem in REGISTRY.items()}
    found.update((name, summary) for name, (_, summary) in TOOLS.items())
    return found


def usage() -> str:
    listed = commands()
    width = max(len(name) for name in listed)
    lines = [
        "usage: perfectplay COMMAND [ARGS ...]",
        "",
        "Exact solutions of dice games and two-player games.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {summary}" for name, summary in listed.items()]
    lines += [
        "",
        "Each command reads its input from FILE, or stdin when FILE is omitted or '-'.",
        "",
    ]
    lines += [EXAMPLES]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
    from perfectplay.cli.common import guarded  # standard output errors: one line, status 1

    if argv is None:  # the console script: this process is one command and nothing else
        from perfectplay._util.collector import freeze_heavy_imports
        from perfectplay._util.command import stop_on_term

        freeze_heavy_imports()
        stop_on_term()

    return guarded(_dispatch, argv)


def _dispatch(argv: list[str] | None) -> int:
    args = sys.argv[1:] if argv is None else list(argv)
    if not args:
        # No command is a usage error: the usage goes where errors go.
        print(usage(), file=sys.stderr)
        return 2
    if args[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    if args[0] == "--version":
        from perfectplay import __version__

        print(f"perfectplay {__version__}")
        return 0
    name = args[0]
    from perfectplay._util.progress import reporting

    if name in TOOLS:
        import importlib

        module = importlib.import_module(TOOLS[name][0])
        with reporting(True):  # the library is silent; a command shows progress of long work
            return int(module.main(args[1:]) or 0)
    from perfectplay.problems import get

    problem = get(name)
    if problem is None:
        print(f"perfectplay: unknown command {name!r}; try 'perfectplay --help'", file=sys.stderr)
        return 2
    from perfectplay.cli.problem import main as run_problem

    with reporting(True):
        return run_problem(problem, args[1:])


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
