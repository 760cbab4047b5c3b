"""Exact values of an absorbing Markov chain with rewards, in integers.

:func:`chain_values` solves ``x[c] = (constant[c] + sum(weight[e] * x[idx[e]])) / total[c]``
exactly: nodes off cycles in a topological order (Kahn 1962), the rest one strongly
connected component at a time (Tarjan 1972), each by sparse fraction-free Gaussian
elimination in a reverse Cuthill-McKee order or a depth-first post-order, whichever has the
smaller envelope (fill confined to it; a chain or ring of ``m`` nodes costs ``O(m)`` row
operations on integers of up to ``O(m)`` bits). There is no size limit: a component is
refused with :class:`~perfectplay.errors.ResourceLimitError` only when the estimate of its
fill (entries times their bits) does not fit in memory.

Two callers: the exact verifier of one-player policies
(:func:`perfectplay.analysis.exact.exact_solution`) and the exact values of a strategy
pair of a two-player dice game (:func:`perfectplay.solvers.stochastic.exact_stochastic`).
It is a solver's building block, so it lives here, below both.

>>> import numpy as np
>>> i64 = lambda *v: np.array(v, np.int64)
>>> chain_values([1, 0], [2, 1], i64(0, 1, 1), i64(1), i64(1))   # x0 = (1 + x1) / 2, x1 = 0
([1, 0], [2, 1])
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from perfectplay._util.jit import compile_for
from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.graphs._csr import strong_components, topological_order

__all__ = ["chain_values"]


def _evaluate_acyclic(
    order: Any,
    cost_w: Any,
    kept_w: Any,
    dead: Any,
    term_ptr: Any,
    term_idx: Any,
    term_w: Any,
    num: Any,
    den: Any,
    reduce: bool = True,
) -> None:
    """Rational values in dependency order; ``den == 0`` marks infinity.

    Each value is ``(cost * W + sum_b n_b * num_b / den_b) / K``. The sum is kept over a
    running common denominator, so a term costs one gcd instead of a Fraction's several,
    and none when one denominator divides the other (the usual case where many values
    share a component's denominator). ``reduce=False`` only cancels the factors of ``K``
    (a gcd with a small number) instead of bringing each value to lowest terms: a gcd of
    two numbers of ``b`` bits costs ``O(b^2)``, and on long games (Pig to 100: tens of
    thousands of bits) those gcds would be nearly all the work.
    """
    gcd = math.gcd
    for c in order:
        if dead[c] or kept_w[c] == 0:
            continue  # den stays 0: infinite
        lo, hi = term_ptr[c], term_ptr[c + 1]
        big_n, big_d = 0, 1
        infinite = False
        for t in range(lo, hi):
            b = term_idx[t]
            db = den[b]
            if db == 0:
                infinite = True
                break
            nb = term_w[t] * num[b]
            if db == big_d:
                big_n += nb
            elif big_d % db == 0:
                big_n += nb * (big_d // db)
            elif db % big_d == 0:
                big_n = big_n * (db // big_d) + nb
                big_d = db
            else:
                g = gcd(big_d, db)
                f = db // g
                big_n = big_n * f + nb * (big_d // g)
                big_d *= f
        if infinite:
            continue
        k = kept_w[c]
        n = cost_w[c] * big_d + big_n
        if reduce:
            d = big_d * k
            g = gcd(n, d)
            num[c], den[c] = n // g, d // g
            continue
        g = gcd(n, k) if k != 1 else 1  # (a gcd with 1 still reads all of n)
        num[c] = n // g if g != 1 else n
        # The same int object as a successor's denominator where K cancels: long
        # denominators are shared, not copied, between the values that have them.
        den[c] = big_d if g == k else big_d * (k // g)


def _dfs_postorder(m: int, ptr: list[int], col: list[int]) -> np.ndarray:
    """Depth-first post-order of the pattern ``i -> col[ptr[i]:ptr[i+1]]`` from node
    ``m - 1`` and then from every node not yet seen (``perm[new] = old``).

    Eliminated in this order, a node's successors along tree and forward edges are gone
    before it, so fill reaches only the targets of back edges: on a chain of positions
    that all fall back to one or two entry positions (Pig's busts) the envelope is a few
    entries per row, where a breadth-first order spans the whole component.
    """
    seen = [False] * m
    out: list[int] = []
    for root in [m - 1, *range(m)]:
        if seen[root]:
            continue
        seen[root] = True
        stack = [(root, ptr[root])]
        while stack:
            v, e = stack[-1]
            if e < ptr[v + 1]:
                stack[-1] = (v, e + 1)
                t = col[e]
                if not seen[t]:
                    seen[t] = True
                    stack.append((t, ptr[t]))
                continue
            stack.pop()
            out.append(v)
    return np.array(out, np.int64)


def _elimination_order(m: int, pr: list[int], pc: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(perm, first)``: reverse Cuthill-McKee, or a depth-first post-order (see
    :func:`_dfs_postorder`) where its envelope of the symmetrised pattern is less than half
    (or, on a small component, at most about twice the entries); ``first[i]`` is the first
    column of row ``i`` (new numbering), which bounds the fill."""
    from perfectplay.solvers.policy_iteration import _order_and_profile

    ptr = np.array(pr, np.int64)
    col = np.array(pc, np.int64)
    post = _dfs_postorder(m, pr, pc)
    inv = np.empty(m, np.int64)
    inv[post] = np.arange(m)
    rows = np.repeat(np.arange(m, dtype=np.int64), np.diff(ptr))
    a, b = inv[rows], inv[col]
    first_post = np.arange(m, dtype=np.int64)
    np.minimum.at(first_post, a, b)
    np.minimum.at(first_post, b, a)
    envelope = int((np.arange(m) - first_post).sum())
    if m <= 300 and envelope <= 2 * len(pc) + m:
        return post, first_post  # small and at most about the entries again: good enough
    perm, _, first = _order_and_profile(m, ptr, col, compiled=m > 2000)
    # On a long ring the two envelopes are alike, but reverse Cuthill-McKee eliminates from
    # both ends, so its integers grow half as long (three times less work on 5,000 rolls).
    if 2 * envelope < int((np.arange(m) - first).sum()):
        return post, first_post
    return perm, first


def _lcm(values: set[int]) -> int:
    """Least common multiple, longest first: a denominator that divides the running one
    (common among the values of one game's later positions) costs a division, not a gcd."""
    out = 1
    for d in sorted(values, key=int.bit_length, reverse=True):
        if out % d:
            out *= d // math.gcd(out, d)
    return out


def _solve_cycle(
    comp: Any,
    cost_w: Any,
    kept_w: Any,
    dead: Any,
    term_ptr: Any,
    term_idx: Any,
    term_w: Any,
    num: Any,
    den: Any,
    unit: str = "nodes",
    reduce: bool = True,
) -> None:
    """Exact sparse Gaussian elimination over one strongly connected component.

    Inside a component every node reaches every other with positive probability, so one
    infinite node (a dead end kept, an infinite successor, no way out at all) makes all of
    them infinite; their ``den`` then stays 0 and the caller judges them.

    Each node's equation ``K_c x_c - sum_b n_b x_b = cost_c + (values outside)`` keeps
    its small integer coefficients; the right-hand sides are brought to one common
    denominator ``D`` (the values outside may carry long denominators, which would
    otherwise multiply every coefficient of their row). Nodes are eliminated in reverse
    Cuthill-McKee order or a depth-first post-order of the symmetrised pattern, whichever
    envelope is smaller (the fill stays inside it), by integer row operations
    ``row_i := a_kk row_i - a_ik row_k`` (no fractions, no pivoting: for a proper chain,
    ``|n_b|`` summing to at most ``K_c`` with a way out, every leading principal minor is
    positive, whatever the signs of the ``n_b``, since the spectral radius of a real
    matrix is at most that of its absolute value), each row divided by the gcd of its
    entries; then back substitution over common denominators. Time and memory: about ``E``
    integer operations and entries for an envelope of ``E`` entries, on coefficients whose
    size grows at most linearly with the number of nodes eliminated before them
    (Hadamard's bound on the minors they are); estimated before anything is allocated.
    """
    m = len(comp)
    local = {c: i for i, c in enumerate(comp)}
    gcd = math.gcd
    rows: list[dict[int, int]] = []
    outside: list[list[tuple[int, int]]] = []
    pr: list[int] = [0]
    pc: list[int] = []
    for c in comp:
        if dead[c] or kept_w[c] == 0:
            return
        inner: dict[int, int] = {local[c]: kept_w[c]}
        terms = []
        for t in range(term_ptr[c], term_ptr[c + 1]):
            b = term_idx[t]
            j = local.get(b)
            if j is not None:
                inner[j] = inner.get(j, 0) - term_w[t]
            elif den[b] == 0:
                return
            else:
                terms.append((b, term_w[t]))
        rows.append(inner)
        outside.append(terms)
        pc.extend(j for j in inner if j != len(pr) - 1)
        pr.append(len(pc))
    # One common denominator for every right-hand side, and each value outside scaled to
    # it once (a component meets few distinct values outside, each possibly long).
    scaled = {b: 0 for terms in outside for b, _ in terms}
    common = _lcm({den[b] for b in scaled})
    for b in scaled:
        scaled[b] = num[b] * (common // den[b])
    rhs = [
        cost_w[c] * common + sum(w * scaled[b] for b, w in terms)
        for c, terms in zip(comp, outside, strict=True)
    ]
    perm, first = _elimination_order(m, pr, pc)
    inv = np.empty(m, np.int64)
    inv[perm] = np.arange(m)
    width = np.arange(m) - first
    bits = max(1, max((abs(a).bit_length() for r in rows for a in r.values()), default=1))
    rbits = max(1, max((abs(r).bit_length() for r in rhs), default=1)) + common.bit_length()
    # Envelope entries of L and U, each an int of about (place in the order) * bits bits,
    # and a right-hand side per row as long as D and the minors together.
    need = int(2 * float(np.dot(width + 1, np.arange(m) * (bits / 8) + 64)))
    need += int(m * (2 * rbits / 8 + m * bits / 8 + 64))
    require(need, f"exact elimination of a cycle through {m:,} {unit} ({int(width.sum()):,} fill)")
    inv_l = inv.tolist()
    # rows_with[j]: the rows not yet eliminated that have an entry in column j.
    rows_with: list[set[int]] = [set() for _ in range(m)]
    for i, r in enumerate(rows):
        for j in r:
            if j != i:
                rows_with[j].add(i)
    what = f"exact elimination of a cycle through {m:,} {unit}"
    meter = Progress(what) if m > 2000 else None
    for step, k in enumerate(perm.tolist()):
        if meter is not None and step % 512 == 0:
            meter.update(step, unit, total=m)
        rk = rows[k]
        akk = rk.get(k, 0)
        if akk == 0:
            return  # singular: the component has no way out, so the policy never ends
        bk = rhs[k]
        for i in rows_with[k]:
            if i == k or inv_l[i] < inv_l[k]:
                continue  # already eliminated: keeps its entry for back substitution
            ri = rows[i]
            aik = ri.pop(k, 0)
            if not aik:
                continue  # the entry cancelled earlier
            new = {j: akk * a for j, a in ri.items()}
            for j, akj in rk.items():
                if j == k:
                    continue
                if j not in new:
                    rows_with[j].add(i)
                    new[j] = -aik * akj
                    continue
                a = new[j] - aik * akj
                if a:
                    new[j] = a
                else:
                    del new[j]
            r_i = rhs[i] * akk - aik * bk
            # Smallest first: once the running gcd is 1 the big entries cost little.
            g = gcd(*sorted(new.values(), key=abs), r_i)
            if g > 1:
                new = {j: a // g for j, a in new.items()}
                r_i //= g
            rows[i] = new
            rhs[i] = r_i
    if meter is not None:
        meter.done()
    # Back substitution, last eliminated first: each row's other entries are later nodes.
    # In integers over a common denominator (often one and the same for every node of the
    # component), reduced once per value: Fraction arithmetic would take several gcds of
    # numbers as long as the component per operation.
    vn: list[int] = [0] * m
    vd: list[int] = [1] * m
    for k in reversed(perm.tolist()):
        rk = rows[k]
        n_acc, d_acc = rhs[k], 1
        for j, a in rk.items():
            if j == k:
                continue
            dj = vd[j]
            if dj == d_acc:
                n_acc -= a * vn[j]
            elif d_acc == 1:
                n_acc, d_acc = n_acc * dj - a * vn[j], dj
            else:
                n_acc, d_acc = n_acc * dj - a * vn[j] * d_acc, d_acc * dj
        d_acc *= rk[k]
        if d_acc < 0:
            n_acc, d_acc = -n_acc, -d_acc
        g = gcd(n_acc, d_acc) if d_acc != 1 else 1
        vn[k], vd[k] = (n_acc // g, d_acc // g) if g != 1 else (n_acc, d_acc)
    # Non-singular: some node of the (strongly connected) component leaves it with positive
    # probability, so the chain is proper there and the solution is its value.
    if not reduce:
        # One denominator for the whole component (the minors' lcm is small): later sums
        # of its values then need no gcd at all (see _evaluate_acyclic).
        q = _lcm(set(vd))
        shared = q * common
        for c, n_c, d_c in zip(comp, vn, vd, strict=True):
            num[c], den[c] = n_c * (q // d_c), shared
        return
    for c, n_c, d_c in zip(comp, vn, vd, strict=True):
        if common != 1:
            d_c *= common
            g = gcd(n_c, common)
            if g != 1:
                n_c, d_c = n_c // g, d_c // g
        num[c], den[c] = n_c, d_c


def chain_values(
    constant: list[int],
    total: list[int],
    ptr: np.ndarray,
    idx: np.ndarray,
    weight: np.ndarray,
    *,
    dead: list[bool] | None = None,
    label: str = "exact evaluation",
    unit: str = "nodes",
    reduce: bool = True,
) -> tuple[list[int], list[int]]:
    """Exact solution of ``x[c] = (constant[c] + sum(weight[e] * x[idx[e]])) / total[c]``
    over ``e`` in ``ptr[c]:ptr[c + 1]``, for every node ``c``: the values of an absorbing
    Markov chain with rewards, in integers (``constant`` Python ints of any size, the
    rest ``int64``; weights may be negative, as a two-player game's ``1 - x`` makes them).

    Returns ``(num, den)``: each value in lowest terms as Python ints (with
    ``reduce=False`` not necessarily: only cheap common factors are cancelled, and the
    values of one cycle share a denominator), ``den`` 0 where it is infinite
    (``dead[c]``, ``total[c] == 0``, an infinite successor, or a cycle with no way out).
    Nodes off cycles are evaluated in a topological order of ``ptr``/``idx`` (Kahn
    1962), the rest one strongly connected component at a time (Tarjan 1972), successors
    first, each by sparse fraction-free Gaussian elimination (see the module docstring).
    Exact for a *proper* chain: ``sum(|weight|)`` over a node's edges at most
    ``total[c]``, and every cycle component left with positive probability.

    >>> import numpy as np
    >>> i64 = lambda *v: np.array(v, np.int64)
    >>> # x0 = (1 + x1) / 2, x1 = (1 - x0) / 2 (a pass: 1 - x0), x2 = 5 / 1
    >>> chain_values([1, 1, 5], [2, 2, 1], i64(0, 1, 2, 2), i64(1, 0), i64(1, -1))
    ([3, 1, 5], [5, 5, 1])
    """
    n = len(total)
    term_ptr = np.ascontiguousarray(ptr, np.int64)
    term_idx = np.ascontiguousarray(idx, np.int32)
    dead_l = [False] * n if dead is None else list(dead)
    kept_l = [int(k) for k in total]
    tptr = term_ptr.tolist()
    tidx = term_idx.tolist()
    tw = np.asarray(weight).tolist()
    num = [0] * n
    den = [0] * n
    compiled = compile_for(n, 5000)
    order, n_order = topological_order(term_ptr, term_idx, compiled=compiled)
    order = order[:n_order]
    order_l = order.tolist()
    progress = Progress(label)
    chunk = 8192  # report between chunks; the loop itself stays free of bookkeeping
    for lo in range(0, len(order_l), chunk):
        part = order_l[lo : lo + chunk]
        if lo:  # the next values are about as long as the last ones (long games grow)
            last = order_l[lo - 1]
            require(len(part) * (2 * abs(den[last]).bit_length() // 8 + 120), label)
        _evaluate_acyclic(part, constant, kept_l, dead_l, tptr, tidx, tw, num, den, reduce)
        progress.update(lo + len(part), unit, total=n)
    if order.shape[0] < n:
        done = np.zeros(n, bool)
        done[order] = True
        _, _, corder, cptr = strong_components(term_ptr, term_idx, ~done, compiled=compiled)
        corder_l, cptr_l = corder.tolist(), cptr.tolist()
        for k in range(len(cptr_l) - 1):
            comp = corder_l[cptr_l[k] : cptr_l[k + 1]]
            if len(comp) == 1 and all(
                tidx[t] != comp[0] for t in range(tptr[comp[0]], tptr[comp[0] + 1])
            ):
                _evaluate_acyclic(comp, constant, kept_l, dead_l, tptr, tidx, tw, num, den, reduce)
            else:
                _solve_cycle(comp, constant, kept_l, dead_l, tptr, tidx, tw, num, den, unit, reduce)
            if k % 1024 == 0:
                progress.update(n_order + cptr_l[k + 1], unit, total=n)
    progress.done()
    return num, den
