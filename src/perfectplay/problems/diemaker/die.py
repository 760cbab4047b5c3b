"""The geometry of a die rolled on a board: its 24 orientations and the four rolls.

Faces are numbered 0..5 with face ``f`` opposite face ``5 - f``, so the three opposite
pairs are ``{0, 5}``, ``{1, 4}``, ``{2, 3}`` and :func:`pair` names them 0, 1, 2. An
orientation is the face in each position ``(top, bottom, north, south, east, west)``;
rolling east tips the die over its east edge, so the east face comes to the bottom, the
top goes east, the bottom goes west and the west face comes up (likewise for the others).

>>> ORIENTATIONS[0]
(0, 5, 1, 4, 2, 3)
>>> ORIENTATIONS[ROLL[0][MOVES.index("E")]]  # the east face 2 is now at the bottom
(3, 2, 1, 4, 0, 5)
>>> sorted({BOTTOM[ROLL[0][m]] for m in range(4)})  # the four faces next to the bottom
[1, 2, 3, 4]
"""

from __future__ import annotations

MOVES = "ENSW"  # lexicographic order, which is also the order the search tries them
POSITIONS = ("top", "bottom", "north", "south", "east", "west")

Orientation = tuple[int, int, int, int, int, int]


def pair(face: int) -> int:
    """The opposite pair a face belongs to: 0 for {0, 5}, 1 for {1, 4}, 2 for {2, 3}."""
    return min(face, 5 - face)


def _roll(o: Orientation, move: str) -> Orientation:
    top, bottom, north, south, east, west = o
    if move == "E":
        return (west, east, north, south, top, bottom)
    if move == "N":
        return (south, north, top, bottom, east, west)
    if move == "S":
        return (north, south, bottom, top, east, west)
    return (east, west, north, south, bottom, top)  # W


def _orientations() -> tuple[list[Orientation], list[tuple[int, int, int, int]]]:
    start: Orientation = (0, 5, 1, 4, 2, 3)
    found = [start]
    index = {start: 0}
    table: list[tuple[int, int, int, int]] = []
    for o in found:  # breadth-first; the list grows while it is walked
        succ = []
        for move in MOVES:
            nxt = _roll(o, move)
            if nxt not in index:
                index[nxt] = len(found)
                found.append(nxt)
            succ.append(index[nxt])
        table.append((succ[0], succ[1], succ[2], succ[3]))
    return found, table


#: the 24 orientations; index 0 is the start (any start will do: all faces are blank)
ORIENTATIONS, ROLL = _orientations()
#: the face at the bottom of each orientation
BOTTOM: tuple[int, ...] = tuple(o[1] for o in ORIENTATIONS)
#: the opposite pair at the bottom of each orientation
BOTTOM_PAIR: tuple[int, ...] = tuple(pair(b) for b in BOTTOM)
