"""The turn lattice: "roll n dice up to r times, keep any, then score", as arrays.

:class:`TurnLattice` (:mod:`perfectplay.lattice.structure`) holds the hands, keeps and
their transitions of one turn; its compiled kernels (:mod:`perfectplay.lattice.kernels`)
evaluate a turn for many scorecards at once and read the lattice through one record,
:class:`LatticeArrays` (:mod:`perfectplay.lattice.arrays`). Importing this package imports
numpy, not numba: the kernels load on the first evaluation.

>>> TurnLattice(dice=5, faces=6, rolls=3).arrays.rolls
3
"""

from perfectplay.lattice.arrays import LatticeArrays
from perfectplay.lattice.structure import MAX_KEEPS, TurnLattice

__all__ = ["MAX_KEEPS", "LatticeArrays", "TurnLattice"]
