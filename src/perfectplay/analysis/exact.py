"""Exact values of a policy, and a proof that the policy is optimal.

:func:`exact_solution` takes a graph and a (float) solution, recomputes the values of the
solution's policy in rational arithmetic, and checks the Bellman optimality conditions on
those exact values:

* every non-goal decision node's value equals its chosen roll's, and **no other choice is
  worth less**;
* at every roll the **kept outcomes are exactly those worth at most the roll itself**
  (ties may go either way; rejecting is only allowed where the retry rule, explicit or
  implicit, allows it);
* the nodes with infinite value are **exactly those from which no policy reaches a goal
  almost surely** (checked structurally, by a fixpoint on the graph, not by the values).

Everything is checked on *oriented* values (``objective.orient * value``, so a maximising
objective is checked as the minimisation of its negation) in units of ``1 / scale``, and
turned back at the end. With positive costs these conditions characterise the optimum
(the Bellman equation of a stochastic shortest path problem has a unique finite solution
on the nodes that can finish; Bertsekas and Tsitsiklis 1991). With zero oriented costs the
equation may have other solutions, but the evaluated policy is proper (its values are
finite exactly on the safe set) and some optimal policy ``m`` is proper too (a play that
never ends is worth the worst value), so ``J = T J <= T_m J <= ... -> J_m`` proves ``J``
optimal: passing them is a proof of optimality; failing raises :class:`VerificationError`.

How the rational evaluation stays fast on ~3 million edges: outcomes that go on with the
same roll are summed per distinct successor first (integer weights, compiled), so each
roll's value is ``(cost * W + sum_b n_b V(b)) / K`` over few distinct ``b``; kept outcomes
that choose the same roll again are merged into the reroll (they are the same thing); and
the rolls are evaluated in a topological order of the policy graph. Comparisons run on the
correctly rounded floats of the exact values, vectorised (``fl`` is monotone, so
``fl(a) < fl(b)`` proves ``a < b``); only equal floats are compared exactly.

A probability counts a play that stops at a dead end or goes round an end component for
ever as 0, which the conditions above would read as an infinite value. Such a graph is
verified on its quotient instead (:func:`~perfectplay.solvers.reach.collapse`: dead ends
become terminals worth 0, each maximal end component one node that may also "stay for
ever" for 0), where every policy ends with probability one, so the certificate is a proof
there; the quotient has the graph's values (de Alfaro 1997, *Formal Verification of
Probabilistic Systems*, ch. 3), and the verified policy is lifted back as
:func:`~perfectplay.solvers.reach.solve_probability` lifts its own:

>>> from perfectplay.objectives import Objective
>>> from perfectplay.solvers import solve_chance
>>> h = ChanceGraph.from_lists(   # roll: 1:1:2 the event (1), a dead end (2), a loop (3)
...     terminal=[False, True, False, False], terminal_value=[0, 1, 0, 0],
...     choices=[[0], [], [], [1]], outcomes=[[(1, 1), (2, 1), (3, 2)], [(3, 1)]],
...     cost=[0, 0], objective=Objective.probability())
>>> ex = exact_solution(h, solve_chance(h))
>>> ex.value, [ex.decision_value(x) for x in range(4)]
(Fraction(1, 4), [Fraction(1, 4), Fraction(1, 1), Fraction(0, 1), Fraction(0, 1)])

A float solver can order two options whose values differ by less than rounding the wrong
way round; the check then fails on a "near-tie". ``improve=True`` repairs that by exact
policy iteration instead of failing (see :func:`exact_solution`).

Policies whose graph has cycles (possible without the retry rule) are solved exactly, one
strongly connected component at a time, by sparse fraction-free Gaussian elimination in a
reverse Cuthill-McKee order or a depth-first post-order, whichever has the smaller
envelope (fill confined to it; a chain or ring of ``m`` rolls costs ``O(m)`` row
operations on integers of up to ``O(m)`` bits). There is no size limit: a component is
refused with :class:`~perfectplay.errors.ResourceLimitError` only when the estimate of its
fill (entries times their bits) does not fit in memory. The same evaluation
(:func:`~perfectplay.solvers.chain.chain_values`, which lives with the solvers because
:func:`perfectplay.solvers.stochastic.exact_stochastic` evaluates a strategy pair of a
two-player dice game with it) serves both.

>>> from perfectplay.graphs.chance import ChanceGraph
>>> from perfectplay.solvers.retry import solve_retry
>>> g = ChanceGraph.from_lists(
...     goal=[False, True, False, False],
...     choices=[[0], [], [0, 1], [0]],
...     outcomes=[[(1, 1), (2, 2), (3, 3)], [(1, 1), (2, 2)]],
... )
>>> ex = exact_solution(g, solve_retry(g))
>>> ex.value, ex.chance_value(1)
(Fraction(4, 1), Fraction(3, 1))
>>> isinstance(ex, ExactSolution)
True

References: the optimality conditions are the Bellman equation of a stochastic shortest
path problem (Bertsekas and Tsitsiklis, "An analysis of stochastic shortest path
problems", Mathematics of Operations Research 16(3), 1991); ``improve=True`` is Howard's
policy iteration (1960) in exact arithmetic; cycles are split into strongly connected
components by Tarjan's algorithm (SIAM Journal on Computing 1(2), 1972). The write-up
``archive/icpc/2023/K-alea-iacta-est/solution.tex`` shows the certificate on Alea.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from perfectplay._util.jit import kernel
from perfectplay._util.memory import require
from perfectplay.errors import PerfectplayError
from perfectplay.graphs.chance import ChanceGraph, ChanceSolution
from perfectplay.solvers.chain import chain_values

__all__ = ["MAX_ROUNDS", "ExactSolution", "VerificationError", "chain_values", "exact_solution"]


class VerificationError(PerfectplayError):
    """The policy handed to :func:`exact_solution` is not optimal (or not even proper)."""


@dataclass(frozen=True, eq=False)
class ExactSolution:
    """Exact values of a verified optimal policy.

    ``numerators`` / ``denominators`` hold each chance node's value in lowest terms
    (Python ints; denominator 0 marks an infinite value). Use the accessors.
    """

    graph: ChanceGraph
    solution: ChanceSolution
    numerators: list[int]
    denominators: list[int]

    def chance_value(self, c: int) -> Fraction | None:
        """Exact value of chance node ``c``; ``None`` when it is infinite."""
        den = self.denominators[c]
        return None if den == 0 else Fraction(int(self.numerators[c]), int(den))

    def decision_value(self, x: int) -> Fraction | None:
        """Exact value of decision node ``x`` (its terminal value at a terminal); ``None``
        when it is infinite (no terminal is reached almost surely; under a probability,
        where a play that never ends counts 0, a dead end is worth 0)."""
        if self.graph.terminal[x]:
            return Fraction(int(self.graph.terminal_value[x]), self.graph.scale)
        b = int(self.solution.best_choice[x])
        if b < 0:  # a dead end, or no terminal reached: a play that never ends
            endless = self.graph.objective.endless
            return None if math.isinf(endless) else Fraction(endless)
        return self.chance_value(b)

    @property
    def value(self) -> Fraction | None:
        """Exact value of the start node (``None``: no goal can be reached)."""
        return self.decision_value(self.graph.start)


@kernel
def _structure(
    goal: Any,
    choice_ptr: Any,
    choice_idx: Any,
    outcome_ptr: Any,
    outcome_idx: Any,
    outcome_weight: Any,
    best: Any,
    accept: Any,
    retry: Any,
) -> Any:
    """Policy checks and the kept outcomes grouped by successor, in one pass each.

    The evaluation order and the safe set come from :mod:`perfectplay.graphs._csr`.

    Arrays are made with np.empty and filled in loops: every np.full / np.zeros / copy
    variant is one more function for numba to compile on a first run.
    """
    nd = goal.shape[0]
    nc = outcome_ptr.shape[0] - 1
    n_out = outcome_idx.shape[0]
    problem = 0  # 1: a choice the node does not have, 2: an illegal reroll
    where = 0

    # Per-node arrays, initialised together.
    total = np.empty(nc, np.int64)
    kept_w = np.empty(nc, np.int64)
    dead = np.empty(nc, np.bool_)
    slot = np.empty(nc, np.int64)
    mark = np.empty(nc, np.int64)
    term_ptr = np.empty(nc + 1, np.int64)
    for c in range(nc + 1):
        term_ptr[c] = 0
        if c < nc:
            total[c] = 0
            kept_w[c] = 0
            dead[c] = False
            slot[c] = -1
            mark[c] = -1
    rptr = np.empty(nd + 1, np.int64)
    fill_d = np.empty(nd + 1, np.int64)
    for x in range(nd + 1):
        rptr[x] = 0

    # best[x] must be one of x's choices.
    for x in range(nd):
        b = best[x]
        if goal[x] or b < 0:
            continue
        found = False
        for k in range(choice_ptr[x], choice_ptr[x + 1]):
            if choice_idx[k] == b:
                found = True
                break
        if not found:
            problem = 1
            where = x
            break

    owner = np.empty(n_out, np.int32)
    for c in range(nc):
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            owner[e] = c
            total[c] += outcome_weight[e]

    # Rejections are legal under the implicit rule, or where the outcome may choose the
    # roll again. Rejected edges are bucketed by outcome node so this stays O(E).
    if not retry and problem == 0:
        for e in range(n_out):
            if not accept[e]:
                rptr[outcome_idx[e] + 1] += 1
        for x in range(nd):
            rptr[x + 1] += rptr[x]
        for x in range(nd + 1):
            fill_d[x] = rptr[x]
        redge = np.empty(rptr[nd], np.int64)
        for e in range(n_out):
            if not accept[e]:
                x = outcome_idx[e]
                redge[fill_d[x]] = e
                fill_d[x] += 1
        for x in range(nd):
            if rptr[x] == rptr[x + 1]:
                continue
            if not goal[x]:
                for k in range(choice_ptr[x], choice_ptr[x + 1]):
                    mark[choice_idx[k]] = x
            for k in range(rptr[x], rptr[x + 1]):
                e = redge[k]
                if goal[x] or mark[owner[e]] != x:
                    problem = 2
                    where = e
                    break
            if problem != 0:
                break

    # Kept outcomes grouped by what happens next: a goal (only its weight counts), a dead
    # end (dead), the same roll again (merged into the reroll), or another roll b (term).
    term_idx = np.empty(n_out, np.int32)
    term_w = np.empty(n_out, np.int64)
    n_terms = 0
    for c in range(nc):
        start = n_terms
        for e in range(outcome_ptr[c], outcome_ptr[c + 1]):
            if not accept[e]:
                continue
            x = outcome_idx[e]
            w = outcome_weight[e]
            if goal[x]:
                kept_w[c] += w
                continue
            b = best[x]
            if b == c:
                continue
            kept_w[c] += w
            if b < 0:
                dead[c] = True
                continue
            s = slot[b]
            if s < start:
                slot[b] = n_terms
                term_idx[n_terms] = b
                term_w[n_terms] = w
                n_terms += 1
            else:
                term_w[s] += w
        term_ptr[c + 1] = n_terms

    return (
        problem,
        where,
        total,
        term_ptr,
        term_idx,
        term_w,
        n_terms,
        kept_w,
        dead,
    )


MAX_ROUNDS = 50
"""Most rounds of exact policy improvement :func:`exact_solution` runs with ``improve``."""


def exact_solution(
    graph: ChanceGraph, solution: ChanceSolution, improve: bool = False
) -> ExactSolution:
    """Evaluate ``solution``'s policy in rational arithmetic and verify that it is optimal.

    Works with and without the retry rule. See the module docstring for what is checked.

    With ``improve=True`` a legal policy that is not optimal is not rejected but improved
    by exact policy iteration (switch every choice and keep/reroll decision that is
    strictly better in exact arithmetic, evaluate again) until it verifies. A float
    solver can pick the worse of two options whose values differ by less than rounding;
    this repairs such near-ties, usually in one round, and the returned
    :attr:`ExactSolution.solution` holds the repaired policy. Structural problems (an
    illegal choice or reroll, infinite values where a goal can be reached) still raise.

    Raises:
        VerificationError: some choice or keep/reroll decision improves on the policy
            (unless ``improve``), the policy is illegal (a choice the node does not have,
            a reroll the rules do not allow) or not proper, or its infinite values
            disagree with the graph.
        ResourceLimitError: the working arrays, or the estimated fill of the exact
            elimination of a cycle of the policy graph, would not fit in memory.

    >>> from perfectplay.graphs.chance import ChanceGraph
    >>> from perfectplay.solvers.retry import solve_retry
    >>> g = ChanceGraph.from_lists([False, True, False], [[0], [], [0]], [[(1, 1), (2, 2)]])
    >>> exact_solution(g, solve_retry(g)).value
    Fraction(3, 1)
    """
    if _needs_quotient(graph):  # a probability where plays may stop or go on for ever
        return _exact_on_quotient(graph, solution, improve)
    nd, nc = graph.n_decision, graph.n_chance
    n_out, n_ch = graph.outcome_idx.shape[0], graph.choice_idx.shape[0]
    # Kernel arrays (about 60 bytes an outcome edge), the lists of Python ints and the
    # vectorised checks. The big integers come on top; on the largest Alea graphs they
    # average a few hundred bits, a few MiB in all.
    require(
        n_out * 60 + n_ch * 30 + nc * 220 + nd * 40,
        f"exact evaluation of {nc:,} chance nodes and {n_out + n_ch:,} edges",
    )
    best = np.ascontiguousarray(solution.best_choice, np.int32)
    accept = np.ascontiguousarray(solution.accept, np.bool_)
    if best.shape != (nd,) or accept.shape != (n_out,):
        raise ValueError("the solution does not belong to this graph")
    for _round in range(MAX_ROUNDS):
        num, den, safe_d, safe_c = _evaluate(graph, best, accept)
        found = _verify(graph, best, accept, num, den, safe_d, safe_c)
        if found is None:
            break
        if not improve or found.structural:
            raise VerificationError(found.message)
        best, accept = _improve(graph, best, accept, num, den, found)
    else:  # pragma: no cover - policy iteration ends long before on finite graphs
        raise VerificationError(f"no optimal policy after {MAX_ROUNDS} rounds of improvement")
    orient, scale = graph.objective.orient, graph.scale
    if orient != 1 or scale != 1:
        # Back from oriented values in units of 1 / scale to the graph's own values.
        for c in range(nc):
            if den[c]:
                f = Fraction(orient * num[c], den[c] * scale)
                num[c], den[c] = f.numerator, f.denominator
    if best is not solution.best_choice or accept is not solution.accept:
        fc = _to_float(num, den) * orient
        fd = np.where(graph.terminal, graph.terminal_value / scale, orient * np.inf)
        live = ~graph.terminal & (best >= 0)
        fd[live] = fc[best[live]]
        solution = ChanceSolution(graph, fd, fc, best, accept, method=solution.method)
    return ExactSolution(graph=graph, solution=solution, numerators=num, denominators=den)


def _needs_quotient(graph: ChanceGraph) -> bool:
    """A probability with a dead end or (without the retry rule) an end component where
    a play may go on for ever. Not where every node can end and the player maximises:
    there some optimal policy ends too, which the direct proof needs (and the solver's
    policy does). Asks first what the dispatcher has already computed."""
    if graph.objective.measure != "probability":
        return False
    if graph.dead_ends().any():
        return True
    if graph.retry or graph.acyclic_order() is not None:
        return False
    if graph.objective.sense == "max" and bool(graph.safe_set()[0].all()):
        return False
    return graph.end_components()[2] > 0


def _exact_on_quotient(
    graph: ChanceGraph, solution: ChanceSolution, improve: bool
) -> ExactSolution:
    """Exact values of a probability where plays may stop at a dead end or go on for ever,
    verified on its quotient (see the module docstring), the policy lifted back."""
    nc = graph.n_chance
    if graph.retry:
        # No quotient with the retry rule (every roll is a cycle of its own); its dead
        # ends are still terminals worth 0.
        done = exact_solution(graph.finish_dead_ends(), solution, improve)
        best, accept = done.solution.best_choice, done.solution.accept
        num, den = done.numerators, done.denominators
    else:
        from perfectplay.solvers.reach import collapse

        q = collapse(graph)
        done = exact_solution(q.graph, q.policy_of(solution), improve)
        exit_of = []
        for k, exits in enumerate(q.exits):
            c = int(done.solution.best_choice[graph.n_decision + k])
            if c >= nc:
                # Staying for ever is best (worth 0): an exit worth exactly as much still
                # ends the play, so walk to it.
                stay = done.decision_value(graph.n_decision + k)
                c = next((e for e in exits if done.chance_value(e) == stay), -1)
            exit_of.append(c)
        best = q.lift(done.solution.best_choice, exit_of)
        accept = np.ones(graph.outcome_idx.shape[0], np.bool_)
        num, den = done.numerators[:nc], done.denominators[:nc]
    if not (np.array_equal(best, solution.best_choice) and np.array_equal(accept, solution.accept)):
        fc = _to_float(num, den)
        fd = np.where(graph.terminal, graph.terminal_value / graph.scale, 0.0)
        fd[best >= 0] = fc[best[best >= 0]]
        solution = ChanceSolution(graph, fd, fc, best, accept, method=solution.method)
    return ExactSolution(graph=graph, solution=solution, numerators=num, denominators=den)


def _evaluate(
    graph: ChanceGraph, best: np.ndarray, accept: np.ndarray
) -> tuple[list[int], list[int], np.ndarray, np.ndarray]:
    """Exact chance values of the policy, plus the safe sets of the graph."""
    nc = graph.n_chance
    problem, where, total, term_ptr, term_idx, term_w, n_terms, kept_w, dead = _structure(
        *graph.arrays()[:6], best, accept, bool(graph.retry)
    )
    if problem == 1:
        raise VerificationError(
            f"decision node {where} picks chance node {best[where]}, not one of its choices"
        )
    if problem == 2:
        c = int(np.searchsorted(graph.outcome_ptr, where, side="right") - 1)
        raise VerificationError(
            f"chance node {c} rerolls outcome {graph.outcome_idx[where]}, which the rules do "
            "not allow"
        )
    term_idx, term_w = term_idx[:n_terms], term_w[:n_terms]
    safe_d, safe_c = graph.safe_set()

    # Values are kept oriented (minimised) and in units of 1 / scale: each roll's constant
    # term is cost * W plus the kept terminal outcomes' w * value, all integers.
    orient = graph.objective.orient
    cost_w = (graph.cost.astype(object) * total.astype(object)).tolist()
    if graph.has_terminal_values():
        owner = np.repeat(np.arange(nc), np.diff(graph.outcome_ptr))
        ys = graph.outcome_idx
        hit = np.flatnonzero(accept & graph.terminal[ys] & (graph.terminal_value[ys] != 0))
        tv = graph.terminal_value
        for e in hit.tolist():
            cost_w[owner[e]] += int(graph.outcome_weight[e]) * int(tv[ys[e]])
    if orient != 1:
        cost_w = [-v for v in cost_w]
    num, den = chain_values(cost_w, kept_w.tolist(), term_ptr, term_idx, term_w,
                            dead=dead.tolist(), unit="chance nodes")  # fmt: skip
    return num, den, safe_d, safe_c


@dataclass
class _Found:
    """What the check found wrong: the first message, and what to improve."""

    message: str
    structural: bool
    decisions: np.ndarray  # decision nodes with a strictly better choice
    edges: np.ndarray  # outcome edges whose keep/reroll decision is strictly wrong


def _verify(
    graph: ChanceGraph,
    best: np.ndarray,
    accept: np.ndarray,
    num: list[int],
    den: list[int],
    safe_d: np.ndarray,
    safe_c: np.ndarray,
) -> _Found | None:
    nd, nc = graph.n_decision, graph.n_chance
    none = np.zeros(0, np.int64)
    fc = _to_float(num, den)
    finite_c = np.array([d != 0 for d in den], bool) if nc else np.zeros(0, bool)
    # Decision values (oriented, in units of 1 / scale): the terminal value at terminals,
    # the chosen roll's value, inf without a choice.
    orient = graph.objective.orient
    tv = graph.terminal_value
    fd = np.where(graph.terminal, orient * tv.astype(np.float64), np.inf)
    live = ~graph.terminal & (best >= 0)
    fd[live] = fc[best[live]]
    finite_d = np.isfinite(fd)

    bad = np.flatnonzero(finite_d != safe_d)
    if bad.size:
        x = int(bad[0])
        what = "has a finite value" if finite_d[x] else "has an infinite value"
        fact = "cannot" if finite_d[x] else "can"
        msg = f"decision node {x} {what}, but it {fact} reach a terminal almost surely"
        return _Found(msg, True, none, none)
    bad = np.flatnonzero(finite_c != safe_c)
    if bad.size:
        c = int(bad[0])
        msg = (
            f"chance node {c} has {'a finite' if finite_c[c] else 'an infinite'} value, "
            f"but it {'cannot' if finite_c[c] else 'can'} reach a terminal almost surely"
        )
        return _Found(msg, True, none, none)

    messages: list[str] = []

    # No choice is worth less than the chosen one.
    xs = np.repeat(np.arange(nd), np.diff(graph.choice_ptr))
    cs = graph.choice_idx
    mask = finite_d[xs] & ~graph.terminal[xs]
    xs, cs = xs[mask], cs[mask]
    a, b = fc[cs], fd[xs]
    worse = np.flatnonzero(a < b)
    if worse.size:
        k = int(worse[0])
        messages.append(
            f"decision node {xs[k]} would do better with chance node {cs[k]} ({a[k]!r} < {b[k]!r})"
        )
    tie = np.flatnonzero((a == b) & (cs != best[xs]))
    hair = np.zeros(0, np.int64)
    if tie.size:
        pairs, inverse = np.unique(
            np.stack([cs[tie], best[xs[tie]]], axis=1), axis=0, return_inverse=True
        )
        less = np.array([_less(num, den, c, bc) for c, bc in pairs.tolist()], bool)
        hair = tie[less[inverse.ravel()]]
        if hair.size:
            k = int(hair[0])
            messages.append(
                f"choosing chance node {cs[k]} beats chance node {best[xs[k]]} at decision "
                f"node {xs[k]} by a hair (exactly)"
            )
    decisions = np.unique(np.concatenate([xs[worse], xs[hair]]))

    # Kept outcomes are worth at most the roll, rerolled ones at least.
    owner = np.repeat(np.arange(nc), np.diff(graph.outcome_ptr))
    ys = graph.outcome_idx
    fx, fv = fd[ys], fc[owner]
    checked = finite_c[owner]
    wrong = checked & ~accept & (fx < fv)
    if graph.retry:
        wrong |= checked & accept & (fx > fv)
    if wrong.any():
        e = int(np.flatnonzero(wrong)[0])
        how = "keeps" if accept[e] else "rerolls"
        messages.append(
            f"chance node {owner[e]} {how} outcome {ys[e]} worth {fx[e]!r}, against "
            f"{fv[e]!r} for rolling again"
        )
    same = np.zeros(ys.shape[0], bool)
    nongoal = ~graph.terminal[ys]
    same[nongoal] = best[ys[nongoal]] == owner[nongoal]
    tie = np.flatnonzero(checked & (fx == fv) & ~same & (graph.retry | ~accept))
    for e in tie.tolist():
        c, x = int(owner[e]), int(ys[e])
        nx, dx = (orient * int(tv[x]), 1) if graph.terminal[x] else (num[best[x]], den[best[x]])
        lhs, rhs = nx * den[c], num[c] * dx
        if (accept[e] and lhs > rhs) or (not accept[e] and lhs < rhs):
            wrong[e] = True
            messages.append(
                f"chance node {c} {'keeps' if accept[e] else 'rerolls'} outcome {x}, "
                "the wrong side of a near-tie (exactly)"
            )
    if not messages:
        return None
    return _Found(messages[0], False, decisions, np.flatnonzero(wrong))


def _improve(
    graph: ChanceGraph,
    best: np.ndarray,
    accept: np.ndarray,
    num: list[int],
    den: list[int],
    found: _Found,
) -> tuple[np.ndarray, np.ndarray]:
    """One round of exact policy improvement at the places the check flagged."""
    best = best.copy()
    accept = accept.copy()
    for x in found.decisions.tolist():
        b = int(best[x])
        for c in graph.choices(x).tolist():
            if den[c] and (b < 0 or _less(num, den, c, b)):
                b = c
        best[x] = b
    accept[found.edges] = ~accept[found.edges]
    return best, accept


def _less(num: list[int], den: list[int], a: int, b: int) -> bool:
    """Exact ``V(a) < V(b)`` for chance nodes with finite values."""
    return num[a] * den[b] < num[b] * den[a]


def _to_float(num: list[int], den: list[int]) -> np.ndarray:
    """Correctly rounded floats of the exact values (``inf`` where ``den == 0``)."""
    return np.array([n / d if d else math.inf for n, d in zip(num, den, strict=True)])
