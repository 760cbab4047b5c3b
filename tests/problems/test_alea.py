"""Alea Iacta Est: official samples, an independent brute force, exact values, simulation.

The brute force knows nothing of the package's graph: it works on ordered rolls (one face
index per die, no merged faces, no interchangeable dice), tries every subset of dice to
reroll, and runs value iteration; every few sweeps it evaluates the greedy policy exactly
(a dense linear solve) and stops once those values satisfy the Bellman equation.
"""

from __future__ import annotations

import itertools
import math
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import InputError
from perfectplay.problems.alea import EXAMPLE_DICE, EXAMPLE_WORDS, parse, solve, symmetry_counts
from perfectplay.problems.alea.build import build
from perfectplay.problems.alea.example import example_text
from perfectplay.problems.alea.instance import Instance
from perfectplay.problems.alea.solution import solve_instance

DATA = Path(__file__).resolve().parent.parent / "data" / "aleaiactaest"
SETTINGS = [(True, True), (True, False), (False, True), (False, False)]


def brute_force(dice: list[str], words: list[str]) -> float:
    """Optimal expected rolls by value iteration over all ordered rolls."""
    d = len(dice)
    targets = {"".join(sorted(w)) for w in words}
    shape = (6,) * d
    goal = np.zeros(shape, dtype=bool)
    for faces in itertools.product(range(6), repeat=d):
        goal[faces] = "".join(sorted(dice[i][f] for i, f in enumerate(faces))) in targets
    if not goal.any():
        return math.inf
    subsets = [s for r in range(1, d + 1) for s in itertools.combinations(range(d), r)]

    def q_values(v: np.ndarray) -> np.ndarray:
        # Rerolling subset s: one roll, then a uniformly random face on each die of s.
        return np.stack(
            [np.broadcast_to(1.0 + v.mean(axis=s, keepdims=True), shape) for s in subsets]
        )

    n = 6**d
    index = np.arange(n).reshape(shape)
    v = np.zeros(shape)
    for _ in range(200):
        for _ in range(20):
            v = np.where(goal, 0.0, q_values(v).min(axis=0))
        policy = q_values(v).argmin(axis=0)
        a = np.eye(n)
        for flat, faces in enumerate(itertools.product(range(6), repeat=d)):
            if goal[faces]:
                continue
            s = subsets[policy[faces]]
            same = tuple(slice(None) if i in s else faces[i] for i in range(d))
            a[flat, index[same].reshape(-1)] -= 1.0 / 6 ** len(s)
        try:
            evaluated = np.linalg.solve(a, np.where(goal, 0.0, 1.0).reshape(-1)).reshape(shape)
        except np.linalg.LinAlgError:
            continue  # the greedy policy can still loop forever: iterate more
        if (evaluated < 0).any():
            continue
        best = np.where(goal, 0.0, q_values(evaluated).min(axis=0))
        if (best >= evaluated - 1e-10 * np.maximum(1.0, evaluated)).all():
            return 1.0 + float(evaluated.mean())
    raise AssertionError("value iteration did not settle")


def random_instance(rng: random.Random) -> tuple[list[str], list[str]]:
    """Small dice over few symbols: repeated faces, identical dice, unreachable words."""
    d = rng.randint(1, 3)
    alphabet = rng.sample("ABCDEFGHIJ0123", rng.randint(2, 6))
    dice = ["".join(rng.choice(alphabet) for _ in range(6)) for _ in range(d)]
    if d > 1 and rng.random() < 0.4:
        dice[1] = "".join(rng.sample(dice[0], 6))  # same faces, other order
    if d > 2 and rng.random() < 0.3:
        dice[2] = dice[0]
    if rng.random() < 0.15:
        dice[0] = rng.choice(alphabet) * 6
    pool = alphabet + ["Z"]  # Z is on no die: such words are never formed
    words = {"".join(rng.choice(pool) for _ in range(d)) for _ in range(rng.randint(1, 6))}
    return dice, sorted(words)


def close(a: float, b: float, tol: float = 1e-9) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(b))


# -- official data -----------------------------------------------------------------------


