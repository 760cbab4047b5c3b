"""``perfectplay export TABLE --format csv|jsonl|parquet|rgu``: a saved table as rows
(or, for the Royal Game of Ur, as RoyalUr's ``.rgu`` file: :mod:`perfectplay.examples.ur_rgu`).

See :mod:`perfectplay.results.export` for the columns, and docs/tables.md for the table
format itself.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from perfectplay._util.command import make_parser, run
from perfectplay._util.progress import note
from perfectplay.errors import InputError, OptionError

__all__ = ["main"]

DESCRIPTION = """\
Write a model's saved table as rows other programs read: one row per state (key, value,
remoteness, over, best), or with --options one row per option (key, option, value,
remoteness, regret, best). Keys are as Python writes them, so `perfectplay query` and
`perfectplay.load` take them back. Parquet needs pyarrow (pip install 'perfectplay[parquet]').
A Royal Game of Ur table also writes as RoyalUr's .rgu file (--format rgu: the layout
RoyalUr-Java's Lut reads), which perfectplay.examples.ur_rgu.read_rgu reads back.
"""

EXAMPLES = """\
examples:
  perfectplay solve perfectplay.examples.pig:Piglet --export piglet.npz
  perfectplay export piglet.npz --format csv                 writes piglet.csv
  perfectplay export piglet.npz --format jsonl -o - | head   the rows on standard output
  perfectplay export piglet.npz --format parquet --options -o moves.parquet
  perfectplay solve perfectplay.examples.ur:Ur -p pieces=2 --export ur2
  perfectplay export ur2 --format rgu                        writes ur2.rgu (16-bit values)
"""


def _parser() -> argparse.ArgumentParser:
    p = make_parser("export", DESCRIPTION, EXAMPLES)
    p.add_argument("table", metavar="TABLE", help="a table saved by --export")
    p.add_argument("--format", choices=("csv", "jsonl", "parquet", "rgu"), default="csv")
    p.add_argument(
        "--values",
        choices=("percent16", "f32", "f64"),
        default="percent16",
        help="--format rgu: how values are stored (percent16, RoyalUr's own, by default)",
    )
    p.add_argument("--options", action="store_true", help="one row per option, not per state")
    p.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="where to write (TABLE's name with the format's suffix; - for standard output)",
    )
    p.add_argument("-q", "--quiet", action="store_true", help="do not say what was written")
    return p


def main(argv: list[str]) -> int:
    """Run ``perfectplay export argv...``; returns the exit status."""
    args = _parser().parse_args(argv)

    def body() -> int:
        if args.output == "-":  # standard output: written to a file first, then copied
            return _to_stdout()
        return body_to(args.output or Path(args.table).with_suffix("." + args.format))

    def body_to(out: str | Path) -> int:
        import perfectplay
        from perfectplay.results.export import export_rows

        table = perfectplay.load(args.table)
        if args.format == "rgu":
            from perfectplay.compiled.solution import CompiledSolution
            from perfectplay.examples.ur_rgu import write_rgu

            if not isinstance(table, CompiledSolution) or args.options:
                raise InputError(f"{args.table}: --format rgu takes a Royal Game of Ur table")
            path = write_rgu(table, out, args.values)
        else:
            path = export_rows(table, out, args.format, options=args.options)
        if not args.quiet and args.output != "-":
            note(f"wrote {path}")
        return 0

    def _to_stdout() -> int:
        import shutil
        import tempfile

        if args.format in ("parquet", "rgu") and sys.stdout.isatty():
            raise OptionError(f"-o -: {args.format} is binary; not to a terminal (give -o FILE)")
        with tempfile.TemporaryDirectory(prefix="perfectplay-") as tmp:
            path = Path(tmp) / f"table.{args.format}"
            body_to(path)
            sys.stdout.flush()
            with open(path, "rb") as f:
                shutil.copyfileobj(f, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        return 0

    return run(body, "export")
