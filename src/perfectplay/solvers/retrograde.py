"""Retrograde analysis: win / lose / tie / draw with remoteness for every position.

:func:`solve_retrograde` labels each position of a
:class:`~perfectplay.graphs.game.GameGraph` (semantics in that module's docstring and
in ``docs/twoplayer-core.md``). Two kernels share the work:

* **acyclic** (fast path): a depth-first search over the moves that evaluates a position
  when all its children are done (post-order), so each value is one pass over the children
  and no reverse graph is built. Each finished position gets a single score that ranks it
  for the player moving into it, so a position's value is the maximum over its moves (one
  comparison per move). If the search meets a position that is still open on its stack,
  the graph has a cycle and the search gives up.
* **loopy**: backward induction from the terminal positions over the reverse graph,
  counting for every position the children not yet known to be wins for the opponent.

  1. Win/lose, breadth first from the terminal wins and losses in order of remoteness: a
     parent of a ``LOSE`` becomes ``WIN``; a parent all of whose children are ``WIN``
     becomes ``LOSE``. First-in first-out keeps remoteness non-decreasing along the queue,
     so the first ``LOSE`` child found gives a win's smallest remoteness and the last
     ``WIN`` child a loss's largest.
  2. Ties, breadth first from the terminal ties through positions left unlabelled by
     step 1 (where nobody can force a win): the nearest reachable tie.
  3. Everything still unlabelled is a ``DRAW``: nobody can force a win or reach a tie.

Both are O(positions + moves). Small graphs run the kernels' Python source directly
(``compiled=False``), which avoids importing numba and numpy; larger ones run compiled.

>>> from perfectplay.graphs.game import GameGraph, Outcome
>>> loop = GameGraph.from_lists([[1], [0, 2], []])   # 0 <-> 1 -> 2 (stuck)
>>> s = solve_retrograde(loop)
>>> s.method, [Outcome(v).name for v in s.value], list(s.remoteness)
('loopy', ['LOSE', 'WIN', 'LOSE'], [2, 1, 0])

References: retrograde analysis labels positions backwards from the ends of the game
(Ströhlein's 1970 thesis on chess endgames; K. Thompson, "Retrograde analysis of certain
endgames", ICCA Journal 9(3), 1986); *remoteness*, the number of moves to the end when the
winner hurries and the loser delays, is as in Berlekamp, Conway and Guy, *Winning Ways for
your Mathematical Plays* (1982). The write-ups that argue the labelling rules on a gallery
game are ``archive/codechef/starters/DISPDOM-disappearing-dominoes/solution.tex``
(loopy: draws) and ``archive/topcoder/2011/SRM511-fivehundredeleven/solution.tex``
(acyclic); ``docs/twoplayer-core.md`` states the rules with ties and draws.
"""

from __future__ import annotations

from array import array
from typing import Any

from perfectplay._util.jit import compile_for, kernel
from perfectplay.graphs.game import GameGraph, GameSolution, Outcome

#: Graphs with at most this many positions + moves are solved by the kernels' Python
#: source (about 0.3-0.8 us per item) when no kernel is loaded yet: below it, interpreting
#: costs less than the first compiled call of a process (importing numba and loading the
#: cached machine code, about 0.5 s). Measured in docs/twoplayer-core.md.
COMPILE_THRESHOLD = 1_000_000
#: Above this size a graph that turns out to have a cycle is solved compiled: the loopy
#: algorithm costs about 1 us per item interpreted, three times the acyclic one.
LOOPY_COMPILE_THRESHOLD = 400_000
#: The same threshold once a kernel of this module is loaded in the process (the compiled
#: call then costs only its dispatch, tens of microseconds).
WARM_COMPILE_THRESHOLD = 2_000

# The kernels spell the Outcome codes as literals (LOSE 1, DRAW 2, TIE 3, WIN 4): a global
# name costs a dictionary look-up per use when the source runs interpreted.
assert (Outcome.LOSE, Outcome.DRAW, Outcome.TIE, Outcome.WIN) == (1, 2, 3, 4)


