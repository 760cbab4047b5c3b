"""Brute-force twins of the stochastic-game solver, written from the definitions.

* :func:`minimax` — exhaustive search over positional strategy pairs: the players are
  told apart (states ``(position, player)``), each player's strategy is one choice per
  position, every pair is a Markov chain evaluated exactly in Fractions (dense
  Gauss-Jordan elimination; states that cannot reach a terminal are endless play, a draw
  worth one half), and the value is max over the first player's strategies of the min
  over the second's. Turn-based stochastic games with terminal payoffs have optimal
  positional strategies, so this is the game's value.
* :func:`value_iteration` — plain Jacobi value iteration from 0 in floats, for games
  in which every play ends (Pig, Piglet): it converges to the value.

Reads a graph only through its plain lists.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product


def game_lists(g):
    """Plain lists of a StochasticGraph: terminal, values (Fractions), choices."""
    term = [bool(t) for t in g.terminal.tolist()]
    tval = [Fraction(v, g.scale) for v in g.terminal_value.tolist()]
    cp, op = g.choice_ptr.tolist(), g.outcome_ptr.tolist()
    tg, wt, ps = g.target.tolist(), g.weight.tolist(), g.passes.tolist()
    choices = [
        [
            [(tg[e], wt[e], bool(ps[e])) for e in range(op[c], op[c + 1])]
            for c in range(cp[p], cp[p + 1])
        ]
        for p in range(len(term))
    ]
    return term, tval, choices


def chain_value(term, tval, choices, sa, sb, start):
    """Exact value for the first mover at ``start`` when player 0 plays ``sa`` and
    player 1 ``sb`` (dicts position -> choice index)."""
    states = [(start, 0)]
    index = {(start, 0): 0}
    k = 0
    while k < len(states):
        p, who = states[k]
        k += 1
        if term[p] or not choices[p]:
            continue
        c = (sa if who == 0 else sb)[p]
        for t, _, f in choices[p][c]:
            s = (t, who ^ f)
            if s not in index:
                index[s] = len(states)
                states.append(s)
    n = len(states)
    # Which states can reach a terminal (or a stuck position) under the chain.
    ends = {i for i, (p, _) in enumerate(states) if term[p] or not choices[p]}
    changed = True
    while changed:
        changed = False
        for i, (p, who) in enumerate(states):
            if i in ends:
                continue
            c = (sa if who == 0 else sb)[p]
            if any(index[(t, who ^ f)] in ends for t, _, f in choices[p][c]):
                ends.add(i)
                changed = True
    a = [[Fraction(0)] * (n + 1) for _ in range(n)]
    for i, (p, who) in enumerate(states):
        a[i][i] = Fraction(1)
        if term[p] or not choices[p]:
            v = tval[p] if term[p] else Fraction(0)
            a[i][n] = v if who == 0 else 1 - v
        elif i not in ends:
            a[i][n] = Fraction(1, 2)
        else:
            c = (sa if who == 0 else sb)[p]
            total = sum(w for _, w, _ in choices[p][c])
            for t, w, f in choices[p][c]:
                a[i][index[(t, who ^ f)]] -= Fraction(w, total)
    for col in range(n):
        piv = next(r for r in range(col, n) if a[r][col] != 0)
        a[col], a[piv] = a[piv], a[col]
        inv = 1 / a[col][col]
        a[col] = [x * inv for x in a[col]]
        for r in range(n):
            if r != col and a[r][col] != 0:
                f = a[r][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return a[0][n]


def minimax(term, tval, choices, start):
    """max over the first player's positional strategies of the min over the second's."""
    free = [p for p in range(len(term)) if not term[p] and choices[p]]
    strategies = [
        dict(zip(free, pick, strict=True))
        for pick in product(*(range(len(choices[p])) for p in free))
    ]
    return max(
        min(chain_value(term, tval, choices, sa, sb, start) for sb in strategies)
        for sa in strategies
    )


def value_iteration(term, tval, choices, sweeps=20_000, tol=1e-15):
    """Jacobi value iteration from 0 (games where every play ends)."""
    v = [float(tval[p]) if term[p] else 0.0 for p in range(len(term))]
    for _ in range(sweeps):
        new = list(v)
        for p in range(len(term)):
            if term[p]:
                continue
            best = 0.0
            for c in choices[p]:
                total = sum(w for _, w, _ in c)
                x = sum(w * (1 - v[t] if f else v[t]) for t, w, f in c) / total
                best = max(best, x)
            new[p] = best
        if max(abs(x - y) for x, y in zip(new, v, strict=True)) <= tol:
            return new
        v = new
    return v
