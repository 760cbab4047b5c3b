"""General stochastic shortest path on chance graphs, by policy iteration.

This solver assumes nothing about the graph beyond the chance-graph semantics, so it is
the independent check of the fast special-purpose solvers (and the solver for graphs that
have no retry property, such as board games where a spin cannot be taken back), and the
solver of every objective label-setting cannot take (zero costs, maximising).

**Objectives.** Values are *oriented* first (``objective.orient * value``: a maximising
objective becomes the minimisation of its negation), solved as a minimisation, and turned
back at the end. The oriented costs must be ``>= 0`` (zero allowed) on every roll a
policy can cycle through (transient rolls may have any sign) and a play that never
ends must be worth the worst value (``objective.endless``): the conditions of
:data:`SOLVER` at the end of the module (:data:`~perfectplay.solvers.conditions.BOUNDED`,
:data:`PLAY_ENDS` for a probability), which :func:`~perfectplay.solvers.solve_chance`
checks before calling. Terminal nodes are worth their terminal values. Then three steps:

1. **Which nodes can finish at all.** A node has a finite value exactly when some policy
   reaches a terminal from it with probability one
   (:meth:`perfectplay.graphs.chance.ChanceGraph.safe_set`). Every other node gets
   ``endless``.
2. **A first proper policy**: walk back from the terminals breadth-first; each decision
   node picks a choice one step closer, and (with the retry rule) each roll keeps only
   outcomes closer to a terminal than the roll itself.
3. **Policy iteration** (Howard 1960): evaluate the policy exactly (up to rounding), then
   switch every decision (and every keep/reroll decision under the retry rule) that
   improves by more than a relative ``1e-12``, until nothing changes.

**Why every policy met is proper** (reaches a terminal with probability one), even with
zero costs. Let ``m`` be proper with values ``J`` and ``m'`` its strict improvement
(``T_m' J <= J``, strictly at the switched nodes only). Suppose ``m'`` had a closed class
``C`` of non-terminal nodes. Summing ``T_m' J <= J`` over the stationary distribution of
``m'`` on ``C`` gives ``sum of oriented costs <= 0``, so every cost in ``C`` is 0 and
every inequality on ``C`` is an equality: no node of ``C`` switched. Then ``m`` agrees
with ``m'`` on ``C`` and ``C`` was closed under ``m`` too, contradicting that ``m`` is
proper. A proper policy with no strict improvement satisfies ``J = T J``; with some optimal
policy ``m*`` proper (a play that never ends is worth the worst value),
``J <= T_m* J <= ... -> J_m*`` proves it optimal (Bertsekas and Tsitsiklis, *An analysis
of stochastic shortest path problems*, Math. Oper. Res. 1991).

**Evaluation, one strongly connected component at a time.** Under a fixed policy a roll's
value depends only on the rolls its kept outcomes go on with: the *policy graph*. Its
strongly connected components, found by Tarjan's algorithm, come out successors first, so
each component is evaluated once every roll it leads out to is known. A component of one
roll (the common case: races, most dice games) is one division, its rerolls and
self-loops folded into the denominator, so acyclic parts cost O(edges). Only a true cycle
(a chute back to the start, say) needs a linear solve, of the component alone, by the
cheapest of three methods (:func:`solve_component`): a sparse, subtraction-free LU in a
reverse Cuthill-McKee order (a chain or ring of any length, even one play almost never
leaves: at most ``O(m w**2)`` time for envelope width ``w``), a dense LU (small or wide
components: ``O(m**3)``), or Gauss-Seidel with a proven error bound (large wide
components that mix fast: ``O(edges)`` per sweep).
Each estimates its memory first; cycles have no size limit beyond memory and
``max_sweeps``.

Safe set, first policy, the components, the back-substitution, the sparse LU and
Gauss-Seidel run in compiled kernels (:mod:`perfectplay._util.jit`; small graphs run their
Python source); the dense solves are NumPy's LAPACK, and the improvement step is
vectorised NumPy.

**Negative oriented costs** (a reward collected once on a transient roll, under a
maximising objective) need nothing special: evaluation is a linear solve and improvement
a comparison, neither uses the sign; the properness argument above needs costs ``>= 0``
only inside the closed classes a policy could create (end components), which is what
the dispatcher checks.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> g = ChanceGraph.from_lists(          # no retry rule: a 5 forces a restart from node 0
...     goal=[False, True, False],
...     choices=[[0], [], [0]],
...     outcomes=[[(1, 1), (2, 1)]],
... )
>>> round(solve_ssp(g).value, 12)
2.0

References: policy iteration is Howard's (R. A. Howard, *Dynamic Programming and Markov
Processes*, MIT Press, 1960); its convergence to the optimum of a stochastic shortest path
problem, with improper policies valued infinite, is Bertsekas and Tsitsiklis, "An analysis
of stochastic shortest path problems", Mathematics of Operations Research 16(3), 1991.
Components are found by Tarjan's algorithm (R. E. Tarjan, "Depth-first search and linear
graph algorithms", SIAM Journal on Computing 1(2), 1972), which emits them successors
first. No archive entry needs this solver (the gallery's dice games have the retry
property); ``docs/models.md`` shows it on Chutes and Ladders.
"""

from __future__ import annotations

import heapq
from typing import Any, cast

import numpy as np

