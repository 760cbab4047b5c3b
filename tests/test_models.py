"""The modelling API: examples against published numbers, random models against brute force."""

from __future__ import annotations

import itertools
import math
import random
import re
from fractions import Fraction

import numpy as np
import pytest

from perfectplay.errors import ModelError
from perfectplay.examples.chutes_ladders import ALTHOEN_1993, ChutesAndLadders
from perfectplay.examples.dodgem import Dodgem
from perfectplay.examples.five_dice import FiveDice
from perfectplay.examples.tictactoe import TicTacToe
from perfectplay.graphs.game import Outcome
from perfectplay.models import (
    ChanceModel,
    GameModel,
    UnknownStateError,
    load_solution,
    model_kind,
    solve_model,
)
from perfectplay.models.game import Result

INF = math.inf


def close(a: float, b: float, rel: float = 1e-9) -> bool:
    if a == INF or b == INF:
        return a == b
    return abs(a - b) <= rel * max(1.0, abs(b))


# -- the examples, each against a number computed elsewhere --------------------------------


def test_five_dice_expected_rolls_is_the_known_fraction():
    sol = solve_model(FiveDice(), progress=False)
    assert sol.solver == "label-setting" and sol.exploration.retry
    assert sol.exact_value() == Fraction(191283, 17248)
    assert close(sol.start_value, 191283 / 17248, 1e-12)
    assert sol.best((1, 3, 3, 3, 6)) == [(3, 3, 3)]


def test_chutes_and_ladders_matches_althoen_king_schilling():
    sol = solve_model(ChutesAndLadders(), progress=False)
    assert sol.solver == "policy-iteration" and not sol.exploration.retry
    assert sol.exact_value() == ALTHOEN_1993
    assert close(sol.start_value, float(ALTHOEN_1993), 1e-11)
    # landing on a ladder's foot is never a state: the token climbs at once
    with pytest.raises(UnknownStateError):
        sol.value(1)


class Race(ChanceModel):
    """A race to square ``n``: on each square throw a d4 or a d6; a throw past ``n`` stays
    put (so a roll cannot be retried from where it lands: no retry property)."""

    start = 0

    def __init__(self, n: int) -> None:
        self.n = n

    def is_goal(self, s):
        return s == self.n

    def choices(self, s):
        return [(s, 4), (s, 6)]

    def roll(self, pending):
        s, faces = pending
        return [(s + d if s + d <= self.n else s, 1) for d in range(1, faces + 1)]


def test_a_3000_square_race_without_retry_is_solved():
    # More rolls than the whole-graph dense solver used to accept (2,000): the policy
    # graph has no cycle, so solve_ssp needs no linear solve at all.
    sol = solve_model(Race(3000), progress=False)
    assert sol.solver == "policy-iteration" and sol.n_rolls == 6000
    # By hand: with an f-sided die on square s, k = min(f, n - s) faces move on and the
    # others stay, so v = 1 + (sum of v(s + d), d <= k) / f + (f - k) / f * v, that is
    # v(s) = (f + sum of v(s + d)) / k, the better die taken, from the goal backwards.
    n = 3000
    v = [0.0] * (n + 1)
    for s in range(n - 1, -1, -1):
        v[s] = min(
            (f + sum(v[s + d] for d in range(1, min(f, n - s) + 1))) / min(f, n - s) for f in (4, 6)
        )
    for s in (0, 1500, n - 7, n - 2, n - 1):
        assert close(sol.value(s), v[s], 1e-9), s
    assert sol.value(n - 1) == pytest.approx(4.0) and sol.best(n - 1) == [(n - 1, 4)]


def test_tictactoe_is_a_tie_in_nine():
    sol = solve_model(TicTacToe(), progress=False)
    assert sol.start_value == Result(Outcome.TIE, 9)
    assert sol.n_positions == 5478  # every legal position
    assert sol.best_moves("X........") == [4]
    assert sol.value("XX.OO....") == Result(Outcome.WIN, 1)
    assert sol.value("XXXOO....") == Result(Outcome.LOSE, 0)
    sym = solve_model(TicTacToe(symmetry=True), progress=False)
    assert sym.n_positions == 765 and sym.start_value == Result(Outcome.TIE, 9)
    for board in sol.exploration.reps[::37]:
        assert sym.value(board) == sol.value(board)


