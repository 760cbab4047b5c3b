"""The die maker as a lexicographic model, with an exact feasibility oracle.

A state is an orientation of the die (:mod:`.die`) and the number ``c[f]`` written so far
on each face ``f``; a goal is a state whose six numbers are the targets in some arrangement.

**Rolls are pair words.** From any orientation the four rolls bring the four faces outside
the bottom face's opposite pair to the bottom, one roll each. So the roll sequences from a
state correspond one to one to the face sequences ``f1 f2 ... fn`` in which ``f1`` is not in
the bottom's pair and no two consecutive faces are in the same pair. Whether such a sequence
can hit given per-face amounts ``d[f]`` depends only on the sequence of *pairs*: the two
faces of a pair may be swapped anywhere in it, so any word over the pairs with ``s[P] =
d[f] + d[5 - f]`` letters ``P`` lifts to a face sequence with exactly the amounts ``d``.

**Lemma.** Over three letters with counts ``s[0], s[1], s[2]`` (``n`` in all), a word with no
two equal neighbours whose first letter is not ``X`` exists iff ``2 s[X] <= n`` and
``2 s[Y] <= n + 1`` for both ``Y != X``.
*Necessary:* every ``X`` has a non-``X`` letter just before it, a different one for each,
so ``s[X] <= n - s[X]``; every ``Y`` except one in first place has a non-``Y`` letter just
before it, so ``s[Y] - 1 <= n - s[Y]``.
*Sufficient,* by induction on ``n`` (``n = 0`` is the empty word): some ``Y != X`` has
``s[Y] > 0`` (else ``2 s[X] = 2n > n``); write the most frequent such ``Y`` first. The
rest has ``n - 1`` letters, must not start with ``Y``, and meets the conditions:
``2 (s[Y] - 1) <= n - 1`` because ``2 s[Y] <= n + 1``; ``2 s[X] <= n`` as before; and the
third letter ``W`` has ``2 s[W] <= s[W] + s[Y] <= n`` because ``s[W] <= s[Y]``.

**The oracle** (exact: necessary and sufficient). A state with bottom pair ``X`` and
``R = sum(targets) - sum(c)`` rolls to go can reach a goal iff some assignment of the
targets to the faces gives every face ``t[f] >= c[f]`` and pair sums ``s[P] = t[f] +
t[5-f] - c[f] - c[5-f]`` with ``2 s[X] <= R`` and ``2 s[Y] <= R + 1``: by the lemma and the
lifting above. An assignment is three pairs of targets ``u <= v`` placed on the three face
pairs (15 pairings times 6 placements, fewer when targets repeat); inside a face pair with
counts ``x <= y`` the larger target goes on the fuller face, so the conditions read
``u >= x``, ``v >= y``, ``u + v <= x + y + floor((R + [P != X]) / 2)``. That is at most 90
short tests, and since the oracle is exact the search never backtracks.

**The window property** (so :func:`perfectplay.solvers.lexpath.search` may jump). Let a window
of ``p`` rolls lead from one state to another with the same orientation, adding ``D[f]`` to
the faces. Its bottoms, read cyclically, never repeat a pair twice in a row (the last bottom
is the first state's bottom), so each pair gets ``D[P] <= p / 2`` of them. Repeating the
window ``k`` times then raises every count (a face test ``c[f] <= t`` can only turn false)
and changes ``2 s[P] - R`` by ``p - 2 D[P] >= 0`` per repetition (a pair test can only turn
false). So for each assignment the repetitions ``k`` that pass form a downward closed set,
and so does their union over assignments: feasibility along repeated windows never comes
back once lost, which is what the jumps need.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence, Sized
from typing import Any

from perfectplay.errors import InputError, short_repr
from perfectplay.problems.diemaker.die import BOTTOM, BOTTOM_PAIR, MOVES, ROLL
from perfectplay.problems.diemaker.instance import MAX_TARGET_UNLIMITED

#: a state: (orientation index, counts on faces 0..5)
State = tuple[int, tuple[int, int, int, int, int, int]]


def _placements() -> list[tuple[int, int, int, int, int, int]]:
    """Index sextuples (i0, j0, i1, j1, i2, j2): targets i_P, j_P go on face pair P."""
    out: list[Any] = []
    for j in range(1, 6):  # partner of target 0
        rest = [k for k in range(1, 6) if k != j]
        for b in range(1, 4):  # partner of the smallest remaining index
            p2 = (rest[0], rest[b])
            p3 = tuple(k for k in rest[1:] if k != rest[b])
            pairs = [(0, j), p2, p3]
            for a0, a1, a2 in ((0, 1, 2), (0, 2, 1), (1, 0, 2), (1, 2, 0), (2, 0, 1), (2, 1, 0)):
                out.append(pairs[a0] + pairs[a1] + pairs[a2])
    return out


_PLACEMENTS = _placements()


def _target(value: object) -> int:
    """One target as an ``int``: integers only (no bool, float or str), 0 to 10**12."""
    if isinstance(value, bool):
        raise InputError(f"a target must be an integer, not {value!r}")
    try:
        t = operator.index(value)  # type: ignore[arg-type]
    except TypeError:
        raise InputError(f"a target must be an integer, not {short_repr(value)}") from None
    if not 0 <= t <= MAX_TARGET_UNLIMITED:
        raise InputError(
            f"a target must be from 0 to {MAX_TARGET_UNLIMITED:,}, got {short_repr(t)}"
        )
    return t


class DieModel:
    """The die maker for one multiset of targets (any order).

    >>> m = DieModel([1, 1, 1, 1, 1, 1])
    >>> m.feasible(m.start()), m.feasible(((0, (0, 0, 0, 0, 0, 2))))
    (True, False)
    """

    moves = MOVES
    exact = True

    def __init__(self, targets: Sequence[int]) -> None:
        if isinstance(targets, (str, bytes)) or not isinstance(targets, Sized) or len(targets) != 6:
            shown = short_repr(targets)
            raise InputError(f"a die has 6 faces: give 6 integer targets, not {shown}")
        self.targets = tuple(sorted(_target(t) for t in targets))
        self.total = sum(self.targets)
        t = self.targets
        tests = set()
        for i0, j0, i1, j1, i2, j2 in _PLACEMENTS:
            tests.add(
                (t[i0], t[j0], t[i0] + t[j0], t[i1], t[j1], t[i1] + t[j1],
                 t[i2], t[j2], t[i2] + t[j2])
            )  # fmt: skip
        # smallest largest-pair-sum first: the balanced placements are the likeliest to pass
        self._tests = sorted(tests, key=lambda r: max(r[2], r[5], r[8]))

    def start(self) -> State:
        return 0, (0, 0, 0, 0, 0, 0)

    def successor(self, state: State, move: int) -> State:
        o = ROLL[state[0]][move]
        f = BOTTOM[o]
        c = state[1]
        return o, c[:f] + (c[f] + 1,) + c[f + 1 :]  # type: ignore[return-value]

    def feasible(self, state: State) -> bool:
        o, (c0, c1, c2, c3, c4, c5) = state
        r = self.total - c0 - c1 - c2 - c3 - c4 - c5
        if r < 0:
            return False
        x = BOTTOM_PAIR[o]
        half, half_up = r // 2, (r + 1) // 2
        x0, y0 = (c0, c5) if c0 <= c5 else (c5, c0)
        x1, y1 = (c1, c4) if c1 <= c4 else (c4, c1)
        x2, y2 = (c2, c3) if c2 <= c3 else (c3, c2)
        m0 = x0 + y0 + (half if x == 0 else half_up)
        m1 = x1 + y1 + (half if x == 1 else half_up)
        m2 = x2 + y2 + (half if x == 2 else half_up)
        for u0, v0, s0, u1, v1, s1, u2, v2, s2 in self._tests:
            if (
                s0 <= m0 and s1 <= m1 and s2 <= m2
                and u0 >= x0 and v0 >= y0 and u1 >= x1 and v1 >= y1 and u2 >= x2 and v2 >= y2
            ):  # fmt: skip
                return True
        return False

    def is_goal(self, state: State) -> bool:
        return sum(state[1]) == self.total and tuple(sorted(state[1])) == self.targets

    def shape(self, state: State) -> int:
        return state[0]

    def repeat(self, state: State, earlier: State, times: int) -> State:
        o, c = state
        step = zip(c, earlier[1], strict=True)
        return o, tuple(a + times * (a - b) for a, b in step)  # type: ignore[return-value]
