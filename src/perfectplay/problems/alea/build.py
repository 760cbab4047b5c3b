"""The chance graph of an Alea Iacta Est instance, built on arrays.

* **Decision nodes** are the canonical full rolls (numbered in increasing state number)
  and one start node after them. A roll whose symbols can be rearranged into a dictionary
  word is a goal.
* **Chance nodes** are the canonical *kept sets*: a partial roll with at least one die to
  reroll (keep-nothing, the first roll of the game, included). Rolling one costs 1.
* A non-goal full roll chooses among all its kept sets; its outcomes are the full rolls
  that extend it, weighted by the number of ways the rerolled dice produce them (face
  multiplicities times the multinomial count of identical dice). The weights of one kept
  set add up to ``6**s`` for ``s`` rerolled dice.

Every non-goal outcome of a kept set extends it, so it may keep the same set again: the
graph has the retry property explicitly, which is what the label-setting solver needs.

Goal detection sorts the symbols of every word and of every roll (a transposition network
on whole columns), packs each sorted string into one 64-bit integer and looks the rolls up
among the words with ``searchsorted``; all of it is array work.

The edges come from one compiled kernel, :func:`_extension_edges`. For each kept set it
walks the multisets of new symbols its rerolled dice can show (per group of identical
dice, non-decreasing digits), so each outcome is met once and written in order; the weight
is updated slot by slot (face count times the multinomial step) and the outcome's number
is looked up in a table that also sorts non-canonical codes. The choice lists are filled
from the same walk. A kept set whose outcomes are all goals is never chosen by anyone (only
non-goal rolls choose) and is left out, which shrinks the graph to almost nothing when
nearly every roll spells a word.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Any, cast

import numpy as np

from perfectplay._util.jit import compile_for, kernel
from perfectplay._util.memory import require
from perfectplay.graphs.chance import ChanceGraph
from perfectplay.problems.alea.instance import Instance
from perfectplay.problems.alea.layout import DiceLayout
from perfectplay.solvers.retry import COMPILE_THRESHOLD


@kernel
def _extension_edges(
    full_codes: Any,
    kept_codes: Any,
    goal: Any,
    star: Any,
    radix: Any,
    below: Any,
    mult: Any,
    code_to_full: Any,
    size: Any,
) -> Any:
    # Arrays come from np.empty only and are filled in loops: each other constructor
    # (zeros, full, copy) is one more function for numba to compile on a first run.
    n_full = full_codes.shape[0]
    n_kept = kept_codes.shape[0]
    d = star.shape[0]

    # Choices of a non-goal roll: every kept set, i.e. for each run of equal symbols on
    # identical dice, how many of them to keep (0 .. run), less keeping everything.
    choice_ptr = np.empty(n_full + 2, np.int64)
    choice_fill = np.empty(n_full + 1, np.int64)
    choice_ptr[0] = 0
    for r in range(n_full):
        ways = 0
        if not goal[r]:
            ways = 1
            run = 0
            last = -1
            for p in range(d):
                digit = (full_codes[r] // radix[p]) % (star[p] + 1)
                if run > 0 and (below[p] >> (p - 1)) & 1 and digit == last:
                    run += 1
                else:
                    ways *= run + 1
                    run = 1
                last = digit
            ways = ways * (run + 1) - 1
        choice_fill[r] = choice_ptr[r]
        choice_ptr[r + 1] = choice_ptr[r] + ways
    choice_fill[n_full] = choice_ptr[n_full]
    choice_ptr[n_full + 1] = choice_ptr[n_full] + 1  # the start node rolls everything
    choice_idx = np.empty(choice_ptr[n_full + 1], np.int32)

    outcome_ptr = np.empty(n_kept + 1, np.int64)
    outcome_ptr[0] = 0
    outcome_idx = np.empty(size, np.int32)
    outcome_weight = np.empty(size, np.int64)
    new_id = np.empty(n_kept, np.int32)

    # Per rerolled slot j: its position, digit, and the state after assigning slots < j.
    pos = np.empty(d, np.int64)
    digit = np.empty(d, np.int64)
    code_at = np.empty(d + 1, np.int64)
    weight_at = np.empty(d + 1, np.int64)
    in_group = np.empty(d, np.int64)
    same_run = np.empty(d, np.int64)
    n_chance = 0
    e = 0
    for c in range(n_kept):
        new_id[c] = -1
        code = kept_codes[c]
        n_star = 0
        for p in range(d):
            if (code // radix[p]) % (star[p] + 1) == star[p]:
                pos[n_star] = p
                n_star += 1
        first = e
        chosen = c == n_kept - 1  # keep-nothing, the start node's choice
        # Each multiset of new symbols per group once: slots of one group take
        # non-decreasing digits. Codes need not be canonical: code_to_full sorts them.
        code_at[0] = code
        weight_at[0] = 1
        j = 0
        digit[0] = 0
        while True:
            p = pos[j]
            grouped = j > 0 and (below[p] >> pos[j - 1]) & 1
            in_group[j] = in_group[j - 1] + 1 if grouped else 1
            same_run[j] = same_run[j - 1] + 1 if grouped and digit[j] == digit[j - 1] else 1
            code_at[j + 1] = code_at[j] + (digit[j] - star[p]) * radix[p]
            # Ways to roll it: face count times the multinomial step (group size / run).
            w = weight_at[j] * mult[p, digit[j]]
            if in_group[j] > 1:
                w = w * in_group[j] // same_run[j]
            weight_at[j + 1] = w
            if j + 1 < n_star:
                j += 1
                grouped = (below[pos[j]] >> pos[j - 1]) & 1
                digit[j] = digit[j - 1] if grouped else 0
                continue
            r = code_to_full[code_at[n_star]]
            outcome_idx[e] = r
            outcome_weight[e] = w
            e += 1
            if not goal[r]:
                chosen = True
            while j >= 0 and digit[j] == star[pos[j]] - 1:
                j -= 1
            if j < 0:
                break
            digit[j] += 1
        if not chosen:
            e = first  # only goals extend it: nobody ever keeps this set
            continue
        new_id[c] = n_chance
        for k in range(first, e):
            r = outcome_idx[k]
            if not goal[r]:
                choice_idx[choice_fill[r]] = n_chance
                choice_fill[r] += 1
        n_chance += 1
        outcome_ptr[n_chance] = e
    choice_idx[choice_fill[n_full]] = new_id[n_kept - 1]
    return (
        choice_ptr,
        choice_idx,
        outcome_ptr[: n_chance + 1],
        outcome_idx[:e],
        outcome_weight[:e],
        new_id,
    )


def _sorted_keys(symbols: np.ndarray) -> np.ndarray:
    """One ``uint64`` per row of at most 8 ASCII symbols: the row's bytes, sorted.

    Rows are sorted with a transposition network on whole columns (a few vector
    operations instead of one small sort per row), then the 8-byte rows are read as
    integers.
    """
    n, d = symbols.shape
    cols = [symbols[:, i] for i in range(d)]
    for step in range(d):
        for i in range(step % 2, d - 1, 2):
            low = np.minimum(cols[i], cols[i + 1])
            cols[i + 1] = np.maximum(cols[i], cols[i + 1])
            cols[i] = low
    packed = np.zeros((n, 8), dtype=np.uint8)
    for i in range(d):
        packed[:, i] = cols[i]
    return packed.view(np.uint64).reshape(n)


def goal_rolls(layout: DiceLayout, full_digits: np.ndarray, words: np.ndarray) -> np.ndarray:
    """``bool[n]``: which rolls (rows of digits) are anagrams of a word.

    >>> lay = DiceLayout.of(("AB1234", "CD1234"))
    >>> words = np.frombuffer(b"CAB2", np.uint8).reshape(2, 2)
    >>> lay.symbols  # digits number the distinct symbols in ASCII order
    ('1234AB', '1234CD')
    >>> goal_rolls(lay, np.array([[4, 4], [5, 1], [4, 5]], np.int8), words).tolist()
    [True, True, False]
    """
    # Words using a symbol that no die shows can never be formed: drop them before sorting.
    shown = np.zeros(256, dtype=np.bool_)
    for s in layout.symbols:
        shown[np.frombuffer(s.encode("ascii"), dtype=np.uint8)] = True
    words = words[shown[words].all(axis=1)]
    if words.shape[0] == 0:
        return np.zeros(full_digits.shape[0], dtype=np.bool_)
    word_keys = np.sort(_sorted_keys(words))
    table = layout.symbol_table()
    roll_keys = _sorted_keys(table[np.arange(layout.d), full_digits])
    at = np.searchsorted(word_keys, roll_keys)
    at[at == word_keys.shape[0]] = 0
    return cast(np.ndarray, word_keys[at] == roll_keys)


@dataclass(frozen=True, eq=False)
class AleaGraph:
    """The chance graph of an instance and the numbering of its nodes.

    Attributes:
        graph: decision nodes ``0 .. n_full-1`` are full rolls, ``n_full`` is the start;
            chance nodes are kept sets, the last one is keep-nothing.
        layout: what the digits of a state number mean.
        full_codes: state number of each full-roll decision node (increasing).
        kept_codes: state number of each chance node (increasing).
        code_to_decision, code_to_chance: dense inverse tables (``-1``: not such a node).
    """

    graph: ChanceGraph
    layout: DiceLayout
    full_codes: np.ndarray
    kept_codes: np.ndarray
    code_to_decision: np.ndarray
    code_to_chance: np.ndarray

    @property
    def n_full(self) -> int:
        return int(self.full_codes.shape[0])

    @property
    def keep_nothing(self) -> int:
        """Chance node of rolling every die."""
        return int(self.kept_codes.shape[0] - 1)


def _outcome_counts(layout: DiceLayout, kept_codes: np.ndarray) -> np.ndarray:
    """Canonical full rolls extending each kept set: multisets for each group's stars."""
    digits = layout.digits(kept_codes)
    count = np.ones(kept_codes.shape[0], dtype=np.int64)
    for g in sorted(set(layout.group)):
        members = [p for p in range(layout.d) if layout.group[p] == g]
        k = layout.star[g]
        stars = (digits[:, members] == k).sum(axis=1)
        table = np.array([comb(s + k - 1, s) for s in range(len(members) + 1)], np.int64)
        count *= table[stars]
    return count