@kernel
def acyclic_kernel(
    indptr: Any,
    children: Any,
    terminal: Any,
    value: Any,
    remoteness: Any,
    score: Any,
    stack: Any,
    cursor: Any,
    best: Any,
) -> Any:
    """Post-order evaluation; returns False (leaving partial output) if a cycle is found.

    ``score[c]`` ranks position ``c`` for the player who moves into it, larger is better,
    so a position's best move is simply its child of largest score. With ``B = n + 1``
    (more than any remoteness):

    * ``c`` lost in ``r`` (a win for the mover): ``3B - r``, fastest first;
    * ``c`` tied in ``r``: ``2B - r``;
    * ``c`` won in ``r`` (a loss for the mover): ``r``, slowest first;
    * ``4B``: not visited yet, ``5B``: open on the search stack (a cycle if met again).

    The markers exceed every real score, so the loop over moves needs one comparison per
    move and notices an unfinished child only when it would raise the maximum. ``score``
    must be all ``4B`` on entry; per stack level, ``cursor`` is the next move to look at
    and ``best`` the largest score so far.
    """
    n = len(value)
    big = n + 1
    unvisited = 4 * big
    for root in range(n - 1, -1, -1):
        if score[root] != unvisited:
            continue
        top = 0
        stack[0] = root
        cursor[0] = indptr[root]
        best[0] = -1
        score[root] = 5 * big
        while top >= 0:
            v = stack[top]
            t = terminal[v]
            if t != 0:
                value[v] = t
                remoteness[v] = 0
                score[v] = 0 if t == 4 else (3 * big if t == 1 else 2 * big)
                top -= 1
                continue
            b = best[top]
            descended = False
            for j in range(cursor[top], indptr[v + 1]):
                c = children[j]
                s = score[c]
                if s > b:
                    if s < unvisited:
                        b = s
                    elif s == unvisited:  # finish the child first, then look again
                        cursor[top] = j
                        best[top] = b
                        top += 1
                        stack[top] = c
                        cursor[top] = indptr[c]
                        best[top] = -1
                        score[c] = 5 * big
                        descended = True
                        break
                    else:  # open on the stack: a cycle
                        return False
            if descended:
                continue
            top -= 1
            if b > 2 * big:  # a move to a lost position: win, fastest
                r = 3 * big - b + 1
                value[v] = 4
                score[v] = r
            elif b > big:  # a move to a tie: tie, fastest
                r = 2 * big - b + 1
                value[v] = 3
                score[v] = 2 * big - r
            else:  # every move loses (slowest: r), or there is none (b = -1)
                r = b + 1
                value[v] = 1
                score[v] = 3 * big - r
            remoteness[v] = r
    return True


@kernel
def loopy_kernel(
    indptr: Any,
    children: Any,
    terminal: Any,
    value: Any,
    remoteness: Any,
    parent_ptr: Any,
    parents: Any,
    count: Any,
    queue: Any,
) -> Any:
    """Backward induction with child counting (see the module docstring).

    ``value`` must be all 0 and ``parent_ptr`` all 0 on entry.
    """
    n = len(value)
    # Reverse graph, counting each non-terminal position's moves once per listed edge.
    for v in range(n):
        if terminal[v] == 0:
            for e in range(indptr[v], indptr[v + 1]):
                parent_ptr[children[e] + 1] += 1
    for v in range(n):
        parent_ptr[v + 1] += parent_ptr[v]
    for v in range(n):
        count[v] = 0
    for v in range(n):
        if terminal[v] == 0:
            for e in range(indptr[v], indptr[v + 1]):
                c = children[e]
                parents[parent_ptr[c] + count[c]] = v
                count[c] += 1
    # Step 1: wins and losses.
    tail = 0
    for v in range(n):
        t = terminal[v]
        deg = indptr[v + 1] - indptr[v]
        if t == 4 or t == 1 or (t == 0 and deg == 0):
            value[v] = 1 if t == 0 else t
            remoteness[v] = 0
            queue[tail] = v
            tail += 1
        count[v] = deg
    head = 0
    while head < tail:
        c = queue[head]
        head += 1
        r = remoteness[c] + 1
        lost = value[c] == 1
        for e in range(parent_ptr[c], parent_ptr[c + 1]):
            p = parents[e]
            if value[p] != 0:
                continue
            if lost:
                value[p] = 4
            else:
                count[p] -= 1
                if count[p] != 0:
                    continue
                value[p] = 1
            remoteness[p] = r
            queue[tail] = p
            tail += 1
    # Step 2: ties, reachable through positions nobody can force a win from.
    head = 0
    tail = 0
    for v in range(n):
        if terminal[v] == 3:
            value[v] = 3
            remoteness[v] = 0
            queue[tail] = v
            tail += 1
    while head < tail:
        c = queue[head]
        head += 1
        r = remoteness[c] + 1
        for e in range(parent_ptr[c], parent_ptr[c + 1]):
            p = parents[e]
            if value[p] == 0:
                value[p] = 3
                remoteness[p] = r
                queue[tail] = p
                tail += 1
    # Step 3: draws.
    for v in range(n):
        if value[v] == 0:
            value[v] = 2
            remoteness[v] = -1


