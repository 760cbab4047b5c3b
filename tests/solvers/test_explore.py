"""The explorer: user models become chance and game graphs; misbehaving models fail cleanly."""

from __future__ import annotations

import random
from fractions import Fraction
from math import gcd

import numpy as np
import pytest

from perfectplay.errors import ModelError, ResourceLimitError
from perfectplay.graphs.canonical import sorted_tuple
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.graphs.game import NOT_TERMINAL, Outcome
from perfectplay.models.explore import SpaceLimitError, explore_chance, explore_game
from perfectplay.models.explore import limits as limits_module


class Dice:
    """Roll ``n`` dice with ``faces`` faces, keep any, until all equal (sorted-tuple states)."""

    def __init__(self, n=2, faces=3):
        self.n, self.faces = n, faces

    def start(self):
        return ()

    def is_goal(self, s):
        return len(s) == self.n and s[0] == s[-1]

    def choices(self, s):
        if not s:
            return [()]
        return sorted({s[:k] for k in range(self.n)} | {(f,) for f in s})

    def roll(self, kept):
        out = [((), 1)]
        for _ in range(self.n - len(kept)):
            out = [(t + (f,), w) for t, w in out for f in range(self.faces)]
        return [(tuple(sorted(kept + t)), w) for t, w in out]


def test_breadth_first_ids_and_merged_weights():
    ex = explore_chance(Dice(2, 2), progress=False)
    g = ex.graph
    # start, then the rolls of the first roll (duplicates merged: (0,1) has weight 2)
    assert ex.state_reps == [(), (0, 0), (0, 1), (1, 1)]
    assert g.goal.tolist() == [False, True, False, True]
    xs, ws = g.outcomes(0)
    assert xs.tolist() == [1, 2, 3] and ws.tolist() == [1, 2, 1]
    assert ex.chance_reps[0] == ()
    assert g.choices(2).tolist() == sorted(ex.chances.get(p) for p in [(), (0,), (1,)])
    assert g.cost.tolist() == [1] * g.n_chance
    assert ex.retry
    g.validate()


def test_fraction_weights_become_integers_per_roll():
    class M:
        start = "s"

        def is_goal(self, s):
            return s == "g"

        def choices(self, s):
            return ["a", "b"]

        def roll(self, p):
            if p == "a":
                return [("g", Fraction(1, 3)), ("s", Fraction(1, 2)), ("s", Fraction(1, 6))]
            return [("g", 0), ("x", 5), ("g", 10)]

        def cost(self, p):
            return 2 if p == "b" else 1

    ex = explore_chance(M(), progress=False)
    g = ex.graph
    a, b = ex.chances.get("a"), ex.chances.get("b")
    # 1/3 and 1/2 + 1/6 = 2/3 (duplicates add up), scaled by the denominator 3
    assert dict(zip(*map(np.ndarray.tolist, g.outcomes(a)), strict=True)) == {
        ex.states.get("g"): 1,
        ex.states.get("s"): 2,
    }
    # zero weights are dropped, so "g" arrives only once, after "x"
    xs, ws = g.outcomes(b)
    assert [ex.state_reps[x] for x in xs] == ["x", "g"] and ws.tolist() == [5, 10]
    assert g.cost[b] == 2 and g.cost[a] == 1
    assert ex.retry  # every non-goal state lists both rolls


def test_canonical_merges_symmetric_states():
    class Unsorted(Dice):
        def roll(self, kept):
            return [(t[::-1], w) for t, w in super().roll(kept)]  # not sorted any more

        canonical = staticmethod(sorted_tuple)

    a = explore_chance(Dice(3, 3), progress=False).graph
    b = explore_chance(Unsorted(3, 3), progress=False).graph
    assert (a.n_decision, a.n_chance, a.n_edges) == (b.n_decision, b.n_chance, b.n_edges)


