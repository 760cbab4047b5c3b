"""How tiers pass from one to the next: a tier is its slices (nothing merged), readers
are told which slices make up the tiers they read, an engine that chains batches gets a
tier's batches one tier early, small tiers are fused into one task, and a work
directory of the version that merged tiers still resumes."""

from __future__ import annotations

import concurrent.futures as cf
import shutil
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from perfectplay.errors import InputError
from perfectplay.tiers import Engine, Plan, Store, Tier, run
from perfectplay.tiers.job import Layout, Step, execute_steps
from perfectplay.tiers.synthetic import SyntheticJob


class Chaining(Engine):
    """In process, as if on ``workers`` workers, and chaining: a batch waits until the
    futures it was sent after are done; :meth:`wait` runs one batch whose wait is over
    (the oldest), so batches of a tier sent early stay pending. Notes, for each batch,
    the tiers unfinished when it was sent and the ranges it was told."""

    chains = True

    def __init__(self, workers: int = 2, handoff: float = 0.0) -> None:
        super().__init__()
        self.workers, self.handoff = workers, handoff
        self.tasks: list[tuple[int, ...]] = []  # the tiers of each task sent
        self.pending: list[tuple[cf.Future[tuple[float, ...]], tuple[Step, ...], list[Any]]] = []
        self.sent: list[tuple[int, int, int, Layout, int]] = []  # ..., futures waited for

    def submit(
        self, steps: tuple[Step, ...], after: list[Any] | None = None, priority: int = 0
    ) -> Any:
        fut: cf.Future[tuple[float, ...]] = cf.Future()
        self.pending.append((fut, steps, list(after or ())))
        self.sent.extend((*step, len(after or ())) for step in steps)
        self.tasks.append(tuple(step[0] for step in steps))
        return fut

    def wait(self, futures: Any) -> set[Any]:
        assert self._work is not None
        for k, (fut, steps, after) in enumerate(self.pending):
            if all(f.done() for f in after):
                del self.pending[k]
                fut.set_result(execute_steps(self._work, steps))
                return {fut}
        raise AssertionError("every pending batch waits for another: a deadlock")


def test_a_chaining_engine_gets_each_tier_one_tier_early(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=5, items=12)
    eng = Chaining()
    finished: list[int] = []
    sent_before: dict[int, int] = {}  # tier -> batches sent when it finished

    def note(d: Any) -> None:
        finished.append(d.tier)
        sent_before[d.tier] = len(eng.sent)

    store = run(job.plan(), job, eng, workdir=tmp_path, on_tier=note)
    assert finished == [4, 3, 2, 1, 0]
    assert store.read(0).tobytes() == run(job.plan(), job).read(0).tobytes()
    tiers_sent = [b[0] for b in eng.sent]
    # Tier 3's batches went out with tier 4's, before tier 4 finished, and waited for
    # its two batches; never two tiers ahead: tier 2's waited until tier 4 finished.
    assert tiers_sent[:6] == [4, 4, 3, 3, 2, 2] and sent_before[4] == 4
    assert {b[4] for b in eng.sent if b[0] in (3, 2)} == {2}
    # Each batch is told the slices of the tier it reads, and the tier is those slices.
    for tier, _, _, layout, _ in eng.sent:
        if tier < 4:
            assert layout == ((tier + 1, tuple(store.slices(tier + 1))),)
    assert not list(tmp_path.glob("tier-*.npy"))  # nothing merged