from perfectplay._util.jit import compile_for, helper, kernel
from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.errors import ResourceLimitError
from perfectplay.graphs import _csr
from perfectplay.graphs._csr import strong_components
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.conditions import BOUNDED, PROBABILITY_RANGE, ChanceSolver, Condition

__all__ = [
    "COMPILE_THRESHOLD",
    "DENSE_SIZE",
    "ENDLESS",
    "MAX_SWEEPS",
    "PLAY_ENDS",
    "SOLVER",
    "solve_component",
    "solve_ssp",
]

MAX_SWEEPS = 100_000
"""Default most Gauss-Seidel sweeps per evaluation of a cycle too wide for a direct
solve (``solve_ssp(max_sweeps=...)``, ``perfectplay solve --max-sweeps N``)."""

#: Components of at most this many rolls whose envelope is wide are solved by dense LU
#: (LAPACK's blocked LU of 2,000 rolls takes about a tenth of a second); larger wide ones
#: try Gauss-Seidel first.
DENSE_SIZE = 2000

# Components of at most this many rolls go to dense LU without looking for an order.
_SMALL = 64

# Floating-point operations a direct solve may take (a few seconds) before Gauss-Seidel
# is preferred, and how much slower the sparse kernel's scalar loops run than LAPACK.
_DIRECT_WORK = 4e9
_SKYLINE_SLOWER = 10.0
# Proven relative error below which an iterative solve is accepted (the agreement
# solve_ssp promises with exact values); it aims for _REL_TOL.
_ACCEPT_TOL = 1e-9

#: Graphs with at most this many nodes + edges run the kernels' Python source unless they
#: are loaded already (see :func:`perfectplay._util.jit.compile_for`). Lower than
#: solve_retry's threshold: policy iteration calls the kernels once per round.
COMPILE_THRESHOLD = 50_000

_REL_TOL = 1e-12
_MAX_ITERATIONS = 10_000


@kernel
def _first_policy(
    terminal: Any, outcome_ptr: Any, outcome_idx: Any, rin_ptr: Any, rin_c: Any, rch_ptr: Any,
    rch_x: Any, safe_d: Any, safe_c: Any, retry: Any,
) -> Any:  # fmt: skip
    """A proper policy on the safe nodes (step 2 of the module doc).

    Returns ``(best, accept)``. The safe set and the reverse adjacency come from
    :mod:`perfectplay.graphs._csr`. Arrays are made with np.empty and filled in loops, as
    in :mod:`perfectplay.solvers.retry` (fewer functions to compile).
    """
    nd = terminal.shape[0]
    nc = outcome_ptr.shape[0] - 1
    n_out = outcome_idx.shape[0]
    stack = np.empty(nd, np.int32)

    # Step 2: breadth-first ranks from the goals inside the safe set; each decision node
    # takes the roll that ranked it, each roll keeps (retry) only outcomes ranked lower.
    rank_d = np.empty(nd, np.int64)
    best = np.empty(nd, np.int32)
    head = 0
    tail = 0
    for x in range(nd):
        best[x] = -1
        rank_d[x] = -1
        if terminal[x]:
            rank_d[x] = 0
            stack[tail] = x
            tail += 1
    rank_c = np.empty(nc, np.int64)
    for c in range(nc):
        rank_c[c] = -1
    while head < tail:
        x = stack[head]
        head += 1
        for k in range(rin_ptr[x], rin_ptr[x + 1]):
            c = rin_c[k]
            if not safe_c[c] or rank_c[c] >= 0:
                continue
            rank_c[c] = rank_d[x] + 1
            for j in range(rch_ptr[c], rch_ptr[c + 1]):
                y = rch_x[j]
                if safe_d[y] and rank_d[y] < 0:
                    rank_d[y] = rank_c[c]
                    best[y] = c
                    stack[tail] = y
                    tail += 1
    accept = np.empty(n_out, np.bool_)
    for c in range(nc):
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            r = rank_d[outcome_idx[e]]
            accept[e] = not retry or (r >= 0 and r < rank_c[c])
    return best, accept


@kernel
def _policy_graph(
    terminal: Any, outcome_ptr: Any, outcome_idx: Any, best: Any, accept: Any, safe_c: Any
) -> Any:
    """CSR of the policy graph: an edge ``c -> best[x]`` for every kept non-terminal
    outcome ``x`` of a safe roll ``c`` (self-loops left out)."""
    nc = outcome_ptr.shape[0] - 1
    ptr = np.empty(nc + 1, np.int64)
    idx = np.empty(outcome_idx.shape[0], np.int32)
    n = 0
    ptr[0] = 0
    for c in range(nc):
        if safe_c[c]:
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                x = outcome_idx[e]
                if not accept[e] or terminal[x]:
                    continue
                b = best[x]
                if b >= 0 and b != c:
                    idx[n] = b
                    n += 1
        ptr[c + 1] = n
    return ptr, idx[:n]