def random_graph(rng: random.Random) -> ChanceGraph:
    nd = rng.randint(1, 6)
    nc = rng.randint(1, 5)
    goal = [rng.random() < 0.3 for _ in range(nd)]
    choices = [sorted(rng.sample(range(nc), rng.randint(0, nc))) for _ in range(nd)]
    outcomes = [
        [(rng.randrange(nd), rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
        for _ in range(nc)
    ]
    if rng.random() < 0.5:  # make the retry property hold
        for c, outs in enumerate(outcomes):
            for x, _ in outs:
                if not goal[x] and c not in choices[x]:
                    choices[x] = sorted(choices[x] + [c])
    return ChanceGraph.from_lists(goal, choices, outcomes)


def _retry_by_definition(g: ChanceGraph) -> bool:
    """Every non-goal outcome x of every roll c lists c among its choices (plain loops)."""
    return all(
        g.goal[x] or c in g.choices(x).tolist()
        for c in range(g.n_chance)
        for x in g.outcomes(c)[0].tolist()
    )


def test_vectorised_retry_check_agrees_with_the_definition():
    # The explorer's retry flag is the graph's own check (there is one retry check).
    rng = random.Random(6)
    seen = set()
    for _ in range(400):
        g = random_graph(rng)
        expected = _retry_by_definition(g)
        assert g.has_retry_property() == expected
        seen.add(expected)
    assert seen == {True, False}


def test_retry_detection_on_models():
    class NoRetry(Dice):
        def choices(self, s):
            return [()] if not s else [s[:1]]  # keep the first die only: (0,) cannot keep ()

    assert explore_chance(Dice(2, 3), progress=False).retry
    assert not explore_chance(NoRetry(2, 3), progress=False).retry


# -- misbehaving chance models -------------------------------------------------------------


class Base:
    start = 0

    def is_goal(self, s):
        return s == 2

    def choices(self, s):
        return ["r"]

    def roll(self, p):
        return [(0, 1), (1, 1), (2, 1)]


def make(**methods):
    return type("Broken", (Base,), methods)()


def boom(*args):
    raise RuntimeError("boom")


def test_roll_may_return_a_mapping():
    from collections import Counter

    class Pairs(Base):
        start = (0, 0)

        def is_goal(self, s):
            return s == (1, 1)

        def roll(self, p):
            return Counter({(0, 0): 1, (1, 1): 2, (0, 1): 1}) if p == "r" else {}

    g = explore_chance(Pairs(), progress=False).graph
    assert g.outcomes(0)[1].tolist() == [1, 2, 1] and g.n_decision == 3


@pytest.mark.parametrize(
    ("methods", "pattern"),
    [
        ({"start": boom}, r"Broken\.start\(\) raised RuntimeError: boom"),
        ({"is_goal": boom}, r"Broken\.is_goal\(0\) raised RuntimeError: boom"),
        ({"choices": boom}, r"Broken\.choices\(0\) raised RuntimeError: boom"),
        ({"roll": boom}, r"Broken\.roll\('r'\) raised RuntimeError: boom"),
        ({"cost": boom}, r"Broken\.cost\('r'\) raised RuntimeError: boom"),
        ({"canonical": boom}, r"Broken\.canonical\(0\) raised RuntimeError: boom"),
        (
            {"canonical_choice": boom},
            r"canonical_choice\('r'\) raised RuntimeError: boom on a choice of "
            r"Broken\.choices\(0\)",
        ),
        ({"choices": lambda self, s: 5}, r"Broken\.choices\(0\) did not return an iterable"),
        ({"roll": lambda self, p: None}, r"Broken\.roll\('r'\) did not return an iterable"),
        (
            {"roll": lambda self, p: [(1, 1, 1)]},
            r"roll\('r'\) gave \(1, 1, 1\); each outcome must be a tuple \(state, weight\)",
        ),
        ({"roll": lambda self, p: [[1, 1]]}, r"each outcome must be a tuple"),
        ({"roll": lambda self, p: [(1, 0.5)]}, r"weight 0\.5 of outcome 1 is a float"),
        ({"roll": lambda self, p: [(1, True)]}, r"weight True of outcome 1 is a bool"),
        ({"roll": lambda self, p: [(1, "2")]}, r"weight '2' of outcome 1 is a str"),
        ({"roll": lambda self, p: [(1, 1), (2, -1)]}, r"negative weight -1 for outcome 2"),
        ({"roll": lambda self, p: [(1, 0), (2, 0)]}, r"no outcome with a positive weight"),
        ({"roll": lambda self, p: []}, r"no outcome with a positive weight"),
        (
            {"roll": lambda self, p: [([1], 1)]},
            r"roll\('r'\) returned an outcome \[1\] that cannot be hashed",
        ),
        (
            {"choices": lambda self, s: [["r"]]},
            r"choices\(0\) returned a choice \['r'\] that cannot be hashed",
        ),
        (
            {"start": [0]},
            r"the start state \[0\] \(the attribute Broken\.start\) is not hashable: it cannot",
        ),
        (
            {"start": lambda self: [0]},
            r"the start state \[0\] \(returned by Broken\.start\(\)\) is not hashable",
        ),
        ({"cost": lambda self, p: "0"}, r"cost\('r'\) returned '0'; expected an int or a"),
        ({"cost": lambda self, p: 1.0}, r"cost\('r'\) returned 1\.0; expected an int.* a float"),
        ({"roll": lambda self, p: [(1, 2**62), (2, 2**62)]}, r"sum to more than 2\*\*62"),
        ({"is_goal": 3}, r"Broken\.is_goal is not callable"),
    ],
)
def test_misbehaving_chance_model_names_method_and_state(methods, pattern):
    with pytest.raises(ModelError, match=pattern):
        explore_chance(make(**methods), progress=False)


def test_missing_methods_are_named():
    class NoRoll:
        start = 0

        def is_goal(self, s):
            return False

        def choices(self, s):
            return []

    with pytest.raises(ModelError, match="NoRoll has no method roll"):
        explore_chance(NoRoll(), progress=False)
    with pytest.raises(ModelError, match="has no start"):
        explore_chance(
            type(
                "NoStart", (), {"is_goal": Base.is_goal, "choices": Base.choices, "roll": Base.roll}
            )(),
            progress=False,
        )


class Counter:
    """An infinite space: every state n rolls to n + 1 or n + 2."""

    start = 0

    def is_goal(self, s):
        return False

    def choices(self, s):
        return [s]

    def roll(self, s):
        return [(s + 1, 1), (s + 2, 1)]


def test_infinite_space_stops_at_the_state_limit():
    pattern = r"more than 1,000 states and rolls; the space may be infinite \(last state added: 5"
    with pytest.raises(SpaceLimitError, match=pattern):
        explore_chance(Counter(), max_states=1000, progress=False)


def test_endless_generators_stop_at_the_edge_limit():
    import itertools

    endless_rolls = make(roll=lambda self, p: ((1, 1) for _ in itertools.count()))
    with pytest.raises(SpaceLimitError, match="more than 500 moves/outcomes"):
        explore_chance(endless_rolls, max_edges=500, progress=False)
    endless_choices = make(choices=lambda self, s: itertools.repeat("r"))
    with pytest.raises(SpaceLimitError, match="more than 500 moves/outcomes"):
        explore_chance(endless_choices, max_edges=500, progress=False)


def test_global_edge_limit_names_the_call_being_read():
    import itertools

    endless = make(roll=lambda self, p: ((1, 1) for _ in itertools.count()))
    with pytest.raises(SpaceLimitError, match=r"in all \(while reading Broken\.roll\('r'\)\)"):
        explore_chance(endless, max_edges=500, progress=False)


class Counted:
    """A generator of ``n`` items (or endless) that counts what the explorer took."""

    def __init__(self, n=None):
        self.n = n
        self.taken = 0

    def __call__(self, item):
        k = 0
        while self.n is None or k < self.n:
            self.taken += 1
            k += 1
            yield item


@pytest.mark.parametrize("chunk", [7, 1 << 16])
def test_per_call_limit_trips_on_the_first_item_past_it(monkeypatch, chunk):
    # The chunk of the edge counter is made small so that calls straddle chunk ends.
    monkeypatch.setattr(limits_module, "EDGE_CHUNK", chunk)
    for method, item in (("choices", "r"), ("roll", (1, 1))):
        gen = Counted()
        model = make(**{method: lambda self, x, gen=gen, item=item: gen(item)})
        pattern = rf"Broken\.{method}\((0|'r')\) gave more than 100 (choices|outcomes) in one"
        with pytest.raises(SpaceLimitError, match=pattern):
            explore_chance(model, max_per_call=100, progress=False)
        assert gen.taken == 101

    class Moves(Take):
        def moves(self, n):
            return gen(1)

    gen = Counted()
    with pytest.raises(SpaceLimitError, match=r"Moves\.moves\(4\) gave more than 100 moves"):
        explore_game(Moves(4), max_per_call=100, progress=False)
    assert gen.taken == 101


def test_per_call_limit_is_per_call_not_in_all(monkeypatch):
    monkeypatch.setattr(limits_module, "EDGE_CHUNK", 7)

    class Wide(Take):  # 100 moves from every position, 20 positions: 2,000 moves in all
        def moves(self, n):
            return range(100) if n < 20 else []

        def play(self, n, k):
            return n + 1

    ex = explore_game(Wide(0), max_per_call=100, progress=False)
    assert ex.graph.n_moves == 2000
    with pytest.raises(SpaceLimitError, match=r"Wide\.moves\(0\) gave more than 99 moves"):
        explore_game(Wide(0), max_per_call=99, progress=False)
    with pytest.raises(ValueError, match="max_per_call"):
        explore_game(Wide(0), max_per_call=0, progress=False)


def test_one_long_call_reports_progress(monkeypatch, capsys):
    from perfectplay._util.progress import Progress

    # Reports are off in the library unless asked for: these meters are asked.
    loud = lambda task: Progress(task, 0.0, 0.0, enabled=True)  # noqa: E731
    monkeypatch.setattr(limits_module, "Progress", loud)
    monkeypatch.setattr(limits_module, "EDGE_CHUNK", 1000)
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)
    # One state whose single call gives 5,000 outcomes: only the chunk ends report.
    explore_chance(make(roll=lambda self, p: [(2, 1)] * 5000), progress=True)
    err = capsys.readouterr().err
    assert err.count("perfectplay: exploring Broken: 3 states and rolls") >= 4


class _HashRaises:
    def __init__(self, tag="x"):
        self.tag = tag

    def __hash__(self):
        raise ValueError("no hash for you")

    def __repr__(self):
        return f"HashRaises({self.tag!r})"


@pytest.mark.parametrize(
    ("methods", "pattern"),
    [
        (
            {"roll": lambda self, p: [(_HashRaises(), 1)]},
            r"hashing an outcome HashRaises\('x'\) returned by Broken\.roll\('r'\) raised "
            r"ValueError: no hash for you",
        ),
        (
            {"choices": lambda self, s: [_HashRaises()]},
            r"hashing a choice HashRaises\('x'\) returned by Broken\.choices\(0\) raised",
        ),
        (
            {"start": _HashRaises()},
            r"hashing the start state HashRaises\('x'\) \(the attribute Broken\.start\) raised",
        ),
        (
            {"roll": lambda self, p: [(_HashRaises("y" * 200), 1)]},
            r"outcome HashRaises\('y{5,40}\.\.\.y{5,40}'\) returned by",  # cut short
        ),
        (
            {"roll": lambda self, p: [(list(range(100)), 1)]},
            r"returned an outcome \[0, 1, 2, .{20,50}\] that cannot be hashed",
        ),
    ],
)
def test_a_failing_hash_is_reported_as_hashing_with_the_value(methods, pattern):
    with pytest.raises(ModelError, match=pattern) as info:
        explore_chance(make(**methods), progress=False)
    assert "canonical" not in str(info.value)  # the model has no canonical()
    assert len(str(info.value)) < 220


def test_attributes_that_raise_are_model_errors():
    class Raising(Take):
        @property
        def no_moves(self):
            raise RuntimeError("not decided")

    with pytest.raises(ModelError, match="reading the attribute no_moves raised RuntimeError"):
        explore_game(Raising(3), progress=False)

    class NoStart(Take):
        def __init__(self):
            pass

        @property
        def start(self):
            raise KeyError("board")

    with pytest.raises(ModelError, match="reading the attribute start raised KeyError"):
        explore_game(NoStart(), progress=False)


def test_memory_limit_refuses_a_large_space(monkeypatch):
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "2M")
    with pytest.raises(SpaceLimitError, match="more than the 2.0 MiB available") as info:
        explore_chance(Counter(), progress=False)
    assert isinstance(info.value, ResourceLimitError) and isinstance(info.value, ModelError)


