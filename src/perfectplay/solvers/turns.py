"""Compiled kernels of the turn lattice (:class:`perfectplay.lattice.TurnLattice`).

A reroll step turns the values of the hands into the values of the hands one roll
earlier: each keep is worth the mean over one more die (``E[K] = sum_f p_f E[K + f]``,
keeps of one die fewer after keeps of one more), each hand the best of its keeps (``M[K]
= max(E[K], M[K - f])``, keeps of one die more after keeps of one fewer). The functions
here are plain numba functions so that other kernels (the scorecard solver) call them
inline; this module imports numba when it is imported, so callers import it lazily.
``PERFECTPLAY_NO_JIT=1`` runs the same source as Python.

>>> from perfectplay.lattice import TurnLattice
>>> import numpy as np
>>> lat = TurnLattice(dice=1, faces=2, rolls=2)
>>> evaluate_batch(lat, np.array([[0.0, 1.0]])).tolist()   # a coin: reroll tails
[0.75]
>>> keep_values(lat, np.array([0.0, 1.0])).tolist()       # keep nothing, tails, heads
[[0.5, 0.0, 1.0]]
>>> cur, out = np.array([[0.0], [1.0]]), np.empty(1)
>>> turn_values(cur, np.empty((3, 1)), np.empty((3, 1)), lat.add, lat.remove,
...             lat.face_prob, lat.hand_prob, lat.n_rolls, out)
>>> out.tolist()
[0.75]
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from perfectplay.lattice import TurnLattice

__all__ = ["evaluate_batch", "keep_values", "reroll", "turn_values"]

prange: Any
if os.environ.get("PERFECTPLAY_NO_JIT"):

    def njit(*args: Any, **_options: Any) -> Any:
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

    prange = range
else:
    from perfectplay._util.jit import _import_numba

    _numba = _import_numba()
    njit = _numba.njit
    prange = _numba.prange


@njit(cache=True, boundscheck=False)
def reroll(cur: Any, E: Any, M: Any, add: Any, remove: Any, face_prob: Any) -> None:
    """One reroll for a batch: ``cur[h, b]`` (hand values of scorecard ``b`` with ``r``
    rolls left) becomes the values with ``r + 1`` rolls left; ``E[k, b]`` receives every
    keep's value (``M`` is scratch). The batch is the inner loop, so it vectorises."""
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
    for k in range(n_keeps):
        for b in range(nb):
            M[k, b] = E[k, b]
        for f in range(n_faces):
            r = remove[k, f]
            if r >= 0:
                for b in range(nb):
                    if M[r, b] > M[k, b]:
                        M[k, b] = M[r, b]
    for h in range(n_hands):
        for b in range(nb):
            cur[h, b] = M[base + h, b]


@njit(cache=True, boundscheck=False)
def turn_values(
    cur: Any,
    E: Any,
    M: Any,
    add: Any,
    remove: Any,
    face_prob: Any,
    hand_prob: Any,
    rolls: int,
    out: Any,
) -> None:
    """``out[b]``: the value of a turn whose hands end worth ``cur[h, b]`` (the rerolls,
    then the mean over the first roll); ``cur``, ``E`` and ``M`` are overwritten."""
    for _ in range(rolls - 1):
        reroll(cur, E, M, add, remove, face_prob)
    for b in range(out.shape[0]):
        s = 0.0
        for h in range(cur.shape[0]):
            s += hand_prob[h] * cur[h, b]
        out[b] = s


@njit(cache=True, parallel=True, boundscheck=False)
def _evaluate(
    final: Any, add: Any, remove: Any, face_prob: Any, hand_prob: Any, rolls: int, batch: int
) -> Any:
    n_batch, n_hands = final.shape
    n_keeps = add.shape[0]
    out = np.empty(n_batch)
    for c in prange((n_batch + batch - 1) // batch):
        lo = c * batch
        hi = min(n_batch, lo + batch)
        cur = np.zeros((n_hands, hi - lo))
        E = np.empty((n_keeps, hi - lo))
        M = np.empty((n_keeps, hi - lo))
        for b in range(hi - lo):
            for h in range(n_hands):
                cur[h, b] = final[lo + b, h]
        turn_values(cur, E, M, add, remove, face_prob, hand_prob, rolls, out[lo:hi])
    return out


def evaluate_batch(lattice: TurnLattice, final: np.ndarray) -> np.ndarray:
    """Turn values of a batch: ``final[b, h]`` is hand ``h``'s end value for scorecard ``b``."""
    return _evaluate(
        final,
        lattice.add,
        lattice.remove,
        lattice.face_prob,
        lattice.hand_prob,
        lattice.n_rolls,
        16,
    )


@njit(cache=True, boundscheck=False)
def _keep_values(final: Any, add: Any, remove: Any, face_prob: Any, rolls: int) -> Any:
    n_keeps = add.shape[0]
    out = np.empty((max(rolls - 1, 0), n_keeps))
    cur = final.copy().reshape(final.shape[0], 1)
    E = np.empty((n_keeps, 1))
    M = np.empty((n_keeps, 1))
    for r in range(rolls - 1):
        reroll(cur, E, M, add, remove, face_prob)
        out[r] = E[:, 0]
    return out


def keep_values(lattice: TurnLattice, final: np.ndarray) -> np.ndarray:
    """``out[r - 1, k]``: keep ``k``'s value with ``r`` rolls left after the reroll."""
    return _keep_values(final, lattice.add, lattice.remove, lattice.face_prob, lattice.n_rolls)