def _components(
    terminal: np.ndarray,
    outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
    best: np.ndarray,
    accept: np.ndarray,
    safe_c: np.ndarray,
    compiled: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strongly connected components of the policy graph (:func:`_policy_graph`),
    successors first; see :func:`perfectplay.graphs._csr.strong_components`."""
    ptr, idx = _policy_graph.run(
        terminal, outcome_ptr, outcome_idx, best, accept, safe_c, compiled=compiled
    )
    return strong_components(ptr, idx, safe_c, compiled=compiled)


@kernel
def _back_substitute(
    k0: Any, comp: Any, pos: Any, order: Any, comp_ptr: Any, terminal: Any, tval: Any,
    outcome_ptr: Any, outcome_idx: Any, outcome_weight: Any, cost: Any, best: Any, accept: Any,
    cval: Any,
) -> Any:  # fmt: skip
    """Evaluate components ``k0, k0+1, ...`` of one roll each into ``cval``.

    Stops at the first component of several rolls and returns its index (its system
    comes from :func:`_component_system`); returns ``n_components`` when every component
    is done.
    """
    n_comp = comp_ptr.shape[0] - 1
    for k in range(k0, n_comp):
        lo = comp_ptr[k]
        m = comp_ptr[k + 1] - lo
        if m == 1:
            # v = (cost * W + sum of kept w * v(next)) / (kept weight not coming back), the
            # terminal outcomes' values among the v(next).
            c = order[lo]
            total = 0.0
            kept = 0.0
            acc = 0.0
            for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
                w = float(outcome_weight[e])
                total += w
                if not accept[e]:
                    continue  # a reroll: back to c
                x = outcome_idx[e]
                if terminal[x]:
                    kept += w
                    acc += w * tval[x]
                    continue
                b = best[x]
                if b == c:
                    continue  # goes on with c itself: the same as a reroll
                kept += w
                acc += w * cval[b]
            cval[c] = (cost[c] * total + acc) / kept if kept > 0.0 else np.inf
            continue
        return k
    return n_comp


@kernel
def _component_system(
    k: Any, comp: Any, pos: Any, order: Any, comp_ptr: Any, terminal: Any, tval: Any,
    outcome_ptr: Any, outcome_idx: Any, outcome_weight: Any, cost: Any, best: Any, accept: Any,
    cval: Any,
) -> Any:  # fmt: skip
    """The linear system of component ``k`` in its local numbering (``pos[c]`` for roll
    ``c``): ``diag[i] v_i - sum q v_j = rhs[i]`` with the off-diagonal ``q`` (transition
    probabilities inside the component, duplicates allowed) in CSR ``(ptr, col, q)``.

    ``diag`` is ``1 - p(back to the same roll)``, computed as the weight that does *not*
    come back over the total, so no cancellation; ``leak`` the probability of leaving the
    component (``diag - sum q``, also without a subtraction); ``rhs`` holds the roll's
    cost plus the values it leads out to (terminals and earlier components). Returns
    ``(diag, rhs, ptr, col, q, leak)``.
    """
    lo = comp_ptr[k]
    m = comp_ptr[k + 1] - lo
    n_e = 0
    for i in range(m):
        c = order[lo + i]
        n_e += outcome_ptr[c + 1] - outcome_ptr[c]
    diag = np.empty(m)
    leak = np.empty(m)
    rhs = np.empty(m)
    ptr = np.empty(m + 1, np.int64)
    col = np.empty(n_e, np.int32)
    q = np.empty(n_e)
    n = 0
    ptr[0] = 0
    for i in range(m):
        c = order[lo + i]
        total = 0.0
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            total += float(outcome_weight[e])
        away = 0.0
        gone = 0.0
        acc = cost[c]
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            w = float(outcome_weight[e])
            if not accept[e]:
                continue  # a reroll: back to c
            x = outcome_idx[e]
            if terminal[x]:
                away += w
                gone += w
                acc += w / total * tval[x]
                continue
            b = best[x]
            if b == c:
                continue
            away += w
            if comp[b] == k:
                col[n] = pos[b]
                q[n] = w / total
                n += 1
            else:
                gone += w
                acc += w / total * cval[b]
        diag[i] = away / total
        leak[i] = gone / total
        rhs[i] = acc
        ptr[i + 1] = n
    return diag, rhs, ptr, col[:n], q[:n], leak


@kernel
def _rcm(ptr: Any, idx: Any) -> Any:
    """Reverse Cuthill-McKee order of the undirected graph ``(ptr, idx)``: breadth-first
    from a pseudo-peripheral node (the far end of a first search from a node of least
    degree), neighbours by increasing degree, then reversed. Returns ``perm`` (new place
    -> node). Keeps the profile (the envelope that Gaussian elimination fills) small on
    long thin graphs: a chain or a ring gets a profile of one or two per row.
    """
    n = ptr.shape[0] - 1
    deg = np.empty(n, np.int64)
    for v in range(n):
        deg[v] = ptr[v + 1] - ptr[v]
    seen = np.empty(n, np.bool_)
    level = np.empty(n, np.int64)
    queue = np.empty(n, np.int64)
    perm = np.empty(n, np.int64)
    done = np.empty(n, np.bool_)
    for v in range(n):
        done[v] = False
    placed = 0
    while placed < n:
        # The unplaced node of least degree starts the next connected part.
        root = -1
        for v in range(n):
            if not done[v] and (root < 0 or deg[v] < deg[root]):
                root = v
        # One breadth-first search from it: its last level's least-degree node is far out.
        for v in range(n):
            seen[v] = done[v]
        head = 0
        tail = 1
        queue[0] = root
        seen[root] = True
        level[root] = 0
        while head < tail:
            v = queue[head]
            head += 1
            for e in range(ptr[v], ptr[v + 1]):
                w = idx[e]
                if not seen[w]:
                    seen[w] = True
                    level[w] = level[v] + 1
                    queue[tail] = w
                    tail += 1
        far = queue[tail - 1]
        for j in range(tail):
            v = queue[j]
            if level[v] == level[far] and deg[v] < deg[far]:
                far = v
        # Cuthill-McKee from there.
        start = placed
        perm[placed] = far
        done[far] = True
        placed += 1
        head = start
        while head < placed:
            v = perm[head]
            head += 1
            first = placed
            for e in range(ptr[v], ptr[v + 1]):
                w = idx[e]
                if not done[w]:
                    done[w] = True
                    perm[placed] = w
                    placed += 1
            if placed - first > 1:
                part = perm[first:placed].copy()
                keys = np.empty(placed - first, np.int64)
                for j in range(placed - first):
                    keys[j] = deg[part[j]]
                srt = np.argsort(keys, kind="mergesort")
                for j in range(placed - first):
                    perm[first + j] = part[srt[j]]
    out = np.empty(n, np.int64)
    for j in range(n):
        out[j] = perm[n - 1 - j]
    return out


def _order_and_profile(
    m: int, ptr: np.ndarray, col: np.ndarray, compiled: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reverse Cuthill-McKee order of the symmetrised pattern and its profile.

    Returns ``(perm, inv, first)``: ``perm[new] = old``, ``inv[old] = new`` and
    ``first[i]`` the first column of row ``i`` (new numbering) of the symmetrised pattern,
    which bounds the fill of Gaussian elimination without pivoting in that order: every
    entry of ``L`` (by rows) and ``U`` (by columns) lies within the envelope
    ``first[i] <= j < i`` (George and Liu, *Computer Solution of Large Sparse Positive
    Definite Systems*, 1981, ch. 4; the argument does not use symmetry of the values).
    """
    rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(ptr))
    cols = col.astype(np.int64)
    a = np.concatenate([rows, cols])
    b = np.concatenate([cols, rows])
    keep = a != b
    a, b = a[keep], b[keep]
    # Sorted and deduplicated by hand: numpy 2.4's np.unique without return_* arguments
    # takes a hash path about 100x slower than sorting on a million keys.
    key = np.sort(a * m + b)
    key = key[np.concatenate(([True], key[1:] != key[:-1]))] if key.size else key
    a, b = key // m, key % m
    sptr = np.zeros(m + 1, np.int64)
    np.cumsum(np.bincount(a, minlength=m), out=sptr[1:])
    perm = _rcm.run(sptr, b.astype(np.int64), compiled=compiled)
    inv = np.empty(m, np.int64)
    inv[perm] = np.arange(m)
    first = np.arange(m, dtype=np.int64)
    np.minimum.at(first, inv[a], inv[b])
    return perm, inv, first


