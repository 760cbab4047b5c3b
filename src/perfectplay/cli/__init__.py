"""The ``perfectplay`` command: a thin dispatcher.

``perfectplay GAME ...`` imports ``perfectplay.problems.GAME.cli`` (or the module named in
:data:`COMMANDS`) and calls its ``main(argv)``. Nothing heavy is imported here, so
``perfectplay --help`` answers at once.
"""

from __future__ import annotations

import sys

__all__ = ["COMMANDS", "main", "usage"]

# name -> (module whose main(argv) runs the command, one-line summary)
COMMANDS: dict[str, tuple[str, str]] = {
    "alea": ("perfectplay.problems.alea.cli",
             "ICPC WF 2023 K, Alea Iacta Est: expected rolls to spell a word"),
    "yeetzhee": ("perfectplay.problems.yeetzhee.cli",
                 "Kick Start 2020 F, Yeetzhee: expected rolls to shape dice into groups"),
    "fivehundredeleven": ("perfectplay.problems.fivehundredeleven.cli",
                          "TopCoder SRM 511, FiveHundredEleven: who wins the OR-card game"),
    "dispdom": ("perfectplay.problems.dispdom.cli",
                "CodeChef DISPDOM: disappearing dominoes, win/lose/draw"),
    "diemaker": ("perfectplay.problems.diemaker.cli",
                 "ICPC Japan 2014 F, A Die Maker: lexicographically first roll sequence"),
    "solve": ("perfectplay.cli.solve", "solve your own game modelled in Python (MODULE:OBJECT)"),
    "site": ("perfectplay.site.cli", "build or preview the archive and documentation site"),
}

EXAMPLES = """\
examples:
  perfectplay alea --example --explain     the statement's five dice and eight words
  perfectplay alea words.txt               official input format from a file
  perfectplay alea --help                  options of one command
"""


def usage() -> str:
    width = max(len(name) for name in COMMANDS)
    lines = [
        "usage: perfectplay COMMAND [ARGS ...]",
        "",
        "Exact solutions of dice games and two-player games.",
        "",
        "commands:",
    ]
    lines += [f"  {name:<{width}}  {summary}" for name, (_, summary) in COMMANDS.items()]
    lines += ["", "Each command reads its input from FILE, or stdin when FILE is omitted or '-'.",
              ""]
    lines += [EXAMPLES]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Entry point of the console script; returns the exit status."""
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
    if name not in COMMANDS:
        print(f"perfectplay: unknown command {name!r}; try 'perfectplay --help'", file=sys.stderr)
        return 2
    import importlib

    from perfectplay._util.progress import reporting

    module = importlib.import_module(COMMANDS[name][0])
    with reporting(True):  # the library is silent; a command shows progress of long work
        return int(module.main(args[1:]) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