def test_dodgem_3x3_is_a_first_player_win():
    sol = solve_model(Dodgem(3), progress=False)
    assert sol.start_value == Result(Outcome.WIN, 19)
    assert sol.solution.method == "loopy"
    start = sol.exploration.reps[0]
    assert sol.best_moves(start) == [((0, 2), "E")]


@pytest.mark.slow
def test_dodgem_4x4_is_a_draw():
    # desJardins (1996): with perfect play neither side gets all cars off the 4x4 board.
    sol = solve_model(Dodgem(4), progress=False)
    assert sol.start_value == Result(Outcome.DRAW, None)
    counts = sol.counts()
    assert counts[Outcome.DRAW] > 0 and counts[Outcome.WIN] > 0 and counts[Outcome.LOSE] > 0
    assert all(
        m.value.value in (Outcome.DRAW, Outcome.LOSE) for m in sol.moves(sol.exploration.reps[0])
    )


# -- Alea Iacta Est as a user model, against an independent dense policy iteration ----------


class AleaModel(ChanceModel):
    """Alea Iacta Est written the way a user would: positional dice, keep any subset.

    A state is the tuple of symbols showing (die by die); a choice is that tuple with
    ``None`` for the dice rolled again. Identical dice are interchangeable, so the
    canonical form sorts (die class, symbol) pairs.
    """

    def __init__(self, dice: list[str], words: list[str]):
        self.dice = dice
        self.words = {tuple(sorted(w)) for w in words}
        classes = {}
        self.die_class = [classes.setdefault("".join(sorted(d)), len(classes)) for d in dice]

    def start(self):
        return (None,) * len(self.dice)

    def is_goal(self, state):
        return None not in state and tuple(sorted(state)) in self.words

    def choices(self, state):
        if None in state:
            return [state]  # the start: roll everything
        d = len(state)
        return [
            tuple(s if mask >> i & 1 else None for i, s in enumerate(state))
            for mask in range(2**d - 1)
        ]

    def roll(self, pending):
        faces = [self.dice[i] if s is None else s for i, s in enumerate(pending)]
        return [(state, 1) for state in itertools.product(*faces)]

    def canonical(self, state):
        return tuple(sorted(zip(self.die_class, (s or "" for s in state), strict=True)))

    canonical_choice = canonical


def alea_brute_force(dice: list[str], words: list[str]) -> tuple[float, dict]:
    """Expected rolls by policy iteration over all ordered rolls (face indices, no symmetry)."""
    d = len(dice)
    rolls = list(itertools.product(range(6), repeat=d))
    n = len(rolls)
    target = {tuple(sorted(w)) for w in words}
    goal = np.array([tuple(sorted(dice[i][f] for i, f in enumerate(r))) in target for r in rolls])
    if not goal.any():
        return INF, {}
    arr = np.array(rolls)
    masks = range(2**d - 1)  # dice kept; keeping all is never useful
    trans = []
    for mask in masks:
        keep = [i for i in range(d) if mask >> i & 1]
        agree = np.ones((n, n), bool)
        for i in keep:
            agree &= arr[:, None, i] == arr[None, :, i]
        trans.append(agree / 6.0 ** (d - len(keep)))
    trans = np.array(trans)
    policy = np.zeros(n, int)  # reroll everything: proper since some roll is a goal
    for _ in range(100):
        p = trans[policy, np.arange(n)]
        p[goal] = 0.0
        a = np.eye(n) - p
        v = np.linalg.solve(a, np.where(goal, 0.0, 1.0))
        q = 1.0 + trans @ v  # q[mask, roll]
        better = q.min(axis=0) < q[policy, np.arange(n)] - 1e-12
        if not (better & ~goal).any():
            break
        policy = np.where(better & ~goal, q.argmin(axis=0), policy)
    start = 1.0 + v.mean()
    by_symbols = {tuple(dice[i][f] for i, f in enumerate(r)): v[k] for k, r in enumerate(rolls)}
    return start, by_symbols


def random_alea(rng: random.Random) -> tuple[list[str], list[str]]:
    d = rng.randint(1, 3)
    alphabet = "ABCDE"[: rng.randint(2, 5)]
    dice = ["".join(rng.choice(alphabet) for _ in range(6)) for _ in range(d)]
    if d > 1 and rng.random() < 0.3:
        dice[1] = "".join(rng.sample(dice[0], 6))  # identical dice, listed differently
    pool = ["".join(w) for w in itertools.product(alphabet, repeat=d)]
    words = rng.sample(pool, rng.randint(1, min(4, len(pool))))
    return dice, words