@helper
def _scatter(
    j: Any,
    cols: Any,
    vals: Any,
    lo: Any,
    hi: Any,
    factor: Any,
    w: Any,
    mark: Any,
    touched: Any,
    nt: Any,
    heap: Any,
) -> Any:
    """Subtract ``factor * vals[e]`` from the work row ``w`` at ``cols[e]`` for ``e`` in
    ``lo..hi``, skipping the diagonal ``j``. An entry met for the first time in row ``j``
    is marked, zeroed and listed in ``touched``, and an entry left of the diagonal is
    pushed on ``heap`` (it still has to be eliminated). Returns the new count of
    ``touched`` entries. The one step of :func:`_gth_solve` that reads a row of ``Q``
    and each earlier row of ``U`` alike."""
    for e in range(lo, hi):
        i = cols[e]
        if i == j:
            continue
        if mark[i] != j:
            mark[i] = j
            w[i] = 0.0
            touched[nt] = i
            nt += 1
            if i < j:
                heapq.heappush(heap, i)
        w[i] -= factor * vals[e]
    return nt


@kernel
def _gth_solve(ptr: Any, col: Any, q: Any, leak: Any, rhs: Any, capacity: Any) -> Any:
    """Solve ``A x = rhs`` for the M-matrix ``A = diag - Q`` (``Q`` in CSR, rows summing
    with the diagonal to ``leak >= 0``) by sparse Gaussian elimination without pivoting
    and without a subtraction (the GTH form of elimination), in the given row order.

    Row by row (Doolittle, up-looking): row ``j`` is scattered into a work vector and the
    earlier rows ``k`` it meets are eliminated in increasing order (a heap), each adding
    ``-l_jk`` times row ``k`` of ``U``; the pivot is then the row's current leak plus the
    magnitudes of its off-diagonal entries, as Grassmann, Taksar and Heyman do for Markov
    chains (Operations Research 33(5), 1985). Every update adds numbers of one sign, so
    pivots and factors carry small *relative* errors however ill-conditioned the system,
    and with ``rhs >= 0`` so does every value (O'Cinneide, Numerische Mathematik 65,
    1993). Fill stays inside the envelope of the symmetrised pattern (George and Liu
    1981, ch. 4). Returns ``(x, stored)``; ``stored > capacity`` means the factor ``U``
    did not fit in ``capacity`` entries (call again with more).
    """
    n = leak.shape[0]
    piv = np.empty(n)
    s = leak.copy()
    y = rhs.copy()
    u_ptr = np.empty(n + 1, np.int64)
    u_col = np.empty(capacity, np.int64)
    u_val = np.empty(capacity)
    w = np.zeros(n)
    mark = np.empty(n, np.int64)
    for i in range(n):
        mark[i] = -1
    touched = np.empty(n, np.int64)
    heap = [0]
    heap.pop()
    stored = 0
    u_ptr[0] = 0
    for j in range(n):
        nt = _scatter(j, col, q, ptr[j], ptr[j + 1], 1.0, w, mark, touched, 0, heap)
        while len(heap) > 0:
            k = heapq.heappop(heap)
            lk = w[k] / piv[k]  # <= 0
            s[j] -= lk * s[k]
            y[j] -= lk * y[k]
            nt = _scatter(j, u_col, u_val, u_ptr[k], u_ptr[k + 1], lk, w, mark, touched, nt, heap)
        p = s[j]
        for t in range(nt):
            i = touched[t]
            if i > j:
                p -= w[i]
                if stored < capacity:
                    u_col[stored] = i
                    u_val[stored] = w[i]
                stored += 1
        piv[j] = p
        u_ptr[j + 1] = stored
        if stored > capacity:
            return y, stored
    x = np.empty(n)
    for j in range(n - 1, -1, -1):
        acc = y[j]
        for e in range(u_ptr[j], u_ptr[j + 1]):
            acc -= u_val[e] * x[u_col[e]]
        x[j] = acc / piv[j]
    return x, stored


