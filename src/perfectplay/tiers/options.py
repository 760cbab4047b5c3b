"""The command-line flags that choose where tiers run (standard library only, so that a
command's ``--help`` loads no numpy).

>>> import argparse
>>> parser = argparse.ArgumentParser()
>>> add_engine_options(parser, "the layers")
>>> args = parser.parse_args(["--engine", "dask", "--workdir", "w"])
>>> engine_options(args)
{'engine': 'dask', 'workdir': 'w', 'scheduler': None, 'workers': None}
>>> engine_options(parser.parse_args([])) is None
True
"""

from __future__ import annotations

import argparse
from typing import Any

from perfectplay.errors import OptionError
from perfectplay.text.arguments import path_arg, positive_arg

__all__ = ["ENGINES", "add_engine_options", "engine_options"]

ENGINES = ("threads", "processes", "dask")


def add_engine_options(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--engine``, ``--workdir``, ``--scheduler`` and ``--workers`` to ``parser``
    (``what``: what they run, for the help)."""
    group = parser.add_argument_group(
        "where the tiers run", f"{what} on the tier runner (docs/cluster.md)"
    )
    group.add_argument(
        "--engine",
        choices=ENGINES,
        help="threads (in this process, the default), processes (a local pool) or dask "
        "(dask.distributed; the 'dask' extra)",
    )
    group.add_argument(
        "--workdir",
        type=path_arg,
        metavar="DIR",
        help="keep every finished tier in DIR (shared by the workers); a solve killed there "
        "resumes from its finished tiers",
    )
    group.add_argument(
        "--scheduler",
        metavar="ADDR",
        help="a Dask scheduler's address, tcp://HOST:PORT (default: a local cluster)",
    )
    group.add_argument(
        "--workers",
        type=positive_arg,
        metavar="N",
        help="processes of the local pool or cluster (default: one per core); on the "
        "threads engine, the threads of its kernels",
    )


def engine_options(args: Any) -> dict[str, Any] | None:
    """The engine flags given, as keyword arguments; ``None`` when none was. Flags that
    do not go together are an :class:`~perfectplay.errors.InputError`.

    >>> engine_options(argparse.Namespace(engine="processes", workdir=None))
    Traceback (most recent call last):
    ...
    perfectplay.errors.OptionError: --engine processes needs --workdir DIR (shared by the workers)
    """
    found = {k: getattr(args, k, None) for k in ("engine", "workdir", "scheduler", "workers")}
    if all(v is None for v in found.values()):
        return None
    if found["scheduler"] is not None and found["engine"] in (None, "dask"):
        found["engine"] = "dask"
    if found["engine"] is None:
        found["engine"] = "threads"
    if found["scheduler"] is not None and found["engine"] != "dask":
        raise OptionError(f"--scheduler is for the dask engine, not {found['engine']}")
    if found["engine"] != "threads" and found["workdir"] is None:
        raise OptionError(f"--engine {found['engine']} needs --workdir DIR (shared by the workers)")
    return found
