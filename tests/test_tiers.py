"""The tier runner: Kahn's order, resume, the same bytes from every engine, and faults
(a worker killed mid-batch, a driver killed mid-solve, a directory that cannot be
written). The Dask tests run a ``LocalCluster`` of two workers and skip where the
``dask`` extra is not installed."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import InputError, ModelError, PerfectplayError
from perfectplay.tiers import Job, Plan, Store, Tier, TierDone, run
from perfectplay.tiers.synthetic import SyntheticJob
from perfectplay.yahtzee.game import ScorecardGame
from perfectplay.yahtzee.ruleset import Category, Rules
from perfectplay.yahtzee.solver import ScorecardJob, solve_all, tier_plan

ROOT = Path(__file__).resolve().parent.parent

# Four boxes of three dice: seven tiers that solve in a fraction of a second.
SMALL = Rules(
    "small",
    (
        Category.upper(1, "ones"),
        Category.upper(2, "twos"),
        Category.upper(6, "sixes"),
        Category("chance", sum),
    ),
    dice=3,
    upper_threshold=12,
    upper_bonus=10,
)


def needs_dask() -> None:
    pytest.importorskip("distributed", reason="the dask extra is not installed")


def _register_by_value() -> None:
    """Workers unpickle this module's jobs by value: it is not importable there."""
    cloudpickle = pytest.importorskip("cloudpickle", reason="the dask extra is not installed")
    cloudpickle.register_pickle_by_value(sys.modules[__name__])


def _values(game: ScorecardGame, store: Store) -> np.ndarray:
    values = np.full(game.n_states, np.nan)
    for tier in tier_plan(game).tiers:
        values[game.tier_states(tier.id)] = store.read(tier.id)
    return values


# -- the plan and the runner ---------------------------------------------------------------


def test_tiers_run_after_every_tier_they_read() -> None:
    # A diamond: 0 reads 1 and 2, which both read 3; 1 and 2 may run in either order.
    plan = Plan((Tier(3, 2), Tier(1, 2, reads=(3,)), Tier(2, 2, reads=(3,)), Tier(0, 1, (1, 2))))
    order = plan.order()
    assert order[0] == 3 and order[-1] == 0 and set(order[1:3]) == {1, 2}
    with pytest.raises(ModelError, match="reads tier 9"):
        Plan((Tier(0, 1, reads=(9,)),))


def test_released_tiers_report_in_a_valid_order(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=5, items=30)
    seen: list[int] = []
    store = run(job.plan(), job, workdir=tmp_path, on_tier=lambda d: seen.append(d.tier))
    assert seen == [4, 3, 2, 1, 0]
    memory = run(job.plan(), job)
    assert store.read(0).tobytes() == memory.read(0).tobytes()
    # A tier is its slices (here one a tier, the in-process engine), nothing merged.
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"tier-{t}" for t in range(5)] + [
        "tiers.json"
    ]
    assert all(store.slices(t) == [(0, 30)] for t in range(5))


class CountingJob(Job):
    """Each item of each tier is one more than the tier above's first item (or 0): every
    tier reads the one it names, and a count at the end shows that each ran once."""

    def identity(self) -> str:
        return "counting"

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        above = store.read(tier + 1) if store.slices(tier + 1) else np.zeros(1) - 1
        return np.full(stop - start, above[0] + 1.0)


@pytest.mark.parametrize("shape", ["a chain", "side by side"])
def test_a_plan_of_many_tiers_runs_in_linear_time(shape: str) -> None:
    # 20,000 tiers: a report per tier that rescanned the plan (the tiers left, their
    # disk) made this quadratic, 2.4 s at 5,000 tiers here, so about 38 s; linear, it is
    # 0.3 to 1.0 s. CPU time, not wall time: a CI machine that pauses the process (a
    # wall-clock bound of 1 s at 5,000 tiers failed once so) does not count against it;
    # the allowance a tier is the same as that bound's.
    n = 20_000
    chain = shape == "a chain"
    plan = Plan(tuple(Tier(t, 1, reads=(t + 1,) if chain and t < n - 1 else ()) for t in range(n)))
    seen: list[TierDone] = []
    t0 = time.process_time()
    store = run(plan, CountingJob(), on_tier=seen.append)
    assert time.process_time() - t0 < 4.0  # 200 µs a tier, as before
    assert len(seen) == n and seen[-1].left_bytes == 0 and seen[0].left_bytes == (n - 1) * 8
    assert store.read(0).tolist() == [n - 1.0 if chain else 0.0]
    empty = Plan(tuple(Tier(t, 0, reads=(t + 1,) if chain and t < n - 1 else ()) for t in range(n)))
    t0 = time.process_time()
    run(empty, CountingJob(), on_tier=seen.append)
    assert time.process_time() - t0 < 4.0  # 200 µs a tier, as before


