"""The answer to print: the verdict alone (:func:`format`) or with reasons (:func:`explain`).

>>> from perfectplay.problems.dispdom.instance import parse
>>> from perfectplay.problems.dispdom.solution import solve
>>> print(explain(solve(parse("4 2 1\\n0000\\n"))))
Draw
Without disappearing, Alice wins the placement game; with best play (Alice hurries, Bob delays) it lasts 1 move.
1 >= D = 1: Bob can keep the game going for D moves; from turn D + 1 on, the domino placed D turns earlier has just disappeared, so the player to move always has a move and the game never ends.
Alice's first move: cells 2-3 (cells numbered from 1).
optimal play (# blocked, A/B dominoes):
  start      ....
  1. Alice   .AA.  cells 2-3
canonical states: 3; moves between them: 3
"""  # noqa: E501

from __future__ import annotations

from perfectplay.problems.dispdom.solution import PLAYERS, Solution


def format(solution: Solution) -> str:
    """The official answer: ``Alice``, ``Bob`` or ``Draw``."""
    return solution.verdict


def explain(solution: Solution) -> str:
    """The answer, why, the winner's first move and one optimal line drawn on the strip."""
    inst = solution.instance
    winner, loser = solution.plain_winner, PLAYERS[solution.plain_winner == "Alice"]
    r = solution.length
    moves = f"{r} move{'s' * (r != 1)}"
    out = [solution.verdict]
    if r == 0:
        run = "empty cell" if inst.k == 1 else f"{inst.k} consecutive empty cells"
        out.append(f"Alice has no {run}: she cannot move and loses.")
    else:
        out.append(
            f"Without disappearing, {winner} wins the placement game; with best play ({winner} "
            f"hurries, {loser} delays) it lasts {moves}."
        )
        if solution.verdict == "Draw":
            out.append(
                f"{r} >= D = {inst.d}: {loser} can keep the game going for D moves; from turn "
                "D + 1 on, the domino placed D turns earlier has just disappeared, so the "
                "player to move always has a move and the game never ends."
            )
        else:
            out.append(f"{r} < D = {inst.d}: {loser} is stuck before any domino disappears.")
    line = solution.line()
    if line:
        first = line[0] if winner == "Alice" else line[1]
        out.append(f"{winner}'s first move: {_cells(first, inst.k)} (cells numbered from 1).")
        out.append("optimal play (# blocked, A/B dominoes):")
        cells = ["#" if c == "1" else "." for c in inst.strip]
        out.append(f"  {'start':<10} {''.join(cells)}")
        for turn, start in enumerate(line):
            who = PLAYERS[turn % 2]
            cells[start : start + inst.k] = [who[0]] * inst.k
            out.append(f"  {f'{turn + 1}. {who}':<10} {''.join(cells)}  {_cells(start, inst.k)}")
    out.append(f"canonical states: {solution.n_states:,}; moves between them: {solution.n_moves:,}")
    return "\n".join(out)


def _cells(start: int, k: int) -> str:
    return f"cell {start + 1}" if k == 1 else f"cells {start + 1}-{start + k}"


__all__ = ["explain", "format"]
