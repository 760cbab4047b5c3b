"""The table of a rule set, solved or read from a file, and the answers to an input.

A thin layer over :mod:`perfectplay.yahtzee`: the solver is
:func:`perfectplay.yahtzee.solve`, the queries are
:meth:`~perfectplay.yahtzee.YahtzeeSolution.options`. A table solved once is kept for
the rest of the process, so a program (or a test) that asks about the same rules twice
solves them once.

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.problems.yahtzee.instance import parse
>>> mini = Rules("mini", (Category.upper(1, "ones"), Category("chance", sum)), dice=2,
...              faces=3, rolls=2, upper_threshold=0)
>>> inst = parse("dice 1 3; rolls left 0\\ndice 3 3; rolls 1; filled ones=1", mini)
>>> sol = solve(inst.rules)
>>> [(a.best.action, round(a.best.value, 4)) for a in answer(sol, inst)]
[('score ones', 5.6667), ('keep 3 3', 7.0)]
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sized
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from perfectplay.errors import PerfectplayError, WriteError

if TYPE_CHECKING:
    from perfectplay.problems.yahtzee.instance import Instance, Line
    from perfectplay.yahtzee.ruleset import Rules
    from perfectplay.yahtzee.solution import YahtzeeOption, YahtzeeSolution

__all__ = ["Answer", "answer", "iter_answers", "solve"]

# Tables solved in this process, by the fingerprint of their rules.
_SOLVED: dict[str, YahtzeeSolution] = {}


@dataclass(frozen=True)
class Answer:
    """One situation of the input, its options (best first) and the best of them."""

    line: Line
    options: tuple[YahtzeeOption, ...]

    @property
    def best(self) -> YahtzeeOption:
        """The best option (the first)."""
        return self.options[0]


def cache_path(key: str) -> Path | None:
    """Where the solved table of the rules with fingerprint ``key`` is cached: under
    ``PERFECTPLAY_CACHE_DIR``, else ``$XDG_CACHE_HOME/perfectplay``, else
    ``~/.cache/perfectplay``, in a folder of this version (a new solver never reads an old
    one's tables); ``None`` when ``PERFECTPLAY_NO_CACHE`` is set.

    >>> import os
    >>> before = dict(os.environ)
    >>> os.environ.pop("PERFECTPLAY_NO_CACHE", None) and None
    >>> os.environ["PERFECTPLAY_CACHE_DIR"] = "/tmp/pp-cache"
    >>> str(cache_path("abc")).startswith("/tmp/pp-cache/yahtzee-")
    True
    >>> os.environ["PERFECTPLAY_NO_CACHE"] = "1"
    >>> cache_path("abc") is None
    True
    >>> os.environ.clear(); os.environ.update(before)
    """
    import os

    from perfectplay import __version__

    if os.environ.get("PERFECTPLAY_NO_CACHE"):
        return None
    base = os.environ.get("PERFECTPLAY_CACHE_DIR")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        base = os.path.join(xdg, "perfectplay")
    return Path(base) / f"yahtzee-{__version__}" / f"{key}.table"


def _cached(
    game: Any, key: str, cache: bool, tiers: dict[str, Any] | None = None
) -> YahtzeeSolution:
    """The table of ``game``: from the on-disk cache when a whole, matching one is there,
    else solved and put there (written whole or not at all: two processes solving at once
    leave one whole table). A cache that cannot be read or written is skipped."""
    from perfectplay._util.progress import note
    from perfectplay.errors import InputError
    from perfectplay.yahtzee.solution import YahtzeeSolution
    from perfectplay.yahtzee.solution import solve as solve_rules

    path = cache_path(key) if cache else None
    if path is not None and path.is_file():
        try:
            return YahtzeeSolution.load(path, game.rules)
        except InputError:
            pass  # a damaged or foreign file: solve again and replace it
    if tiers is None:
        table = solve_rules(game)
    else:
        from perfectplay.yahtzee.solver import solve_all

        table = YahtzeeSolution(game, solve_all(game, **tiers))
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            table.save(path)
            note(f"cached the table of {game.rules.name} in {path} (--no-cache to skip)")
        except (OSError, InputError):
            pass
    return table


def solve(
    rules: Rules | None = None,
    load: str | None = None,
    save: str | None = None,
    cache: bool = True,
    tiers: dict[str, Any] | None = None,
) -> YahtzeeSolution:
    """The table of ``rules``: read from the file ``load`` (written by ``save``; ``rules``
    ``None`` takes the built-in rules the file names), else from the on-disk cache
    (:func:`cache_path`, unless ``cache`` is false), else solved; then written to ``save``
    when given. A bad table file is one :class:`~perfectplay.errors.PerfectplayError`
    naming it. ``tiers`` (``engine``, ``workdir``, ``scheduler``, ``workers``) says where
    a solve runs (:func:`perfectplay.yahtzee.solver.solve_all`)."""
    from perfectplay.errors import InputError
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.solution import YahtzeeSolution, fingerprint

    if load is not None:
        try:
            table = YahtzeeSolution.load(load, rules)
        except InputError as exc:
            raise PerfectplayError(f"--load {exc.message}") from None
    else:
        from perfectplay.yahtzee.ruleset import rules as builtin

        game = ScorecardGame(rules or builtin("american"))
        key = fingerprint(game)
        table = _SOLVED.get(key) or _cached(game, key, cache, tiers)
        _SOLVED[key] = table
    if save is not None:
        from perfectplay._util.progress import note

        try:
            table.save(save)
        except WriteError as exc:
            raise WriteError(f"--save {exc.message}") from None
        note(f"saved the table of {table.rules.name} to {save}")
    return table


def answer(solution: YahtzeeSolution, instance: Instance) -> list[Answer]:
    """Every situation's options, best first, in the order of the input."""
    return list(iter_answers(solution, instance.situations))


def iter_answers(solution: YahtzeeSolution, situations: Iterable[Line]) -> Iterator[Answer]:
    """Each situation's options, best first, one at a time (an input of many lines is
    answered in constant memory), with progress on stderr for a long input."""
    from perfectplay._util.progress import Progress

    total = len(situations) if isinstance(situations, Sized) else None
    progress = Progress("answering situations", interval=5.0)
    count = 0
    for count, line in enumerate(situations, start=1):
        yield Answer(line, tuple(solution.options(line.situation)))
        progress.update(count, "situations", total)
    progress.done(f"{count:,} situation{'s' * (count != 1)}")