def test_alea_as_a_user_model_agrees_with_brute_force():
    rng = random.Random(2023)
    impossible = 0
    for _ in range(40):
        dice, words = random_alea(rng)
        sol = solve_model(AleaModel(dice, words), progress=False)
        expected, values = alea_brute_force(dice, words)
        assert close(sol.start_value, expected, 1e-9), (dice, words)
        impossible += expected == INF
        for state, v in values.items():
            assert close(sol.value(state), v, 1e-9), (dice, words, state)
    assert 0 < impossible < 40


def test_alea_sample_through_the_model_api():
    # ICPC WF 2023 K, sample 1 (official answer 9.677887141)
    dice = ["ABCDEP", "AEHOXU", "AISOLR", "ABCDEF", "ABCSCC"]
    words = ["PARSE", "PAUSE", "PHASE", "POISE", "PROSE", "PULSE", "PURSE", "PEACE"]
    sol = solve_model(AleaModel(dice, words), progress=False)
    assert abs(sol.start_value - 9.677887141) < 1e-9
    # the statement's story: P X R E S, keep P, E and S (dice 1, 4 and 5)
    best = sol.best(("P", "X", "R", "E", "S"))
    assert best and all(b[0] == "P" and b[1] is None for b in best)


def test_alea_sample_3_identical_dice_merge():
    sol = solve_model(AleaModel(["123456"] * 3, ["666"]), progress=False)
    assert abs(sol.start_value - 10.555444555) < 1e-9
    # three identical dice: states are multisets of faces, 56 of them plus the start
    assert sol.n_states == 57


def test_alea_gallery_agrees_when_available():
    alea = pytest.importorskip("perfectplay.problems.alea")
    if not hasattr(alea, "solve"):
        pytest.skip("perfectplay.problems.alea.solve is not written yet")
    rng = random.Random(7)
    for _ in range(30):
        dice, words = random_alea(rng)
        ours = solve_model(AleaModel(dice, words), progress=False)
        theirs = alea.solve(dice, words)
        assert close(ours.start_value, theirs.value, 1e-9), (dice, words)
        if theirs.value < INF:
            for roll in itertools.product(*dice):
                assert close(ours.value(roll), theirs.roll_value("".join(roll)), 1e-9)


# -- random chance models against policy enumeration ----------------------------------------


class RandomChance(ChanceModel):
    """A random chance model on states 0..n-1 (optionally tagged copies merged by canonical)."""

    def __init__(self, rng: random.Random, tagged: bool):
        n = self.n = rng.randint(1, 6)
        self.goals = set(rng.sample(range(n), rng.randint(0, min(2, n))))
        n_rolls = rng.randint(2, 5)
        self.outcomes = {}
        for r in range(n_rolls):
            outs = []
            for _ in range(rng.randint(1, 4)):
                kind = rng.random()
                if kind < 0.6:
                    w = rng.randint(1, 4)
                elif kind < 0.9:
                    w = Fraction(rng.randint(1, 5), rng.randint(1, 7))
                else:
                    w = 0
                outs.append((rng.randrange(n), w))
            if all(w == 0 for _, w in outs):
                outs.append((rng.randrange(n), 1))
            self.outcomes[r] = outs
        self.costs = {r: rng.randint(1, 3) for r in range(n_rolls)}
        self.menu = {
            s: sorted(rng.sample(range(n_rolls), rng.randint(s == 0, min(3, n_rolls))))
            for s in range(n)
        }
        if rng.random() < 0.3:  # the retry property: every outcome may take its roll again
            for r, outs in self.outcomes.items():
                for s, _ in outs:
                    if s not in self.goals and r not in self.menu[s]:
                        self.menu[s].append(r)
        self.tagged = tagged
        self.start_state = (0, "a") if tagged else 0

    def start(self):
        return self.start_state

    def base(self, s):
        return s[0] if self.tagged else s

    def is_goal(self, s):
        return self.base(s) in self.goals

    def choices(self, s):
        return [("roll", r) for r in self.menu[self.base(s)]]

    def roll(self, pending):
        r = pending[1]
        if not self.tagged:
            return self.outcomes[r]
        # each outcome split in two equivalent halves, told apart only by a tag
        return [((s, t), Fraction(w) / 2) for s, w in self.outcomes[r] for t in "ab"]

    def cost(self, pending):
        return self.costs[pending[1]]

    def canonical(self, s):
        return s[0] if self.tagged else s


