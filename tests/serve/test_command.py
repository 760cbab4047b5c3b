"""``perfectplay serve`` as a person starts it: the games it builds, the address it
prints, the warning for a non-loopback host, and its one-line refusals."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


#: A model with its parameter, solved in a moment.
PIGLET = ["perfectplay.examples.pig:Piglet", "-p", "goal=2"]


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    return env


def _start(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "serve", "--no-browser", *args],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT,
    )  # fmt: skip


def _stop(proc):
    proc.terminate()
    try:
        return proc.communicate(timeout=20)
    except subprocess.TimeoutExpired:  # pragma: no cover - a hung server
        proc.kill()
        return proc.communicate()


def test_serves_what_its_command_line_names():
    # Each -p is the model's named just before it; a model may follow a -p.
    proc = _start("--only", "--rules", "tests/serve/mini_rules.py:MINI",
                  "perfectplay.examples.pig:Piglet", "-p", "goal=4",
                  "perfectplay.examples.tictactoe:TicTacToe")  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert line.startswith("perfectplay serve: http://127.0.0.1:"), line
        url = line.split()[2]
        with urllib.request.urlopen(url + "api/games", timeout=20) as r:
            games = json.load(r)["games"]
        assert [g["id"] for g in games] == ["yahtzee-mini", "piglet-goal-4", "tictactoe"]
        with urllib.request.urlopen(url, timeout=20) as r:
            assert r.headers["content-security-policy"].startswith("default-src 'none'")
        # A body shorter than its Content-Length is not waited for (408 after 5 s).
        port = int(url.rsplit(":", 1)[1].strip("/"))
        with socket.create_connection(("127.0.0.1", port), timeout=20) as raw:
            raw.sendall(b"POST /api/games/piglet-goal-4/options HTTP/1.1\r\nHost: 127.0.0.1"
                        b"\r\nContent-Length: 20\r\n\r\n{\"state\":")  # fmt: skip
            assert raw.recv(100).startswith(b"HTTP/1.1 408 ")
    finally:
        _, err = _stop(proc)
    assert "solving mini rules..." in err and "solving Piglet(goal=4)..." in err
    assert proc.returncode == 0 and err.splitlines()[-1] == "perfectplay serve: stopped"


def _status(url, host):
    request = urllib.request.Request(url + "api/games", headers={"Host": host})
    try:
        with urllib.request.urlopen(request, timeout=20) as r:
            return r.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_another_host_is_warned_about_and_still_checks_the_host_header():
    proc = _start("--only", "--host", "0.0.0.0", "--allow-host", "board.example",
                  "perfectplay.examples.pig:Piglet", "-p", "goal=2")  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert line.startswith("perfectplay serve: http://0.0.0.0:"), line
        port = line.split()[2].rsplit(":", 1)[1].strip("/")
        url = f"http://127.0.0.1:{port}/"
        # DNS rebinding: a name that is not this server's is refused, as on 127.0.0.1.
        assert _status(url, "evil.example") == 421
        assert _status(url, f"evil.example:{port}") == 421
        for name in ("board.example", f"127.0.0.1:{port}", "localhost", socket.gethostname()):
            assert _status(url, name) == 200, name
    finally:
        _, err = _stop(proc)
    warning = [x for x in err.splitlines() if "warning" in x]
    assert warning == [
        "perfectplay serve: warning: listening on 0.0.0.0: anyone who can reach this machine on "
        "that address can use this server; it answers requests that name it (the Host header) "
        "by this machine's name or addresses, localhost, board.example (--allow-host NAME adds "
        "a name)"
    ]


@pytest.mark.parametrize(
    "args, message",
    [
        (["-p", "goal=3"], "-p sets a parameter of a model"),
        (["perfectplay.examples.nothing:Pig"], "no module named 'perfectplay.examples"),
        (["tests/serve/no_such_model.py:X"], "serve: tests/serve/no_such_model.py: no such file"),
        (["perfectplay.examples.pig:Pig", "-p", "goal=x y"], "is not a Python literal"),
        (
            ["perfectplay.examples.pig:Pig", "-p", "goal=0"],
            "Pig(goal=0) failed: InputError: goal must be",
        ),
        ([*PIGLET, "perfectplay.examples.pig:Pig", "-p", "goal=0"], "Pig(goal=0) failed: "),
        (["-p", "goal=0", "perfectplay.examples.pig:Pig", PIGLET[0]], "Pig(goal=0) failed: "),
        (["--rules", "klondike"], "unknown rules 'klondike'"),
        (["--load", "no/such/table.npz"], "no/such/table.npz: no such file"),
        (["--alea", "no/such/alea.txt"], "no/such/alea.txt: No such file or directory"),
        (["--alea", "tests/serve/mini_rules.py"], "tests/serve/mini_rules.py: "),
    ],
)
def test_refusals_are_one_line(args, message, capsys):
    from perfectplay.cli import main

    assert main(["serve", "--no-browser", *args]) == 2
    err = capsys.readouterr().err  # progress lines, then the refusal in one line
    assert "Traceback" not in err and err.endswith("\n")
    assert (
        err.splitlines()[-1].startswith("perfectplay serve: ") and message in err.splitlines()[-1]
    )


def test_a_model_files_syntax_error_names_the_file_and_line(tmp_path, capsys):
    from perfectplay.cli import main

    broken = tmp_path / "syntaxerr.py"
    broken.write_text("class Broken:\n    def start(self)\n        return 0\n")
    assert main(["serve", "--no-browser", f"{broken}:Broken"]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == f"perfectplay serve: {broken}:2: syntax error: expected ':'"


def test_a_bad_port_is_a_usage_error(capsys):
    from perfectplay.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--port", "70000"])
    assert exit_.value.code == 2 and "expected a port" in capsys.readouterr().err


def test_a_bad_number_of_workers_is_a_usage_error(capsys):
    from perfectplay.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["serve", "--workers", "0"])
    assert exit_.value.code == 2 and "expected a number of processes" in capsys.readouterr().err


def test_help_imports_no_numpy():
    code = (
        "import sys\nfrom perfectplay.cli import main\n"
        "try:\n    main(['serve', '--help'])\nexcept SystemExit:\n    pass\n"
        "print('numpy' in sys.modules, 'starlette' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=_env(), check=True).stdout  # fmt: skip
    assert out.strip().splitlines()[-1] == "False False"


def _workers_of(pid):
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        try:  # a thread of the server may end between the listing and the read
            found += [int(c) for c in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_workers_serve_the_same_games_and_stop_with_the_server():
    proc = _start("--only", "--workers", "3", "perfectplay.examples.pig:Piglet", "-p", "goal=4")
    try:
        line = proc.stdout.readline()
        assert line.startswith("perfectplay serve: http://127.0.0.1:"), line
        url = line.split()[2]
        answers = set()
        for _ in range(24):  # new connections: the kernel spreads them over the workers
            request = urllib.request.Request(
                url + "api/games/piglet-goal-4/options",
                data=b'{"state": "(0, 0, 1)"}',
                headers={"Content-Type": "application/json"},
            )
            with urllib.request.urlopen(request, timeout=20) as r:
                answers.add(r.read())
        assert len(answers) == 1 and b'"roll"' in next(iter(answers))
        workers = _workers_of(proc.pid)
        assert len(workers) == 3
    finally:
        _, err = _stop(proc)
    assert proc.returncode == 0 and "3 worker processes" in err
    assert err.splitlines()[-1] == "perfectplay serve: stopped"
    assert not any(Path(f"/proc/{pid}").exists() for pid in workers)


def test_a_compiled_table_is_served_with_its_model(ur2_table):
    table = str(ur2_table.workdir.path)
    model = ["perfectplay.examples.ur:Ur", "-p", "pieces=2"]
    proc = _start("--only", "--workers", "1", "--load", table, *model)
    try:
        url = proc.stdout.readline().split()[2]
        with urllib.request.urlopen(url + "api/games", timeout=20) as r:
            games = json.load(r)["games"]
        assert [(g["id"], g["start"], g["players"]) for g in games] == [
            ("ur-finkel-pieces-2", "/", 2)
        ]
        request = urllib.request.Request(
            url + "api/games/ur-finkel-pieces-2/options", data=b'{"state": "4/6:3"}'
        )
        with urllib.request.urlopen(request, timeout=20) as r:
            options = json.load(r)["options"]
        assert [o["action"] for o in options] == ["enter to 3", "move 4 to 7"]
    finally:
        _, err = _stop(proc)
    assert "solving" not in err  # the model named is the table's: not solved again
    # SIGTERM stops one process as it stops several: exit 0, one line.
    assert proc.returncode == 0 and err.splitlines()[-1] == "perfectplay serve: stopped"


def test_a_compiled_table_without_its_model_is_refused(ur2_table, capsys):
    from perfectplay.cli import main

    table = str(ur2_table.workdir.path)
    assert main(["serve", "--no-browser", "--load", table]) == 2
    last = capsys.readouterr().err.splitlines()[-1]
    assert last == (
        f"perfectplay serve: {table}: a compiled model's table is served with its model: "
        f"name it too, e.g. perfectplay serve --load {table} perfectplay.examples.ur:Ur -p "
        "rules=finkel -p pieces=2 (the table holds Ur(finkel+pieces=2))"
    )
    ur = ["perfectplay.examples.ur:Ur", "-p", "pieces=1"]
    assert main(["serve", "--no-browser", "--load", table, *ur]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"perfectplay serve: {table}: the table was solved with other parameters than the "
        "perfectplay.examples.ur:Ur named here: the table holds Ur(finkel+pieces=2), solved "
        "with rules='finkel', pieces=2; the model named has rules='finkel', pieces=1 (-p)"
    )
    pig = ["perfectplay.examples.pig:Piglet", "-p", "goal=2"]
    assert main(["serve", "--no-browser", "--load", table, *pig]) == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"perfectplay serve: {table}: perfectplay.examples.pig:Piglet is not the table's "
        "model: the table holds Ur(finkel+pieces=2), solved from perfectplay.examples.ur:Ur; "
        f"name that model, e.g. perfectplay serve --load {table} perfectplay.examples.ur:Ur "
        "-p rules=finkel -p pieces=2"
    )


@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux's /proc")
def test_a_worker_that_dies_is_started_again():
    import signal
    import time

    proc = _start("--only", "--workers", "2", "perfectplay.examples.pig:Piglet", "-p", "goal=2")
    try:
        url = proc.stdout.readline().split()[2]
        for _ in range(100):
            workers = _workers_of(proc.pid)
            if len(workers) == 2:
                break
            time.sleep(0.05)
        time.sleep(2.5)  # older than a worker that fails at its start
        os.kill(workers[0], signal.SIGKILL)
        for _ in range(200):
            now = _workers_of(proc.pid)
            if len(now) == 2 and workers[0] not in now:
                break
            time.sleep(0.05)
        assert len(now) == 2 and workers[0] not in now and workers[1] in now
        with urllib.request.urlopen(url + "api/games", timeout=20) as r:
            assert [g["id"] for g in json.load(r)["games"]] == ["piglet-goal-2"]
    finally:
        _, err = _stop(proc)
    assert f"worker {workers[0]} ended (killed by signal 9); starting another" in err


@pytest.mark.skipif(not hasattr(socket, "SO_REUSEPORT"), reason="needs SO_REUSEPORT")
def test_a_port_another_process_listens_on_is_refused_with_workers():
    # The occupant set SO_REUSEPORT, as another `perfectplay serve --workers 2` does: the
    # workers' own SO_REUSEPORT sockets would join it and split its requests.
    with socket.socket() as occupant:
        occupant.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        occupant.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        occupant.bind(("127.0.0.1", 0))
        occupant.listen()
        port = occupant.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "perfectplay", "serve", "--no-browser", "--only",
             "--workers", "2", "--port", str(port), "perfectplay.examples.pig:Piglet",
             "-p", "goal=2"],
            capture_output=True, text=True, env=_env(), cwd=ROOT, timeout=120,
        )  # fmt: skip
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines()[-1] == (
        f"perfectplay serve: cannot listen on 127.0.0.1:{port}: Address already in use"
    )


def test_sigint_stops_the_start_up_even_where_it_was_ignored():
    import signal

    # A script's `perfectplay serve ... &` starts it with SIGINT ignored.
    proc = subprocess.Popen(
        [sys.executable, "-m", "perfectplay", "serve", "--no-browser", "--only",
         "--workers", "1", "perfectplay.examples.pig:Pig"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=_env(), cwd=ROOT,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    try:
        assert proc.stderr.readline() == "perfectplay serve: solving Pig...\n"
        proc.send_signal(signal.SIGINT)  # during Pig's solve (seconds)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:  # pragma: no cover - the signal was ignored
            proc.kill()
            proc.communicate()
    assert out == "" and proc.returncode == 0
    assert err.splitlines()[-1] == "perfectplay serve: stopped"


@pytest.fixture
def table_cache(tmp_path, monkeypatch, mini_table):
    """The disk cache of Yahtzee tables, in a temporary folder: where MINI's table goes."""
    from perfectplay.problems.yahtzee.solution import cache_path
    from perfectplay.yahtzee.game import ScorecardGame
    from perfectplay.yahtzee.solution import fingerprint

    monkeypatch.delenv("PERFECTPLAY_NO_CACHE", raising=False)
    monkeypatch.setenv("PERFECTPLAY_CACHE_DIR", str(tmp_path))
    path = cache_path(fingerprint(ScorecardGame(mini_table.rules)))
    path.parent.mkdir(parents=True)
    return path


@pytest.mark.skipif(sys.platform == "win32", reason="needs fcntl")
def test_a_rule_set_another_worker_is_solving_is_waited_for_then_read(table_cache, mini_table):
    import fcntl
    import threading

    from perfectplay.serve.games import ScorecardTable

    heard = []
    game = ScorecardTable("yahtzee-mini", mini_table.rules, notify=heard.append)
    with open(table_cache.with_suffix(".lock"), "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # another worker is solving these rules
        asking = threading.Thread(target=lambda: game.table)
        asking.start()
        asking.join(1.0)
        assert asking.is_alive() and not game.solved  # this one waits for it
        mini_table.save(table_cache)  # its table reaches the disk cache
    asking.join(60)
    assert game.solved and heard == []  # read from the cache, not solved again


def test_rules_named_are_read_from_the_disk_cache(table_cache, mini_table, capsys):
    from perfectplay.serve.cli import build_games, parser

    mini_table.save(table_cache)
    args = parser().parse_args(["--only", "--rules", "tests/serve/mini_rules.py:MINI"])
    games = build_games(args)
    assert [g.id for g in games] == ["yahtzee-mini"] and games[0].solved
    assert "solving" not in capsys.readouterr().err
