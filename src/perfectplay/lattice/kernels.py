"""Compiled kernels of the turn lattice (:class:`perfectplay.lattice.TurnLattice`).

A reroll step turns the values of the hands into the values of the hands one roll
earlier: each keep is worth the mean over one more die (``E[K] = sum_f p_f E[K + f]``,
keeps of one die fewer after keeps of one more), each hand the best of its keeps (``M[K]
= max(E[K], M[K - f])``, keeps of one die more after keeps of one fewer). Every kernel
reads the lattice through its record, :class:`~perfectplay.lattice.arrays.LatticeArrays`.
The functions here are plain numba functions so that other kernels (the scorecard solver
of :mod:`perfectplay.yahtzee`) call them inline; this module imports numba when it is
imported, so callers import it lazily. ``PERFECTPLAY_NO_JIT=1`` runs the same source as
Python, and kernel modules built on these take :data:`njit` and :data:`prange` from here
so that :func:`perfectplay._util.jit.interpreted_modules` gets their Python copies too.

>>> from perfectplay.lattice import TurnLattice
>>> import numpy as np
>>> lat = TurnLattice(dice=1, faces=2, rolls=2)
>>> evaluate_batch(np.array([[0.0, 1.0]]), lat.arrays).tolist()   # a coin: reroll tails
[0.75]
>>> keep_values(np.array([0.0, 1.0]), lat.arrays).tolist()       # keep nothing, tails, heads
[[0.5, 0.0, 1.0]]
>>> cur, out = np.array([[0.0], [1.0]]), np.empty(1)
>>> turn_values(cur, np.empty((3, 1)), np.empty((3, 1)), lat.arrays, out)
>>> out.tolist()
[0.75]
>>> cur = np.array([[0.0], [1.0]])                       # one reroll step, by hand
>>> reroll(cur, np.empty((3, 1)), np.empty((3, 1)), lat.arrays)
>>> cur.ravel().tolist()                                 # tails: reroll; heads: keep
[0.5, 1.0]
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

import numpy as np

if TYPE_CHECKING:
    from perfectplay.lattice.arrays import LatticeArrays

__all__ = [
    "BATCH",
    "evaluate_batch",
    "keep_values",
    "njit",
    "prange",
    "reroll",
    "threads",
    "turn_values",
]

BATCH = 16
"""Scorecards whose rerolls :func:`evaluate_batch` runs together (vectorised across them)."""

_F = TypeVar("_F", bound=Callable[..., Any])

# Read once, at import: interpreted_modules re-imports this module with the variable set.
_numba: Any = None
prange: Any = range
if not os.environ.get("PERFECTPLAY_NO_JIT"):
    from perfectplay._util.jit import _import_numba

    _numba = _import_numba()
    prange = _numba.prange


def threads() -> int:
    """The threads a ``prange`` loop runs on (1 without numba): a kernel given it hands
    each thread one contiguous run of batches and allocates that thread's scratch once.

    >>> threads() >= 1
    True
    """
    return 1


if _numba is not None:
    threads = _numba.get_num_threads  # noqa: F811  (the same, from numba; not cacheable in a kernel)


def njit(**options: Any) -> Callable[[_F], _F]:
    """``numba.njit(**options)``, or the function itself when this module was imported
    with ``PERFECTPLAY_NO_JIT`` set (``prange`` is then ``range``).

    >>> @njit(boundscheck=False)
    ... def twice(x):
    ...     return 2 * x
    >>> twice(21)
    42
    """
    if _numba is None:
        return lambda f: f
    return cast("Callable[[_F], _F]", _numba.njit(**options))


@njit(cache=True, boundscheck=False)
def reroll(cur: Any, E: Any, M: Any, lat: LatticeArrays) -> None:
    """One reroll for a batch: ``cur[h, b]`` (hand values of scorecard ``b`` with ``r``
    rolls left) becomes the values with ``r + 1`` rolls left; ``E[k, b]`` receives every
    keep's value (``M`` is scratch: the best keeps smaller than a hand). The batch is the
    inner loop, so it vectorises."""
    add, remove, face_prob = lat.add, lat.remove, lat.face_prob
    n_keeps, n_faces = add.shape
    n_hands, nb = cur.shape
    base = n_keeps - n_hands
    for h in range(n_hands):
        for b in range(nb):
            E[base + h, b] = cur[h, b]
    for k in range(base - 1, -1, -1):
        for b in range(nb):
            E[k, b] = 0.0
        for f in range(n_faces):
            a = add[k, f]
            p = face_prob[f]
            for b in range(nb):
                E[k, b] += p * E[a, b]
    found = np.empty(n_faces, dtype=np.int64)
    for k in range(n_keeps):
        # A hand's best keep goes straight into ``cur`` (the removes of a hand are
        # smaller keeps, done before it). One call site: numba inlines the helper's
        # loops into each, and compiling a second copy cost 0.7 s of a first run.
        hand = k >= base
        _best_row(
            cur if hand else M, k - base if hand else k, E, k, M, found, _removes(remove, k, found)
        )


@njit(cache=True, boundscheck=False, inline="always")
def _removes(remove: Any, k: int, found: Any) -> int:
    """Put into ``found`` the keeps one die smaller than keep ``k`` (by face); how many."""
    n = 0
    for f in range(remove.shape[1]):
        r = remove[k, f]
        if r >= 0:
            found[n] = r
            n += 1
    return n


@njit(cache=True, boundscheck=False, inline="always")
def _best_row(D: Any, d: int, S: Any, s: int, M: Any, found: Any, n: int) -> None:
    """``D[d, b]``: the largest of ``S[s, b]`` and ``M[found[i], b]`` for ``i < n``, taken in
    that order (the first of equals stays, as a running ``if x > m: m = x``). Two rows
    of ``M`` a pass, the running best kept in registers and stored once a pass: one row
    a pass was a read-modify-write of ``D`` per row, twice as slow."""
    nb = D.shape[1]
    i = n % 2
    if n == 0:
        for b in range(nb):
            D[d, b] = S[s, b]
    elif i == 1:
        r0 = found[0]
        for b in range(nb):
            m = S[s, b]
            x = M[r0, b]
            D[d, b] = x if x > m else m
    else:
        r0, r1 = found[0], found[1]
        for b in range(nb):
            m = S[s, b]
            x = M[r0, b]
            if x > m:
                m = x
            x = M[r1, b]
            if x > m:
                m = x
            D[d, b] = m
        i = 2
    while i < n:
        r0, r1 = found[i], found[i + 1]
        for b in range(nb):
            m = D[d, b]
            x = M[r0, b]
            if x > m:
                m = x
            x = M[r1, b]
            if x > m:
                m = x
            D[d, b] = m
        i += 2


@njit(cache=True, boundscheck=False)
def turn_values(cur: Any, E: Any, M: Any, lat: LatticeArrays, out: Any) -> None:
    """``out[b]``: the value of a turn whose hands end worth ``cur[h, b]`` (the rerolls,
    then the mean over the first roll); ``cur``, ``E`` and ``M`` are overwritten."""
    for _ in range(lat.rolls - 1):
        reroll(cur, E, M, lat)
    hand_prob = lat.hand_prob
    # each column summed over the hands in order, the batch the inner loop (vectorised)
    for b in range(out.shape[0]):
        out[b] = 0.0
    for h in range(cur.shape[0]):
        p = hand_prob[h]
        for b in range(out.shape[0]):
            out[b] += p * cur[h, b]


@njit(cache=True, parallel=True, boundscheck=False)
def evaluate_batch(final: Any, lat: LatticeArrays) -> Any:
    """Turn values of a batch: ``final[b, h]`` is hand ``h``'s end value for scorecard
    ``b``; :data:`BATCH` scorecards at a time, in parallel."""
    n_batch, n_hands = final.shape
    n_keeps = lat.add.shape[0]
    out = np.empty(n_batch)
    for c in prange((n_batch + BATCH - 1) // BATCH):
        lo = c * BATCH
        hi = min(n_batch, lo + BATCH)
        cur = np.zeros((n_hands, hi - lo))
        E = np.empty((n_keeps, hi - lo))
        M = np.empty((n_keeps, hi - lo))
        for b in range(hi - lo):
            for h in range(n_hands):
                cur[h, b] = final[lo + b, h]
        turn_values(cur, E, M, lat, out[lo:hi])
    return out


@njit(cache=True, boundscheck=False)
def keep_values(final: Any, lat: LatticeArrays) -> Any:
    """``out[r - 1, k]``: keep ``k``'s value with ``r`` rolls left after the reroll, when
    ending the turn on hand ``h`` is worth ``final[h]``."""
    n_keeps = lat.add.shape[0]
    out = np.empty((max(lat.rolls - 1, 0), n_keeps))
    cur = final.copy().reshape(final.shape[0], 1)
    E = np.empty((n_keeps, 1))
    M = np.empty((n_keeps, 1))
    for r in range(lat.rolls - 1):
        reroll(cur, E, M, lat)
        out[r] = E[:, 0]
    return out