def policy_enumeration(m: RandomChance) -> list[float]:
    """Optimal expected cost of every state: the best of all deterministic policies."""
    n = m.n
    prob = {}
    for r, outs in m.outcomes.items():
        total = sum(Fraction(w) for _, w in outs)
        row = np.zeros(n)
        for s, w in outs:
            row[s] += float(Fraction(w) / total)
        prob[r] = row
    deciders = [s for s in range(n) if s not in m.goals and m.menu[s]]
    best = [0.0 if s in m.goals else INF for s in range(n)]
    for pick in itertools.product(*(sorted(set(m.menu[s])) for s in deciders)):
        policy = dict(zip(deciders, pick, strict=True))
        succ = {s: set(np.flatnonzero(prob[policy[s]])) for s in deciders}
        reach = set(m.goals)  # states that can reach a goal under the policy
        grew = True
        while grew:
            grew = False
            for s in deciders:
                if s not in reach and succ[s] & reach:
                    reach.add(s)
                    grew = True
        proper = []
        for s in deciders:  # proper: everything reachable from s can still reach a goal
            seen, todo = {s}, [s]
            while todo:
                x = todo.pop()
                for y in succ.get(x, ()):
                    if y not in seen:
                        seen.add(y)
                        todo.append(y)
            if seen <= reach:
                proper.append(s)
        if not proper:
            continue
        idx = {s: k for k, s in enumerate(proper)}
        a = np.eye(len(proper))
        b = np.zeros(len(proper))
        for s in proper:
            b[idx[s]] = m.costs[policy[s]]
            for y in np.flatnonzero(prob[policy[s]]):
                if y in idx:
                    a[idx[s], idx[y]] -= prob[policy[s]][y]
        v = np.linalg.solve(a, b)
        for s in proper:
            best[s] = min(best[s], v[idx[s]])
    return best


def test_random_chance_models_agree_with_policy_enumeration():
    rng = random.Random(12345)
    solvers = {"label-setting": 0, "policy-iteration": 0, "backward-induction": 0}
    finite = 0
    for k in range(300):
        m = RandomChance(rng, tagged=k % 3 == 0)
        sol = solve_model(m, progress=False)
        solvers[sol.solver] += 1
        expected = policy_enumeration(m)
        for state in sol.exploration.state_reps:
            s = m.base(state)
            assert close(sol.value(state), expected[s]), (k, state)
            if not m.is_goal(state):
                for opt in sol.options(state):
                    r = opt.choice[1]
                    q = m.costs[r] + sum(
                        float(Fraction(w) / sum(Fraction(x) for _, x in m.outcomes[r]))
                        * expected[t]
                        for t, w in m.outcomes[r]
                        if w
                    )
                    assert close(opt.value, q), (k, state, r)
        finite += sol.start_value < INF
        if k % 10 == 0 and sol.start_value < INF:
            assert close(float(sol.exact_value()), sol.start_value, 1e-9)
    assert min(solvers["label-setting"], solvers["policy-iteration"]) > 60 and 50 < finite < 290


# -- random game models against a level-by-level retrograde written here --------------------


class RandomGame(GameModel):
    def __init__(self, rng: random.Random):
        n = self.n = rng.randint(1, 8)
        self.children = [
            [rng.randrange(n) for _ in range(rng.choice([0, 1, 1, 2, 2, 3]))] for _ in range(n)
        ]
        self.result = [
            rng.choice(["win", "lose", "tie"]) if rng.random() < 0.25 else None for _ in range(n)
        ]
        self.no_moves = rng.choice(["lose", "lose", "win", "tie"])
        self.start = rng.randrange(n)

    def moves(self, p):
        return range(len(self.children[p]))

    def play(self, p, k):
        return self.children[p][k]

    def outcome(self, p):
        return self.result[p]


