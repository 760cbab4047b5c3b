"""Graph plumbing shared by every solver: one copy each, over CSR arrays.

* :func:`transpose` — reverse a CSR adjacency by counting sort;
* :func:`chance_reverse` — both reverse adjacencies of a chance graph;
* :func:`retry_property` — whether every outcome of a roll may choose that roll again;
* :func:`combined` — a chance graph as one adjacency (decision nodes, then chance nodes);
* :func:`safe_nodes` — the nodes of a chance graph from which some policy reaches a
  terminal node with probability one (almost-sure reachability, e.g. de Alfaro 1997, ch. 3);
* :func:`maximal_end_components` — where a policy can keep the play for ever;
* :func:`strong_components` — strongly connected components (Tarjan 1972, iterative),
  emitted successors first;
* :func:`topological_order` — Kahn's algorithm, successors first.

Everything here takes arrays, never a graph object: a
:class:`~perfectplay.graphs.chance.ChanceGraph` calls these once and caches what they
return (its ``reverse``, ``safe_set``, ``end_components`` and ``acyclic_order``), so this
module sits below the graph types.
A lazy :class:`~perfectplay._util.jit.Kernel` cannot call another one, so each solver calls
these at the Python level and passes the arrays into its own kernel. Every function takes
``compiled`` like the kernels (``True``: numba, ``False``: the same source interpreted).

>>> import numpy as np
>>> ptr, idx = np.array([0, 1, 2, 3, 3]), np.array([1, 2, 0], np.int32)  # 0->1->2->0, 3
>>> comp, pos, order, comp_ptr = strong_components(ptr, idx, compiled=False)
>>> comp.tolist(), comp_ptr.tolist()
([0, 0, 0, 1], [0, 3, 4])
>>> order_, n = topological_order(np.array([0, 1, 1]), np.array([1], np.int32), compiled=False)
>>> order_[:n].tolist()
[1, 0]
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from perfectplay._util.jit import helper, kernel

__all__ = [
    "chance_reverse",
    "combined",
    "maximal_end_components",
    "retry_property",
    "safe_nodes",
    "strong_components",
    "topological_order",
    "transpose",
]


@kernel
def _transpose(ptr: Any, idx: Any, n_targets: Any, weight: Any, payload: Any) -> Any:
    # The third result carries each edge's weight (payload 2: saves a gather and an
    # edge-id array on the largest graphs), its id (1), or nothing (0: saves the memory).
    n = ptr.shape[0] - 1
    m = idx.shape[0]
    rptr = np.empty(n_targets + 1, np.int64)
    for t in range(n_targets + 1):
        rptr[t] = 0
    for e in range(m):
        rptr[idx[e] + 1] += 1
    for t in range(n_targets):
        rptr[t + 1] += rptr[t]
    fill = np.empty(n_targets, np.int64)
    for t in range(n_targets):
        fill[t] = rptr[t]
    src = np.empty(m, np.int32)
    edge = np.empty(m if payload > 0 else 0, np.int64)
    for s in range(n):
        for e in range(ptr[s], ptr[s + 1]):
            t = idx[e]
            src[fill[t]] = s
            if payload == 2:
                edge[fill[t]] = weight[e]
            elif payload == 1:
                edge[fill[t]] = e
            fill[t] += 1
    return rptr, src, edge


#: Largest number of edges the vectorised transpose handles when a compiled kernel is
#: asked for but not loaded yet: a stable radix sort by numpy needs no numba start-up
#: (0.3-0.5 s, or 0.05 s for one more kernel) and costs about 1.5 times the compiled
#: counting sort while the targets fit in 16 bits. A loaded kernel always runs.
VECTOR_EDGES = 1 << 20


def transpose(
    ptr: np.ndarray,
    idx: np.ndarray,
    n_targets: int,
    weight: np.ndarray | None = None,
    *,
    edges: bool = True,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Reverse CSR ``(rptr, src, edge)``: the edges into target ``t`` are
    ``edge[rptr[t]:rptr[t+1]]`` (ids into ``idx``, in increasing order) from sources
    ``src[...]``. Given ``weight`` (``int64``, one per edge), ``edge`` holds the edges'
    weights instead of their ids; with ``edges=False`` and no weight it is empty.

    ``compiled=False``, or a graph with at most 65,536 targets and
    :data:`VECTOR_EDGES` edges while the compiled kernel is not loaded, runs numpy's
    stable sort (:func:`_transpose_numpy`, the same arrays, no numba); otherwise the
    compiled counting sort runs.

    >>> rptr, src, edge = transpose(np.array([0, 2, 3]), np.array([1, 1, 0]), 2, compiled=False)
    >>> rptr.tolist(), src.tolist(), edge.tolist()
    ([0, 1, 3], [1, 0, 0], [2, 0, 1])
    """
    ptr = np.ascontiguousarray(ptr, np.int64)
    idx = np.ascontiguousarray(idx, np.int32)
    w = None if weight is None else np.ascontiguousarray(weight, np.int64)
    small = n_targets <= 1 << 16 and idx.shape[0] <= VECTOR_EDGES and not _transpose.loaded
    if not compiled or small:
        return _transpose_numpy(ptr, idx, int(n_targets), w, edges)
    out: tuple[np.ndarray, np.ndarray, np.ndarray] = _transpose.run(
        ptr, idx, int(n_targets), w if w is not None else np.empty(0, np.int64),
        2 if w is not None else int(edges), compiled=compiled,
    )  # fmt: skip
    return out


