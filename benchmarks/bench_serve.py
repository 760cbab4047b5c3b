"""Load on ``perfectplay serve`` (issue 22): concurrent clients asking for the options of
random Yahtzee situations against a loaded American table, before and after a change.

Each server runs as a person starts it (``perfectplay serve --only --load TABLE``, a child
process); the table is solved once and kept in the benchmark cache. Situations come from
random games played through the server's own API first (realistic cards). Then a load
client, a process of its own (``--client-processes`` of them), runs ``--clients`` clients
(100) that each keep one HTTP/1.1 connection and ask, one request after the other, for
``POST /api/games/yahtzee-american/options`` of a random situation for ``--seconds`` (30),
after one client alone for 5 s. Reported for each: requests, errors (any status but
200), throughput, the median and 99th-percentile latency (the issue's aim: under 5 ms and
50 ms), the CPU the server's processes and the client's spent per request, and the
server's memory: the resident size summed over its processes (RSS, shared pages counted
in each) and the proportional size (PSS, shared pages split: what the processes hold
together).

``--before REV`` also measures the server of the git revision REV (its ``src`` exported to
a temporary folder), in the same run on the same machine: the table before and after.
``--cores`` splits the machine: the first N cores for the server, the others for the
client (Linux; default: everything shared).

Not a timed test: a load figure for the record.

    python benchmarks/bench_serve.py [--before main] [--workers 1,2] [--clients 100]
        [--seconds 30] [--cores N] [--table PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import common

GAME = "yahtzee-american"
OPTIONS = f"/api/games/{GAME}/options"


def american_table(path: Path | None) -> Path:
    """A saved American table (solved once into the benchmark cache)."""
    if path is not None:
        return path
    cached = common.CACHE / "american.table"
    if not cached.exists():
        common.CACHE.mkdir(parents=True, exist_ok=True)
        print(f"solving the American rules once into {cached} ...", file=sys.stderr)
        subprocess.run(
            [*common.PERFECTPLAY, "yahtzee", "advise", "--save", str(cached),
             "dice 1 2 3 4 5; rolls left 2"],
            check=True, stdout=subprocess.DEVNULL, cwd=common.ROOT,
        )  # fmt: skip
    return cached


def http(port: int, path: str, body: dict | None) -> bytes:
    """One request's bytes (``POST`` with a JSON body, or ``GET``)."""
    data = json.dumps(body).encode() if body is not None else b""
    method = "POST" if body is not None else "GET"
    return (
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )


async def exchange(reader, writer, raw: bytes) -> tuple[int, bytes]:
    """One request on a kept connection: ``(status, body)``."""
    writer.write(raw)
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = next(int(x.split(":")[1]) for x in lines if x.lower().startswith("content-length"))
    return status, await reader.readexactly(length)


async def situations(port: int, games: int, seed: int) -> list[str]:
    """Situations met in ``games`` random games played through the API."""
    rng = random.Random(seed)
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    api = f"/api/games/{GAME}"
    found: list[str] = []
    for _ in range(games):
        state = "filled -"
        while True:
            raw = http(port, f"{api}/options", {"state": state})
            status, answer = await exchange(reader, writer, raw)
            pos = json.loads(answer)
            if status != 200 or pos["over"]:
                break
            if "chances" in pos:
                chances = pos["chances"]
            else:
                found.append(pos["state"])
                action = rng.choice(pos["options"])["action"]
                raw = http(port, f"{api}/apply", {"state": state, "action": action})
                step = json.loads((await exchange(reader, writer, raw))[1])
                if "state" in step:
                    state = step["state"]
                    continue
                chances = step["chances"]
            weights = [c["probability"] for c in chances]
            state = rng.choices(chances, weights)[0]["state"]
    writer.close()
    return found


# -- the load client (a process of its own) -----------------------------------------------


async def load(port: int, pool: list[str], clients: int, seconds: float, first: int) -> dict:
    """``clients`` closed-loop clients for ``seconds``: latencies and errors."""
    requests = [http(port, OPTIONS, {"situation": s}) for s in pool]
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def client(k: int) -> None:
        nonlocal errors
        rng = random.Random(k)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        while time.perf_counter() < stop:
            raw = rng.choice(requests)
            t0 = time.perf_counter()
            status, _ = await exchange(reader, writer, raw)
            latencies.append(time.perf_counter() - t0)
            errors += status != 200
        writer.close()

    t0 = time.perf_counter()
    await asyncio.gather(*(client(first + k) for k in range(clients)))
    return {"latencies": latencies, "errors": errors, "wall": time.perf_counter() - t0}


def client_main(argv: list[str]) -> None:
    """``--client PORT CLIENTS FIRST SECONDS POOL OUT``: run clients, write their results."""
    port, clients, first, seconds, pool_file, out = argv
    pool = json.loads(Path(pool_file).read_text())
    result = asyncio.run(load(int(port), pool, int(clients), float(seconds), int(first)))
    t = os.times()
    result["cpu"] = t.user + t.system
    Path(out).write_text(json.dumps(result))


# -- the driver ---------------------------------------------------------------------------


def tree(pid: int) -> list[int]:
    """A process and its children (the server's workers)."""
    found = [pid]
    for task in Path(f"/proc/{pid}/task").iterdir():
        children = (task / "children").read_text().split()
        found.extend(c for child in children for c in tree(int(child)))
    return found