def levels_solver(m: RandomGame) -> list[Result]:
    """Win/lose by levels of remoteness, then ties by distance, then draws."""
    n = m.n
    term = [m.result[p] or (None if m.children[p] else m.no_moves) for p in range(n)]
    val: list[str | None] = [t if t in ("win", "lose") else None for t in term]
    rem: list[int | None] = [0 if v else None for v in val]
    k = 1
    while True:
        new = []
        for p in range(n):
            if val[p] is not None or term[p] is not None:
                continue
            ch = m.children[p]
            if any(val[c] == "lose" and rem[c] == k - 1 for c in ch):
                new.append((p, "win"))
            elif all(val[c] == "win" for c in ch) and max(rem[c] for c in ch) == k - 1:
                new.append((p, "lose"))
        if not new:
            break
        for p, v in new:
            val[p], rem[p] = v, k
        k += 1
    frontier = [p for p in range(n) if term[p] == "tie"]
    for p in frontier:
        val[p], rem[p] = "tie", 0
    while frontier:
        nxt = []
        for c in frontier:
            for p in range(n):
                if term[p] is None and val[p] is None and c in m.children[p]:
                    val[p], rem[p] = "tie", rem[c] + 1
                    nxt.append(p)
        frontier = nxt
    return [
        Result(Outcome.parse(v), r) if v else Result(Outcome.DRAW, None)
        for v, r in zip(val, rem, strict=True)
    ]


def test_random_game_models_agree_with_a_level_solver():
    rng = random.Random(4)
    seen = set()
    for k in range(400):
        m = RandomGame(rng)
        sol = solve_model(m, progress=False)
        expected = levels_solver(m)
        W, L = Outcome.WIN, Outcome.LOSE
        for p in sol.exploration.reps:
            assert sol.value(p) == expected[p], (k, p)
            seen.add(expected[p].value)
            moves = sol.moves(p)
            if moves:  # the best move achieves the value; every move is valued from its child
                top = moves[0]
                assert tuple(top.value) == tuple(expected[p])
                for mv in moves:
                    child = expected[m.children[p][mv.move]]
                    flip = {W: L, L: W}.get(child.value, child.value)
                    assert mv.value.value == flip
                    assert mv.remoteness == (
                        None if child.remoteness is None else child.remoteness + 1
                    )
        assert sol.solver.startswith("solve_retrograde")
    assert seen == set(Outcome)


# -- the solution objects --------------------------------------------------------------------


def test_chance_solution_queries():
    sol = solve_model(FiveDice(dice=3, faces=4), progress=False)
    assert sol.is_goal((2, 2, 2)) and sol.value((2, 2, 2)) == 0.0 and sol.options((2, 2, 2)) == []
    opts = sol.options((1, 1, 3))
    assert [o.value for o in opts] == sorted(o.value for o in opts)
    assert opts[0].choice == (1, 1) and close(opts[0].value, 4.0)
    assert sol.best((1, 1, 3)) == [(1, 1)] and sol.policy_choice((1, 1, 3)) == (1, 1)
    assert sol.policy_choice((2, 2, 2)) is None
    with pytest.raises(UnknownStateError, match="not reachable"):
        sol.value((1, 2))
    with pytest.raises(ModelError, match="cannot key"):
        sol.value([[1]])
    cdf = sol.distribution(200)
    assert np.all(np.diff(cdf) >= -1e-15) and abs(cdf[-1] - 1) < 1e-6 and cdf[0] == 0
    q = sol.quantile(0.5)
    assert cdf[q] >= 0.5 > cdf[q - 1]
    costs = sol.simulate(20000, seed=3)
    se = costs.std(ddof=1) / np.sqrt(costs.size)
    assert abs(costs.mean() - sol.start_value) < 4 * se
    assert "start value" in sol.summary() and "FiveDice" in repr(sol)


def test_unreachable_goal_is_infinite():
    class Never(ChanceModel):
        start = 0

        def is_goal(self, s):
            return s == 99

        def choices(self, s):
            return ["r"]

        def roll(self, p):
            return [(0, 1), (1, 1)]

    sol = solve_model(Never(), progress=False)
    assert sol.start_value == INF and sol.best(0) == [] and sol.exact_value() is None
    assert "cannot be reached" in sol.summary()


def test_model_kind_and_plain_modules():
    import types

    chance = types.SimpleNamespace(
        start=0,
        is_goal=lambda s: s == 1,
        choices=lambda s: ["flip"],
        roll=lambda p: [(0, 1), (1, 1)],
    )
    assert model_kind(chance) == "chance"
    assert solve_model(chance, progress=False).start_value == pytest.approx(2.0, rel=1e-12)
    game = types.SimpleNamespace(start=3, moves=lambda n: [1] if n else [], play=lambda n, k: n - k)
    assert solve_model(game, progress=False).start_value == Result(Outcome.WIN, 3)
    with pytest.raises(ModelError, match="is not a model"):
        model_kind(object())
    with pytest.raises(ModelError, match="both roll"):
        model_kind(types.SimpleNamespace(roll=len, play=len))
    with pytest.raises(ModelError, match=r"got the class FiveDice; pass an instance: FiveDice\(\)"):
        solve_model(FiveDice)

    class NoStart(ChanceModel):
        def is_goal(self, s):
            return True

    with pytest.raises(ModelError, match="NoStart has no start"):
        solve_model(NoStart())


