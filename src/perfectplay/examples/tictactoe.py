"""Tic-tac-toe: perfect play ends level, after all nine squares are filled.

A position is the board as a string of nine characters, row by row: ``X``, ``O`` or
``.`` for an empty square. X moves first, so the player to move follows from the counts.
A move is the index 0..8 of the square taken. The player who completes a row, column or
diagonal wins, so at the next turn ``outcome`` reports ``"lose"`` for the player to move;
a full board without a line is a ``"tie"``.

There are 5478 legal positions; with ``symmetry=True`` the model keys positions by the
smallest of their eight rotations and reflections (``canonical``), which leaves 765.

>>> from perfectplay.models import solve_model
>>> sol = solve_model(TicTacToe())
>>> sol.start_value, sol.n_positions
(Result(value=<Outcome.TIE: 3>, remoteness=9), 5478)
>>> sol.value("XX.OO....")            # X to move completes the top row
Result(value=<Outcome.WIN: 4>, remoteness=1)
>>> sol.best("X........")       # after a corner opening only the centre saves O
[4]
>>> second = sol.options("X........")[1]
>>> second.action, second.value, second.regret
(1, Result(value=<Outcome.LOSE: 1>, remoteness=6), 0.5)
"""

from __future__ import annotations

from perfectplay.models.base import GameModel

__all__ = ["TicTacToe"]

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

# The eight symmetries of the square as permutations of the squares 0..8.
_ROTATE = (6, 3, 0, 7, 4, 1, 8, 5, 2)
_MIRROR = (2, 1, 0, 5, 4, 3, 8, 7, 6)


def _symmetries() -> list[tuple[int, ...]]:
    perms, p = [], tuple(range(9))
    for _ in range(4):
        p = tuple(p[i] for i in _ROTATE)
        perms += [p, tuple(p[i] for i in _MIRROR)]
    return perms


SYMMETRIES = _symmetries()


class TicTacToe(GameModel):
    """Tic-tac-toe on a 3x3 board, X first; ``symmetry=True`` merges symmetric boards."""

    start = "." * 9

    def __init__(self, symmetry: bool = False) -> None:
        if symmetry:
            self.canonical = self._smallest_symmetric

    @staticmethod
    def _smallest_symmetric(board: str) -> str:
        return min("".join(board[i] for i in p) for p in SYMMETRIES)

    def outcome(self, board: str) -> str | None:
        for a, b, c in LINES:
            if board[a] != "." and board[a] == board[b] == board[c]:
                return "lose"  # the previous player just completed the line
        return "tie" if "." not in board else None

    def moves(self, board: str) -> list[int]:
        return [i for i, square in enumerate(board) if square == "."]

    def play(self, board: str, square: int) -> str:
        mark = "X" if board.count("X") == board.count("O") else "O"
        return board[:square] + mark + board[square + 1 :]