def test_a_slice_on_disk_is_skipped_and_a_rerun_writes_the_same_bytes(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=2, items=10)
    store = Store(tmp_path).open(job.identity())
    # A slice "from an earlier run" with values no computation gives: kept as it is.
    store.write_slice(1, 2, 5, np.array([-1.0, -2.0, -3.0]))
    run(job.plan(), job, workdir=tmp_path)
    assert store.read(1)[:6].tolist() == [0.0, 1.0, -1.0, -2.0, -3.0, 5.0]
    # The same batch computed twice: the same bytes in the same file.
    again = Store(tmp_path / "again").open(job.identity())
    slice_file = tmp_path / "again" / "tier-1" / "0-10.npy"
    job.run_batch(1, 0, 10, again)
    first = slice_file.read_bytes()
    job.run_batch(1, 0, 10, again)
    assert slice_file.read_bytes() == first
    assert np.load(slice_file).tolist() == list(map(float, range(10)))


def test_another_solve_in_the_directory_is_refused(tmp_path: Path) -> None:
    run(SyntheticJob(2, 4).plan(), SyntheticJob(2, 4), workdir=tmp_path)
    with pytest.raises(InputError, match="holds another solve"):
        run(SyntheticJob(2, 5).plan(), SyntheticJob(2, 5), workdir=tmp_path)


def test_other_engines_need_a_work_directory() -> None:
    job = SyntheticJob(2, 4)
    with pytest.raises(PerfectplayError, match="needs a work directory"):
        run(job.plan(), job, "processes")
    with pytest.raises(InputError, match="unknown engine"):
        run(job.plan(), job, "ray")


# -- the same bytes from every engine --------------------------------------------------------


def test_scorecard_tiers_give_the_same_bytes_on_every_engine(tmp_path: Path) -> None:
    game = ScorecardGame(SMALL)
    expected = solve_all(game).tobytes()
    engines = ["threads", "processes"]
    if _has_dask():
        engines.append("dask")
    for engine in engines:
        got = solve_all(game, engine, workdir=tmp_path / engine, workers=2)
        assert got.tobytes() == expected, engine


def test_a_running_scheduler_by_its_address(tmp_path: Path) -> None:
    needs_dask()
    from distributed import LocalCluster

    game = ScorecardGame(SMALL)
    with LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert address.startswith("tcp://")
        got = solve_all(game, "dask", workdir=tmp_path, scheduler=address)
    assert got.tobytes() == solve_all(game).tobytes()


def test_compiled_layers_give_the_same_bytes_on_every_engine(tmp_path: Path) -> None:
    from perfectplay.compiled import solve_compiled
    from perfectplay.examples.ur import Ur

    engines = ["threads", "processes"] + (["dask"] if _has_dask() else [])
    files = {}
    for engine in engines:
        sol = solve_compiled(Ur("finkel", pieces=1), workdir=tmp_path / engine, engine=engine)
        assert round(sol.value(), 12) == 0.530049839525
        files[engine] = {p.name: p.read_bytes() for p in sorted((tmp_path / engine).glob("*.npy"))}
    assert all(files[e] == files["threads"] for e in engines) and files["threads"]


def _has_dask() -> bool:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


# -- faults ------------------------------------------------------------------------------------


class DyingScorecardJob(ScorecardJob):
    """A scorecard job whose worker kills its own process in the middle of the first
    batch of ``tier``, the first time (the marker file records it)."""

    def __init__(self, rules: Rules, marker: Path, tier: int) -> None:
        super().__init__(rules)
        self.marker, self.tier = str(marker), tier

    def compute(self, tier: int, start: int, stop: int, store: Store) -> np.ndarray:
        if tier == self.tier and start == 0 and not os.path.exists(self.marker):
            Path(self.marker).write_text("died\n")
            os.kill(os.getpid(), signal.SIGKILL)
        return super().compute(tier, start, stop, store)