@pytest.mark.parametrize("case", [1, 2, 3, 4])
def test_official_samples(case):
    inst = parse((DATA / f"{case}.in").read_text())
    expected = (DATA / f"{case}.ans").read_text().split()[0]
    value = solve_instance(inst).value
    if expected == "impossible":
        assert math.isinf(value)
    else:
        assert abs(value - float(expected)) <= 1e-6 * max(1.0, float(expected))


def test_statement_example_and_its_roll():
    sol = solve(EXAMPLE_DICE, EXAMPLE_WORDS)
    assert f"{sol.value:.9f}" == "9.677887141"
    # P X R E S: keeping P R E S leaves die 2 (AEHOXU) to show A, O or U: PARSE, PROSE, PURSE.
    best = sol.best_keep("PXRES")
    assert (best.keep, best.reroll, best.letters) == ((0, 2, 3, 4), (1,), "PRES")
    assert best.expected_rolls == pytest.approx(2.0, abs=1e-12)
    # The statement's own line of play: keep P E S, then P E A E _ with die 5 (three Cs).
    assert sol.best_keep("PEAES").reroll == (4,)
    assert sol.roll_value("PEAES") == pytest.approx(2.0, abs=1e-12)
    assert sol.is_word("PEAEC") and sol.word_for("PEAEC") == "PEACE"
    assert sol.best_keep("PEAEC") is None and sol.options("PEAEC") == []


def test_faces_no_formable_word_uses_are_one_blank_face():
    # Only A, B and 1 matter: X, Y, Q, ... are in no word, and "AZ" can never be formed
    # (no die has Z), so its A would not count either if "AB" were absent.
    dice = ["ABXYQR", "B1XYQS", "A1PQRS"]
    words = ["AB1", "AZ1"]
    merged, plain = solve(dice, words), solve(dice, words, merge_faces=False)
    assert merged.value == pytest.approx(plain.value, rel=1e-12)
    assert merged.exact_value() == plain.exact_value()
    assert merged.sizes()["decision_nodes"] < plain.sizes()["decision_nodes"]
    # Queries still take the real symbols, and answers show them.
    for roll in ("XYQ", "AYQ", "A1S", "RSP"):
        assert merged.roll_value(roll) == pytest.approx(plain.roll_value(roll), rel=1e-12)
        best = merged.best_keep(roll)
        assert best.letters == plain.best_keep(roll).letters
        assert set(best.letters) <= set("AB1")
    for x in range(merged.graph.n_full):
        shown = merged.roll_text(x)
        assert all(c in die for c, die in zip(shown, dice, strict=True))
        assert merged.roll_value(shown) == merged.chance.decision_value[x]
    counts = symmetry_counts(dice, frozenset("AB1"))
    assert counts["all"][0] < counts["both"][0]


# -- brute force ----------------------------------------------------------------------------


def test_agrees_with_brute_force_on_random_instances():
    rng = random.Random(20230401)
    impossible = 0
    for _ in range(240):
        dice, words = random_instance(rng)
        expected = brute_force(dice, words)
        impossible += math.isinf(expected)
        for merge_faces, merge_dice in SETTINGS:
            got = solve(dice, words, merge_faces=merge_faces, merge_dice=merge_dice).value
            assert close(got, expected), (dice, words, merge_faces, merge_dice, got, expected)
    assert 5 <= impossible <= 200  # both kinds of answer were exercised


def test_every_option_value_is_a_bellman_backup():
    """Each option's value is the retry formula over its outcomes (from the brute side)."""
    rng = random.Random(7)
    for _ in range(25):
        dice, words = random_instance(rng)
        sol = solve(dice, words)
        if not sol.possible:
            continue
        faces = [range(6)] * len(dice)
        for roll in itertools.islice(itertools.product(*faces), 0, None, 7):
            text = "".join(dice[i][f] for i, f in enumerate(roll))
            options = sol.options(text)
            if not options:
                assert sol.is_word(text)
                continue
            assert options[0].expected_rolls == pytest.approx(sol.roll_value(text), rel=1e-12)
            assert [o.expected_rolls for o in options] == sorted(o.expected_rolls for o in options)
            for o in options:
                # Outcomes of rerolling o.reroll, each with probability 6^-s, ordered.
                values = sorted(
                    sol.roll_value(_with(text, o.reroll, dice, f))
                    for f in itertools.product(range(6), repeat=len(o.reroll))
                )
                n = len(values)
                finite = [k for k in range(1, n + 1) if math.isfinite(values[k - 1])]
                best = min((n + sum(values[:k])) / k for k in finite)
                assert o.expected_rolls == pytest.approx(best, rel=1e-9)


