"""Load on ``perfectplay serve`` (issue 22): concurrent clients asking for the options of
random Yahtzee situations against a loaded American table.

The server runs as a person starts it (``perfectplay serve --only --load TABLE``, a child
process); the table is solved once and kept in the benchmark cache. Situations come from
random games played through the server's own API first (realistic cards, scores known).
Then ``--clients`` clients (100) each keep one HTTP/1.1 connection and ask, one request
after the other, for ``POST /api/games/yahtzee-american/options`` of a random situation
for ``--seconds`` (30). Reported: requests, errors (any status but 200), throughput, the
median and 99th-percentile latency (the issue's aim: under 5 ms and 50 ms) and the
server's resident memory (now and its peak, from ``/proc``).

Not a timed test: a load figure for the record.

    python benchmarks/bench_serve.py [--clients 100] [--seconds 30] [--table PATH]
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
import time
from pathlib import Path

import common

GAME = "yahtzee-american"


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


async def request(reader, writer, port: int, path: str, body: dict | None) -> tuple[int, bytes]:
    """One request on a kept connection: ``(status, body)``."""
    data = json.dumps(body).encode() if body is not None else b""
    method = "POST" if body is not None else "GET"
    writer.write(
        f"{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
        + data
    )
    await writer.drain()
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
            status, raw = await request(reader, writer, port, f"{api}/options", {"state": state})
            pos = json.loads(raw)
            if status != 200 or pos["over"]:
                break
            if "chances" in pos:
                chances = pos["chances"]
            else:
                found.append(pos["state"])
                action = rng.choice(pos["options"])["action"]
                body = {"state": state, "action": action}
                _, raw = await request(reader, writer, port, f"{api}/apply", body)
                step = json.loads(raw)
                if "state" in step:
                    state = step["state"]
                    continue
                chances = step["chances"]
            weights = [c["probability"] for c in chances]
            state = rng.choices(chances, weights)[0]["state"]
    writer.close()
    return found


async def load(port: int, pool: list[str], clients: int, seconds: float) -> tuple[list, int]:
    latencies: list[float] = []
    errors = 0
    stop = time.perf_counter() + seconds

    async def client(k: int) -> None:
        nonlocal errors
        rng = random.Random(k)
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        path = f"/api/games/{GAME}/options"
        while time.perf_counter() < stop:
            t0 = time.perf_counter()
            status, _ = await request(reader, writer, port, path, {"situation": rng.choice(pool)})
            latencies.append(time.perf_counter() - t0)
            errors += status != 200
        writer.close()

    await asyncio.gather(*(client(k) for k in range(clients)))
    return latencies, errors


def memory(pid: int) -> tuple[float, float]:
    """``(resident, peak resident)`` of a process, in MiB."""
    fields = dict(
        line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines()
    )
    return tuple(int(fields[k].split()[0]) / 1024 for k in ("VmRSS", "VmHWM"))  # type: ignore[return-value]


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used, in seconds."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--games", type=int, default=20, help="random games that give the situations")
    p.add_argument("--table", type=Path, help="a saved American table (else solved once)")
    args = p.parse_args()
    table = american_table(args.table)
    server = subprocess.Popen(
        [*common.PERFECTPLAY, "serve", "--only", "--no-browser", "--load", str(table)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, cwd=common.ROOT,
    )  # fmt: skip
    try:
        line = server.stdout.readline() if server.stdout else ""
        port = int(line.split()[2].rstrip("/").rsplit(":", 1)[1])
        pool = asyncio.run(situations(port, args.games, seed=1))
        before = memory(server.pid)
        # One client first: the time a request takes when nothing queues before it.
        phases = [(1, min(5.0, args.seconds)), (args.clients, args.seconds)]
        results = []
        for clients, seconds in phases:
            t0, cpu0 = time.perf_counter(), cpu_seconds(server.pid)
            latencies, errors = asyncio.run(load(port, pool, clients, seconds))
            cpu = cpu_seconds(server.pid) - cpu0
            results.append((clients, time.perf_counter() - t0, latencies, errors, cpu))
        after = memory(server.pid)
    finally:
        server.terminate()
        server.wait(20)
    print(f"perfectplay serve, {GAME} from a loaded table: {len(pool)} situations from "
          f"{args.games} random games")  # fmt: skip
    for clients, wall, latencies, errors, cpu in results:
        ms = sorted(1000 * x for x in latencies)
        p99 = ms[min(len(ms) - 1, int(0.99 * len(ms)))]
        print(f"  {clients} client{'s' if clients > 1 else ''} for {wall:.1f} s: {len(ms)} "
              f"requests, {errors} errors, {len(ms) / wall:.0f} requests/s; latency median "
              f"{statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, max {ms[-1]:.2f} ms; server "
              f"CPU {1000 * cpu / max(1, len(ms)):.2f} ms a request")  # fmt: skip
    print("  (the issue's aim: median under 5 ms and p99 under 50 ms; the machine's load average")
    print(f"  was {Path('/proc/loadavg').read_text().split()[0]} on {os.cpu_count()} cores)")
    print(f"  server memory: {before[0]:.0f} MiB before the load, {after[0]:.0f} MiB after, "
          f"peak {after[1]:.0f} MiB")  # fmt: skip


if __name__ == "__main__":
    main()
