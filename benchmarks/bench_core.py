"""The chance-graph core on Alea-sized graphs, without any game code in the way.

The graphs are built here directly from the problem's plain state space (no symmetry
merging, so the size is the worst case): ``6**d`` full rolls as decision nodes plus a start
node, one chance node per partial roll with at least one die to reroll (``7**d - 6**d``),
every full roll choosing any non-empty set of dice to reroll. For d = 6: 46,657 decision
nodes, 70,993 chance nodes, 2.9 million choice and 2.9 million outcome edges.

Cases: ``random`` (random dice over A-Z0-9 and 200,000 random words: few goals, the
longest label-setting), ``small-alphabet`` (8 symbols: most rolls are goals), ``one-word``
(a single spellable word).

Figures, each in a fresh process so that JIT loading counts where it would for a user:
``solve_retry`` warm (target well under 0.2 s), ``exact_solution`` time and peak memory
(target at most 28 s and 1.8 GB, half of a general exact model checker), the distribution
up to k = 100, 10^5 simulated runs, and the first-run compile time of every kernel with an
empty numba cache.

``solve_ssp`` (graphs without the retry property) runs on graphs of its own: a race
to square 100,000 with a d4 or a d6 to choose on every square and "overshoot means
staying put" (300,001 nodes, 1.2 million edges, a policy graph without cycles: linear
time); rings of 2,000, 5,000 and 50,000 rolls that each go on or send the token back to
the start (one strongly connected component each: a sparse LU; the 2,000-roll ring was a
dense LU of 2,000 x 2,000 before); a wide 2,000-roll cycle with random jumps (a dense
LU). ``exact_solution`` on the 5,000-roll ring and on a 50,000-roll ring whose rolls go
on or finish.

    python benchmarks/run.py core
    python benchmarks/bench_core.py random exact   # one case, one figure, in this process
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import common  # noqa: E402
from common import ROOT, Row  # noqa: E402

SYMBOLS = np.frombuffer(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", np.uint8)
CASES = ("random", "small-alphabet", "one-word")


def alea_graph(dice: np.ndarray, words: np.ndarray):
    """Plain Alea chance graph: ``dice`` is ``uint8[d, 6]``, ``words`` is ``uint8[w, d]``."""
    from perfectplay.graphs.chance import ChanceGraph

    d = dice.shape[0]
    n_full = 6**d
    digits = (np.arange(n_full)[:, None] // 6 ** np.arange(d)) % 6  # [roll, die]
    letters = np.sort(dice[np.arange(d), digits], axis=1)
    pack = 256 ** np.arange(d, dtype=np.int64)
    roll_key = letters.astype(np.int64) @ pack
    word_key = np.sort(words, axis=1).astype(np.int64) @ pack
    goal = np.zeros(n_full + 1, bool)
    goal[:n_full] = np.isin(roll_key, word_key)

    masks = np.arange(1, 2**d)
    bits = (masks[:, None] >> np.arange(d)) & 1  # [mask, die]
    p7 = 7 ** np.arange(d)
    fixed_code = digits @ p7
    codes = fixed_code[:, None] + ((6 - digits)[:, None, :] * bits[None]) @ p7  # [roll, mask]
    code_to_chance = np.full(7**d, -1, np.int64)
    used = np.unique(codes)
    code_to_chance[used] = np.arange(used.size)
    chance = code_to_chance[codes].astype(np.int32)  # [roll, mask]

    n_chance = used.size
    choice_ptr = np.zeros(n_full + 2, np.int64)
    choice_ptr[1 : n_full + 1] = np.cumsum(np.full(n_full, masks.size))
    choice_ptr[n_full + 1] = choice_ptr[n_full] + 1
    all_star = code_to_chance[6 * p7.sum()]
    choice_idx = np.concatenate([chance.ravel(), [all_star]]).astype(np.int32)
    # Outcomes are the choice edges read the other way round (every extension weighs 1).
    flat = chance.ravel()
    order = np.argsort(flat, kind="stable")
    outcome_idx = (order // masks.size).astype(np.int32)
    outcome_ptr = np.zeros(n_chance + 1, np.int64)
    outcome_ptr[1:] = np.cumsum(np.bincount(flat, minlength=n_chance))
    g = ChanceGraph(
        terminal=goal,
        choice_ptr=choice_ptr,
        choice_idx=choice_idx,
        outcome_ptr=outcome_ptr,
        outcome_idx=outcome_idx,
        outcome_weight=np.ones(outcome_idx.size, np.int64),
        cost=np.ones(n_chance, np.int64),
        start=n_full,
    )
    return g


def make_case(name: str, d: int = 6, w: int = 200_000, seed: int = 1):
    rng = np.random.default_rng(seed)
    if name == "random":
        dice = np.stack([rng.choice(SYMBOLS, 6, replace=False) for _ in range(d)])
        words = rng.choice(SYMBOLS, (w, d))
    elif name == "small-alphabet":
        dice = np.stack([rng.choice(SYMBOLS[:8], 6, replace=False) for _ in range(d)])
        words = rng.choice(SYMBOLS[:8], (w, d))
    elif name == "one-word":
        dice = np.stack([rng.choice(SYMBOLS[:30], 6, replace=False) for _ in range(d)])
        words = rng.choice(SYMBOLS[30:], (w, d))  # symbols no die has
        words[0] = dice[np.arange(d), rng.integers(0, 6, d)]
    else:
        raise ValueError(name)
    return alea_graph(dice, words)


def race_graph(n: int, faces: tuple[int, ...] = (4, 6)):
    """Squares 0..n (n the goal); on each square a choice of dice; past n: stay put."""
    from perfectplay.graphs.chance import ChanceGraph

    k = len(faces)
    f = np.tile(np.asarray(faces, np.int64), n)  # faces of each roll, square by square
    square = np.repeat(np.arange(n, dtype=np.int64), k)
    outcome_ptr = np.concatenate([[0], np.cumsum(f)])
    owner = np.repeat(np.arange(n * k), f)
    d = np.arange(outcome_ptr[-1]) - outcome_ptr[owner] + 1
    to = square[owner] + d
    to[to > n] = square[owner][to > n]
    goal = np.zeros(n + 1, bool)
    goal[n] = True
    return ChanceGraph(
        terminal=goal,
        choice_ptr=np.concatenate([np.arange(0, n * k + 1, k), [n * k]]).astype(np.int64),
        choice_idx=np.arange(n * k, dtype=np.int32),
        outcome_ptr=outcome_ptr.astype(np.int64),
        outcome_idx=to.astype(np.int32),
        outcome_weight=np.ones(to.size, np.int64),
        cost=np.ones(n * k, np.int64),
        start=0,
    )


def ring_graph(n: int):
    """n rolls in a row, each on to the next (weight 999) or back to the start (1)."""
    from perfectplay.graphs.chance import ChanceGraph

    goal = np.zeros(n + 1, bool)
    goal[n] = True
    nxt = np.arange(1, n + 1)
    return ChanceGraph(
        terminal=goal,
        choice_ptr=np.concatenate([np.arange(n + 1), [n]]).astype(np.int64),
        choice_idx=np.arange(n, dtype=np.int32),
        outcome_ptr=np.arange(0, 2 * n + 1, 2, dtype=np.int64),
        outcome_idx=np.stack([nxt, np.zeros(n, np.int64)], axis=1).ravel().astype(np.int32),
        outcome_weight=np.tile(np.array([999, 1], np.int64), n),
        cost=np.ones(n, np.int64),
        start=0,
    )


def exit_ring_graph(n: int):
    """n rolls in a ring, each on to the next or to the goal (weights 1:1): V = 2 everywhere,
    so the exact values stay short although the elimination meets 2**-n."""
    from perfectplay.graphs.chance import ChanceGraph

    goal = np.zeros(n + 1, bool)
    goal[n] = True
    nxt = (np.arange(n) + 1) % n
    return ChanceGraph(
        terminal=goal,
        choice_ptr=np.concatenate([np.arange(n + 1), [n]]).astype(np.int64),
        choice_idx=np.arange(n, dtype=np.int32),
        outcome_ptr=np.arange(0, 2 * n + 1, 2, dtype=np.int64),
        outcome_idx=np.stack([nxt, np.full(n, n)], axis=1).ravel().astype(np.int32),
        outcome_weight=np.ones(2 * n, np.int64),
        cost=np.ones(n, np.int64),
        start=0,
    )


def wide_graph(n: int, seed: int = 1):
    """A ring of n rolls with two random jumps per roll and an exit (weights 1, 1, 1, 3):
    no narrow order exists, so one dense LU of n x n per evaluation."""
    from perfectplay.graphs.chance import ChanceGraph

    rng = np.random.default_rng(seed)
    goal = np.zeros(n + 1, bool)
    goal[n] = True
    to = np.stack([(np.arange(n) + 1) % n, rng.integers(0, n, n), rng.integers(0, n, n),
                   np.full(n, n)], axis=1)  # fmt: skip
    return ChanceGraph(
        terminal=goal,
        choice_ptr=np.concatenate([np.arange(n + 1), [n]]).astype(np.int64),
        choice_idx=np.arange(n, dtype=np.int32),
        outcome_ptr=np.arange(0, 4 * n + 1, 4, dtype=np.int64),
        outcome_idx=to.ravel().astype(np.int32),
        outcome_weight=np.tile(np.array([1, 1, 1, 3], np.int64), n),
        cost=np.ones(n, np.int64),
        start=0,
    )


#: Cycle cases of solve_ssp (and exact_solution).
CYCLES = {
    "ssp-wide": lambda: wide_graph(2000),
    "ssp-ring": lambda: ring_graph(2000),
    "ssp-ring5000": lambda: ring_graph(5000),
    "ssp-ring50000": lambda: ring_graph(50_000),
    "ssp-exit50000": lambda: exit_ring_graph(50_000),
}


def ssp_figures(case: str, exact: bool = False) -> dict:
    """solve_ssp on ``race`` or a ring: first call (with JIT loading) and warm median;
    with ``exact``, exact_solution's time; peak RSS of the process (MiB)."""
    import resource

    from perfectplay.analysis.exact import exact_solution
    from perfectplay.solvers.policy_iteration import solve_ssp

    g = race_graph(100_000) if case == "ssp-race" else CYCLES[case]()
    t0 = time.perf_counter()
    sol = solve_ssp(g, progress=False)
    out: dict = {"first": time.perf_counter() - t0, "value": sol.value}
    walls = []
    for _ in range(5):
        t0 = time.perf_counter()
        solve_ssp(g, progress=False)
        walls.append(time.perf_counter() - t0)
    out["warm"] = sorted(walls)[len(walls) // 2]
    out["nodes"] = [g.n_decision, g.n_chance]
    out["edges"] = g.n_edges
    if exact:
        sol = solve_ssp(g, progress=False)
        t0 = time.perf_counter()
        ex = exact_solution(g, sol)
        out["exact"] = time.perf_counter() - t0
        out["exact_bits"] = ex.value.denominator.bit_length()
        out["exact_error"] = abs(float(ex.value) - sol.value) / abs(float(ex.value))
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def first_calls() -> dict:
    """Seconds of the first call of each public function on a tiny graph (JIT load or
    compile), in call order; run in a fresh process."""
    t_start = time.perf_counter()
    from perfectplay.analysis.distribution import cost_distribution
    from perfectplay.analysis.exact import exact_solution
    from perfectplay.analysis.simulate import simulate
    from perfectplay.graphs.chance import ChanceGraph
    from perfectplay.solvers.policy_iteration import solve_ssp
    from perfectplay.solvers.retry import solve_retry

    g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 5)]])
    out = {}
    t0 = time.perf_counter()
    sol = solve_retry(g, compiled=True)  # the compiled path, whatever the size
    out["solve_retry"] = time.perf_counter() - t0
    for name, call in (
        ("exact_solution", lambda: exact_solution(g, sol)),
        ("cost_distribution", lambda: cost_distribution(g, sol, 5)),
        ("simulate", lambda: simulate(g, sol, 5, 1)),
        ("solve_ssp", lambda: solve_ssp(g, compiled=True)),
    ):
        t0 = time.perf_counter()
        call()
        out[name] = time.perf_counter() - t0
    out["process"] = time.perf_counter() - t_start
    return out