def test_export_and_load_a_chance_table(tmp_path):
    sol = solve_model(FiveDice(dice=3), progress=False)
    path = sol.export(tmp_path / "dice", exact=True)
    assert path.name == "dice.npz"
    table = load_solution(path)
    assert table.kind == "chance" and len(table) == sol.n_states
    assert table.start_value == sol.start_value
    for state in sol.exploration.state_reps:
        assert table.value(state) == sol.value(state)
        assert table.best(state) == sol.best(state)
        assert table.best(state)[:1] == [sol.policy_choice(state)][: len(table.best(state))]
        assert table.exact(state) == sol.exact_value(state)
    rows = list(table)
    assert rows[0].key == () and rows[0].best == [()]
    with pytest.raises(UnknownStateError, match=r"\(9, 9, 9\) is not in the table"):
        table.value((9, 9, 9))
    # raw arrays are plain numpy, readable without perfectplay
    with np.load(path, allow_pickle=False) as raw:
        assert raw["value"].dtype == np.float64 and str(raw["kind"]) == "chance"


def test_export_and_load_a_game_table_with_the_model(tmp_path):
    model = TicTacToe(symmetry=True)
    sol = solve_model(model, progress=False)
    path = sol.export(tmp_path / "ttt.npz")
    plain = load_solution(path)
    assert plain.start_value == Result(Outcome.TIE, 9) and set(plain.best("." * 9)) <= set(range(9))
    by_model = load_solution(path, model)
    for board in ["X........", "..X......", "XO.......", ".O......X"]:
        assert by_model.value(board) == sol.value(board)
    assert plain.value("........X") == sol.value("X........")  # keys are canonical boards


def test_export_refuses_keys_that_do_not_round_trip(tmp_path):
    class Sets(ChanceModel):
        start = frozenset()

        def is_goal(self, s):
            return len(s) == 2

        def choices(self, s):
            return ["draw"]

        def roll(self, p):
            return [(frozenset({1}), 1), (frozenset({1, 2}), 1)]

    sol = solve_model(Sets(), progress=False)
    with pytest.raises(ModelError, match="cannot export the state key frozenset"):
        sol.export(tmp_path / "sets.npz")


def test_load_rejects_other_files(tmp_path):
    from perfectplay.errors import InputError

    bad = tmp_path / "x.npz"
    bad.write_bytes(b"not a zip")
    with pytest.raises(InputError, match="not a .npz solution file"):
        load_solution(bad)
    other = tmp_path / "y.npz"
    np.savez(other, a=np.arange(3))
    with pytest.raises(InputError, match="not a perfectplay solution file"):
        load_solution(other)
    with pytest.raises(InputError, match="no such file"):
        load_solution(tmp_path / "missing.npz")


# -- misbehaving models: each error names the model and what it was doing ---------------


class _RaisingStart(GameModel):
    @property
    def start(self):
        raise RuntimeError("no board yet")

    def moves(self, p):
        return []

    def play(self, p, m):
        return p


class _EndlessMoves(GameModel):
    start = 0

    def moves(self, p):
        while True:  # a generator that never stops
            yield 1

    def play(self, p, m):
        return p


class _InfKeys(ChanceModel):
    """States are non-finite floats (and a tuple holding one); every roll ends the game."""

    start = 0.0

    def is_goal(self, s):
        return s != 0.0

    def choices(self, s):
        return [("go", s)] if s == 0.0 else []

    def roll(self, c):
        return [(math.inf, 2), (-math.inf, 1), (math.nan, 1), ((1.5, math.inf), 1)]


class _BadHash:
    def __hash__(self):
        raise ValueError("no hash for you")


def test_a_start_property_that_raises_is_a_model_error():
    with pytest.raises(ModelError, match="reading the attribute start raised RuntimeError"):
        solve_model(_RaisingStart(), progress=False)


