"""solve_retrograde against independent exhaustive minimax on random small game graphs.

The twins below are written from the definitions, not from the solver:

* ``horizon_minimax``: the classic depth-bounded minimax. ``outcome(p, d)`` is +1 when the
  mover can force a win within ``d`` moves, -1 when the opponent can, 0 otherwise; a win's
  remoteness is the least ``d`` with +1, a loss's the least ``d`` with -1. Iterated to a
  horizon beyond the number of positions, where it no longer changes.
* ties by shortest paths (Bellman-Ford relaxation) through the positions that the horizon
  minimax left undecided; the rest are draws.
* for acyclic graphs also a plain recursive minimax over (value, remoteness) pairs
  compared by the mover's preference.
"""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from perfectplay.graphs.canonical import StateIndex
from perfectplay.graphs.game import NOT_TERMINAL, GameGraph, Move, Outcome
from perfectplay.solvers.retrograde import solve_retrograde

W, L, T, D = Outcome.WIN, Outcome.LOSE, Outcome.TIE, Outcome.DRAW


def horizon_minimax(moves, terminal):
    """(value, remoteness) per position from depth-bounded minimax plus tie shortest paths."""
    n = len(moves)
    horizon = 2 * n + 2
    first_win = [None] * n
    first_loss = [None] * n
    prev = [0] * n
    for d in range(horizon + 1):
        cur = []
        for p in range(n):
            t = terminal[p]
            if t == W:
                o = 1
            elif t == L or (t == NOT_TERMINAL and not moves[p]):
                o = -1
            elif t == T or d == 0:
                o = 0
            else:
                outs = [prev[c] for c in moves[p]]
                o = 1 if -1 in outs else (-1 if all(x == 1 for x in outs) else 0)
            cur.append(o)
            if o == 1 and first_win[p] is None:
                first_win[p] = d
            if o == -1 and first_loss[p] is None:
                first_loss[p] = d
        prev = cur
    result = [None] * n
    undecided = []
    for p in range(n):
        if first_win[p] is not None:
            result[p] = (W, first_win[p])
        elif first_loss[p] is not None:
            result[p] = (L, first_loss[p])
        else:
            undecided.append(p)
    inf = float("inf")
    dist = {p: (0 if terminal[p] == T else inf) for p in undecided}
    for _ in range(n + 1):
        for p in undecided:
            if terminal[p] == NOT_TERMINAL:
                for c in moves[p]:
                    if c in dist and dist[c] + 1 < dist[p]:
                        dist[p] = dist[c] + 1
    for p in undecided:
        result[p] = (T, dist[p]) if dist[p] < inf else (D, -1)
    return result


def recursive_minimax(moves, terminal):
    """Plain minimax over (value, remoteness) for acyclic graphs."""

    def rank(vr):  # larger is better for the mover
        v, r = vr
        return {W: (3, -r), T: (2, -r), L: (0, r)}[v]

    @cache
    def solve(p):
        if terminal[p] != NOT_TERMINAL:
            return (Outcome(terminal[p]), 0)
        if not moves[p]:
            return (L, 0)
        options = []
        for c in moves[p]:
            v, r = solve(c)
            options.append(({W: L, L: W, T: T}[v], r + 1))
        return max(options, key=rank)

    return [solve(p) for p in range(len(moves))]


def random_graph(rng: random.Random, acyclic: bool):
    n = rng.randint(1, 9)
    moves, terminal = [], []
    for p in range(n):
        if rng.random() < 0.22:
            terminal.append(rng.choice([W, L, T]))
        else:
            terminal.append(NOT_TERMINAL)
        targets = list(range(p + 1, n)) if acyclic else list(range(n))
        k = 0 if not targets else rng.choice([0, 1, 1, 2, 2, 3, 4])
        moves.append([rng.choice(targets) for _ in range(k)])  # duplicates allowed
    if rng.random() < 0.3 and not acyclic:
        p = rng.randrange(n)
        moves[p].append(p)  # a self-loop
    # Renumber at random so that ids are not a topological order.
    perm = list(range(n))
    rng.shuffle(perm)
    new_moves = [None] * n
    new_term = [None] * n
    for p in range(n):
        new_moves[perm[p]] = [perm[c] for c in moves[p]]
        new_term[perm[p]] = terminal[p]
    return new_moves, new_term