@pytest.mark.parametrize("engine", ["processes", "dask"])
def test_a_worker_killed_mid_batch_changes_nothing(engine: str, tmp_path: Path) -> None:
    if engine == "dask":
        needs_dask()
    _register_by_value()
    game = ScorecardGame(SMALL)
    job = DyingScorecardJob(SMALL, tmp_path / "died", tier=2)
    store = run(tier_plan(game), job, engine, workdir=tmp_path / "work", workers=2)
    assert (tmp_path / "died").exists()  # a worker did die
    assert _values(game, store).tobytes() == solve_all(game).tobytes()


def test_synthetic_worker_killed_in_the_pool(tmp_path: Path) -> None:
    job = SyntheticJob(tiers=3, items=40, die_once=str(tmp_path / "died"), die_tier=1)
    store = run(job.plan(), job, "processes", workdir=tmp_path / "work", workers=2)
    assert (tmp_path / "died").exists()
    clean = SyntheticJob(tiers=3, items=40)
    assert store.read(0).tobytes() == run(clean.plan(), clean).read(0).tobytes()


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "perfectplay", "yahtzee", *args]


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["PERFECTPLAY_NO_CACHE"] = "1"
    env.pop("PERFECTPLAY_QUIET", None)
    return env


def _solve_until(args: list[str], tmp_path: Path, found: str) -> subprocess.Popen[bytes]:
    """American Yahtzee solving with ``args`` (``--workdir`` among them), still running
    once a file matches ``found`` in its work directory (a glob)."""
    work = Path(args[args.index("--workdir") + 1])
    proc = subprocess.Popen(
        _command("--rules", "american", *args, "--save", str(tmp_path / "killed.table")),
        env=_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while not list(work.glob(found)):
        assert proc.poll() is None, "the solve ended before it could be killed"
        assert time.monotonic() < deadline
        time.sleep(0.005)
    return proc


def _resume(args: list[str], tmp_path: Path) -> str:
    """Run the solve of :func:`_solve_until` again; check that it saves the table that a
    solve never stopped saves, byte for byte; its progress lines."""
    again = subprocess.run(
        _command("--rules", "american", *args, "--save", str(tmp_path / "resumed.table")),
        env=_env(),
        capture_output=True,
        text=True,
        check=True,
    )
    assert again.stdout.strip() == "254.5896095"
    subprocess.run(
        _command("--rules", "american", "--save", str(tmp_path / "clean.table"), "-q"),
        env=_env(),
        check=True,
        stdout=subprocess.DEVNULL,
    )
    clean = (tmp_path / "clean.table").read_bytes()
    assert (tmp_path / "resumed.table").read_bytes() == clean
    return again.stderr


@pytest.mark.slow
def test_a_driver_killed_mid_solve_resumes_from_its_tiers(tmp_path: Path) -> None:
    work = tmp_path / "work"
    args = ["--workdir", str(work)]
    # In process, a tier is one batch: its one slice on disk means it is finished.
    proc = _solve_until(args, tmp_path, "tier-9/*.npy")
    proc.kill()  # SIGKILL: no clean-up runs
    proc.wait()
    finished = sorted(p.parent.name for p in work.glob("tier-*/*.npy"))
    assert "tier-13" in finished
    skipped = _resume(args, tmp_path).count("on disk already")
    assert skipped >= len(finished) - 1 >= 4


def _slices(work: Path) -> dict[Path, tuple[int, int]]:
    """Each slice file on disk, with what a rewrite would change (its inode: a slice is
    written to a temporary file and renamed into place; its modification time)."""
    return {p: (p.stat().st_ino, p.stat().st_mtime_ns) for p in work.glob("tier-*/*.npy")}


@pytest.mark.slow
def test_a_driver_on_dask_killed_mid_solve_resumes_slice_by_slice(tmp_path: Path) -> None:
    # Killed once tier 9 has a slice on disk: the tiers above are finished, tier 9 is
    # not (its other batch still runs). The local cluster goes with the driver, and the
    # rerun skips every slice on disk, each file untouched.
    needs_dask()
    psutil = pytest.importorskip("psutil", reason="the dask extra is not installed")
    work = tmp_path / "work"
    args = ["--engine", "dask", "--workers", "2", "--workdir", str(work)]
    proc = _solve_until(args, tmp_path, "tier-9/*.npy")
    family = psutil.Process(proc.pid).children(recursive=True)
    assert len(family) >= 2  # the cluster's two workers at least
    proc.kill()  # SIGKILL: no clean-up runs in the driver
    proc.wait()
    # The cluster's processes watch their parent and end with it: none is left behind.
    _, alive = psutil.wait_procs(family, timeout=30)
    assert not alive, [p.cmdline() for p in alive]
    before = _slices(work)
    assert any(p.parent.name == "tier-13" for p in before)
    stderr = _resume(args, tmp_path)
    assert stderr.count("on disk already") >= 4, stderr  # tiers 13 to 10 at least
    after = _slices(work)
    assert {p: after.get(p) for p in before} == before  # no finished slice ran again
    assert len(after) > len(before)


def test_an_unwritable_directory_is_one_line_naming_it(tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory\n")
    job = SyntheticJob(2, 4)
    with pytest.raises(InputError, match="cannot write .*a-file/work"):
        run(job.plan(), job, workdir=blocker / "work")
    done = subprocess.run(
        _command("--rules", "yatzy", "--workdir", str(blocker / "work")),
        env=_env(),
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "a-file/work" in lines[0], done.stderr


def test_a_full_disk_leaves_nothing_that_looks_finished(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import perfectplay.tiers.store as store_module

    real_save = np.save
    calls = [0]

    def save(fh: object, arr: np.ndarray, allow_pickle: bool = False) -> None:
        calls[0] += 1
        if calls[0] == 4:  # the fourth file: half written, then the disk is full
            real_save(fh, arr[: len(arr) // 2], allow_pickle=allow_pickle)  # type: ignore[arg-type]
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_save(fh, arr, allow_pickle=allow_pickle)  # type: ignore[arg-type]

    monkeypatch.setattr(store_module.np, "save", save)
    job = SyntheticJob(tiers=4, items=8)
    with pytest.raises(InputError, match="No space left on device") as err:
        run(job.plan(), job, workdir=tmp_path)
    assert str(tmp_path) in str(err.value) and "\n" not in str(err.value)
    left = sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    assert not [p for p in left if p.endswith(".tmp")], left
    store = Store(tmp_path)
    finished = [t for t in range(4) if store.slices(t) == [(0, 8)]]
    monkeypatch.undo()
    for tid in finished:  # what is there is whole and right
        assert store.read(tid).tobytes() == run(job.plan(), job).read(tid).tobytes()
    assert len(finished) < 4
    # The next run finishes the solve.
    assert run(job.plan(), job, workdir=tmp_path).read(0).tobytes() == (
        run(job.plan(), job).read(0).tobytes()
    )


def test_the_dask_engine_without_the_extra_names_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from perfectplay.tiers import make_engine

    monkeypatch.setitem(sys.modules, "distributed", None)  # as if not installed
    with pytest.raises(PerfectplayError, match=r"pip install 'perfectplay\[dask\]'"):
        make_engine("dask")


def test_engine_flags_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    from perfectplay.cli import main

    for argv, message in (
        (["yahtzee", "--example", "--engine", "processes"], "needs --workdir DIR"),
        (["yahtzee", "--example", "--engine", "processes", "--scheduler", "tcp://x:1",
          "--workdir", "w"], "--scheduler is for the dask engine, not processes"),
        (["yahtzee", "--example", "--load", "t", "--workdir", "w"], "--load reads a solved table"),
        (["solve", "perfectplay.examples.pig:Pig", "--engine", "dask", "--workdir", "w"],
         "apply to compiled models"),
        (["yahtzee", "--example", "--seed", "3"], "--seed is the seed of --simulate"),
        (["solve", "perfectplay.examples.pig:Pig", "--seed", "3"], "--seed is the seed of"),
    ):  # fmt: skip
        assert main(argv) == 2, argv
        err = capsys.readouterr().err.strip()
        assert message in err and len(err.splitlines()) == 1, err
        assert "<stdin>" not in err, err  # the options' fault, not the input's


def test_workers_on_the_threads_engine_are_its_kernels_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``--workers N`` on the in-process engine runs the kernels on N threads (a shared
    machine's share), and gives the process its threads back after."""
    import numba

    from perfectplay.tiers import engines

    seen: list[int] = []
    real = engines.execute_steps

    def spy(work: object, steps: object) -> object:
        seen.append(numba.get_num_threads())
        return real(work, steps)  # type: ignore[arg-type]

    monkeypatch.setattr(engines, "execute_steps", spy)
    before = numba.get_num_threads()
    game = ScorecardGame(SMALL)
    one = solve_all(game, "threads", workers=1)
    assert seen and set(seen) == {1}
    assert numba.get_num_threads() == before
    assert np.array_equal(one, solve_all(game), equal_nan=True)