def solve_retrograde(
    graph: GameGraph, *, compiled: bool | None = None, method: str = "auto"
) -> GameSolution:
    """Outcome and remoteness of every position of ``graph``.

    Args:
        graph: the game graph.
        compiled: run the numba-compiled kernels (``True``), their Python source
            (``False``), or decide by size (``None``: the package's one rule,
            :func:`~perfectplay._util.jit.compile_for`, with :data:`COMPILE_THRESHOLD`
            positions + moves, :data:`LOOPY_COMPILE_THRESHOLD` when the graph has a
            cycle, and :data:`WARM_COMPILE_THRESHOLD` once a kernel is loaded in this
            process; a process that has already spent its interpreted budget on many
            small games compiles all but tiny ones). A caller about to solve many graphs
            passes ``True`` to pay numba's start-up once.
        method: ``"auto"`` (try the acyclic fast path, fall back to the loopy algorithm
            when a cycle is found), ``"acyclic"`` (raise ``ValueError`` on a cycle) or
            ``"loopy"`` (always the general algorithm).

    >>> from perfectplay.graphs.game import GameGraph, Outcome
    >>> chain = GameGraph.from_lists([[1], [2], []], terminal=[0, 0, Outcome.TIE])
    >>> s = solve_retrograde(chain)
    >>> s.method, s.start_value, s.start_remoteness
    ('acyclic', <Outcome.TIE: 3>, 2)
    """
    if method not in ("auto", "acyclic", "loopy"):
        raise ValueError(f"unknown method {method!r}")
    size = graph.n_positions + graph.n_moves
    if compiled is None:
        kernels = (acyclic_kernel, loopy_kernel)
        compiled = compile_for(
            size, COMPILE_THRESHOLD, *kernels, warm_threshold=WARM_COMPILE_THRESHOLD
        )
        if (
            not compiled
            and method != "acyclic"
            and compile_for(
                size, LOOPY_COMPILE_THRESHOLD, *kernels, warm_threshold=WARM_COMPILE_THRESHOLD
            )
        ):
            # Interpreted, the loopy algorithm costs about three times the acyclic one:
            # try the acyclic path interpreted, and compile if the graph has a cycle.
            solution = _acyclic_python(graph) if method == "auto" else None
            if solution is not None:
                return solution
            compiled = True
    if compiled:
        return _solve_compiled(graph.as_numpy(), method)
    if method != "loopy":
        solution = _acyclic_python(graph)
        if solution is not None:
            return solution
        if method == "acyclic":
            raise ValueError("the game graph has a cycle")
    return _loopy_python(graph)


def _python_lists(graph: GameGraph) -> tuple[list[int], list[int], list[int]]:
    n = graph.n_positions
    if n + graph.n_moves > 100_000:  # small graphs skip reading /proc/meminfo
        from perfectplay._util.memory import require

        # Seven lists of n and two of n_moves pointers, plus int objects above 256.
        require(36 * (7 * n + 2 * graph.n_moves), "the retrograde solver's lists")
    # Plain lists of Python ints index fastest in the interpreter (numpy scalars are slow).
    return _list(graph.indptr), _list(graph.children), _list(graph.terminal)


def _acyclic_python(graph: GameGraph) -> GameSolution | None:
    n = graph.n_positions
    indptr, children, terminal = _python_lists(graph)
    value, remoteness = [0] * n, [0] * n
    ok = acyclic_kernel.run(
        indptr,
        children,
        terminal,
        value,
        remoteness,
        [4 * (n + 1)] * n,
        [0] * n,
        [0] * n,
        [0] * n,
        compiled=False,
    )
    if not ok:
        return None
    return GameSolution(graph, array("b", value), array("i", remoteness), "acyclic")


def _loopy_python(graph: GameGraph) -> GameSolution:
    n = graph.n_positions
    indptr, children, terminal = _python_lists(graph)
    value, remoteness = [0] * n, [0] * n
    loopy_kernel.run(
        indptr,
        children,
        terminal,
        value,
        remoteness,
        [0] * (n + 1),
        [0] * len(children),
        [0] * n,
        [0] * n,
        compiled=False,
    )
    return GameSolution(graph, array("b", value), array("i", remoteness), "loopy")


def _list(a: Any) -> list[int]:
    return a.tolist() if hasattr(a, "tolist") else list(a)


def _solve_compiled(graph: GameGraph, method: str) -> GameSolution:
    import numpy as np

    from perfectplay._util.memory import require

    n, m = graph.n_positions, graph.n_moves
    # value + remoteness + score and the search's stacks, and the loopy path's reverse graph
    # and queue.
    require(
        n * (1 + 4 + 8 * 4) + (n * 20 + m * 4 if method != "acyclic" else 0),
        "the retrograde solver's work arrays",
    )
    remoteness = np.zeros(n, np.int32)
    if method != "loopy":
        value = np.zeros(n, np.int8)
        ok = acyclic_kernel(
            graph.indptr,
            graph.children,
            graph.terminal,
            value,
            remoteness,
            np.full(n, 4 * (n + 1), np.int64),
            np.empty(n, np.int64),
            np.empty(n, np.int64),
            np.empty(n, np.int64),
        )
        if ok:
            return GameSolution(graph, value, remoteness, "acyclic")
        if method == "acyclic":
            raise ValueError("the game graph has a cycle")
    value = np.zeros(n, np.int8)
    loopy_kernel(
        graph.indptr,
        graph.children,
        graph.terminal,
        value,
        remoteness,
        np.zeros(n + 1, np.int64),
        np.empty(m, np.int32),
        np.empty(n, np.int64),
        np.empty(n, np.int32),
    )
    return GameSolution(graph, value, remoteness, "loopy")


__all__ = [
    "COMPILE_THRESHOLD",
    "LOOPY_COMPILE_THRESHOLD",
    "WARM_COMPILE_THRESHOLD",
    "solve_retrograde",
]