def test_progress_lines_on_stderr(monkeypatch, capsys):
    from perfectplay._util.progress import Progress

    # Reports are off in the library unless asked for: these meters are asked.
    loud = lambda task: Progress(task, 0.0, 0.0, enabled=True)  # noqa: E731
    monkeypatch.setattr(limits_module, "Progress", loud)
    monkeypatch.delenv("PERFECTPLAY_QUIET", raising=False)

    class Chain(Counter):
        def is_goal(self, s):
            return s >= 3000

    explore_chance(Chain(), progress=True)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "perfectplay: exploring Chain: 1,026 states and rolls" in captured.err
    assert "exploring Chain done" in captured.err and "3,002 states, 3,000 rolls" in captured.err


# -- game models ---------------------------------------------------------------------------


class Take:
    """Pile of ``n``; take 1 or 2; cannot move: lose."""

    def __init__(self, n=4):
        self.start = n

    def moves(self, n):
        return [k for k in (1, 2) if k <= n]

    def play(self, n, k):
        return n - k

    def outcome(self, n):
        return None


def test_game_graph_of_a_small_game():
    ex = explore_game(Take(4), progress=False)
    g = ex.graph
    assert ex.reps == [4, 3, 2, 1, 0]
    assert [list(g.moves(p)) for p in range(5)] == [[1, 2], [2, 3], [3, 4], [4], []]
    assert list(g.terminal) == [NOT_TERMINAL] * 4 + [Outcome.LOSE]
    assert g.index is ex.positions and g.position(2) == 2
    g.validate()