def memory(pid: int) -> tuple[float, float]:
    """``(RSS summed, PSS summed)`` over a process tree, in MiB."""
    rss = pss = 0
    for p in tree(pid):
        for line in Path(f"/proc/{p}/smaps_rollup").read_text().splitlines():
            key, _, rest = line.partition(":")
            if key in ("Rss", "Pss"):
                kib = int(rest.split()[0])
                rss, pss = (rss + kib, pss) if key == "Rss" else (rss, pss + kib)
    return rss / 1024, pss / 1024


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process tree has used, in seconds."""
    total = 0
    for p in tree(pid):
        fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def export(rev: str) -> Path:
    """The ``src`` folder of git revision ``rev``, in a temporary folder."""
    folder = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    archive = subprocess.run(
        ["git", "archive", rev, "src"], cwd=common.ROOT, check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    return folder / "src"


def measure(name: str, src: Path, extra: list[str], args, table: Path, cores) -> dict:
    """Start a server from ``src`` and load it with one client, then ``args.clients``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(src), os.environ.get("PYTHONPATH", "")]))
    server = subprocess.Popen(
        [*common.PERFECTPLAY, "serve", "--only", "--no-browser", "--load", str(table), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=common.ROOT,
        env=env, preexec_fn=(lambda: os.sched_setaffinity(0, cores[0])) if cores else None,
    )  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="bench-serve-"))
    try:
        line = server.stdout.readline() if server.stdout else ""
        port = int(line.split()[2].rstrip("/").rsplit(":", 1)[1])
        time.sleep(1.0)  # the workers start
        pool = asyncio.run(situations(port, args.games, seed=1))
        (work / "pool.json").write_text(json.dumps(pool))
        before = memory(server.pid)
        phases = []
        for clients, seconds in [(1, min(5.0, args.seconds)), (args.clients, args.seconds)]:
            cpu0 = cpu_seconds(server.pid)
            procs = min(args.client_processes, clients)
            share = [clients // procs + (k < clients % procs) for k in range(procs)]
            runs = []
            for k, n in enumerate(share):
                out = work / f"client-{clients}-{k}.json"
                first = str(sum(share[:k]))
                pool_file = str(work / "pool.json")
                cmd = [sys.executable, __file__, "--client", str(port), str(n), first,
                       str(seconds), pool_file, str(out)]  # fmt: skip
                pin = (lambda: os.sched_setaffinity(0, cores[1])) if cores else None
                runs.append((subprocess.Popen(cmd, preexec_fn=pin), out))
            results = []
            for proc, out in runs:
                proc.wait()
                results.append(json.loads(out.read_text()))
            phases.append({
                "clients": clients,
                "wall": max(r["wall"] for r in results),
                "latencies": [x for r in results for x in r["latencies"]],
                "errors": sum(r["errors"] for r in results),
                "server_cpu": cpu_seconds(server.pid) - cpu0,
                "client_cpu": sum(r["cpu"] for r in results),
            })  # fmt: skip
        after = memory(server.pid)
    finally:
        server.terminate()
        server.wait(30)
    return {"name": name, "pool": len(pool), "phases": phases, "memory": (before, after)}


def report(run: dict) -> None:
    before, after = run["memory"]
    print(f"{run['name']}:")
    for ph in run["phases"]:
        ms = sorted(1000 * x for x in ph["latencies"])
        n, wall = len(ms), ph["wall"]
        p99 = ms[min(n - 1, int(0.99 * n))]
        print(f"  {ph['clients']:>3} client{'s' if ph['clients'] > 1 else ' '} for {wall:4.1f} s: "
              f"{n:>7,} requests, {ph['errors']} errors, {n / wall:6.0f} requests/s; "
              f"median {statistics.median(ms):7.2f} ms, p99 {p99:7.2f} ms, max {ms[-1]:7.1f} ms; "
              f"CPU a request: server {1000 * ph['server_cpu'] / max(1, n):.3f} ms, "
              f"client {1000 * ph['client_cpu'] / max(1, n):.3f} ms")  # fmt: skip
    print(f"  server memory: RSS summed {before[0]:.0f} MiB before the load, {after[0]:.0f} MiB "
          f"after; PSS summed {before[1]:.0f} MiB, {after[1]:.0f} MiB")  # fmt: skip


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--client":
        client_main(sys.argv[2:])
        return
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--games", type=int, default=20, help="random games that give the situations")
    p.add_argument("--table", type=Path, help="a saved American table (else solved once)")
    p.add_argument("--workers", help="the server's --workers, or several: 1,2 (default: its own)")
    p.add_argument("--client-processes", type=int, default=1, help="processes of the client")
    p.add_argument("--before", metavar="REV", help="also measure the server of git revision REV")
    p.add_argument("--cores", type=int, help="the first N cores serve, the others run the client")
    args = p.parse_args()
    table = american_table(args.table)
    cores = None
    if args.cores:
        every = sorted(os.sched_getaffinity(0))
        if not 0 < args.cores < len(every):
            p.error(f"--cores: 1..{len(every) - 1} on this machine")
        cores = (set(every[: args.cores]), set(every[args.cores :]))
    here = common.ROOT / "src"
    runs = []
    if args.before:
        runs.append(measure(f"before ({args.before})", export(args.before), [], args, table, cores))
    for workers in args.workers.split(",") if args.workers else [None]:
        extra = ["--workers", workers] if workers else []
        name = f"after (this tree{', --workers ' + workers if workers else ''})"
        runs.append(measure(name, here, extra, args, table, cores))
    split = (
        f"the server on {len(cores[0])}, the client on {len(cores[1])}"
        if cores
        else "shared by the server and the client"
    )
    load_average = Path("/proc/loadavg").read_text().split()[0]
    print(f"perfectplay serve, {GAME} from a loaded table: {runs[-1]['pool']} situations from "
          f"{args.games} random games; {os.cpu_count()} cores, {split}; load average "
          f"{load_average} at the end")  # fmt: skip
    for run in runs:
        report(run)
    print("(the issue's aim: median under 5 ms and p99 under 50 ms)")


if __name__ == "__main__":
    main()