def test_a_tier_of_many_batches_is_not_chained(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import perfectplay.tiers.runner as runner

    monkeypatch.setattr(runner, "CHAIN_EDGES", 3)  # 2 batches waiting for 2: too many
    job = SyntheticJob(tiers=3, items=12)
    eng = Chaining()
    sent_before: dict[int, int] = {}
    store = run(
        job.plan(),
        job,
        eng,
        workdir=tmp_path,
        on_tier=lambda d: sent_before.setdefault(d.tier, len(eng.sent)),
    )
    assert sent_before[2] == 2 and {b[4] for b in eng.sent} == {0}  # sent once it finished
    assert store.read(0).tobytes() == run(job.plan(), job).read(0).tobytes()


def test_a_resume_with_other_batch_sizes_reads_overlapping_slices(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=3, items=10)
    expected = run(job.plan(), job).read(0).tobytes()
    run(job.plan(), job, Chaining(), workdir=tmp_path, batch=3)
    # Lose a slice of tiers 1 and 0; the next run cuts what is missing its own way.
    for tier in (1, 0):
        (tmp_path / f"tier-{tier}" / "3-6.npy").unlink()
    # and an earlier run with batches of 4 left a slice that overlaps the others
    Store(tmp_path).write_slice(1, 0, 4, run(job.plan(), job).read(1)[:4])
    eng = Chaining()
    store = run(job.plan(), job, eng, workdir=tmp_path, batch=4)
    assert sorted(b[:3] for b in eng.sent) == [(0, 3, 6), (1, 4, 6)]
    assert store.read(0).tobytes() == expected
    # A fresh store, told nothing, finds the tier's slices in the directory.
    assert Store(tmp_path).read(1).tobytes() == run(job.plan(), job).read(1).tobytes()


def test_a_tier_not_finished_is_refused_where_it_is_read(tmp_path: Path) -> None:
    store = Store(tmp_path).open("demo")
    store.write_slice(3, 0, 2, np.zeros(2))
    store.write_slice(3, 4, 6, np.zeros(2))
    with pytest.raises(InputError, match=r"tier 3 is not finished"):
        store.read(3)
    store.know(3, [(0, 2)])  # the driver's word: these slices are the tier
    assert store.read(3).tolist() == [0.0, 0.0]
    store.know(4, [])  # a tier of no items
    assert store.read(4).shape == (0,)


def test_a_work_directory_with_merged_tiers_resumes(tmp_path: Path) -> None:
    """An earlier version merged each finished tier into ``tier-T.npy``: such a tier is
    finished, and the tiers below read it."""
    job = SyntheticJob(tiers=4, items=9)
    whole = run(job.plan(), job)
    store = Store(tmp_path).open(job.identity())
    for tier in (3, 2):
        np.save(tmp_path / f"tier-{tier}.npy", whole.read(tier))
    seen: list[tuple[int, int]] = []
    again = run(
        job.plan(), job, workdir=tmp_path, on_tier=lambda d: seen.append((d.tier, d.batches))
    )
    assert seen == [(3, 0), (2, 0), (1, 1), (0, 1)]
    assert again.read(0).tobytes() == whole.read(0).tobytes()
    assert store.has_tier(2) and not store.slices(2)


class Diamond(SyntheticJob):
    """Tiers 1 and 2 both read 3; 0 reads both."""

    def plan(self) -> Plan:
        return Plan((Tier(3, 4), Tier(1, 4, (3,)), Tier(2, 4, (3,)), Tier(0, 4, (1, 2))))

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        reads = {3: [], 1: [3], 2: [3], 0: [1, 2]}[tier]
        got = np.arange(start, stop, dtype=np.float64) + tier
        for r in reads:
            got += store.read(r)[start:stop]
        return got


def test_tiers_that_do_not_read_each_other_run_together(tmp_path: Path) -> None:
    # A diamond on a chaining engine: 1 and 2 both read 3 and go out with it; 0 reads both.
    job = Diamond(tiers=4, items=4)
    eng = Chaining()
    store = run(job.plan(), job, eng, workdir=tmp_path)
    assert [b[0] for b in eng.sent][:6] == [3, 3, 1, 1, 2, 2]
    assert store.read(0).tolist() == [9.0, 14.0, 19.0, 24.0]
    shutil.rmtree(tmp_path)
    assert run(job.plan(), job).read(0).tolist() == [9.0, 14.0, 19.0, 24.0]


# -- small tiers fused into chains -----------------------------------------------------------


class Uneven(SyntheticJob):
    """Tiers 4 and 3 of 2,000 items, 2 to 0 of 4, at ``busy`` CPU-seconds an item."""

    def plan(self) -> Plan:
        sizes = {4: 2000, 3: 2000, 2: 4, 1: 4, 0: 4}
        return Plan(tuple(Tier(t, n, () if t == 4 else (t + 1,)) for t, n in sizes.items()))

    def identity(self) -> str:
        return "uneven"

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        got = np.arange(start, stop, dtype=np.float64) * (tier + 1)
        if tier < 4:
            got += store.read(tier + 1)[:1].sum()  # reads the tier above
        end = time.thread_time() + self.busy * (stop - start)
        while time.thread_time() < end:
            pass
        return got


def test_small_tiers_run_as_one_task_each_written_as_its_own_slice(tmp_path: Path) -> None:
    # 20 ms of work a big tier: more than the 2 x 5 ms that spreading it costs in
    # hand-offs; 40 us a small one, far less: tiers 2, 1 and 0 run as one chain, sent
    # with tier 3's batches (it waits for them) and written tier by tier.
    job = Uneven(tiers=5, items=4, busy=1e-5)
    eng = Chaining(handoff=0.005)
    finished: list[tuple[int, int]] = []
    store = run(
        job.plan(),
        job,
        eng,
        workdir=tmp_path,
        on_tier=lambda d: finished.append((d.tier, d.batches)),
    )
    assert eng.tasks == [(4,), (4,), (3,), (3,), (2, 1, 0)]
    assert eng.sent[-3][4] == 2  # the chain waited for tier 3's two batches
    assert finished == [(4, 2), (3, 2), (2, 1), (1, 1), (0, 1)]
    assert store.read(0).tobytes() == run(job.plan(), job).read(0).tobytes()
    assert [store.slices(t) for t in (2, 1, 0)] == [[(0, 4)]] * 3
    # Resumed: a tier on disk is skipped, and what follows it fused again.
    (tmp_path / "tier-1" / "0-4.npy").unlink()
    (tmp_path / "tier-0" / "0-4.npy").unlink()
    eng = Chaining(handoff=0.005)
    again = run(job.plan(), job, eng, workdir=tmp_path)
    assert eng.tasks == [(1, 0)]
    assert again.read(0).tobytes() == store.read(0).tobytes()


class Longer(Uneven):
    """Tiers 5 and 4 of 4,000 items, 3 of 300, 2 to 0 of 4."""

    def plan(self) -> Plan:
        sizes = {5: 4000, 4: 4000, 3: 300, 2: 4, 1: 4, 0: 4}
        return Plan(tuple(Tier(t, n, () if t == 5 else (t + 1,)) for t, n in sizes.items()))

    def identity(self) -> str:
        return "longer"


def test_a_tier_shorter_than_the_round_trip_is_fused(tmp_path: Path) -> None:
    # Tier 3 is 15 ms of work: spread over two workers, more than the 2 x 2 ms of
    # hand-offs it costs them; but its readers are sent when tier 4 finishes, and
    # reach the workers an engine's latency (100 ms) after it, longer than tier 3's
    # 7.5 ms spread: it runs whole on one worker, in the chain of the tiers after it.
    # Tiers 5 and 4 (200 ms of work, 100 ms spread) outlast the round trip.
    job = Longer(tiers=6, items=4, busy=5e-5)
    expected = run(job.plan(), job).read(0).tobytes()
    tasks = []
    for k, latency in enumerate((0.0, 0.1)):
        eng = Chaining(handoff=0.002)
        eng.latency = latency
        store = run(job.plan(), job, eng, workdir=tmp_path / str(k))
        assert store.read(0).tobytes() == expected
        tasks.append(eng.tasks)
    spread = tasks[0][4:-1]  # the runner's cut of tier 3
    assert len(spread) >= 2 and set(spread) == {(3,)} and tasks[0][-1] == (2, 1, 0)
    assert tasks[1] == [(5,), (5,), (4,), (4,), (3, 2, 1, 0)]


def test_fusing_follows_the_engine_and_the_cut(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=4, items=6)  # no work at all: every tier is small
    expected = run(job.plan(), job).read(0).tobytes()
    cases: list[tuple[Chaining, int | None, list[tuple[int, ...]] | None]] = [
        (Chaining(handoff=0.02), None, [(3, 2, 1, 0)]),  # one chain, the whole plan
        (Chaining(handoff=0.0), None, None),  # a free hand-off: no task of two tiers
        (Chaining(handoff=0.02), 3, [(t,) for t in (3, 3, 2, 2, 1, 1, 0, 0)]),  # a batch given
        (Chaining(workers=1, handoff=0.02), None, [(3,), (2,), (1,), (0,)]),  # one worker
    ]
    for k, (eng, batch, tasks) in enumerate(cases):
        store = run(job.plan(), job, eng, workdir=tmp_path / str(k), batch=batch)
        assert eng.tasks == tasks if tasks else all(len(t) == 1 for t in eng.tasks), k
        assert store.read(0).tobytes() == expected


def test_a_chain_follows_one_path_of_the_tier_graph(tmp_path: Path) -> None:
    # A diamond of small tiers: a chain takes one of the two that read 3; the other,
    # sent with it, cannot take 0, which reads both: 0 goes once the chain is done,
    # after the other's task.
    job = Diamond(tiers=4, items=4)
    eng = Chaining(handoff=0.02)
    store = run(job.plan(), job, eng, workdir=tmp_path)
    assert eng.tasks == [(3, 1), (2,), (0,)]
    assert eng.sent[-1][4] == 1
    assert store.read(0).tobytes() == run(job.plan(), job).read(0).tobytes()