def _transpose_numpy(
    ptr: np.ndarray, idx: np.ndarray, n_targets: int, weight: np.ndarray | None, edges: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`transpose` by a stable sort of the targets: the same arrays as the counting
    sort (edges into one target keep their order). Targets that fit in 16 bits sort in
    one radix pass; wider ones in two (low half, then high half, each stable)."""
    m = idx.shape[0]
    rptr = np.zeros(n_targets + 1, np.int64)
    if m:
        np.cumsum(np.bincount(idx, minlength=n_targets)[:n_targets], out=rptr[1:])
    if n_targets <= 1 << 16:
        order = np.argsort(idx.astype(np.uint16), kind="stable")
    else:
        low = np.argsort((idx & 0xFFFF).astype(np.uint16), kind="stable")
        order = low[np.argsort((idx[low] >> 16).astype(np.uint16), kind="stable")]
    owner = np.repeat(np.arange(ptr.shape[0] - 1, dtype=np.int32), np.diff(ptr))
    src = owner[order]
    if weight is not None:
        edge = weight[order]
    elif edges:
        edge = order.astype(np.int64)
    else:
        edge = np.empty(0, np.int64)
    return rptr, src, edge


def chance_reverse(
    choice_ptr: np.ndarray,
    choice_idx: np.ndarray,
    outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
    outcome_weight: np.ndarray,
    *,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(rin_ptr, rin_c, rin_w, rch_ptr, rch_x)``: for each decision node ``x`` the chance
    nodes having ``x`` as an outcome, with the edge weights side by side (one entry per
    edge), and for each chance node ``c`` the decision nodes that may choose it.

    >>> import numpy as np
    >>> i64 = lambda *v: np.array(v, np.int64)
    >>> # node 0 chooses roll 0, whose outcomes are nodes 0 (weight 1) and 1 (weight 5)
    >>> r = chance_reverse(i64(0, 1, 1), i64(0), i64(0, 2), i64(0, 1), i64(1, 5), compiled=False)
    >>> [a.tolist() for a in r]
    [[0, 1, 2], [0, 0], [1, 5], [0, 1], [0]]
    """
    nd, nc = choice_ptr.shape[0] - 1, outcome_ptr.shape[0] - 1
    rin_ptr, rin_c, rin_w = transpose(
        outcome_ptr, outcome_idx, nd, outcome_weight, compiled=compiled
    )
    rch_ptr, rch_x, _ = transpose(choice_ptr, choice_idx, nc, edges=False, compiled=compiled)
    return rin_ptr, rin_c, rin_w, rch_ptr, rch_x


@helper
def retry_holds(terminal: Any, choice_ptr: Any, choice_idx: Any, rin_ptr: Any, rin_c: Any,
                mark: Any) -> Any:  # fmt: skip
    """Whether every non-terminal outcome lists each roll that leads to it among its
    choices, given the reverse adjacency ``rin_ptr, rin_c`` of the outcomes and ``mark``,
    ``int32[n_chance]`` of scratch (overwritten): each outcome's choices are marked, then
    the rolls into it are scanned, O(E) in all. A step of kernels (label-setting checks
    with the reverse adjacency it builds anyway); :func:`retry_property` runs it alone."""
    for c in range(mark.shape[0]):
        mark[c] = -1
    for x in range(terminal.shape[0]):
        if terminal[x]:
            continue
        for k in range(choice_ptr[x], choice_ptr[x + 1]):
            mark[choice_idx[k]] = x
        for k in range(rin_ptr[x], rin_ptr[x + 1]):
            if mark[rin_c[k]] != x:
                return False
    return True


@kernel
def _retry_property(terminal: Any, choice_ptr: Any, choice_idx: Any, rin_ptr: Any, rin_c: Any,
                    n_chance: Any) -> Any:  # fmt: skip
    return retry_holds(
        terminal, choice_ptr, choice_idx, rin_ptr, rin_c, np.empty(n_chance, np.int32)
    )


def retry_property(
    terminal: np.ndarray,
    choice_ptr: np.ndarray,
    choice_idx: np.ndarray,
    outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
    *,
    compiled: bool = True,
) -> bool:
    """Whether every non-terminal outcome ``x`` of every chance node ``c`` lists ``c``
    among its choices (the explicit retry property; terminal outcomes need none): one
    pass over the outcome edges grouped by outcome (:func:`transpose`, not kept), with
    each outcome's choices marked (:func:`retry_holds`).

    >>> i64 = lambda *v: np.array(v, np.int64)
    >>> # 0 and 2 roll 0, whose outcomes are 1 (a goal) and 2: 2 may roll 0 again
    >>> term = np.array([False, True, False])
    >>> retry_property(term, i64(0, 1, 1, 2), i64(0, 0), i64(0, 2), i64(1, 2), compiled=False)
    True
    >>> retry_property(term, i64(0, 1, 1, 1), i64(0), i64(0, 2), i64(1, 2), compiled=False)
    False
    """
    n_chance = outcome_ptr.shape[0] - 1
    rin_ptr, rin_c, _ = transpose(
        outcome_ptr, outcome_idx, terminal.shape[0], edges=False, compiled=compiled
    )
    return bool(
        _retry_property.run(
            np.ascontiguousarray(terminal, np.bool_),
            np.ascontiguousarray(choice_ptr, np.int64),
            np.ascontiguousarray(choice_idx, np.int32),
            rin_ptr,
            rin_c,
            n_chance,
            compiled=compiled,
        )  # fmt: skip
    )


@kernel
def _safe_set(
    terminal: Any, choice_ptr: Any, outcome_ptr: Any, outcome_idx: Any, rin_ptr: Any, rin_c: Any,
    rch_ptr: Any, rch_x: Any, retry: Any,
) -> Any:  # fmt: skip
    nd = terminal.shape[0]
    nc = outcome_ptr.shape[0] - 1
    # Keep the nodes from which a terminal is reachable inside the kept set, and (no
    # retry) drop every roll with a dropped outcome, propagating the drops at once: a
    # decision node whose last kept choice is dropped goes too. Rounds repeat until
    # nothing more is dropped; each node is dropped once, so the drops cost O(E) in all.
    safe_d = np.empty(nd, np.bool_)
    reach_d = np.empty(nd, np.bool_)
    left = np.empty(nd, np.int64)  # kept choice edges of each decision node
    for x in range(nd):
        safe_d[x] = True
        left[x] = choice_ptr[x + 1] - choice_ptr[x]
    safe_c = np.empty(nc, np.bool_)
    reach_c = np.empty(nc, np.bool_)
    for c in range(nc):
        safe_c[c] = True
    stack = np.empty(nd, np.int32)
    drop_d = np.empty(nd, np.int32)
    drop_c = np.empty(nc, np.int32)
    while True:
        top = 0
        for x in range(nd):
            reach_d[x] = terminal[x]
            if terminal[x]:
                stack[top] = x
                top += 1
        for c in range(nc):
            reach_c[c] = False
        while top > 0:
            top -= 1
            x = stack[top]
            for k in range(rin_ptr[x], rin_ptr[x + 1]):
                c = rin_c[k]
                if reach_c[c] or not safe_c[c]:
                    continue
                reach_c[c] = True
                for j in range(rch_ptr[c], rch_ptr[c + 1]):
                    y = rch_x[j]
                    if safe_d[y] and not reach_d[y]:
                        reach_d[y] = True
                        stack[top] = y
                        top += 1
        nx = 0
        ny = 0
        for x in range(nd):
            if safe_d[x] and not reach_d[x]:
                safe_d[x] = False
                drop_d[nx] = x
                nx += 1
        for c in range(nc):
            if safe_c[c] and not reach_c[c]:
                safe_c[c] = False
                drop_c[ny] = c
                ny += 1
        if nx + ny == 0 or retry:
            break  # with the retry rule one outcome in reach is enough: one round
        hx = 0
        hy = 0
        while hx < nx or hy < ny:
            if hx < nx:
                x = drop_d[hx]
                hx += 1
                for k in range(rin_ptr[x], rin_ptr[x + 1]):
                    c = rin_c[k]
                    if safe_c[c]:
                        safe_c[c] = False
                        drop_c[ny] = c
                        ny += 1
            else:
                c = drop_c[hy]
                hy += 1
                for j in range(rch_ptr[c], rch_ptr[c + 1]):
                    y = rch_x[j]
                    left[y] -= 1
                    if left[y] == 0 and safe_d[y] and not terminal[y]:
                        safe_d[y] = False
                        drop_d[nx] = y
                        nx += 1
    return safe_d, safe_c


def safe_nodes(
    terminal: np.ndarray,
    choice_ptr: np.ndarray,
    outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
    reverse: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    *,
    retry: bool = False,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray]:
    """``(safe_d, safe_c)``: the decision and chance nodes of a chance graph (CSR arrays as
    :meth:`~perfectplay.graphs.chance.ChanceGraph.arrays` gives them) from which some
    policy reaches a terminal node with probability one.

    Without the retry rule that is the classic almost-sure reachability fixpoint (a roll
    is safe only if *all* its outcomes are); with ``retry`` a roll is safe as soon as
    *one* outcome is, because the player may reroll the others. ``reverse``:
    ``(rin_ptr, rin_c, rch_ptr, rch_x)`` of :func:`chance_reverse`.

    >>> i64 = lambda *v: np.array(v, np.int64)
    >>> term = np.array([False, True, False])   # 0 rolls 0: to 1 (a goal) or 2 (stuck)
    >>> rev = chance_reverse(i64(0, 1, 1, 1), i64(0), i64(0, 2), i64(1, 2), i64(1, 1))
    >>> rin_ptr, rin_c, _, rch_ptr, rch_x = rev
    >>> d, c = safe_nodes(term, i64(0, 1, 1, 1), i64(0, 2), i64(1, 2),
    ...                   (rin_ptr, rin_c, rch_ptr, rch_x), compiled=False)
    >>> d.tolist(), c.tolist()
    ([False, True, False], [False])
    """
    rin_ptr, rin_c, rch_ptr, rch_x = reverse
    out: tuple[np.ndarray, np.ndarray] = _safe_set.run(
        terminal, choice_ptr, outcome_ptr, outcome_idx, rin_ptr, rin_c, rch_ptr, rch_x,
        bool(retry), compiled=compiled,
    )  # fmt: skip
    return out


def combined(
    choice_ptr: np.ndarray, choice_idx: np.ndarray, outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """CSR ``(ptr, idx)`` of a chance graph as one graph: decision nodes ``0..nd-1`` point to
    their choices ``nd + c``, chance node ``nd + c`` to its outcomes.

    >>> i64 = lambda *v: np.array(v, np.int64)
    >>> ptr, idx = combined(i64(0, 1, 1), i64(0), i64(0, 2), i64(0, 1))
    >>> ptr.tolist(), idx.tolist()
    ([0, 1, 1, 3], [2, 0, 1])
    """
    nd = choice_ptr.shape[0] - 1
    ptr = np.concatenate((choice_ptr, choice_ptr[-1] + outcome_ptr[1:])).astype(np.int64)
    idx = np.concatenate((choice_idx.astype(np.int32) + np.int32(nd), outcome_idx))
    return ptr, idx.astype(np.int32)


@kernel
def _tarjan(ptr: Any, idx: Any, include: Any) -> Any:
    n = ptr.shape[0] - 1
    index = np.empty(n, np.int64)
    low = np.empty(n, np.int64)
    comp = np.empty(n, np.int64)
    pos = np.empty(n, np.int64)
    on_stack = np.empty(n, np.bool_)
    for v in range(n):
        index[v] = -1
        comp[v] = -1
        on_stack[v] = False
    stack = np.empty(n, np.int32)  # Tarjan's stack of open nodes
    call_node = np.empty(n, np.int32)  # the depth-first path, with the next edge to scan
    call_edge = np.empty(n, np.int64)
    order = np.empty(n, np.int32)
    comp_ptr = np.empty(n + 1, np.int64)
    comp_ptr[0] = 0
    n_comp = 0
    n_order = 0
    counter = 0
    top = 0
    for root in range(n):
        if not include[root] or index[root] >= 0:
            continue
        index[root] = counter
        low[root] = counter
        counter += 1
        stack[top] = root
        top += 1
        on_stack[root] = True
        call_node[0] = root
        call_edge[0] = ptr[root]
        depth = 1
        while depth > 0:
            v = call_node[depth - 1]
            e = call_edge[depth - 1]
            if e < ptr[v + 1]:
                call_edge[depth - 1] = e + 1
                w = idx[e]
                if not include[w]:
                    continue
                if index[w] < 0:
                    index[w] = counter
                    low[w] = counter
                    counter += 1
                    stack[top] = w
                    top += 1
                    on_stack[w] = True
                    call_node[depth] = w
                    call_edge[depth] = ptr[w]
                    depth += 1
                elif on_stack[w] and index[w] < low[v]:
                    low[v] = index[w]
                continue
            depth -= 1
            if depth > 0:
                u = call_node[depth - 1]
                if low[v] < low[u]:
                    low[u] = low[v]
            if low[v] == index[v]:
                while True:
                    top -= 1
                    w = stack[top]
                    on_stack[w] = False
                    comp[w] = n_comp
                    pos[w] = n_order - comp_ptr[n_comp]
                    order[n_order] = w
                    n_order += 1
                    if w == v:
                        break
                n_comp += 1
                comp_ptr[n_comp] = n_order
    return comp, pos, order[:n_order], comp_ptr[: n_comp + 1]


def strong_components(
    ptr: np.ndarray, idx: np.ndarray, include: np.ndarray | None = None, *, compiled: bool = True
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Strongly connected components of the graph ``v -> idx[ptr[v]:ptr[v+1]]``, by
    Tarjan's algorithm (R. Tarjan, *Depth-first search and linear graph algorithms*,
    SIAM J. Comput. 1972) with an explicit stack.

    Only nodes with ``include[v]`` (all by default) and the edges between them count.
    Returns ``(comp, pos, order, comp_ptr)``: component ``k`` is
    ``order[comp_ptr[k]:comp_ptr[k+1]]``; components come successors first (Tarjan emits
    a component after every component it leads to); ``comp[v]`` is the component of ``v``
    (-1 if excluded) and ``pos[v]`` its place in it.
    """
    n = ptr.shape[0] - 1
    if include is None:
        include = np.ones(n, np.bool_)
    out: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] = _tarjan.run(
        np.ascontiguousarray(ptr, np.int64),
        np.ascontiguousarray(idx, np.int32),
        np.ascontiguousarray(include, np.bool_),
        compiled=compiled,
    )
    return out


@kernel
def _kahn(ptr: Any, rptr: Any, rsrc: Any) -> Any:
    n = ptr.shape[0] - 1
    pending = np.empty(n, np.int64)
    order = np.empty(n, np.int32)
    n_order = 0
    for v in range(n):
        pending[v] = ptr[v + 1] - ptr[v]
        if pending[v] == 0:
            order[n_order] = v
            n_order += 1
    head = 0
    while head < n_order:
        w = order[head]
        head += 1
        for k in range(rptr[w], rptr[w + 1]):
            v = rsrc[k]
            pending[v] -= 1
            if pending[v] == 0:
                order[n_order] = v
                n_order += 1
    return order, n_order


def topological_order(
    ptr: np.ndarray, idx: np.ndarray, *, compiled: bool = True
) -> tuple[np.ndarray, int]:
    """``(order, n)``: ``order[:n]`` lists nodes successors first (Kahn 1962): a node comes
    after every node it has an edge to. Nodes on or behind a cycle are left out
    (``n`` smaller than the number of nodes)."""
    ptr = np.ascontiguousarray(ptr, np.int64)
    rptr, rsrc, _ = transpose(ptr, idx, ptr.shape[0] - 1, edges=False, compiled=compiled)
    return cast(tuple[np.ndarray, int], _kahn.run(ptr, rptr, rsrc, compiled=compiled))


@kernel
def _ec_prune(ptr: Any, idx: Any, rptr: Any, rsrc: Any, nd: Any, alive: Any, comp: Any) -> Any:
    n = ptr.shape[0] - 1
    # good[x]: choices of decision x alive and in x's component, at the round's start.
    good = np.zeros(n, np.int64)
    for v in range(nd):
        if alive[v]:
            for e in range(ptr[v], ptr[v + 1]):
                w = idx[e]
                if alive[w] and comp[w] == comp[v]:
                    good[v] += 1
    stack = np.empty(n, np.int64)
    top = 0
    for v in range(n):
        if not alive[v]:
            continue
        drop = False
        if v >= nd:  # a roll with an outcome outside its component
            for e in range(ptr[v], ptr[v + 1]):
                w = idx[e]
                if not alive[w] or comp[w] != comp[v]:
                    drop = True
                    break
        else:  # a decision with no choice inside its component
            drop = good[v] == 0
        if drop:
            stack[top] = v
            top += 1
    for k in range(top):  # removed together: every count above included them
        alive[stack[k]] = False
    removed = top
    while top > 0:
        top -= 1
        u = stack[top]
        for e in range(rptr[u], rptr[u + 1]):
            p = rsrc[e]
            if not alive[p] or comp[p] != comp[u]:
                continue
            if p >= nd:
                alive[p] = False
            else:
                good[p] -= 1
                if good[p] > 0:
                    continue
                alive[p] = False
            stack[top] = p
            top += 1
            removed += 1
    return removed


def maximal_end_components(
    terminal: np.ndarray,
    choice_ptr: np.ndarray,
    choice_idx: np.ndarray,
    outcome_ptr: np.ndarray,
    outcome_idx: np.ndarray,
    *,
    retry: bool = False,
    compiled: bool = True,
) -> tuple[np.ndarray, np.ndarray, int]:
    """The maximal end components of a chance graph (de Alfaro 1997, *Formal Verification
    of Probabilistic Systems*, PhD thesis, Stanford, algorithm 3.1).

    An end component is a set of non-terminal decision nodes and chance nodes, strongly
    connected, in which every chance node's outcomes stay in the set and every decision
    node has a choice in the set: a policy can keep the play in it for ever (and visit
    every node of it infinitely often). The maximal ones are found by refining strongly
    connected components: drop every chance node with an outcome outside its component
    and every decision node with no choice left inside its own (propagated to a fixpoint
    in one compiled pass over the reverse edges), and repeat until nothing changes. The
    retry rule (``retry``) counts as a choice of the roll just made. The arrays are a
    chance graph's (:meth:`~perfectplay.graphs.chance.ChanceGraph.end_components` caches
    the answer on the graph).

    Returns ``(dec_comp, chance_comp, n)``: the end component of each decision and chance
    node (``-1`` outside every end component) and their number.

    >>> i64 = lambda *v: np.array(v, np.int64)
    >>> # 0 may roll 0 (back to 0 or 1) or 1 (to the goal 2); 1 rolls 0
    >>> term = np.array([False, False, True])
    >>> d, c, n = maximal_end_components(term, i64(0, 2, 3, 3), i64(0, 1, 0), i64(0, 2, 3),
    ...                                  i64(0, 1, 2), compiled=False)
    >>> d.tolist(), c.tolist(), n
    ([0, 0, -1], [0, -1], 1)
    """
    nd, nc = terminal.shape[0], outcome_ptr.shape[0] - 1
    cptr, cidx, optr, oidx = choice_ptr, choice_idx, outcome_ptr, outcome_idx
    if retry:  # each non-terminal outcome may choose its roll again: an extra choice
        owner = np.repeat(np.arange(nc, dtype=np.int64), np.diff(optr))
        live = ~terminal[oidx]
        src = np.concatenate((np.repeat(np.arange(nd), np.diff(cptr)), oidx[live]))
        dst = np.concatenate((cidx.astype(np.int64), owner[live]))
        order = np.argsort(src, kind="stable")
        cidx = dst[order].astype(np.int32)
        cptr = np.zeros(nd + 1, np.int64)
        np.cumsum(np.bincount(src, minlength=nd), out=cptr[1:])
    ptr, idx = combined(cptr, cidx, optr, oidx)
    rptr, rsrc, _ = transpose(ptr, idx, nd + nc, edges=False, compiled=compiled)
    alive = np.ones(nd + nc, np.bool_)
    alive[:nd] = ~terminal
    while True:
        comp = strong_components(ptr, idx, alive, compiled=compiled)[0]
        # Prune to the fixpoint of this round's components before computing them again:
        # one removal cascades along a chain in one pass instead of one round per node.
        if not _ec_prune.run(ptr, idx, rptr, rsrc, nd, alive, comp, compiled=compiled):
            break
    comp = np.where(alive, comp, -1)
    used, dense = np.unique(comp[alive], return_inverse=True)
    out = np.full(nd + nc, -1, np.int32)
    out[alive] = dense.astype(np.int32)
    return out[:nd], out[nd:], int(used.shape[0])