def as_pairs(sol):
    return [(Outcome(int(v)), int(r)) for v, r in zip(sol.value, sol.remoteness, strict=True)]


@pytest.mark.parametrize("acyclic", [True, False], ids=["acyclic", "cyclic"])
def test_random_graphs_agree_with_exhaustive_minimax(acyclic):
    rng = random.Random(2011 if acyclic else 511)
    seen_values = set()
    loopy_used = 0
    for _ in range(350):
        moves, terminal = random_graph(rng, acyclic)
        g = GameGraph.from_lists(moves, terminal)
        expected = horizon_minimax(moves, terminal)
        sol = solve_retrograde(g, compiled=False)
        assert as_pairs(sol) == expected, (moves, terminal)
        if acyclic:
            assert sol.method == "acyclic"
            assert recursive_minimax(moves, terminal) == expected
            assert as_pairs(solve_retrograde(g, compiled=False, method="loopy")) == expected
        loopy_used += sol.method == "loopy"
        seen_values.update(v for v, _ in expected)
        compiled = solve_retrograde(g.as_numpy(), compiled=True)
        assert as_pairs(compiled) == expected and compiled.method == sol.method
        check_move_queries(sol)
    assert seen_values == ({W, L, T} if acyclic else {W, L, T, D})
    if not acyclic:
        assert loopy_used > 200


def check_move_queries(sol):
    g = sol.graph
    for p in range(g.n_positions):
        ms = sol.moves(p)
        if g.terminal[p] != NOT_TERMINAL:
            assert ms == [] and sol.best_moves(p) == []
            continue
        assert len(ms) == len(g.moves(p))
        for m in ms:
            cv, cr = sol.value_of(m.child), sol.remoteness_of(m.child)
            assert m.value == cv.for_opponent()
            assert m.remoteness == (-1 if cv == D else cr + 1)
        if ms:
            best = sol.best_moves(p)[0]
            assert best.value == sol.value_of(p)
            assert best.remoteness == sol.remoteness_of(p)


def test_hand_made_loopy_cases():
    # A lone self-loop: play goes on forever.
    s = solve_retrograde(GameGraph.from_lists([[0]]))
    assert as_pairs(s) == [(D, -1)]
    # Looping beats moving into a lost position; a tie beats looping.
    s = solve_retrograde(GameGraph.from_lists([[0, 1], [2], []]))
    assert as_pairs(s) == [(D, -1), (W, 1), (L, 0)]
    s = solve_retrograde(GameGraph.from_lists([[0, 1, 2], [3], [], []], [0, 0, T, 0]))
    assert as_pairs(s)[0] == (T, 1)
    assert s.best_moves(0) == [Move(2, T, 1)]
    # The self-loop is a tie too (one move longer): 0 itself is a tie now.
    assert [tuple(m) for m in s.moves(0)] == [(2, T, 1), (0, T, 2), (1, L, 2)]
    # Two positions that can only pass to each other, one of them with an exit that
    # loses: the one with the exit still draws by passing.
    s = solve_retrograde(GameGraph.from_lists([[1], [0, 2], [3], []]))
    assert as_pairs(s) == [(D, -1), (D, -1), (W, 1), (L, 0)]
    # Every move of 0 leads around the cycle 0 -> 1 -> 0 or straight into the opponent's
    # win; 1 escapes to 3 where the opponent is stuck.
    s = solve_retrograde(GameGraph.from_lists([[1, 2], [0, 3], [4], [], []]))
    assert as_pairs(s) == [(L, 2), (W, 1), (W, 1), (L, 0), (L, 0)]
    assert s.method == "loopy" and s.counts() == {W: 2, L: 3, T: 0, D: 0}


def test_terminal_moves_are_ignored_and_codes_validated():
    s = solve_retrograde(GameGraph.from_lists([[1], [0]], terminal=[W, 0]))
    assert as_pairs(s) == [(W, 0), (L, 1)] and s.method == "acyclic"
    with pytest.raises(ValueError, match="terminal codes"):
        GameGraph.from_lists([[]], terminal=[7])
    with pytest.raises(ValueError, match="out of range"):
        GameGraph.from_lists([[3]])
    with pytest.raises(ValueError, match="cycle"):
        solve_retrograde(GameGraph.from_lists([[0]]), method="acyclic")
    with pytest.raises(ValueError, match="cycle"):
        solve_retrograde(GameGraph.from_lists([[0]]).as_numpy(), method="acyclic", compiled=True)