@kernel
def _gauss_seidel(
    diag: Any, ptr: Any, col: Any, q: Any, rhs: Any, max_sweeps: Any, tol: Any
) -> Any:
    """Gauss-Seidel on ``diag v - Q v = rhs`` with a proven error bound.

    Sweeps ``v`` and, alongside, the expected number of steps ``t`` before play leaves
    the component (``diag t - Q t = diag``). The stop is sound: with the residual
    ``r = (rhs + Q v) / diag - v`` (rounding of its computation added) and any ``u`` with
    ``u >= 1 + (Q u) / diag`` (checked in floats, on ``u = 1.001 t + 1``), the error is
    ``|v* - v| <= max|r| * u`` componentwise, because ``(I - Q/diag)^-1`` is nonnegative
    and ``(I - Q/diag)^-1 1 <= u`` (Varga, *Matrix Iterative Analysis*, 1962, ch. 3).
    Returns ``(v, err, sweeps)``: ``err`` is the largest proven error relative to
    ``1 + |v_i|`` (``inf`` until a bound is certified); stops once ``err <= tol``, after
    ``max_sweeps`` sweeps, or when the bound stalls at the rounding floor.
    """
    m = diag.shape[0]
    v = np.empty(m)
    t = np.empty(m)
    u = np.empty(m)
    for i in range(m):
        v[i] = rhs[i] / diag[i]
        t[i] = 1.0
    err = np.inf
    best_err = np.inf
    stall = 0
    sweeps = 0
    eps = 2.220446049250313e-16
    while sweeps < max_sweeps:
        for i in range(m):
            sv = rhs[i]
            st = diag[i]
            for e in range(ptr[i], ptr[i + 1]):
                j = col[e]
                sv += q[e] * v[j]
                st += q[e] * t[j]
            v[i] = sv / diag[i]
            t[i] = st / diag[i]
        sweeps += 1
        if sweeps % 8 != 0 and sweeps < max_sweeps:
            continue
        for i in range(m):
            u[i] = 1.001 * t[i] + 1.0
        certified = True
        rmax = 0.0
        for i in range(m):
            su = 0.0
            sv = rhs[i]
            mag = abs(rhs[i])
            for e in range(ptr[i], ptr[i + 1]):
                j = col[e]
                su += q[e] * u[j]
                sv += q[e] * v[j]
                mag += q[e] * abs(v[j])
            deg = float(ptr[i + 1] - ptr[i] + 3)
            if (1.0 + su / diag[i]) * (1.0 + deg * eps) > u[i]:
                certified = False
                break
            r = abs(sv / diag[i] - v[i]) + deg * eps * (mag / diag[i] + abs(v[i]))
            if r > rmax:
                rmax = r
        if not certified:
            continue
        err = 0.0
        for i in range(m):
            rel = rmax * u[i] / (1.0 + abs(v[i]))
            if rel > err:
                err = rel
        if err <= tol:
            break
        if err < 0.5 * best_err:
            best_err = err
            stall = 0
        else:
            stall += 1
            if stall >= 50:
                break
    return v, err, sweeps