def _full_code_table(layout: DiceLayout, code_to_decision: np.ndarray) -> np.ndarray:
    """Decision node of every star-free state number, canonical or not (-1 elsewhere)."""
    if len(set(layout.group)) == layout.d:
        return code_to_decision  # no identical dice: every full roll is canonical
    digits = layout.digits(np.arange(layout.n_codes, dtype=np.int64))
    for g in sorted(set(layout.group)):
        members = [p for p in range(layout.d) if layout.group[p] == g]
        if len(members) > 1:
            digits[:, members] = np.sort(digits[:, members], axis=1)
    table = code_to_decision[layout.encode(digits)]
    table[(digits == np.asarray(layout.star, dtype=np.int8)).any(axis=1)] = -1
    return cast(np.ndarray, table)


def useful_symbols(instance: Instance) -> frozenset[str]:
    """Symbols of the words whose every symbol is on some die.

    Other words can never be formed, so a face whose symbol is in none of these words
    is as good as blank.

    >>> from perfectplay.problems.alea.instance import parse
    >>> sorted(useful_symbols(parse("2 2\\nABCDEF\\nAB1234\\nA1\\nZ2\\n")))
    ['1', 'A']
    """
    on_dice = np.zeros(256, dtype=np.bool_)
    on_dice[np.frombuffer("".join(instance.dice).encode("ascii"), dtype=np.uint8)] = True
    words = instance.words
    formable = on_dice[words].all(axis=1)
    codes = np.unique(words[formable])
    return frozenset(chr(int(c)) for c in codes)


