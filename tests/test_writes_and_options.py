"""What a user of the big solves met (a new user's try from the docs): a file to write
never replaces a device, a pipe or a link; a scheduler that is not Dask's is refused in
time; --engine and --workdir solve on the runner even when the table is cached."""

from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pytest

from perfectplay._util.atomic import write_bytes
from perfectplay.errors import OptionError


def test_a_write_never_replaces_a_pipe_and_goes_through_a_link(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="not a regular file"):
        write_bytes(fifo, b"table")
    assert fifo.is_fifo()
    (tmp_path / "real").write_bytes(b"old")
    (tmp_path / "link").symlink_to("real")
    write_bytes(tmp_path / "link", b"new")
    assert (tmp_path / "link").is_symlink() and (tmp_path / "real").read_bytes() == b"new"
    with pytest.raises(IsADirectoryError):
        write_bytes(tmp_path, b"x")


def test_save_to_a_device_is_one_line_and_status_1(capsys: pytest.CaptureFixture[str]) -> None:
    from perfectplay.cli import main

    assert main(["yahtzee", "--example", "-q", "--save", "/dev/null"]) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["perfectplay: --save cannot write /dev/null: not a regular file (a device, "
                   "a pipe or a socket)"]  # fmt: skip
    assert Path("/dev/null").is_char_device()


def test_a_scheduler_that_is_not_dask_is_refused_in_time() -> None:
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    from perfectplay.tiers.engines import _connect

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    held: list[socket.socket] = []
    threading.Thread(target=lambda: held.append(server.accept()[0]), daemon=True).start()
    address = f"tcp://127.0.0.1:{server.getsockname()[1]}"
    t0 = time.monotonic()
    with pytest.raises(OptionError, match="no Dask scheduler answered within 1 s"):
        _connect(distributed.Client, address, seconds=1.0)
    assert time.monotonic() - t0 < 10
    server.close()


def test_engine_and_workdir_do_not_read_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import perfectplay.problems.yahtzee.solution as solution
    from perfectplay.cli import main

    seen: list[tuple[bool, object]] = []

    def fake_solve(rules: object, save: object = None, cache: bool = True, tiers: object = None):
        seen.append((cache, tiers))
        raise KeyboardInterrupt  # stop there: only the arguments matter

    monkeypatch.setattr(solution, "solve", fake_solve)
    main(["yahtzee", "--example", "--engine", "processes", "--workdir", str(tmp_path / "w")])
    main(["yahtzee", "--example"])
    assert [c for c, _ in seen] == [False, True]
    assert seen[0][1] is not None and seen[1][1] is None


def test_a_task_whose_worker_is_gone_is_cancelled_to_be_sent_again() -> None:
    """Dask can leave a task placed on a worker that died waiting for ever ("no-worker",
    seen with a one-worker cluster whose nanny restarted the worker at a new address):
    the engine's wait cancels it, the runner takes it as lost and sends it again, under a
    new key (Dask answers a key it holds with the cancelled future)."""
    distributed = pytest.importorskip("distributed", reason="the dask extra is not installed")
    from perfectplay.tiers.engines import DaskEngine

    with (
        distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster,
        distributed.Client(cluster) as client,
    ):
        eng = DaskEngine.__new__(DaskEngine)
        eng._client, eng._threads, eng._listed, eng._keys = client, [], 0.0, {}
        eng._cancelled = set()
        fut = client.submit(time.sleep, 4, key="stuck", pure=False)
        eng._where = {"stuck": ("tcp://127.0.0.1:1",)}  # a worker that is not there
        assert eng.wait([fut]) == {fut}
        with pytest.raises(Exception) as e:
            fut.result(timeout=5)
        assert eng.lost(e.value)
        again = client.submit(time.sleep, 0, key=eng._key("stuck"), pure=False)
        assert again.result(timeout=10) is None  # a task that runs, not the cancelled one