def test_outcome_and_no_moves_conventions():
    class Misere(Take):
        no_moves = "win"

        def outcome(self, n):
            return "tie" if n == 3 else None

    ex = explore_game(Misere(4), progress=False)
    term = dict(zip(ex.reps, ex.graph.terminal, strict=True))
    assert term[3] == Outcome.TIE and term[4] == NOT_TERMINAL
    # 3 is terminal, so its moves are not explored: 1 is reached from 4 -> 2 -> 1 only
    assert term[0] == Outcome.WIN
    assert list(ex.graph.moves(ex.positions.get(3))) == []


@pytest.mark.parametrize(
    ("methods", "pattern"),
    [
        ({"moves": boom}, r"Broken\.moves\(4\) raised RuntimeError: boom"),
        ({"play": boom}, r"Broken\.play\(4, 1\) raised RuntimeError: boom"),
        ({"outcome": boom}, r"Broken\.outcome\(4\) raised RuntimeError: boom"),
        (
            {"outcome": lambda self, n: "draw"},
            r"outcome\(4\) returned: expected None, 'win', 'lose' or 'tie'",
        ),
        ({"outcome": lambda self, n: 1}, r"outcome\(4\) returned: expected None"),
        (
            {"play": lambda self, n, k: [n - k]},
            r"play\(4, 1\) returned the position \[3\] that cannot be hashed",
        ),
        (
            {"canonical": lambda self, n: boom() if n < 4 else n},
            r"Broken\.canonical\(3\) raised RuntimeError: boom on the position of "
            r"Broken\.play\(4, 1\)",
        ),
        ({"moves": lambda self, n: 7}, r"moves\(4\) did not return an iterable"),
        ({"no_moves": "maybe"}, r"no_moves: expected None, 'win', 'lose' or 'tie'"),
    ],
)
def test_misbehaving_game_model(methods, pattern):
    class Broken(Take):
        pass

    for name, fn in methods.items():
        setattr(Broken, name, fn)
    with pytest.raises(ModelError, match=pattern):
        explore_game(Broken(4), progress=False)


