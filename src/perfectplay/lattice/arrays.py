"""The record of arrays the turn kernels read (:mod:`perfectplay.lattice.kernels`).

A :class:`~perfectplay.lattice.TurnLattice` builds its :class:`LatticeArrays` once
(:attr:`~perfectplay.lattice.TurnLattice.arrays`) and every kernel of a turn takes the
record whole instead of its arrays one by one. It is a plain ``NamedTuple``: numba types
it as a tuple of arrays and scalars (a field read costs nothing in compiled code), and the
interpreted kernels read the same fields. This module imports no numba, so the record is
built without it.

>>> import numpy as np
>>> arrays = LatticeArrays(np.full((1, 1), -1, np.int32), np.full((1, 1), -1, np.int32),
...                        np.ones(1), np.ones(1), 1)
>>> arrays.rolls, arrays.add.shape
(1, (1, 1))
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = ["LatticeArrays"]


class LatticeArrays(NamedTuple):
    """What the turn kernels read of a lattice (see :class:`~perfectplay.lattice.TurnLattice`
    for each array); ``rolls`` is the number of rolls of a turn."""

    add: NDArray[np.int32]
    remove: NDArray[np.int32]
    face_prob: NDArray[np.float64]
    hand_prob: NDArray[np.float64]
    rolls: int
