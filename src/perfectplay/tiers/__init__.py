"""The tier runner: a game cut into tiers of independent batches, run on an engine.

A game gives the runner a :class:`Plan` (its tiers: ids, sizes and the tiers each reads)
and a :class:`Job` (the work of one batch, small enough to send to every worker once);
:func:`run` releases a tier when every tier it reads is finished (Kahn's order over the
tier graph), cuts it into batches of item ranges and sends each batch by its ids only;
a batch writes its slice of the tier, and a finished tier is its slices, which later
tiers read memory-mapped where they were written (:class:`Store`). Engines: ``threads``
(in-process, the default: one batch per tier and the kernels' own threads),
``processes`` (a local process pool) and ``dask`` (``dask.distributed``: a local
cluster, or a scheduler's address). The same bytes come out of every engine; a slice
already on disk is skipped, so a killed solve resumes.

>>> from perfectplay.tiers import run
>>> from perfectplay.tiers.synthetic import SyntheticJob
>>> job = SyntheticJob(tiers=3, items=10)
>>> store = run(job.plan(), job)
>>> store.read(0).tolist()[:4]
[4.0, 8.0, 12.0, 16.0]
"""

# ruff: noqa: F401 (the TYPE_CHECKING imports are this package's exports)
from typing import TYPE_CHECKING

from perfectplay._util.lazy import lazy_package

if TYPE_CHECKING:  # what mypy reads (the names are re-exported)
    from perfectplay.tiers.engines import Engine, make_engine
    from perfectplay.tiers.job import Job
    from perfectplay.tiers.options import ENGINES
    from perfectplay.tiers.plan import Plan, Tier
    from perfectplay.tiers.runner import TierDone, run
    from perfectplay.tiers.store import Store

__all__, __getattr__, __dir__ = lazy_package(
    __name__,
    {
        ".engines": ["Engine", "make_engine"],
        ".job": ["Job"],
        ".options": ["ENGINES"],
        ".plan": ["Plan", "Tier"],
        ".runner": ["TierDone", "run"],
        ".store": ["Store"],
    },
)