def test_infinite_game_stops_at_the_state_limit():
    class Up(Take):
        def moves(self, n):
            return [1]

        def play(self, n, k):
            return n + k

    with pytest.raises(SpaceLimitError, match="more than 100 positions"):
        explore_game(Up(0), max_states=100, progress=False)


class RandomGame:
    """A random game graph on ``n`` positions, its moves given as ``kind`` (list, tuple or
    generator), positions wrapped so that ``canonical`` (when asked) does real work."""

    def __init__(self, n, seed, kind, canonical):
        rng = random.Random(seed)
        self.succ = {p: [rng.randrange(n) for _ in range(rng.randrange(4))] for p in range(n)}
        self.ends = {p: rng.choice(["win", "lose", "tie"]) for p in range(n) if rng.random() < 0.1}
        self.kind = kind
        self.start = ("p", 0)
        if canonical:
            self.canonical = lambda position: position[1]

    def outcome(self, position):
        return self.ends.get(position[1])

    def moves(self, position):
        kids = self.succ[position[1]]
        return {"list": list, "tuple": tuple, "generator": iter}[self.kind](range(len(kids)))

    def play(self, position, k):
        return ("p", self.succ[position[1]][k])


def _twin_exploration(model):
    """Breadth-first search written plainly: positions in order of discovery, children."""
    key = getattr(model, "canonical", lambda s: s)
    order, seen, children = [model.start], {key(model.start): 0}, []
    for position in order:
        if model.outcome(position) is not None:
            children.append([])
            continue
        row = []
        for move in model.moves(position):
            child = model.play(position, move)
            if key(child) not in seen:
                seen[key(child)] = len(order)
                order.append(child)
            row.append(seen[key(child)])
        children.append(row)
    return order, children


@pytest.mark.parametrize("seed", range(6))
def test_game_explorer_agrees_with_a_plain_search_for_every_kind_of_moves(seed):
    for kind in ("list", "tuple", "generator"):
        for canonical in (False, True):
            model = RandomGame(200, seed, kind, canonical)
            ex = explore_game(model, progress=False)
            order, children = _twin_exploration(model)
            assert ex.reps == order
            assert [list(ex.graph.moves(p)) for p in range(len(order))] == children
            for p, position in enumerate(order):
                end = model.outcome(position)
                want = (
                    Outcome[end.upper()] if end else NOT_TERMINAL if children[p] else Outcome.LOSE
                )
                assert ex.graph.terminal[p] == want


@pytest.mark.parametrize("kind", ["list", "generator"])
def test_game_edge_limit_trips_on_the_first_move_past_it(kind):
    class Wide(Take):  # 10 moves from each of 20 positions: 200 moves in all
        def moves(self, n):
            moves = range(10) if n < 20 else []
            return list(moves) if kind == "list" else iter(moves)

        def play(self, n, k):
            return n + 1

    assert explore_game(Wide(0), max_edges=200, progress=False).graph.n_moves == 200
    pattern = r"more than 199 .* \(while reading Wide\.moves\(19\)"
    with pytest.raises(SpaceLimitError, match=pattern):
        explore_game(Wide(0), max_edges=199, progress=False)


