"""solve_chance(method="auto") picks the same solver as before the solvers declared their
conditions (perfectplay.solvers.conditions): the expected choice comes from a copy of the
old decision logic (probing each solver's preconditions in turn), written here over plain
Python lists with its own graph analyses (acyclicity, safe set, end components), and is
compared with the solver that ran, on random graphs of every objective, on the gallery's
graphs and on the examples' models as the explorer builds them. Forced methods are refused
with the same reasons as before. Since a probability's dead ends count 0 (a finished play
without the event), solve_chance decides on the graph with them made terminals worth 0,
and so does the copy (:func:`finished`).
"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from perfectplay.errors import UnsupportedObjectiveError
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.objectives import MIN_COST, Objective
from perfectplay.solvers import UnboundedObjectiveError, chance_solvers, solve_chance

DATA = Path(__file__).resolve().parent.parent / "data"

OBJECTIVES = [
    MIN_COST,
    Objective.score("min"),
    Objective.score("max"),
    Objective.probability("max"),
    Objective.probability("min"),
]
ENDLESS = (
    "some plays cannot end with probability one (endless plays), which a probability "
    "objective supports only without the retry rule"
)


# --- the old decision logic, over lists ----------------------------------------------


def lists(g: ChanceGraph):
    cp, ci = g.choice_ptr.tolist(), g.choice_idx.tolist()
    op, oi, ow = g.outcome_ptr.tolist(), g.outcome_idx.tolist(), g.outcome_weight.tolist()
    choices = [ci[cp[x] : cp[x + 1]] for x in range(g.n_decision)]
    outcomes = [list(zip(oi[op[c] : op[c + 1]], ow[op[c] : op[c + 1]], strict=True))
                for c in range(g.n_chance)]  # fmt: skip
    return g.terminal.tolist(), choices, outcomes


def retry_property(g: ChanceGraph) -> bool:
    term, choices, outcomes = lists(g)
    return g.retry or all(term[x] or c in choices[x]
                          for c, outs in enumerate(outcomes) for x, _ in outs)  # fmt: skip


def combined_edges(g: ChanceGraph, retry_edges: bool) -> list[list[int]]:
    """Decision x -> nd + c for its choices (and, with the retry rule, x -> nd + c for
    each roll c that x is a non-terminal outcome of); chance nd + c -> its outcomes."""
    term, choices, outcomes = lists(g)
    nd = len(term)
    succ = [[nd + c for c in choices[x]] for x in range(nd)]
    succ += [[x for x, _ in outs] for outs in outcomes]
    if retry_edges:
        for c, outs in enumerate(outcomes):
            for x, _ in outs:
                if not term[x]:
                    succ[x].append(nd + c)
    return succ


def acyclic(g: ChanceGraph) -> bool:
    succ = combined_edges(g, False)
    indeg = [0] * len(succ)
    for vs in succ:
        for v in vs:
            indeg[v] += 1
    todo = [v for v, d in enumerate(indeg) if d == 0]
    seen = 0
    while todo:
        v = todo.pop()
        seen += 1
        for w in succ[v]:
            indeg[w] -= 1
            if indeg[w] == 0:
                todo.append(w)
    return seen == len(succ)


def sccs(succ: list[list[int]], alive: list[bool]) -> list[int]:
    """Component id of each alive node (Kosaraju, iterative); -1 for the others."""
    n = len(succ)
    pred: list[list[int]] = [[] for _ in range(n)]
    for v in range(n):
        if alive[v]:
            for w in succ[v]:
                if alive[w]:
                    pred[w].append(v)
    seen, finish = [False] * n, []
    for root in range(n):
        if not alive[root] or seen[root]:
            continue
        seen[root] = True
        stack = [(root, iter(succ[root]))]
        while stack:
            v, it = stack[-1]
            for w in it:
                if alive[w] and not seen[w]:
                    seen[w] = True
                    stack.append((w, iter(succ[w])))
                    break
            else:
                stack.pop()
                finish.append(v)
    comp, k = [-1] * n, 0
    for root in reversed(finish):
        if comp[root] >= 0:
            continue
        comp[root], todo = k, [root]
        while todo:
            v = todo.pop()
            for w in pred[v]:
                if comp[w] < 0:
                    comp[w] = k
                    todo.append(w)
        k += 1
    return comp


def end_components(g: ChanceGraph) -> list[int]:
    """Maximal end components (de Alfaro's refinement), one id per node, -1 outside."""
    term, _, _ = lists(g)
    nd = len(term)
    succ = combined_edges(g, g.retry)
    alive = [not t for t in term] + [True] * g.n_chance
    while True:
        comp = sccs(succ, alive)
        drop = [
            v for v in range(len(succ)) if alive[v] and (
                any(not alive[w] or comp[w] != comp[v] for w in succ[v]) if v >= nd
                else not any(alive[w] and comp[w] == comp[v] for w in succ[v]))
        ]  # fmt: skip
        if not drop:
            return comp
        for v in drop:
            alive[v] = False


def all_safe(g: ChanceGraph) -> bool:
    """Whether some policy ends the play with probability one from every node."""
    term, choices, outcomes = lists(g)
    nd, nc = len(term), len(outcomes)
    sd, sc = [True] * nd, [True] * nc
    while True:
        rd, rc = list(term), [False] * nc
        grew = True
        while grew:
            grew = False
            for c in range(nc):
                if sc[c] and not rc[c] and any(rd[x] for x, _ in outcomes[c]):
                    rc[c] = grew = True
            for x in range(nd):
                if sd[x] and not rd[x] and any(rc[c] for c in choices[x]):
                    rd[x] = grew = True
        new_d = [a and b for a, b in zip(sd, rd, strict=True)]
        new_c = [a and b for a, b in zip(sc, rc, strict=True)]
        if not g.retry:  # a roll with an outcome that cannot end is not safe either
            while True:
                c_drop = [c for c in range(nc)
                          if new_c[c] and any(not new_d[x] for x, _ in outcomes[c])]  # fmt: skip
                for c in c_drop:
                    new_c[c] = False
                x_drop = [x for x in range(nd) if new_d[x] and not term[x]
                          and not any(new_c[c] for c in choices[x])]  # fmt: skip
                for x in x_drop:
                    new_d[x] = False
                if not c_drop and not x_drop:
                    break
        if new_d == sd and new_c == sc:
            return all(sd)
        sd, sc = new_d, new_c


def old_label_setting_blockers(g: ChanceGraph) -> list[str]:
    reasons = []
    if g.objective.sense != "min":
        reasons.append(f"the objective maximises ({g.objective.describe()})")
    if g.n_chance and int(g.cost.min()) <= 0:
        reasons.append("a roll costs 0 or less (label-setting needs every cost positive)")
    tv = g.terminal_value[g.terminal].tolist()
    if not retry_property(g):
        reasons.append("the graph has no retry property")
    elif not g.retry and tv and min(tv) != max(tv):
        reasons.append(
            "terminal values differ and a terminal outcome cannot be rerolled without the "
            "implicit retry rule"
        )
    return reasons


def old_backward_blockers(g: ChanceGraph) -> list[str]:
    if g.retry:
        return ["the graph has the retry rule (a roll can repeat)"]
    return [] if acyclic(g) else ["the graph has a cycle (a state can repeat)"]


def finished(g: ChanceGraph) -> ChanceGraph:
    """A probability's dead ends (no choice, not terminal) made terminals worth 0, which
    solve_chance does first since they are worth 0 there (before, they were ``inf`` to
    the solvers and the conditions saw them as nodes that cannot end)."""
    term, choices, _ = lists(g)
    dead = [not t and not cs for t, cs in zip(term, choices, strict=True)]
    if g.objective.measure != "probability" or not any(dead):
        return g
    fields = {name: getattr(g, name) for name in ChanceGraph.__slots__ if name != "_cache"}
    terminal = np.array([t or d for t, d in zip(term, dead, strict=True)])
    return ChanceGraph(**{**fields, "terminal": terminal})


def old_choice(g: ChanceGraph) -> str:
    """What solve_chance(g) did before: the solver's name, or the refusal (on the graph
    with a probability's dead ends finished)."""
    g = finished(g)
    if not old_label_setting_blockers(g):
        return "label-setting"
    if not old_backward_blockers(g):
        return "backward-induction"
    obj = g.objective
    oriented = [c * obj.orient for c in g.cost.tolist()]
    if oriented and min(oriented) < 0:
        # With the retry rule a roll can be rejected and made again for ever: a paying
        # roll is unbounded whatever its outcomes (before this rule policy iteration ran
        # on such graphs and did not converge).
        if g.retry:
            return "unbounded"
        comp = end_components(g)[g.n_decision :]
        if any(k >= 0 and o < 0 for k, o in zip(comp, oriented, strict=True)):
            return "unbounded"
    reasons = []
    if obj.measure == "probability":
        tv = g.terminal_value[g.terminal].tolist()
        if tv and (min(tv) < 0 or max(tv) > g.scale):
            reasons.append("a probability needs terminal values between 0 and 1")
        if obj.sense == "min":
            if any(k >= 0 for k in end_components(g)):
                reasons.append(ENDLESS)
        elif not all_safe(g):
            reasons.append(ENDLESS)
    if reasons == [ENDLESS] and not g.retry:
        return "collapse"
    return "unsupported" if reasons else "policy-iteration"


# --- the new dispatcher ----------------------------------------------------------------


def new_choice(g: ChanceGraph) -> str:
    try:
        method = solve_chance(g).method
    except UnboundedObjectiveError:
        return "unbounded"
    except UnsupportedObjectiveError:
        return "unsupported"
    return {"policy-iteration, end components collapsed": "collapse"}.get(method, method)


def check_forced(g: ChanceGraph) -> None:
    for method, old, title in (
        ("label-setting", old_label_setting_blockers, "label-setting"),
        ("backward-induction", old_backward_blockers, "backward induction"),
    ):
        reasons = old(finished(g))
        if reasons:
            with pytest.raises(UnsupportedObjectiveError) as info:
                solve_chance(g, method=method)
            assert str(info.value) == f"{title} does not apply: {'; '.join(reasons)}"
        else:
            assert solve_chance(g, method=method).method == method


# --- graphs ------------------------------------------------------------------------------


def random_graph(rng: random.Random) -> ChanceGraph:
    """A small graph of any shape: layered or not, any objective, costs of every sign,
    the retry rule implicit, explicit (every outcome lists its roll) or absent."""
    nd, nc = rng.randint(2, 8), rng.randint(1, 6)
    objective = rng.choice(OBJECTIVES)
    layered = rng.random() < 0.4
    term = [rng.random() < 0.3 for _ in range(nd)]
    term[rng.randrange(nd)] = True
    # Layered: choices lead to rolls whose outcomes have larger ids (no cycle).
    owner = [rng.randrange(nd - 1) if layered else rng.randrange(nd) for _ in range(nc)]
    outcomes = []
    for c in range(nc):
        lo = owner[c] + 1 if layered else 0
        k = rng.randint(1, 3)
        outcomes.append([(rng.randint(lo, nd - 1), rng.randint(1, 4)) for _ in range(k)])
    choices: list[list[int]] = [[] for _ in range(nd)]
    for c in range(nc):
        choices[owner[c]].append(c)
    for x in range(nd):
        if not term[x] and rng.random() < 0.3:
            choices[x].append(rng.randrange(nc))
    rule = rng.choice(("none", "implicit", "explicit"))
    if rule == "explicit":
        for c in range(nc):
            for x, _ in outcomes[c]:
                if not term[x] and c not in choices[x]:
                    choices[x].append(c)
    choices = [[] if t else sorted(set(cs)) for t, cs in zip(term, choices, strict=True)]
    sign = rng.choice(("positive", "zero", "mixed"))
    low = {"positive": 1, "zero": 0, "mixed": -2}[sign]
    cost = [rng.randint(low, 3) for _ in range(nc)]
    if objective.measure == "probability":
        tv = [rng.choice((0, 1, 1, 2)) if rng.random() < 0.1 else rng.choice((0, 1))
              for _ in range(nd)]  # fmt: skip
    else:
        tv = [0] * nd if rng.random() < 0.5 else [rng.randint(-3, 5) for _ in range(nd)]
    return ChanceGraph.from_lists(
        terminal=term, terminal_value=[v if t else 0 for v, t in zip(tv, term, strict=True)],
        choices=choices, outcomes=outcomes, cost=cost, retry=rule == "implicit",
        objective=objective,
    )  # fmt: skip


def with_objective(g: ChanceGraph, objective: Objective) -> ChanceGraph:
    fields = {name: getattr(g, name) for name in ChanceGraph.__slots__ if name != "_cache"}
    return ChanceGraph(**{**fields, "objective": objective})


def gallery_graphs() -> list[tuple[str, ChanceGraph]]:
    from perfectplay.problems.alea.build import build as alea_build
    from perfectplay.problems.alea.instance import parse as alea_parse
    from perfectplay.problems.yeetzhee.build import build as yeetzhee_build
    from perfectplay.problems.yeetzhee.instance import parse as yeetzhee_parse

    out = []
    for i in (1, 2, 3, 4):
        inst = alea_parse((DATA / "aleaiactaest" / f"{i}.in").read_text())
        out.append((f"alea {i}", alea_build(inst).graph))
        out.append((f"alea {i} unmerged", alea_build(inst, False, False).graph))
    for case in yeetzhee_parse((DATA / "yeetzhee" / "data" / "sample" / "1.in").read_text()):
        out.append((f"yeetzhee {case}", yeetzhee_build(case.n, case.m, case.groups).graph))
    return out


def example_graphs() -> list[tuple[str, ChanceGraph]]:
    from perfectplay.examples.chutes_ladders import ChutesAndLadders
    from perfectplay.examples.five_dice import FiveDice
    from perfectplay.examples.threes import Threes
    from perfectplay.examples.yahtzee_turn import YahtzeeTurn
    from perfectplay.models.explore import explore_chance

    models = [ChutesAndLadders(), FiveDice(3, 4), Threes(3), YahtzeeTurn(3, 2)]
    return [(type(m).__name__, explore_chance(m, progress=False).graph) for m in models]


def test_random_graphs_get_the_same_solver():
    rng = random.Random(2024)
    seen: Counter[str] = Counter()
    for i in range(600):
        g = random_graph(rng)
        want = old_choice(g)
        assert new_choice(g) == want, f"graph {i}: {g}"
        check_forced(g)
        seen[want] += 1
    # Every branch of the old logic was taken, so the comparison covers each.
    assert set(seen) == {"label-setting", "backward-induction", "policy-iteration",
                         "collapse", "unbounded", "unsupported"}, seen  # fmt: skip


def test_gallery_and_example_graphs_get_the_same_solver():
    for name, g in gallery_graphs() + example_graphs():
        for objective in (g.objective, *OBJECTIVES):
            h = with_objective(g, objective)
            assert new_choice(h) == old_choice(h), f"{name} ({objective.describe()})"
        check_forced(g)


def test_the_dispatcher_reads_each_solvers_declaration():
    # Each solver's record is its module's SOLVER, its conditions beside its proof.
    import perfectplay.solvers.backward as backward
    import perfectplay.solvers.policy_iteration as pi
    import perfectplay.solvers.reach as reach
    import perfectplay.solvers.retry as retry

    assert chance_solvers() == (retry.SOLVER, backward.SOLVER, pi.SOLVER, reach.SOLVER)
    assert retry.RETRY_PROPERTY in retry.SOLVER.requires
    assert backward.SOLVER.requires == (backward.ACYCLIC,)


def test_one_analysis_per_graph():
    # The analyses solve_chance asks for are computed once and kept on the graph.
    g = ChanceGraph.from_lists(   # a probability with an endless cycle: every check runs
        terminal=[False, False, True, True], terminal_value=[0, 0, 1, 0],
        choices=[[0], [1, 2], [], []], outcomes=[[(1, 1)], [(0, 1)], [(2, 1), (3, 3)]],
        cost=[0, 0, 0], objective=Objective.probability("min"))  # fmt: skip
    assert solve_chance(g).method == "policy-iteration, end components collapsed"
    ec = g.end_components()
    assert g.end_components() is ec and g.arrays() is g.arrays()
    assert g.acyclic_order() is None and "acyclic_order" in g._cache


def test_a_paying_roll_under_the_retry_rule_is_unbounded():
    # Maximise the score: each roll pays 1 and lands on the end, but the retry rule lets
    # the player reject the end and roll again for ever. Policy iteration used to run
    # here and stop with "did not converge".
    g = ChanceGraph.from_lists(
        terminal=[False, True], choices=[[0], []], outcomes=[[(1, 1)]], cost=[1],
        retry=True, objective=Objective.score(),
    )  # fmt: skip
    with pytest.raises(UnboundedObjectiveError) as info:
        solve_chance(g)
    assert info.value.node == 0
    # Without the rule the same roll is made once: a value of 1.
    h = ChanceGraph.from_lists(
        terminal=[False, True], choices=[[0], []], outcomes=[[(1, 1)]], cost=[1],
        objective=Objective.score(),
    )  # fmt: skip
    assert solve_chance(h).value == 1.0
