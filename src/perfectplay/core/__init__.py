"""The problem-independent solver core.

* :mod:`~perfectplay.core.chance_graph`: one-player chance graphs (decision and chance nodes
  in CSR arrays) and :class:`~perfectplay.core.chance_graph.ChanceSolution`.
* :mod:`~perfectplay.core.canonical`: keying states by a canonical form (symmetry).

Solvers live one per module, named for the algorithm (``retry``, ``ssp``, ``exact``,
``distribution``, ...). Import them from their modules; this package imports nothing
heavy on its own.
"""