def test_explorers_leave_the_garbage_collector_as_they_found_it():
    import gc

    from perfectplay.examples.pig import Piglet
    from perfectplay.models.stochastic import explore_stochastic

    threshold, enabled = gc.get_threshold(), gc.isenabled()
    for explore in (lambda: explore_game(Take(30)), lambda: explore_stochastic(Piglet(goal=4))):
        explore()
        assert (gc.get_threshold(), gc.isenabled(), gc.get_freeze_count()) == (
            threshold, enabled, 0,
        )  # fmt: skip

    class Failing(Take):
        def play(self, n, k):
            return boom() if n < 3 else n - k

    with pytest.raises(ModelError):
        explore_game(Failing(10), progress=False)
    assert (gc.get_threshold(), gc.get_freeze_count()) == (threshold, 0)
    gc.disable()  # the caller's own setting stays theirs
    try:
        explore_game(Take(10), progress=False)
        assert not gc.isenabled() and gc.get_threshold() == threshold
    finally:
        if enabled:
            gc.enable()


def test_cyclic_garbage_of_the_callbacks_is_collected_while_exploring():
    freed = []

    class Cycle:
        def __init__(self):
            self.me = self

        def __del__(self):
            freed.append(1)

    class Leaky(Take):  # every move leaves a reference cycle behind
        def play(self, n, k):
            Cycle()
            if n - k == 0:
                seen_at_the_end.append(len(freed))
            return n - k

    seen_at_the_end: list[int] = []
    explore_game(Leaky(30_000), progress=False)
    assert seen_at_the_end and seen_at_the_end[0] > 30_000


class RandomDiceGame:
    """A random two-player game with chance on ``n`` states (mover-relative), each
    ``chances`` answer given as a list, a mapping or a generator; weights ints or
    Fractions; some states finished with a result (a word or an exact probability)."""

    def __init__(self, n, seed, canonical):
        rng = random.Random(seed)
        results = ["win", "lose", "tie", Fraction(1, 3), 1, 0]
        self.ends = {s: rng.choice(results) for s in range(n) if rng.random() < 0.15}
        self.table = {
            s: [
                [(rng.randrange(n), rng.choice([1, 2, Fraction(1, 3)]), rng.random() < 0.5)
                 for _ in range(rng.randrange(1, 4))]
                for _ in range(rng.randrange(3))
            ]
            for s in range(n)
        }  # fmt: skip
        self.kinds = {s: rng.choice(["list", "mapping", "generator"]) for s in range(n)}
        self.start = ("s", 0)
        if canonical:
            self.canonical = lambda state: state[1]

    def outcome(self, state):
        return self.ends.get(state[1])

    def moves(self, state):
        return list(range(len(self.table[state[1]])))

    def chances(self, state, move):
        triples = [(("s", t), w, f) for t, w, f in self.table[state[1]][move]]
        kind = self.kinds[state[1]]
        if kind == "mapping":
            merged: dict = {}
            for t, w, f in triples:
                merged[(t, f)] = merged.get((t, f), 0) + w
            return merged
        return iter(triples) if kind == "generator" else triples


def _twin_stochastic(model):
    """The graph explore_stochastic should build, by a plain breadth-first search."""
    key = getattr(model, "canonical", lambda s: s)
    order, seen = [model.start], {key(model.start): 0}
    ends, choice_ptr, outcome_ptr, target, weight, passes = {}, [0], [0], [], [], []
    for state in order:
        result = model.outcome(state)
        moves = [] if result is not None else model.moves(state)
        if result is None and not moves:
            result = "lose"
        if result is not None:
            ends[len(choice_ptr) - 1] = {"win": 1, "lose": 0, "tie": Fraction(1, 2)}.get(
                result, result
            )
        for move in moves:
            got = model.chances(state, move)
            if isinstance(got, dict):
                got = [(t, w, f) for (t, f), w in got.items()]
            got = list(got)
            den = 1
            for _, w, _ in got:
                den = den * Fraction(w).denominator // gcd(den, Fraction(w).denominator)
            for t, w, f in got:
                if key(t) not in seen:
                    seen[key(t)] = len(order)
                    order.append(t)
                target.append(seen[key(t)])
                weight.append(int(w * den))
                passes.append(bool(f))
            outcome_ptr.append(len(target))
        choice_ptr.append(len(outcome_ptr) - 1)
    return order, ends, choice_ptr, outcome_ptr, target, weight, passes


@pytest.mark.parametrize("seed", range(8))
def test_stochastic_explorer_agrees_with_a_plain_search(seed):
    from perfectplay.models.stochastic import explore_stochastic

    for canonical in (False, True):
        model = RandomDiceGame(60, seed, canonical)
        ex = explore_stochastic(model)
        order, ends, choice_ptr, outcome_ptr, target, weight, passes = _twin_stochastic(model)
        g = ex.graph
        assert ex.reps == order
        assert g.choice_ptr.tolist() == choice_ptr and g.outcome_ptr.tolist() == outcome_ptr
        assert g.target.tolist() == target and g.weight.tolist() == weight
        assert g.passes.tolist() == passes
        assert g.terminal.tolist() == [p in ends for p in range(len(order))]
        for p, value in ends.items():
            assert Fraction(int(g.terminal_value[p]), g.scale) == value


