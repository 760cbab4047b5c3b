"""Independent twins of the compiled solver: plain value iteration over Python dicts,
written from each game's rules (not from the compiled models), for the tests."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction
from math import comb

Turn = list[tuple[Fraction, list[tuple[Hashable | float, bool]]]]


def value_iteration(
    start: Hashable, turn: Callable[[Hashable], Turn], over: Callable[[Hashable], float | None]
) -> dict[Hashable, float]:
    """Every reachable position's value for the mover: V(s) = sum over outcomes of its
    probability times the best move, a move worth V(t), or 1 - V(t) when the other player
    moves next; iterated in place from 0.5 until nothing changes by 1e-15."""
    turns: dict[Hashable, list[tuple[float, list[tuple[Hashable, bool]]]]] = {}
    todo = [start]
    while todo:
        s = todo.pop()
        if s in turns or over(s) is not None:
            continue
        turns[s] = [(float(p), moves) for p, moves in turn(s)]
        todo.extend(t for _, moves in turns[s] for t, _ in moves if t not in turns)
    # The same sums over lists: each move a (position number, flip) or a final value.
    index = {s: i for i, s in enumerate(turns)}
    flat = []
    for outcomes in turns.values():
        row = []
        for p, moves in outcomes:
            row.append(
                (p, [(index[t], f, 0.0) if t in index else (-1, f, over(t)) for t, f in moves])
            )
        flat.append(row)
    values = [0.5] * len(flat)
    for _ in range(100_000):
        change = 0.0
        for i, outcomes in enumerate(flat):
            v = 0.0
            for p, moves in outcomes:
                best = 0.0
                for t, f, o in moves:
                    w = values[t] if t >= 0 else o
                    w = 1.0 - w if f else w
                    if w > best:
                        best = w
                v += p * best
            change = max(change, abs(v - values[i]))
            values[i] = v
        if change < 1e-15:
            return dict(zip(turns, values, strict=True))
    raise AssertionError("the twin did not converge")


# -- Pig ---------------------------------------------------------------------------------


def pig(goal: int, faces: int = 6) -> dict[Hashable, float]:
    """Pig: (my score, opponent's, turn total) -> the mover's winning chance."""

    def over(s: Hashable) -> float | None:
        mine, theirs, turn = s  # type: ignore[misc]
        return 1.0 if mine + turn >= goal else 0.0 if theirs >= goal else None

    def turn(s: Hashable) -> Turn:
        mine, theirs, total = s  # type: ignore[misc]
        # Rolling is a chance move: its value is the average over the faces, which the
        # twin writes as a position ("r", ...) of its own.
        if s[0] == "r":  # type: ignore[index]
            raise AssertionError
        moves: list[tuple[Hashable, bool]] = [(("roll", mine, theirs, total), False)]
        if total:
            moves.append(((theirs, mine + total, 0), True))
        return [(Fraction(1), moves)]

    def roll_turn(s: Hashable) -> Turn:
        _, mine, theirs, total = s  # type: ignore[misc]
        out: Turn = [(Fraction(1, faces), [((theirs, mine, 0), True)])]
        for f in range(2, faces + 1):
            out.append((Fraction(1, faces), [((mine, theirs, total + f), False)]))
        return out

    def either(s: Hashable) -> Turn:
        return roll_turn(s) if s[0] == "roll" else turn(s)  # type: ignore[index]

    def either_over(s: Hashable) -> float | None:
        return None if s[0] == "roll" else over(s)  # type: ignore[index]

    return value_iteration((0, 0, 0), either, either_over)


# -- The Royal Game of Ur -------------------------------------------------------------------

BELL = [(1, 4), (1, 3), (1, 2), (1, 1)] + [(2, y) for y in range(1, 9)] + [(1, 8), (1, 7)]
# Masters' path (RoyalUr-Java's MastersPathPair): up the shared lane to row 7, across to
# the dark side's rosette, down to row 8 and back across the last row to light's side.
MASTERS = (
    [(1, 4), (1, 3), (1, 2), (1, 1)]
    + [(2, y) for y in range(1, 8)]
    + [(3, 7), (3, 8), (2, 8), (1, 8), (1, 7)]
)
ROSETTES = {(1, 1), (3, 1), (2, 4), (1, 7), (3, 7)}


def ur_finkel(pieces: int) -> dict[Hashable, float]:
    """Finkel rules: Bell's path, four binary dice (a 0 passes), safe rosettes that give
    another roll."""
    return ur_game(pieces)


def ur_game(
    pieces: int,
    path: list[tuple[int, int]] = BELL,
    dice: int = 4,
    zero: int = 0,
    safe: bool = True,
    rosette_extra: bool = True,
    capture_extra: bool = False,
) -> dict[Hashable, float]:
    """Ur from the board: light walks ``path``, dark its mirror image; ``dice`` binary
    dice, a throw of 0 counting ``zero`` (0: it passes); rosettes ``safe`` or not, a
    rosette or a capture giving another roll or not. A position is (light's steps, dark's
    steps, light's hand, dark's hand, who moves) in absolute colours, and its value is
    the mover's winning chance."""
    paths = {"L": path, "D": [(4 - x, y) for x, y in path]}
    n = len(path)

    def over(s: Hashable) -> float | None:
        light, dark, lh, dh, mover = s  # type: ignore[misc]
        if not light and not lh:
            return 1.0 if mover == "L" else 0.0
        if not dark and not dh:
            return 1.0 if mover == "D" else 0.0
        return None

    def turn(s: Hashable) -> Turn:
        light, dark, lh, dh, mover = s  # type: ignore[misc]
        other = "D" if mover == "L" else "L"
        mine, theirs = (light, dark) if mover == "L" else (dark, light)
        my_hand, their_hand = (lh, dh) if mover == "L" else (dh, lh)
        their_tiles = {paths[other][t - 1]: t for t in theirs}
        out: Turn = []
        for up in range(dice + 1):
            throw = up if up else zero
            moves: list[tuple[Hashable, bool]] = []
            for start in sorted(set(mine) | ({0} if my_hand else set())):
                dest = start + throw
                if throw == 0 or dest > n + 1 or dest in mine:
                    continue
                new_mine = (set(mine) - {start}) | ({dest} if dest <= n else set())
                new_hand = my_hand - (start == 0)
                new_theirs, new_their_hand, again = set(theirs), their_hand, False
                if dest <= n:
                    tile = paths[mover][dest - 1]
                    if tile in their_tiles:
                        if tile in ROSETTES and safe:
                            continue
                        new_theirs.discard(their_tiles[tile])
                        new_their_hand += 1
                        again = capture_extra
                    again = again or (tile in ROSETTES and rosette_extra)
                nm, nt = frozenset(new_mine), frozenset(new_theirs)
                nxt_mover = mover if again else other
                if mover == "L":
                    moves.append(((nm, nt, new_hand, new_their_hand, nxt_mover), not again))
                else:
                    moves.append(((nt, nm, new_their_hand, new_hand, nxt_mover), not again))
            if not moves:
                moves = [((light, dark, lh, dh, other), True)]
            out.append((Fraction(comb(dice, up), 2**dice), moves))
        return out

    empty: frozenset[int] = frozenset()
    return value_iteration((empty, empty, pieces, pieces, "L"), turn, over)


def ur_notation(s: Hashable, pieces: int) -> str:
    """The twin's position in the notation of :mod:`perfectplay.examples.ur` (the mover
    first)."""
    light, dark, lh, dh, mover = s  # type: ignore[misc]
    sides = [(light, lh), (dark, dh)] if mover == "L" else [(dark, dh), (light, lh)]

    def side(steps: frozenset[int], hand: int) -> str:
        off = pieces - hand - len(steps)
        return ",".join(map(str, sorted(steps))) + (f"+{off}" if off else "")

    return "/".join(side(*x) for x in sides)