def measure(case: str, what: str) -> dict:
    """Run one figure in this process; return timings (seconds) and peak RSS (MiB)."""
    import resource

    if what == "first":
        return first_calls()
    if what in ("ssp", "ssp-exact"):
        return ssp_figures(case, exact=what == "ssp-exact")

    from perfectplay.analysis.distribution import cost_distribution
    from perfectplay.analysis.exact import exact_solution
    from perfectplay.analysis.simulate import simulate
    from perfectplay.solvers.retry import solve_retry

    g = make_case(case)
    out: dict = {"nodes": [g.n_decision, g.n_chance], "edges": g.n_edges}
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    t0 = time.perf_counter()
    sol = solve_retry(g)
    out["solve_first"] = time.perf_counter() - t0
    walls = []
    for _ in range(5):
        t0 = time.perf_counter()
        sol = solve_retry(g)
        walls.append(time.perf_counter() - t0)
    out["solve_warm"] = sorted(walls)[len(walls) // 2]
    out["value"] = sol.value
    if what == "exact":
        t0 = time.perf_counter()
        ex = exact_solution(g, sol)
        out["exact"] = time.perf_counter() - t0
        v = ex.value
        out["exact_digits"] = len(str(v.denominator)) if v is not None else 0
    elif what == "distribution":
        t0 = time.perf_counter()
        cdf = cost_distribution(g, sol, 100)
        out["distribution"] = time.perf_counter() - t0
        out["p100"] = float(cdf[-1])
    elif what == "simulate":
        t0 = time.perf_counter()
        costs = simulate(g, sol, 100_000, 1)
        out["simulate"] = time.perf_counter() - t0
        out["mean"] = float(costs.mean())
    out["graph_mib"] = base
    out["peak_mib"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _child(case: str, what: str, env: dict | None = None, repeats: int = 1):
    """``(figures, process)``: the in-process figures of the last of ``repeats`` fresh
    processes running ``measure(case, what)``, and the timing of those whole processes."""
    t = common.python_child([str(Path(__file__)), case, what], repeats, env=env, cwd=ROOT)
    return json.loads(t.outputs[-1].decode().strip().splitlines()[-1]), t


def run(quick: bool) -> list[Row]:
    rows: list[Row] = []
    repeats = 1 if quick else 3
    cache = Path(tempfile.mkdtemp(prefix="perfectplay-numba-"))
    try:
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
        cold, cold_t = _child("tiny", "first", env)
        warm, warm_t = _child("tiny", "first", env, repeats)
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    first_process = f"{cold_t.median:.2f} s / {warm_t.median:.2f} s"
    for name in ("solve_retry", "exact_solution", "cost_distribution", "simulate", "solve_ssp"):
        rows.append(
            Row(
                "core",
                f"first call of {name}: empty JIT cache / cached",
                f"{cold[name]:.2f} s / {warm[name]:.3f} s",
                target="all kernels < 10 s" if name == "solve_retry" else "",
                process=first_process,
            )
        )
    rows.append(
        Row(
            "core",
            "all kernels, in the process (imports included): empty JIT cache / cached",
            f"{cold['process']:.2f} s / {warm['process']:.2f} s",
            target="< 10 s",
            process=first_process,
        )
    )
    for case, label in (
        ("ssp-race", "race to square 100,000, d4 or d6, no retry"),
        ("ssp-ring", "one cycle of 2,000 rolls (sparse LU; a dense LU before)"),
        ("ssp-wide", "one wide cycle of 2,000 rolls (dense LU)"),
        ("ssp-ring5000", "one cycle of 5,000 rolls (sparse LU)"),
        ("ssp-ring50000", "one cycle of 50,000 rolls (sparse LU)"),
    ):
        r, t = _child(case, "ssp", repeats=repeats)
        size = f"{r['nodes'][0]:,}+{r['nodes'][1]:,} nodes, {r['edges']:,} edges"
        rows.append(
            Row(
                "core",
                f"solve_ssp first call / warm, {label} ({size})",
                f"{r['first'] * 1000:.0f} ms / {r['warm'] * 1000:.0f} ms, "
                f"peak {r['peak_mib']:.0f} MiB",
                process=f"{t} (build, 7 solves)",
            )
        )
    # Exact cycles: every value of the 5,000-roll ring has a ~50,000-bit denominator (the
    # lowest terms' gcds dominate); the 50,000-roll ring of exits is worth 2 everywhere.
    for case, label in (
        ("ssp-ring5000", "one cycle of 5,000 rolls, ~50,000-bit values"),
        ("ssp-exit50000", "one cycle of 50,000 rolls, values 2"),
    ):
        if quick and case == "ssp-ring5000":
            continue
        r, t = _child(case, "ssp-exact")
        rows.append(
            Row(
                "core",
                f"exact_solution, {label}",
                f"{r['exact']:.1f} s, peak {r['peak_mib']:.0f} MiB "
                f"(float relative error {r['exact_error']:.1e})",
                process=f"{t.median:.1f} s (build, 7 solves, exact)",
            )
        )
    for case in CASES[:1] if quick else CASES:
        r, t = _child(case, "exact")
        size = f"{r['nodes'][0]:,}+{r['nodes'][1]:,} nodes, {r['edges']:,} edges"
        rows.append(
            Row(
                "core",
                f"solve_retry warm, {case} ({size})",
                f"{r['solve_warm'] * 1000:.0f} ms",
                target="well under 200 ms",
                process=f"{t.median:.1f} s (build, 6 solves, exact)",
            )
        )
        rows.append(
            Row(
                "core",
                f"exact_solution, {case}",
                f"{r['exact']:.1f} s, peak {r['peak_mib']:.0f} MiB "
                f"({r['exact_digits']}-digit denominator)",
                target="<= 28 s, <= 1.8 GB",
                process=f"{t.median:.1f} s (build, 6 solves, exact)",
            )
        )
        if not quick:
            r, t = _child(case, "distribution")
            rows.append(
                Row(
                    "core",
                    f"cost_distribution k <= 100, {case}",
                    f"{r['distribution'] * 1000:.0f} ms",
                    process=f"{t.median:.1f} s (build, 6 solves, distribution)",
                )
            )
            r, t = _child(case, "simulate")
            rows.append(
                Row(
                    "core",
                    f"simulate 10^5 runs, {case}",
                    f"{r['simulate'] * 1000:.0f} ms",
                    process=f"{t.median:.1f} s (build, 6 solves, simulation)",
                )
            )
    return rows


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1], sys.argv[2])))