def _with(roll: str, dice_idx: tuple[int, ...], dice: list[str], faces) -> str:
    out = list(roll)
    for i, f in zip(dice_idx, faces, strict=True):
        out[i] = dice[i][f]
    return "".join(out)


# -- exact values -----------------------------------------------------------------------


def test_exact_fractions_equal_float_values():
    rng = random.Random(99)
    checked = 0
    for _ in range(60):
        dice, words = random_instance(rng)
        sol = solve(dice, words)
        exact = sol.exact_value()
        if exact is None:
            assert not sol.possible
            continue
        assert isinstance(exact, Fraction)
        assert close(float(exact), sol.value, 1e-12)
        assert close(float(exact), brute_force(dice, words), 1e-9)
        checked += 1
    assert checked >= 30


def test_exact_small_known_values():
    assert solve(["123456"], ["6"]).exact_value() == 6
    assert solve(["AAAAAA", "BBBBBB"], ["AB"]).exact_value() == 1
    # Three fair dice, target 666: sample 3 as a fraction.
    exact = solve(["123456"] * 3, ["666"]).exact_value()
    assert f"{float(exact):.9f}" == "10.555444555"
    sol = solve(EXAMPLE_DICE, EXAMPLE_WORDS)
    options = sol.options("PXRES", exact=True)
    assert options[0].exact == 2 and options[1].exact == Fraction(10, 3)
    assert all(close(float(o.exact), o.expected_rolls, 1e-12) for o in options)


# -- distribution and simulation -------------------------------------------------------------


def test_distribution_of_sample_three():
    sol = solve(["123456"] * 3, ["666"])
    cdf = sol.distribution(400)
    assert cdf[0] == 0.0 and cdf[1] == pytest.approx(1 / 216, abs=1e-15)
    assert (np.diff(cdf) >= -1e-15).all() and cdf[-1] == pytest.approx(1.0, abs=1e-9)
    # The mean recovered from the distribution is the expectation.
    assert (1.0 - cdf[:-1]).sum() == pytest.approx(sol.value, rel=1e-8)
    median = sol.quantile(0.5)
    assert cdf[median] >= 0.5 > cdf[median - 1]


def test_simulation_of_the_optimal_policy_matches_the_expectation():
    sol = solve(EXAMPLE_DICE, EXAMPLE_WORDS)
    costs = sol.simulate(20000, seed=11)
    se = costs.std(ddof=1) / math.sqrt(costs.size)
    assert abs(costs.mean() - sol.value) < 4 * se


def test_playing_best_keep_with_real_dice_matches_the_expectation():
    """Play games with random faces and the public best_keep: a check of the advice."""
    sol = solve(["AAAABC", "ABBCC1", "ABC123"], ["ABC", "CC1", "A1B"])
    rng = random.Random(5)
    games = []
    for _ in range(3000):
        roll = [rng.choice(die) for die in sol.instance.dice]
        rolls = 1
        while not sol.is_word(roll):
            for i in sol.best_keep(roll).reroll:
                roll[i] = rng.choice(sol.instance.dice[i])
            rolls += 1
        games.append(rolls)
    mean = sum(games) / len(games)
    se = np.std(games, ddof=1) / math.sqrt(len(games))
    assert abs(mean - sol.value) < 4 * se


# -- graph structure and symmetry ------------------------------------------------------------


