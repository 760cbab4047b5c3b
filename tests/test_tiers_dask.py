"""The dask engine's hand-off between tiers: a task sent ahead of the tier it reads
waits on its worker for the slices still being written (their Dask events, or the
files already on disk), never for a Dask dependency, so no result travels between
workers; it gives its worker back when the wait is long (a batch it waits for may be
queued behind it after another worker died). Skipped where the ``dask`` extra is not
installed."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perfectplay.tiers import Store, run
from perfectplay.tiers.synthetic import SyntheticJob

distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")

from perfectplay.tiers import _dask  # noqa: E402 (needs distributed)


class Scheduler:
    """The scheduler's event calls, in memory: ``written`` names the events set; a
    wait on one of ``lands`` writes that slice first (a worker finishing meanwhile)."""

    def __init__(self, written: set[str], lands: dict[str, Any] | None = None) -> None:
        self.written, self.lands = written, lands or {}
        self.asked: list[str] = []

    async def event_wait(self, name: str, timeout: float) -> bool:
        self.asked.append(name)
        if name in self.lands:
            self.lands.pop(name)()
        return name in self.written


class Client:
    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler

    def sync(self, fn: Any) -> Any:
        return asyncio.run(fn())


def _work(tmp_path: Path) -> tuple[SyntheticJob, Store]:
    job = SyntheticJob(tiers=2, items=8)
    return job, Store(tmp_path).open(job.identity())


def test_slices_on_disk_need_no_message(tmp_path: Path) -> None:
    job, store = _work(tmp_path)
    store.write_slice(1, 0, 4, np.zeros(4))
    store.write_slice(1, 4, 8, np.zeros(4))
    sched = Scheduler(set())
    _dask.wait(Client(sched), "w", (job, store), ((1, 0, 4), (1, 4, 8)))
    assert sched.asked == []


def test_a_slice_still_written_is_waited_for_by_its_event(tmp_path: Path) -> None:
    job, store = _work(tmp_path)
    store.write_slice(1, 0, 4, np.zeros(4))
    name = _dask.event("w", (1, 4, 8))
    sched = Scheduler({name}, {name: lambda: store.write_slice(1, 4, 8, np.zeros(4))})
    _dask.wait(Client(sched), "w", (job, store), ((1, 0, 4), (1, 4, 8)))
    assert sched.asked == [name]  # only the slice not on disk


@pytest.mark.parametrize("event_set", [False, True])
def test_a_long_wait_gives_the_worker_back(tmp_path: Path, event_set: bool) -> None:
    # Not set in time, or set while the file is not seen yet (a network filesystem's
    # cache): the task is sent again, and looks again.
    job, store = _work(tmp_path)
    sched = Scheduler({_dask.event("w", (1, 0, 8))} if event_set else set())
    with pytest.raises(distributed.Reschedule):
        _dask.wait(Client(sched), "w", (job, store), ((1, 0, 8),))


def test_without_events_the_disk_alone_is_waited_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The engine's own LocalCluster shares this disk: no client, no message; a slice
    # written meanwhile is seen there, one never written gives the worker back after
    # PATIENCE, as an event never set does.
    job, store = _work(tmp_path)
    store.write_slice(1, 0, 4, np.zeros(4))
    later = threading.Timer(0.05, store.write_slice, (1, 4, 8, np.zeros(4)))
    later.start()
    _dask.wait(None, "w", (job, store), ((1, 0, 4), (1, 4, 8)))
    assert store.has_slice(1, 4, 8)
    monkeypatch.setattr(_dask, "PATIENCE", 0.05)
    t0 = time.perf_counter()
    with pytest.raises(distributed.Reschedule):
        _dask.wait(None, "w", (job, store), ((0, 0, 8),))
    assert time.perf_counter() - t0 < 1.0


def test_only_a_cluster_of_ones_own_uses_events(monkeypatch: pytest.MonkeyPatch) -> None:
    # Installed for the engine's LocalCluster, the work announces no slice (a task
    # never asks for its worker's client); for a cluster given by its address, it does.
    job = SyntheticJob(tiers=1, items=2)
    announced: list[Any] = []
    monkeypatch.setattr(_dask, "get_client", lambda: "client")
    monkeypatch.setattr(_dask, "_announce", lambda *a: announced.append(a[2]))
    for events in (False, True):
        plugin = _dask.Install(f"w{events}", job, Store(None), events)
        plugin.setup(None)
        _dask.run_installed(f"w{events}", ((0, 0, 2, ()),))
        plugin.teardown(None)
    assert announced == [(0, 0, 2)]
    assert not _dask._EVENTS


def test_no_result_travels_between_workers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Four tiers of two batches on two workers: the tasks of each tier after the first
    # are sent before the tier they read is finished, naming the slices they wait for,
    # and take no other task's result (a Dask dependency) as an argument.
    job = SyntheticJob(tiers=4, items=64, busy=2e-4)
    sent: list[tuple[int, int, int]] = []  # tier, slices waited for, priority
    real = distributed.Client.submit

    def submit(self: Any, fn: Any, *args: Any, **kw: Any) -> Any:
        assert not any(isinstance(a, distributed.Future) for a in args)
        if fn is not _dask.run_installed:  # the engine's start (each worker connecting)
            return real(self, fn, *args, **kw)
        _, steps, waits = args
        sent.append((steps[0][0], len(waits), kw["priority"]))
        return real(self, fn, *args, **kw)

    monkeypatch.setattr(distributed.Client, "submit", submit)
    store = run(job.plan(), job, "dask", workdir=tmp_path, workers=2, batch=32)
    assert store.read(0).tobytes() == run(job.plan(), job).read(0).tobytes()
    # Tier 2's batches went out with tier 3's, each waiting for tier 3's two slices;
    # priorities are the items left on the path (a tier before those that read it).
    assert sent[:4] == [(3, 0, 256), (3, 0, 256), (2, 2, 192), (2, 2, 192)]
    assert {tier: priority for tier, _, priority in sent} == {3: 256, 2: 192, 1: 128, 0: 64}


def test_a_worker_killed_while_the_other_waits(tmp_path: Path) -> None:
    # The first batch of tier 1 kills its worker: the other worker's batch of tier 0
    # waits for its slice, which runs again (on that worker, or on the one restarted).
    job = SyntheticJob(tiers=3, items=40, busy=1e-3, die_once=str(tmp_path / "died"), die_tier=1)
    store = run(job.plan(), job, "dask", workdir=tmp_path / "work", workers=2, batch=20)
    assert (tmp_path / "died").exists()
    clean = SyntheticJob(tiers=3, items=40)
    assert store.read(0).tobytes() == run(clean.plan(), clean).read(0).tobytes()


def test_a_resumed_solve_waits_for_no_slice_on_disk(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=3, items=40)
    store = Store(tmp_path).open(job.identity())
    clean = run(job.plan(), job)
    store.write_slice(2, 0, 40, np.asarray(clean.read(2)))  # the top tier, from a run killed
    store.write_slice(1, 0, 20, np.asarray(clean.read(1))[:20])  # and half the next
    seen: list[tuple[int, int]] = []
    run(job.plan(), job, "dask", workdir=tmp_path, workers=2,
        on_tier=lambda d: seen.append((d.tier, d.batches)))  # fmt: skip
    assert seen[0] == (2, 0)  # on disk already
    assert Store(tmp_path).read(0).tobytes() == clean.read(0).tobytes()


def test_connecting_the_workers_at_the_start_waits_for_none_that_left() -> None:
    # The engine has each worker connect to the scheduler while it starts; a worker
    # listed then but gone by the time its task is sent holds the start one timeout
    # at most, and the others are connected.
    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        listed = {**client.nthreads(), "tcp://127.0.0.1:9": 1}  # no worker there
        client.nthreads = lambda: listed  # type: ignore[method-assign]
        t0 = time.perf_counter()
        _dask.warm(client, timeout=1.0)
        assert time.perf_counter() - t0 < 30
        (worker,) = cluster.workers.values()
        assert worker._client is not None  # its own client, connected