def test_a_generator_that_never_stops_is_refused_quickly():
    import time

    t0 = time.perf_counter()
    pattern = r"_EndlessMoves\.moves\(0\) gave more than 1,000,000 moves in one call"
    with pytest.raises(ModelError, match=pattern):
        solve_model(_EndlessMoves(), progress=False)
    # About 0.3 s; before the per-call limit, 200 million moves took 30 s and 800 MB.
    assert time.perf_counter() - t0 < 15
    with pytest.raises(ModelError, match="gave more than 10 moves in one call"):
        solve_model(_EndlessMoves(), max_per_call=10, progress=False)


def test_a_state_whose_hash_raises_is_named_as_hashing():
    class Start(GameModel):
        start = _BadHash()

        def moves(self, p):
            return []

        def play(self, p, m):
            return p

    with pytest.raises(ModelError, match="hashing the start state .* raised ValueError"):
        solve_model(Start(), progress=False)


def test_export_refuses_a_folder(tmp_path):
    from perfectplay.errors import InputError

    sol = solve_model(FiveDice(dice=2), progress=False)
    with pytest.raises(InputError, match="is a directory; give the file to write, e.g. "):
        sol.export(tmp_path)
    with pytest.raises(InputError, match="is a directory"):
        sol.export(f"{tmp_path}/")
    with pytest.raises(InputError, match=r"sub/ names a directory \(it ends with a slash\)"):
        sol.export(f"{tmp_path}/sub/")
    assert list(tmp_path.iterdir()) == []  # nothing written beside it either


def test_non_finite_float_keys_round_trip(tmp_path):
    sol = solve_model(_InfKeys(), progress=False)
    assert sol.start_value == 1.0
    path = sol.export(tmp_path / "inf", exact=True)
    table = load_solution(path)
    keys = [row.key for row in table]
    assert keys[:3] == [0.0, math.inf, -math.inf] and keys[4] == (1.5, math.inf)
    assert math.isnan(keys[3])
    assert table.value(0.0) == 1.0 and table.value(-math.inf) == 0.0
    assert table.value(math.nan) == 0.0  # found by its text, although nan != nan
    assert table.best(0.0) == [("go", 0.0)] and table.exact(0.0) == 1


def test_simulation_seed_must_fit_the_generator():
    sol = solve_model(FiveDice(dice=2), progress=False)
    with pytest.raises(ValueError, match="seed must be an int from 0 to 2"):
        sol.simulate(10, 2**32)
    assert (sol.simulate(10, 2**32 - 1) >= 1).all()


# -- a table loaded from disk answers like the live solution ----------------------------------


def _assert_same_answers(sol, table, unknown):
    assert table.kind == sol.kind and len(table) == len(list(sol.states()))
    assert table.start_value == sol.start_value
    assert list(table.items()) == list(sol.items())
    assert list(table.states()) == list(sol.states())
    for state in sol.states():
        assert table.value(state) == sol.value(state)
        assert type(table.value(state)) is type(sol.value(state))
        assert table.options(state) == sol.options(state)
        assert table.best(state) == sol.best(state)
        if sol.kind == "chance":
            assert table.is_goal(state) == sol.is_goal(state)
            exact = table.exact_value(state)
            assert exact == sol.exact_value(state)
            assert exact is None or type(exact) is Fraction
        else:
            assert table.moves(state) == sol.moves(state)
            assert table.best_moves(state) == sol.best_moves(state)
    if sol.kind == "game":
        assert table.counts() == sol.counts()
    else:
        assert table.exact_value() == sol.exact_value()
    for query in (table.value, sol.value, table.best, sol.best):
        with pytest.raises(UnknownStateError, match=re.escape(repr(unknown))):
            query(unknown)


@pytest.mark.parametrize(
    ("make", "unknown"),
    [
        (FiveDice, (9, 9, 9, 9, 9)),
        (ChutesAndLadders, 1),  # the foot of a ladder is never a state
        (TicTacToe, "XXXXXXXXX"),
        (lambda: Dodgem(3), "not a position"),
    ],
    ids=["five dice", "chutes and ladders", "tic-tac-toe", "dodgem 3x3"],
)
def test_a_loaded_table_answers_every_query_like_the_live_solution(tmp_path, make, unknown):
    sol = solve_model(make(), progress=False)
    path = sol.export(tmp_path / "t.npz", **({"exact": True} if sol.kind == "chance" else {}))
    _assert_same_answers(sol, load_solution(path), unknown)
    _assert_same_answers(sol, load_solution(path, make()), unknown)
