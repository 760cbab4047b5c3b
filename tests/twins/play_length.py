"""Brute-force twin of the length of a two-player dice game under a strategy pair.

Written from the definitions, in exact Fractions, sharing no code with the library:

* the players are told apart (states ``(position, who)``, ``who`` 0 for the first mover),
  and a passing outcome hands the move to the other player;
* the law of the number of moves: probability mass pushed forward one move at a time
  from the start; mass on a finished position is the probability of ending after
  exactly that many moves;
* how the game ends and the mean length: absorption probabilities and expected moves of
  the chain, by dense Gauss-Jordan elimination (states that cannot reach an end never
  end: they count for no result and make the mean infinite).

Reads a game only through the plain lists of ``stochastic_game.game_lists``.
"""

from __future__ import annotations

from fractions import Fraction

HALF = Fraction(1, 2)


def _chain(term, choices, pick, start):
    """The reachable ``(position, who)`` states and, for each, its outcome list."""
    states = [(start, 0)]
    index = {(start, 0): 0}
    steps = []
    k = 0
    while k < len(states):
        p, who = states[k]
        k += 1
        if term[p] or not choices[p]:
            steps.append(None)
            continue
        c = choices[p][pick[p]]
        total = sum(w for _, w, _ in c)
        step = []
        for t, w, f in c:
            s = (t, who ^ int(f))
            if s not in index:
                index[s] = len(states)
                states.append(s)
            step.append((index[s], Fraction(w, total)))
        steps.append(step)
    return states, steps


def _first_result(term, tval, p, who):
    """The first mover's result at a finished position (a stuck mover loses)."""
    v = tval[p] if term[p] else Fraction(0)
    return v if who == 0 else 1 - v


def _kind(r):
    if r == 1:
        return "win"
    if r == 0:
        return "lose"
    if r == HALF:
        return "tie"
    return "other"


def _solve(n, rows, rhs):
    """Solve ``x[i] - sum(rows[i]) = rhs[i]`` densely in Fractions."""
    a = [[Fraction(0)] * (n + 1) for _ in range(n)]
    for i in range(n):
        a[i][i] += 1
        for j, q in rows[i]:
            a[i][j] -= q
        a[i][n] = rhs[i]
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] for i in range(n)]


def play_length(term, tval, choices, pick, start, k_max):
    """``(exactly, results, mean)``: ``exactly[k]`` = P(the game ends after exactly ``k``
    moves) for ``k = 0..k_max``; ``results``: P(ending with each first-mover result
    ``win``/``lose``/``tie``/``other``); ``mean``: the expected number of moves, ``None``
    when the game may never end. ``pick[p]``: the index into ``choices[p]`` played."""
    states, steps = _chain(term, choices, pick, start)
    n = len(states)
    exactly = []
    mass = {0: Fraction(1)}
    for _ in range(k_max + 1):
        ended = Fraction(0)
        nxt: dict[int, Fraction] = {}
        for i, q in mass.items():
            if steps[i] is None:
                ended += q
                continue
            for j, r in steps[i]:
                nxt[j] = nxt.get(j, Fraction(0)) + q * r
        exactly.append(ended)
        mass = nxt
    # States that reach an end with positive probability (the rest never end).
    ends = {i for i in range(n) if steps[i] is None}
    changed = True
    while changed:
        changed = False
        for i in range(n):
            if i not in ends and any(j in ends for j, _ in steps[i]):
                ends.add(i)
                changed = True
    results = {}
    for kind in ("win", "lose", "tie", "other"):
        rows, rhs = [], []
        for i, (p, who) in enumerate(states):
            if steps[i] is None:
                hit = _kind(_first_result(term, tval, p, who)) == kind
                rows.append([])
                rhs.append(Fraction(int(hit)))
            elif i not in ends:
                rows.append([])
                rhs.append(Fraction(0))
            else:
                rows.append(steps[i])
                rhs.append(Fraction(0))
        results[kind] = _solve(n, rows, rhs)[0]
    mean = None
    if len(ends) == n:
        rows = [[] if s is None else s for s in steps]
        rhs = [Fraction(0) if s is None else Fraction(1) for s in steps]
        mean = _solve(n, rows, rhs)[0]
    return exactly, results, mean