def solve_component(
    diag: np.ndarray,
    rhs: np.ndarray,
    ptr: np.ndarray,
    col: np.ndarray,
    q: np.ndarray,
    *,
    max_sweeps: int | None = None,
    compiled: bool | None = None,
    method: str = "auto",
    leak: np.ndarray | None = None,
) -> np.ndarray:
    """Values of one strongly connected component: ``diag v - Q v = rhs``.

    ``Q`` (nonnegative, in CSR ``(ptr, col, q)``, duplicates summed) holds the
    probabilities of moving between the component's rolls, ``diag`` the probability of
    not coming straight back; under a proper policy ``diag - Q`` is a nonsingular
    M-matrix. The cheapest of three methods runs, each after a memory estimate
    (:func:`perfectplay._util.memory.require`):

    * **sparse LU** (:func:`_gth_solve`, subtraction-free, so accurate even when the
      cycle is all but closed) in reverse Cuthill-McKee order when that order's envelope
      is narrow (chains, rings, boards, a start every roll can go back to: at most
      ``O(m w**2)`` time for envelope width ``w``, and ``O(fill)`` memory);
    * **dense LU** (LAPACK) for other components of at most :data:`DENSE_SIZE` rolls
      (``O(m**3)`` time, ``O(m**2)`` memory);
    * for larger wide ones **Gauss-Seidel** with a proven error bound
      (:func:`_gauss_seidel`; ``O(nnz)`` per sweep), which converges fast where play
      soon leaves the cycle. It gets at most a quarter of a dense LU's work when a dense
      LU is affordable (then the fallback), else up to ``max_sweeps`` sweeps (default
      :data:`MAX_SWEEPS`); if its proven relative error is still above ``1e-9`` and no
      dense LU is affordable, it raises :class:`~perfectplay.errors.ResourceLimitError`
      naming the accuracy reached.

    ``compiled``: as in :func:`solve_ssp` (``None``: decide by the work). ``method``:
    ``"auto"`` (the above), or force ``"sparse"``, ``"dense"`` or ``"gauss-seidel"``
    (comparisons and tests; memory estimates still apply, and a forced Gauss-Seidel
    raises if it proves less than ``1e-9``).

    >>> import numpy as np
    >>> ring = np.array([0, 1, 2, 3]), np.array([1, 2, 0], np.int32), np.full(3, 0.5)
    >>> solve_component(np.ones(3), np.ones(3), *ring, compiled=False).round(12).tolist()
    [2.0, 2.0, 2.0]
    """
    if method not in ("auto", "sparse", "dense", "gauss-seidel"):
        raise ValueError(f"unknown method {method!r}")
    m = diag.shape[0]
    if max_sweeps is None:
        max_sweeps = MAX_SWEEPS
    dense_work = m**3 / 3
    nnz = col.shape[0]
    if method == "sparse" or (method == "auto" and m > _SMALL):
        fast = compiled if compiled is not None else compile_for(m + nnz, COMPILE_THRESHOLD, _rcm)
        perm, inv, first = _order_and_profile(m, ptr, col, fast)
        width = np.arange(m) - first
        env = int(width.sum())
        # Entry (i, j) of the envelope costs a dot product of at most width[i] terms, so
        # row j costs at most the widths of rows first[j]..j-1 summed: a bound on the
        # sparse elimination's work too (its fill lies inside the envelope). Tighter than
        # sum(width**2) where a few wide rows (a start every roll can go back to) sit
        # among narrow ones.
        cum = np.concatenate([[0.0], np.cumsum(width, dtype=np.float64)])
        sky_work = 2.0 * float((cum[:-1] - cum[first]).sum()) + env
    else:
        env, sky_work = m * m, dense_work * _SKYLINE_SLOWER
    rows = np.repeat(np.arange(m), np.diff(ptr))
    if method == "sparse" or (
        method == "auto" and sky_work * _SKYLINE_SLOWER < dense_work and sky_work <= _DIRECT_WORK
    ):
        if leak is None:
            leak = np.maximum(diag - np.bincount(rows, weights=q, minlength=m), 0.0)
        # The rows in the new order, as CSR.
        i_new, j_new = inv[rows], inv[col]
        order_e = np.argsort(i_new, kind="stable")
        p_ptr = np.zeros(m + 1, np.int64)
        np.cumsum(np.bincount(i_new, minlength=m), out=p_ptr[1:])
        p_col = j_new[order_e]
        p_q = q[order_e]
        fast = (
            compiled
            if compiled is not None
            else compile_for(int(sky_work) + env, COMPILE_THRESHOLD, _gth_solve)
        )
        # U's entries: at most the envelope; start from a few times the pattern and
        # double (each time after a memory estimate) while it does not fit.
        capacity = min(env + 1, 4 * nnz + m)
        while True:
            require(capacity * 16 + m * 64, f"a cycle through {m:,} rolls (sparse LU, "
                    f"{capacity:,} entries)")  # fmt: skip
            x, stored = _gth_solve.run(
                p_ptr, p_col, p_q, np.ascontiguousarray(leak[perm]),
                np.ascontiguousarray(rhs[perm]), int(capacity), compiled=fast,
            )  # fmt: skip
            if stored <= capacity:
                break
            capacity = min(env + 1, 2 * capacity) if capacity < env + 1 else 2 * capacity
        out = np.empty(m)
        out[perm] = x
        return out
    dense_ok = method == "auto" and dense_work <= _DIRECT_WORK * _SKYLINE_SLOWER
    if method == "gauss-seidel" or (method == "auto" and m > DENSE_SIZE):
        # Wide and large: Gauss-Seidel first (fast where play leaves the cycle soon), with
        # at most a quarter of the dense solve's work when that is the fallback.
        sweeps = int(max_sweeps)
        if dense_ok:
            sweeps = min(sweeps, max(8, int(dense_work / (4 * (m + nnz)))))
        require(m * 40 + nnz * 12, f"a cycle through {m:,} rolls (Gauss-Seidel)")
        fast = compiled if compiled is not None else compile_for(m + nnz, 1000, _gauss_seidel)
        v, err, done = _gauss_seidel.run(
            diag, ptr.astype(np.int64), col.astype(np.int64), q, rhs, sweeps, _REL_TOL,
            compiled=fast,
        )  # fmt: skip
        if err <= _ACCEPT_TOL:
            return cast(np.ndarray, v)
        if not dense_ok:
            reached = "no proven bound" if err == np.inf else f"a proven error of {err:.1e}"
            raise ResourceLimitError(
                f"solve_ssp: a cycle through {m:,} rolls is too wide for a direct solve and "
                f"Gauss-Seidel reached {reached} in {done:,} sweeps (needs 1e-09); raise "
                "max_sweeps (perfectplay solve --max-sweeps N)"
            )
    # The matrix, LAPACK's copy of it and the pivots.
    require(m * m * 16 + m * 64, f"a cycle through {m:,} rolls (dense LU)")
    a = np.zeros((m, m))
    a[np.arange(m), np.arange(m)] = diag
    np.subtract.at(a, (rows, col), q)
    return np.linalg.solve(a, rhs)