def build(instance: Instance, merge_faces: bool = True, merge_dice: bool = True) -> AleaGraph:
    """Build the chance graph of ``instance`` (see the module docstring).

    >>> from perfectplay.problems.alea.instance import parse
    >>> ag = build(parse("2 1\\nAAAAAA\\nBBBBBB\\nAB\\n"))
    >>> ag.n_full, ag.graph.n_chance, bool(ag.graph.goal[0])
    (1, 1, True)
    """
    layout = DiceLayout.of(
        instance.dice,
        merge_faces=merge_faces,
        merge_dice=merge_dice,
        useful=useful_symbols(instance),
    )
    d = layout.d
    require(layout.n_codes * 64, f"numbering the states of {d} dice")
    full_codes, all_kept = layout.canonical_states()
    n_edges = int(_outcome_counts(layout, all_kept).sum())
    # Outcome edges (index and weight), as many choice edges, the tables per state number.
    require(n_edges * 16 + layout.n_codes * 12, f"the graph of {d} dice, {n_edges:,} edges")
    code_to_decision = np.full(layout.n_codes, -1, dtype=np.int32)
    code_to_decision[full_codes] = np.arange(full_codes.shape[0], dtype=np.int32)
    goal = goal_rolls(layout, layout.digits(full_codes), instance.words)
    below = np.zeros(d, dtype=np.int64)
    for p in range(d):
        for q in range(p):
            if layout.group[q] == layout.group[p]:
                below[p] |= 1 << q
    # Interpreted, the walk costs about 2 us per edge: small graphs skip loading numba.
    compiled = compile_for(2 * n_edges, COMPILE_THRESHOLD, _extension_edges)
    choice_ptr, choice_idx, outcome_ptr, outcome_idx, outcome_weight, new_id = _extension_edges.run(
        full_codes,
        all_kept,
        goal,
        np.asarray(layout.star, dtype=np.int64),
        np.asarray(layout.radix, dtype=np.int64),
        below,
        layout.mult_table(),
        _full_code_table(layout, code_to_decision),
        n_edges,
        compiled=compiled,
    )
    in_graph = new_id >= 0
    kept_codes = all_kept[in_graph]
    code_to_chance = np.full(layout.n_codes, -1, dtype=np.int32)
    code_to_chance[kept_codes] = new_id[in_graph]
    graph = ChanceGraph(
        terminal=np.concatenate((goal, np.zeros(1, dtype=np.bool_))),
        choice_ptr=choice_ptr,
        choice_idx=choice_idx,
        outcome_ptr=outcome_ptr,
        outcome_idx=outcome_idx,
        outcome_weight=outcome_weight,
        cost=np.ones(kept_codes.shape[0], dtype=np.int64),
        start=int(full_codes.shape[0]),
    )
    return AleaGraph(graph, layout, full_codes, kept_codes, code_to_decision, code_to_chance)