@pytest.mark.parametrize("merge_faces,merge_dice", SETTINGS)
def test_graph_structure(merge_faces, merge_dice):
    rng = random.Random(3)
    for _ in range(20):
        dice, words = random_instance(rng)
        ag = build(Instance.from_strings(dice, words), merge_faces, merge_dice)
        g = ag.graph
        g.validate()
        assert g.has_retry_property()
        star = np.asarray(ag.layout.star)
        kept_digits = ag.layout.digits(ag.kept_codes)
        rerolled = (kept_digits == star).sum(axis=1)
        assert (g.total_weight() == 6**rerolled).all()  # outcome weights are probabilities
        for x in range(ag.n_full):
            choices = g.choices(x)
            assert len(set(choices.tolist())) == len(choices)
            if g.goal[x]:
                assert len(choices) == 0
        # Every outcome of a kept set extends it and can keep it again.
        for c in range(g.n_chance):
            xs, _ = g.outcomes(c)
            assert len(set(xs.tolist())) == len(xs)
            for x in xs:
                assert g.goal[x] or c in g.choices(int(x))
        assert g.choices(g.start).tolist() == [ag.keep_nothing]


def test_symmetry_shrinks_the_state_space():
    counts = symmetry_counts(EXAMPLE_DICE)
    # Die 5 (ABCSCC) has 4 distinct faces: 6^4 * 4 rolls instead of 6^5.
    assert counts["none"] == (6**5, 7**5 - 6**5)
    assert counts["faces"][0] == 6**4 * 4
    counts = symmetry_counts(["123456"] * 6)
    assert counts["none"][0] == 46656 and counts["dice"][0] == math.comb(11, 6)
    assert counts["both"][1] == math.comb(12, 6) - math.comb(11, 6)


# -- input -------------------------------------------------------------------------------


def test_parse_fast_and_slow_paths_agree():
    text = example_text()
    fast = parse(text)
    slow = parse(text.replace("\n", "\r\n"))
    spaced = parse(" ".join(text.split()))
    for other in (slow, spaced):
        assert other.dice == fast.dice and (other.words == fast.words).all()
    assert fast.w == 8 and fast.word(7) == "PEACE"


@pytest.mark.parametrize(
    "text,line,fragment",
    [
        ("", 1, "empty input"),
        ("7 1\n", 1, "d = 7 is out of range"),
        ("2 0\n", 1, "w = 0 is out of range"),
        ("2 1\nAAAAAA\nBBBBB\nAB\n", 3, "exactly 6 symbols"),
        ("2 1\nAAAAAA\nBBBBBB\nABA\n", 4, "must have 2 symbols"),
        ("2 1\nAAAAAA\nBBBBBB\nAb\n", 4, "'b' is not an uppercase letter"),
        ("2 3\nAAAAAA\nBBBBBB\nAB\nBA\n", 6, "expected 3 words"),
        ("2 1\nAAAAAA\nBBBBBB\nAB\nXY\n", 5, "unexpected 'XY'"),
    ],
)
def test_parse_errors_name_the_line(text, line, fragment):
    with pytest.raises(InputError) as info:
        parse(text)
    assert info.value.line == line and fragment in info.value.message


def test_api_input_errors():
    with pytest.raises(InputError, match="die 2"):
        solve(["ABCDEF", "ABC"], ["AB"])
    with pytest.raises(InputError, match="word 2"):
        solve(["ABCDEF"], ["A", "AB"])
    with pytest.raises(InputError, match="one string"):
        solve("ABCDEF", ["A"])
    sol = solve(["ABCDEF", "123456"], ["A1"])
    with pytest.raises(InputError, match="no face 'G'"):
        sol.best_keep("G1")
    with pytest.raises(InputError, match="one symbol per die"):
        sol.options("A")
    assert solve(["ABCDEF"], []).possible is False


def test_package_parse_stays_the_function_after_other_names_load():
    # Regression (found by benchmarks/crosscheck.py): loading format_answer first imported
    # the .parse submodule, and the import system bound the package name ``parse`` to that
    # module, so ``from perfectplay.problems.alea import format_answer, parse`` gave a module.
    # Import state is per process: a fresh interpreter makes the order matter.
    code = (
        "from perfectplay.problems.alea import format_answer, parse, solve_instance\n"
        "print(format_answer(solve_instance(parse('1 1\\nAAAAAB\\nB\\n')).value))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "6.000000000"  # one die, one face in six: 6 rolls
