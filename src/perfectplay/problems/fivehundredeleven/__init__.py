"""TopCoder SRM 511 "FiveHundredEleven": a card game on a 9-bit memory.

Fox Ciel and Toastman share a memory that starts at 0 and a set of cards with values
0..511. Taking turns, Fox Ciel first, a player plays one card nobody has played yet and
the memory becomes ``memory | card``. Whoever makes the memory 511 loses; whoever has no
card left to play loses. Who wins with perfect play?

**The model.** A position is ``(m, t)``: the memory ``m`` and the number ``t`` of cards
played so far (whose turn it is follows from ``t``). This forgets *which* cards were
played, and loses nothing:

* every played card is a subset of ``m`` (the memory is the OR of the played cards), so
  every card that is not a subset of ``m`` is certainly unplayed;
* among the ``s(m)`` cards that are subsets of ``m``, exactly ``t`` are played and
  ``s(m) - t`` are not; an unplayed subset card leaves the memory as it is, now and in
  every later position (memories only grow), so unplayed subset cards are
  interchangeable "passes" and only their number matters.

So the moves of ``(m, t)`` are: a pass to ``(m, t + 1)`` when ``t < s(m)``, and
``(m | x, t + 1)`` for every value ``x`` among the cards that are not subsets of ``m``.
The position with memory 511 is terminal, a win for the player to move (the opponent made
511); a position without moves is a loss. Two games with the same ``(m, t)`` have the same
moves to the same abstract positions, so they have the same value and remoteness: the
abstraction is exact, and ``t`` strictly grows, so the graph is acyclic.

The reachable positions are exactly ``d(m) <= t <= s(m)`` for the memories ``m`` that
ORs of cards can reach, where ``d(m)`` is the fewest cards whose OR is ``m`` (play those,
then any ``t - d(m)`` other subset cards; no prefix reaches 511 before the end). Positions
``(511, t)`` are included for every ``d(511) <= t <= N``; a few of them may be unreachable,
which is harmless since they are terminal. At most ``512 * 51`` positions; the graph is
built with a few vectorised numpy operations and solved by
:func:`perfectplay.solvers.retrograde.solve_retrograde`.

Modules: :mod:`.instance` (the input), :mod:`.build` (the graph), :mod:`.solution`
(the result and its decoder), :mod:`.report` (the output), :mod:`.cli` (the command).

>>> from perfectplay.problems.fivehundredeleven import format, solve
>>> sol = solve([3, 5, 7, 9, 510])
>>> format(sol), sol.remoteness   # 510 first: every card left completes 511
('Fox Ciel', 2)
>>> [(m.cards, m.value.name, m.remoteness) for m in sol.first_moves()][:2]
[((510,), 'WIN', 2), ((3,), 'LOSE', 5)]
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from __future__ import annotations

from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.problems.fivehundredeleven.build import Model
    from perfectplay.problems.fivehundredeleven.cli import PROBLEM
    from perfectplay.problems.fivehundredeleven.instance import FULL, MAX_CARDS, Instance, parse
    from perfectplay.problems.fivehundredeleven.report import explain, format
    from perfectplay.problems.fivehundredeleven.solution import FirstMove, Solution, solve

# The names load on first use: the registry imports this package on its way to cli.py, and
# `perfectplay --help` must not pay for the solver. The imports above are what mypy reads;
# tests/problems/test_template.py checks that they and this table agree.
__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".build": ["Model"],
        ".cli": ["PROBLEM"],
        ".instance": ["FULL", "MAX_CARDS", "Instance", "parse"],
        ".report": ["explain", "format"],
        ".solution": ["FirstMove", "Solution", "solve"],
    },
)