def test_long_chain_needs_no_recursion():
    n = 200_000  # deeper than any recursion limit
    indptr = np.arange(n + 1, dtype=np.int64)
    indptr[-1] = n - 1
    children = np.arange(1, n, dtype=np.int32)
    g = GameGraph(indptr, children, np.zeros(n, np.int8))
    for compiled in (True, False):
        s = solve_retrograde(g, compiled=compiled)
        assert s.remoteness_of(0) == n - 1
        assert s.value_of(0) == (W if (n - 1) % 2 else L)
        assert s.method == "acyclic"


# -- tic-tac-toe: a game that ends level, keyed by a canonical form (the 8 symmetries) --

LINES = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]
SYMS = [
    (0, 1, 2, 3, 4, 5, 6, 7, 8),
    (6, 3, 0, 7, 4, 1, 8, 5, 2),
    (8, 7, 6, 5, 4, 3, 2, 1, 0),
    (2, 5, 8, 1, 4, 7, 0, 3, 6),
    (2, 1, 0, 5, 4, 3, 8, 7, 6),
    (6, 7, 8, 3, 4, 5, 0, 1, 2),
    (0, 3, 6, 1, 4, 7, 2, 5, 8),
    (8, 5, 2, 7, 4, 1, 6, 3, 0),
]


def ttt_canonical(board: str) -> str:
    return min("".join(board[i] for i in s) for s in SYMS)


def ttt_graph():
    index = StateIndex(canonical=ttt_canonical)
    index.add("." * 9)
    moves, terminal = [], []
    i = 0
    while i < len(index):
        board = index.key(i)
        mover = "X" if board.count("X") == board.count("O") else "O"
        other = "O" if mover == "X" else "X"
        if any(all(board[j] == other for j in line) for line in LINES):
            terminal.append(L)
            moves.append([])
        elif "." not in board:
            terminal.append(T)
            moves.append([])
        else:
            terminal.append(NOT_TERMINAL)
            kids = []
            for j in range(9):
                if board[j] == ".":
                    kids.append(index.add(board[:j] + mover + board[j + 1 :])[0])
            moves.append(sorted(set(kids)))
        i += 1
    return GameGraph.from_lists(moves, terminal, index=index)


def test_tic_tac_toe_is_a_tie_in_nine_moves():
    g = ttt_graph()
    assert g.n_positions == 765  # the known number of positions up to symmetry
    s = solve_retrograde(g)
    assert (s.start_value, s.start_remoteness) == (T, 9)
    assert s.lookup("X" + "." * 8) == (T, 8)  # a corner is safe ...
    assert s.lookup("....X..O.") == (W, 5)  # ... an edge reply to the centre loses for O
    assert s.lookup(".O..X....") == s.lookup("....X..O.")  # same class by symmetry
    assert s.counts()[D] == 0
    assert set(as_pairs(s)) == set(as_pairs(solve_retrograde(g, method="loopy")))


def test_compiled_or_interpreted_follows_the_package_rule(monkeypatch):
    # solve_retrograde(compiled=None) asks _util.jit.compile_for, like every other solver:
    # a 600-item chain runs interpreted in a fresh process and compiled once the process
    # has spent its interpreted budget (many small games); the answers agree.
    from perfectplay._util import jit

    monkeypatch.delenv("PERFECTPLAY_NO_JIT", raising=False)
    chain = GameGraph.from_lists([[i + 1] for i in range(299)] + [[]])
    # 600 items stay interpreted whether or not numba or a kernel is loaded already.
    monkeypatch.setattr(jit, "budget_spent", lambda: False)
    interpreted = solve_retrograde(chain)
    monkeypatch.setattr(jit, "budget_spent", lambda: True)
    compiled = solve_retrograde(chain)
    assert not isinstance(interpreted.value, np.ndarray)
    assert isinstance(compiled.value, np.ndarray)
    assert list(interpreted.value) == compiled.value.tolist()
    assert list(interpreted.remoteness) == compiled.remoteness.tolist()
