"""The Dask side of the dask engine (imported only where ``distributed`` is installed).

The work (the job and the store) reaches every worker through a worker plugin, also
each worker that joins or restarts later (after one was killed), so that a batch names
the work by ids only; data scattered to workers would be lost with a worker.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from distributed import WorkerPlugin

from perfectplay.tiers.job import Step, execute_steps

if TYPE_CHECKING:
    from perfectplay.tiers.job import Job
    from perfectplay.tiers.store import Store

__all__ = ["Install", "run_installed"]

_WORK: dict[str, tuple[Job, Store]] = {}


class Install(WorkerPlugin):
    """Keep the work named ``name`` on each worker."""

    def __init__(self, name: str, job: Job, store: Store) -> None:
        self.name, self.work = name, (job, store)

    def setup(self, worker: Any) -> None:
        self.work[0].prepare()
        _WORK[self.name] = self.work

    def teardown(self, worker: Any) -> None:
        _WORK.pop(self.name, None)


def run_installed(
    name: str, steps: tuple[Step, ...], *after: tuple[float, ...]
) -> tuple[float, ...]:
    """Run a task's batches of the work installed as ``name`` (on a worker); ``after``,
    the results of the tasks it waited for, is not read."""
    return execute_steps(_WORK[name], steps)