# -- bounded inputs of the two-player dice explorer (issue 24) -------------------------------


class DiceRace:
    """Two players with dice: every move passes the turn; state 2 is won by its mover."""

    start = 0

    def outcome(self, s):
        return "win" if s >= 2 else None

    def moves(self, s):
        return ["go"]

    def chances(self, s, m):
        return [(s + 1, 1, True)]


def _stochastic(**methods):
    from perfectplay.models.explore import explore_stochastic

    return explore_stochastic(type("Broken", (DiceRace,), methods)(), progress=False)


@pytest.mark.parametrize(
    ("methods", "pattern"),
    [
        (
            {"canonical": lambda self, s: boom()},
            r"^Broken\.canonical\(0\) raised RuntimeError: boom$",
        ),
        (
            {"canonical": lambda self, s: boom() if s else s},
            r"^Broken\.canonical\(1\) raised RuntimeError: boom on an outcome of "
            r"Broken\.chances\(0, 'go'\)$",
        ),
        ({"start": lambda self: boom()}, r"^Broken\.start\(\) raised RuntimeError: boom$"),
        ({"start": property(boom)}, r"reading the attribute start raised RuntimeError: boom"),
        ({"no_moves": property(boom)}, r"reading the attribute no_moves raised RuntimeError"),
        ({"moves": boom}, r"^Broken\.moves\(0\) raised RuntimeError: boom$"),
        ({"chances": boom}, r"^Broken\.chances\(0, 'go'\) raised RuntimeError: boom$"),
        ({"outcome": boom}, r"^Broken\.outcome\(0\) raised RuntimeError: boom$"),
        (
            {"chances": lambda self, s, m: [([s + 1], 1, True)]},
            r"chances\(0, 'go'\) returned an outcome \[1\] that cannot be hashed",
        ),
        ({"chances": lambda self, s, m: 5}, r"chances\(0, 'go'\) did not return an iterable"),
        (
            {"chances": lambda self, s, m: [(1, 1)]},
            r"chances\(0, 'go'\) gave \(1, 1\); each outcome must be a triple",
        ),
        (
            {"chances": lambda self, s, m: {1: 1}},
            r"chances\(0, 'go'\) gave the key 1; a mapping's keys are pairs",
        ),
        ({"moves": 3}, r"Broken\.moves is not callable"),
    ],
)
def test_misbehaving_dice_game_is_one_line_naming_the_state(methods, pattern):
    with pytest.raises(ModelError, match=pattern) as info:
        _stochastic(**methods)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize("chunk", [7, 1 << 16])
def test_dice_game_generators_that_never_stop_hit_the_per_call_limit(monkeypatch, chunk):
    import itertools

    monkeypatch.setattr(limits_module, "EDGE_CHUNK", chunk)
    gen = Counted()
    endless_chances = {"chances": lambda self, s, m: gen((s + 1, 1, True))}
    pattern = r"Broken\.chances\(0, 'go'\) gave more than 100 outcomes in one call"
    from perfectplay.models.explore import explore_stochastic

    with pytest.raises(SpaceLimitError, match=pattern):
        explore_stochastic(
            type("Broken", (DiceRace,), endless_chances)(), max_per_call=100, progress=False
        )
    assert gen.taken == 101
    endless_moves = type("Broken", (DiceRace,), {"moves": lambda self, s: itertools.repeat("go")})

    with pytest.raises(SpaceLimitError, match=r"Broken\.moves\(0\) gave more than 100 moves"):
        explore_stochastic(endless_moves(), max_per_call=100, progress=False)
    # A list longer than the limit is refused as well, and the limit is per call.
    wide = type("Broken", (DiceRace,), {"moves": lambda self, s: ["go"] * 101})
    with pytest.raises(SpaceLimitError, match=r"moves\(0\) gave more than 100 moves"):
        explore_stochastic(wide(), max_per_call=100, progress=False)
    assert explore_stochastic(wide(), max_per_call=101, progress=False).graph.n_chance == 202


def test_dice_game_state_edge_and_memory_limits(monkeypatch):
    from perfectplay.models.explore import explore_stochastic

    class Climb(DiceRace):  # an endless climb
        def outcome(self, s):
            return None

    with pytest.raises(SpaceLimitError, match=r"Climb: more than 50 positions; the space may"):
        explore_stochastic(Climb(), max_states=50, progress=False)
    with pytest.raises(SpaceLimitError, match=r"Climb: more than 60 moves/outcomes in all"):
        explore_stochastic(Climb(), max_edges=60, progress=False)
    monkeypatch.setenv("PERFECTPLAY_MEMORY_LIMIT", "2M")
    with pytest.raises(SpaceLimitError, match="more than the 2.0 MiB available"):
        explore_stochastic(Climb(), progress=False)