def _evaluate(
    graph: ChanceGraph,
    arrays: tuple[np.ndarray, ...],
    safe_c: np.ndarray,
    best: np.ndarray,
    accept: np.ndarray,
    compiled: bool,
    max_sweeps: int,
    requested: bool | None = None,
) -> np.ndarray:
    """Oriented values of the rolls under a proper policy (``inf`` outside the safe set)."""
    terminal, outcome_ptr, outcome_idx, outcome_weight, tval, cost = arrays
    comp, pos, order, comp_ptr = _components(
        terminal, outcome_ptr, outcome_idx, best, accept, safe_c, compiled
    )
    cval = np.full(graph.n_chance, np.inf)
    n_comp = comp_ptr.shape[0] - 1
    k = 0
    while k < n_comp:
        k = _back_substitute.run(
            k, comp, pos, order, comp_ptr, terminal, tval, outcome_ptr, outcome_idx,
            outcome_weight, cost, best, accept, cval, compiled=compiled,
        )  # fmt: skip
        if k < n_comp:
            diag, rhs, ptr, col, q, leak = _component_system.run(
                k, comp, pos, order, comp_ptr, terminal, tval, outcome_ptr, outcome_idx,
                outcome_weight, cost, best, accept, cval, compiled=compiled,
            )  # fmt: skip
            cval[order[comp_ptr[k] : comp_ptr[k + 1]]] = solve_component(
                diag, rhs, ptr, col, q, leak=leak, max_sweeps=max_sweeps, compiled=requested
            )
            k += 1
    return cval