def test_strategies_read_their_game_through_the_same_guards():
    import itertools

    from perfectplay.models.stochastic import solve_stochastic_model

    endless = type("Broken", (DiceRace,), {"moves": lambda self, s: itertools.repeat("go")})
    with pytest.raises(SpaceLimitError, match=r"Broken\.moves\(0\) gave more than 10 moves"):
        solve_stochastic_model(endless(), first=lambda s: "go", max_per_call=10, progress=False)
    with pytest.raises(ModelError, match=r"Broken\.start\(\) raised RuntimeError: boom"):
        solve_stochastic_model(
            type("Broken", (DiceRace,), {"start": lambda self: boom()})(), first=lambda s: "go"
        )

    def leave(s):
        raise SystemExit(0)

    with pytest.raises(ModelError, match=r"strategy leave failed in state 0: SystemExit"):
        solve_stochastic_model(DiceRace(), first=leave, progress=False)


def _exit(*args):
    raise SystemExit(0)


@pytest.mark.parametrize(
    ("explore", "method", "pattern"),
    [
        ("chance", "start", r"Broken\.start\(\) raised SystemExit: 0"),
        ("chance", "roll", r"Broken\.roll\('r'\) raised SystemExit: 0"),
        ("chance", "choices", r"Broken\.choices\(0\) raised SystemExit: 0"),
        ("game", "moves", r"Broken\.moves\(4\) raised SystemExit: 0"),
        ("game", "play", r"Broken\.play\(4, 1\) raised SystemExit: 0"),
        ("stochastic", "start", r"Broken\.start\(\) raised SystemExit: 0"),
        ("stochastic", "moves", r"Broken\.moves\(0\) raised SystemExit: 0"),
        ("stochastic", "chances", r"Broken\.chances\(0, 'go'\) raised SystemExit: 0"),
        ("stochastic", "canonical", r"Broken\.canonical\(0\) raised SystemExit: 0"),
    ],
)
def test_sys_exit_in_a_callback_is_a_model_error_in_every_explorer(explore, method, pattern):
    # sys.exit(0) escaping would end the command with status 0, as if it had succeeded.
    from perfectplay.models.explore import explore_stochastic

    if explore == "chance":
        run = lambda: explore_chance(make(**{method: _exit}), progress=False)  # noqa: E731
    elif explore == "game":
        broken = type("Broken", (Take,), {method: _exit})
        run = lambda: explore_game(broken(4), progress=False)  # noqa: E731
    else:
        broken = type("Broken", (DiceRace,), {method: _exit})
        run = lambda: explore_stochastic(broken(), progress=False)  # noqa: E731
    with pytest.raises(ModelError, match=pattern):
        run()


def test_sys_exit_in_a_dice_game_fails_the_command(tmp_path):
    import subprocess
    import sys

    (tmp_path / "leave.py").write_text(
        "import sys\n"
        "class Leave:\n"
        "    start = 0\n"
        "    def outcome(self, s): return None\n"
        "    def moves(self, s): return ['go']\n"
        "    def chances(self, s, m): sys.exit(0)\n"
    )
    run = subprocess.run(
        [sys.executable, "-m", "perfectplay", "solve", "leave.py:Leave", "-q"],
        capture_output=True, text=True, cwd=tmp_path,
    )  # fmt: skip
    assert run.returncode == 2, run.stderr
    assert run.stderr.strip().splitlines() == [
        "perfectplay: Leave.chances(0, 'go') raised SystemExit: 0"
    ]


def test_one_limits_record_for_every_explorer():
    from perfectplay.models.explore import ExploreLimits, explore_stochastic

    class Up(Take):
        def play(self, n, k):
            return n + k

    class Climb(DiceRace):
        def outcome(self, s):
            return None

    limits = ExploreLimits(max_states=3)
    for run in (
        lambda **kw: explore_chance(Counter(), progress=False, **kw),
        lambda **kw: explore_game(Up(1), progress=False, **kw),
        lambda **kw: explore_stochastic(Climb(), progress=False, **kw),
    ):
        with pytest.raises(SpaceLimitError, match="more than 3 "):
            run(limits=limits)
        # A keyword replaces its field of the record.
        with pytest.raises(SpaceLimitError, match="more than 5 "):
            run(limits=limits, max_states=5)
    assert ExploreLimits.of(limits, max_edges=9) == ExploreLimits(3, 9)
    with pytest.raises(ValueError, match="max_states must be"):
        ExploreLimits(max_states=0)