def _best_choices(
    graph: ChanceGraph, cval: np.ndarray, owner: np.ndarray, starts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """For every decision node: the smallest value among its choices, and the first
    choice (position in ``choice_idx``) that has it (-1 for nodes without choices)."""
    nd = graph.n_decision
    vals = cval[graph.choice_idx]
    low = np.full(nd, np.inf)
    first = np.full(nd, -1, np.int64)
    if vals.size:
        has = np.diff(graph.choice_ptr) > 0
        low[has] = np.minimum.reduceat(vals, starts)
        at = np.flatnonzero(vals == low[owner])
        # ``owner`` is sorted (choices are stored node by node), so each node's first
        # best choice is where its run starts (np.unique would sort it again).
        nodes = owner[at]
        opens = np.concatenate((nodes[:1] >= 0, nodes[1:] != nodes[:-1]))
        first[nodes[opens]] = at[opens]
    return low, first


def solve_ssp(
    graph: ChanceGraph,
    *,
    compiled: bool | None = None,
    progress: bool = True,
    max_sweeps: int | None = None,
) -> ChanceSolution:
    """Optimal values and policy of any chance graph, by policy iteration.

    Honours ``graph.retry`` (after an outcome the player may also roll the same chance
    node again). Nodes with no proper policy get ``inf``. Floats; agreement with exact
    values is to about ``1e-9`` relative on well-conditioned graphs.

    ``compiled``: run the numba-compiled kernels (``True``), their Python source
    (``False``, same results), or decide by size (``None``, see :data:`COMPILE_THRESHOLD`).
    ``progress``: report the rounds on stderr when they take more than a second.
    ``max_sweeps``: most Gauss-Seidel sweeps for a cycle too wide for a direct solve
    (default :data:`MAX_SWEEPS`; see :func:`solve_component`). Cycles have no size limit
    beyond memory.

    Raises:
        ResourceLimitError: the working arrays, or the factors of a cycle's direct solve,
            would not fit in memory, or Gauss-Seidel did not prove a relative accuracy of
            ``1e-9`` on a wide cycle within ``max_sweeps`` sweeps.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> g = ChanceGraph.from_lists(   # the retry rule lets the player reroll a 5
    ...     goal=[False, True, False],
    ...     choices=[[0], [], []],
    ...     outcomes=[[(1, 1), (2, 1)]],
    ...     retry=True,
    ... )
    >>> round(solve_ssp(g).value, 12), solve_ssp(g).accept.tolist()
    (2.0, [True, False])
    """
    nd, nc = graph.n_decision, graph.n_chance
    n_out, n_ch = graph.outcome_idx.shape[0], graph.choice_idx.shape[0]
    # Kernel working arrays (reverse adjacency, Tarjan's stacks) plus the NumPy
    # temporaries of the improvement step.
    require(
        nd * 90 + nc * 100 + n_out * 30 + n_ch * 40,
        f"policy iteration on {nd:,} decision and {nc:,} chance nodes",
    )
    if max_sweeps is None:
        max_sweeps = MAX_SWEEPS
    requested = compiled
    if compiled is None:
        compiled = compile_for(
            nd + nc + n_out + n_ch, COMPILE_THRESHOLD, _first_policy, _back_substitute,
            _policy_graph, _component_system,
            _csr._transpose, _csr._safe_set, _csr._tarjan,
        )  # fmt: skip
    terminal, _, _, outcome_ptr, outcome_idx, outcome_weight, _ = graph.arrays()
    orient = graph.objective.orient
    tval, cost = graph.float_values(oriented=True)
    # Oriented, every objective is a minimisation; terminal values only matter at terminals.
    tval = np.where(terminal, tval, 0.0)
    arrays = (terminal, outcome_ptr, outcome_idx, outcome_weight, tval, cost)
    # The reverse adjacency without edge weights (neither step needs them), not kept.
    rin_ptr, rin_c, _ = _csr.transpose(outcome_ptr, outcome_idx, nd, edges=False, compiled=compiled)
    rch_ptr, rch_x, _ = _csr.transpose(
        graph.choice_ptr, graph.choice_idx, nc, edges=False, compiled=compiled
    )
    safe_d, safe_c = graph.safe_set(compiled=compiled, reverse=(rin_ptr, rin_c, rch_ptr, rch_x))
    best, accept = _first_policy.run(
        terminal, outcome_ptr, outcome_idx, rin_ptr, rin_c, rch_ptr, rch_x, safe_d, safe_c,
        bool(graph.retry), compiled=compiled,
    )  # fmt: skip
    live = safe_d & ~terminal
    live_ids = np.flatnonzero(live)
    owner = np.repeat(np.arange(nd), np.diff(graph.choice_ptr))
    starts = graph.choice_ptr[:-1][np.diff(graph.choice_ptr) > 0]
    out_owner = np.repeat(np.arange(nc), np.diff(graph.outcome_ptr)) if graph.retry else None
    meter = Progress("solve_ssp: policy iteration") if progress else None
    for rounds in range(1, _MAX_ITERATIONS + 1):
        cval = _evaluate(graph, arrays, safe_c, best, accept, compiled, max_sweeps, requested)
        dval = np.where(terminal, tval, np.inf)
        dval[live_ids] = cval[best[live_ids]]
        low, first = _best_choices(graph, cval, owner, starts)
        better = live & (low < dval - _REL_TOL * (1.0 + np.abs(np.where(live, dval, 0.0))))
        changed = bool(better.any())
        if changed:
            best[better] = graph.choice_idx[first[better]]
        if out_owner is not None:
            vx = dval[graph.outcome_idx]
            vc = cval[out_owner]
            tol = _REL_TOL * (1.0 + np.abs(np.where(np.isfinite(vc), vc, 0.0)))
            better_keep = (vx < vc - tol) & ~accept
            better_reroll = (vx > vc + tol) & accept
            if better_keep.any() or better_reroll.any():
                accept = (accept | better_keep) & ~better_reroll
                changed = True
        if not changed:
            break
        if meter is not None:
            meter.update(rounds, "rounds")
    else:  # pragma: no cover - policy iteration always ends on finite graphs
        raise RuntimeError("policy iteration did not converge")
    if meter is not None:
        meter.done(f"{rounds} rounds")
    best = np.where(live, best, -1).astype(np.int32)
    if orient != 1:
        dval, cval = dval * orient, cval * orient
    if graph.objective.endless != orient * np.inf:
        # A probability: a play that never ends is worth 0 (solve_chance only sends graphs
        # where every node can end, so this only matters for direct callers).
        dval[~np.isfinite(dval)] = graph.objective.endless
        cval[~np.isfinite(cval)] = graph.objective.endless
    return ChanceSolution(
        graph=graph, decision_value=dval, chance_value=cval, best_choice=best, accept=accept,
        method="policy-iteration",
    )  # fmt: skip


#: Why a probability whose plays may go on for ever is not policy iteration's to answer.
ENDLESS = (
    "some plays cannot end with probability one (endless plays), which a probability "
    "objective supports only without the retry rule"
)


def _play_ends(graph: ChanceGraph) -> str | None:
    # A probability counts an endless play as 0, which is not the worst value when
    # minimising (the player would stay in an end component) nor, when maximising, as bad
    # as policy iteration's proof needs unless every node can end.
    obj = graph.objective
    if obj.measure != "probability":
        return None
    if obj.sense == "min":
        return ENDLESS if graph.end_components()[2] else None
    safe_d, _ = graph.safe_set()
    return None if bool(safe_d.all()) else ENDLESS


#: A probability objective: every play can end (no end component when minimising, every
#: node in the safe set when maximising), so a play that never ends is the worst value.
PLAY_ENDS = Condition("plays that can end, for a probability", _play_ends)
#: Policy iteration as :func:`~perfectplay.solvers.solve_chance` sees it: the general
#: solver, whose failing conditions explain that no solver applies.
SOLVER = ChanceSolver(
    "policy-iteration",
    "policy iteration",
    (BOUNDED, PROBABILITY_RANGE, PLAY_ENDS),
    solve_ssp,
    options=("progress", "max_sweeps"),
    general=True,
)
