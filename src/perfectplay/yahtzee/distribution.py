"""The exact distribution of the final score under the optimal policy.

The expected score of a Yahtzee-family game is one number of the solved table; its whole
distribution needs the policy played out. Glenn (2006, "An optimal strategy for Yahtzee",
CS-TR-0002) computed it for American rules (standard deviation 59.61) in about a day;
here it takes seconds, in floats with no sampling, by a forward pass over the tiers of
scorecards:

1. *One turn.* From a scorecard state the policy's turn is a distribution over final
   hands: the first roll's hand probabilities, pushed through the best keep of each hand
   and the reroll of the other dice, once per reroll. The push is the transpose of the
   solver's one-die recursion (mass on keep ``K`` moves to ``K + f`` with probability
   ``p_f``, smaller keeps first), so it costs what one reroll costs. Each final hand goes
   to its best box, which gives points and the next state; the hands are grouped by (box,
   points) so a state has a few dozen outcomes ``(probability, points, next state)``.
2. *The tiers.* ``P(state, points so far)`` is carried from the empty card tier by tier
   (each turn fills one box). Each state keeps a dense array of its points so far from
   the smallest to the largest reachable under the policy; only two tiers are alive at a
   time, and only states the policy reaches with positive probability are visited.
   Forward beats backward here: the points so far pin the upper total exactly below the
   threshold, while a remaining-score array must span every upper total still to come.
3. The full-card states' arrays add up to the distribution of the final score.

The policy is the one :meth:`~perfectplay.yahtzee.solution.YahtzeeSolution.options`
advises, ties to the first option (:mod:`perfectplay.yahtzee._policy`); the mean of the
distribution is therefore the solved value (tests assert 1e-6).

>>> from perfectplay.yahtzee.ruleset import Category, Rules
>>> from perfectplay.yahtzee.solution import solve
>>> sol = solve(Rules("max", (Category("max", max),), dice=2, faces=2, rolls=1,
...                   upper_threshold=0))
>>> d = score_distribution(sol)
>>> d.pmf.tolist(), d.mean, d.median
([0.0, 0.25, 0.75], 1.75, 2)
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from perfectplay._util.atomic import atomic_writer
from perfectplay._util.memory import require
from perfectplay._util.progress import Progress
from perfectplay.errors import InputError, WriteError
from perfectplay.lattice.kernels import njit, prange
from perfectplay.yahtzee._policy import best_keeps, choose_box, keep_tables, point_tables
from perfectplay.yahtzee.cards import Card, refuse_saved_throws
from perfectplay.yahtzee.kernels import BATCH, decode, final_values, place

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from perfectplay.lattice.arrays import LatticeArrays
    from perfectplay.yahtzee.game import ScorecardArrays, ScorecardGame
    from perfectplay.yahtzee.solution import YahtzeeSolution

__all__ = ["ScoreDistribution", "plot", "score_distribution", "score_span"]

#: States whose turn outcomes are computed in one call (bounds the outcome buffers).
BLOCK = 4096


@dataclass(frozen=True)
class ScoreDistribution:
    """The distribution of the final score: ``pmf[i]`` is the probability of scoring
    ``low + i`` (``low`` is 0 unless some box scores negative points, so ``pmf[s]`` is
    the probability of ``s``).

    >>> d = ScoreDistribution("demo", np.array([0.0, 0.5, 0.25, 0.25]))
    >>> d.mean, round(d.std, 6), d.median, d.percentiles([10, 90]), d.cdf.tolist()
    (1.75, 0.829156, 1, [1, 3], [0.0, 0.5, 0.75, 1.0])
    >>> d.probability(2), d.probability(7)
    (0.25, 0.0)
    """

    rules: str
    pmf: np.ndarray
    low: int = 0

    @property
    def scores(self) -> np.ndarray:
        """The score of each entry of :attr:`pmf`."""
        return np.arange(self.low, self.low + self.pmf.shape[0])

    @property
    def total(self) -> float:
        """The sum of :attr:`pmf` (1 up to float rounding)."""
        return float(self.pmf.sum())

    @property
    def mean(self) -> float:
        """The expected final score."""
        return float(self.pmf @ self.scores)

    @property
    def variance(self) -> float:
        """The variance of the final score."""
        dev = self.scores - self.mean
        return float(self.pmf @ (dev * dev))

    @property
    def std(self) -> float:
        """The standard deviation of the final score."""
        return math.sqrt(self.variance)

    @property
    def cdf(self) -> np.ndarray:
        """``cdf[i]``: the probability of scoring at most ``low + i``."""
        return np.cumsum(self.pmf)

    def probability(self, score: int) -> float:
        """The probability of a final score of exactly ``score``."""
        i = score - self.low
        return float(self.pmf[i]) if 0 <= i < self.pmf.shape[0] else 0.0

    def percentile(self, q: float) -> int:
        """The smallest score whose cumulative probability reaches ``q`` percent
        (``q`` in 0..100; rounding below 1e-12 is forgiven so 100 gives the top score)."""
        if not 0 <= q <= 100:
            raise InputError(f"a percentile is between 0 and 100, not {q!r}")
        cdf = self.cdf
        i = int(np.searchsorted(cdf, q / 100 * cdf[-1] - 1e-12, side="left"))
        return self.low + min(i, int(cdf.shape[0]) - 1)

    def percentiles(self, qs: Any) -> list[int]:
        """:meth:`percentile` of each of ``qs``."""
        return [self.percentile(q) for q in qs]

    @property
    def median(self) -> int:
        """The 50th percentile."""
        return self.percentile(50)

    def to_json(self, percentiles: Any = (10, 25, 50, 75, 90)) -> dict[str, Any]:
        """A JSON-ready summary: the statistics, the given percentiles and the pmf from
        ``low``.

        >>> ScoreDistribution("demo", np.array([0.5, 0.5])).to_json((50,))["percentiles"]
        {'50': 0}
        """
        return {
            "rules": self.rules,
            "mean": self.mean,
            "std": self.std,
            "median": self.median,
            "percentiles": {f"{q:g}": self.percentile(q) for q in percentiles},
            "low": self.low,
            "pmf": self.pmf.tolist(),
        }


@njit(cache=True, parallel=True, boundscheck=False)
def _outcomes(
    prob_out: Any,
    pts_out: Any,
    nxt_out: Any,
    cnt_out: Any,
    states: Any,
    V: Any,
    Vz: Any,
    Vn: Any,
    g: ScorecardArrays,
    lat: LatticeArrays,
) -> None:
    """Row ``i``: the policy's turn from ``states[i]`` as ``cnt_out[i]`` outcomes."""
    n_states = states.shape[0]
    n_cat, n_hands = g.score.shape
    n_keeps = lat.add.shape[0]
    width = g.cls_score.shape[1]
    rolls = lat.rolls
    for c in prange((n_states + BATCH - 1) // BATCH):
        lo = c * BATCH
        nb = min(n_states, lo + BATCH) - lo
        cur = np.empty((n_hands, nb))
        Es = np.empty((rolls - 1, n_keeps, nb))
        M = np.empty((n_keeps, nb))
        A = np.empty((rolls - 1, n_keeps, nb), dtype=np.int64)
        cv = np.empty(max(width, n_cat))
        m = np.empty(n_hands)
        mk = np.empty(n_keeps)
        val = np.empty((n_cat, width))
        w = np.empty((n_cat, width))
        boxes = np.empty(n_cat, dtype=np.int64)
        for j in range(nb):
            mask, u, y = decode(states[lo + j], g)
            final_values(cur, j, V, mask, u, y, g, cv)
        keep_tables(cur, Es, M, lat)
        for r in range(rolls - 1):
            best_keeps(Es[r], lat, M, A[r])
        for j in range(nb):
            i = lo + j
            _hand_mass(m, mk, A, j, lat)
            cnt_out[i] = _box_outcomes(
                prob_out[i], pts_out[i], nxt_out[i], m, val, w, cv, boxes, states[i], V, Vz, Vn,
                g,
            )  # fmt: skip


@njit(cache=True, boundscheck=False)
def _hand_mass(m: Any, mk: Any, A: Any, j: int, lat: LatticeArrays) -> None:
    """``m[h]``: the probability that the turn ends on hand ``h`` under the best keeps
    (``A[r - 1, k, j]``: the best keep of hand keep ``k`` with ``r`` rolls left)."""
    add, face_prob, hand_prob = lat.add, lat.face_prob, lat.hand_prob
    n_keeps, n_faces = add.shape
    n_hands = m.shape[0]
    base = n_keeps - n_hands
    for h in range(n_hands):
        m[h] = hand_prob[h]
    for r in range(A.shape[0], 0, -1):
        for k in range(n_keeps):
            mk[k] = 0.0
        for h in range(n_hands):
            mk[A[r - 1, base + h, j]] += m[h]
        # the transpose of the one-die recursion: smaller keeps first
        for k in range(base):
            q = mk[k]
            if q != 0.0:
                for f in range(n_faces):
                    mk[add[k, f]] += face_prob[f] * q
        for h in range(n_hands):
            m[h] = mk[base + h]


@njit(cache=True, boundscheck=False)
def _box_outcomes(
    prob_out: Any,
    pts_out: Any,
    nxt_out: Any,
    m: Any,
    val: Any,
    w: Any,
    cv: Any,
    boxes: Any,
    s: int,
    V: Any,
    Vz: Any,
    Vn: Any,
    g: ScorecardArrays,
) -> int:
    """The outcomes of ending the turn on the hands ``m`` in state ``s``: each hand to its
    best box, grouped by (box, points class); returns their number (``val``, ``w``,
    ``cv`` and ``boxes`` are scratch)."""
    cls_t, cls_score, n_cls, is_kind = g.cls_t, g.cls_score, g.n_cls, g.is_kind
    n_cat, n_hands = g.score.shape
    width = cls_score.shape[1]
    mask, u, y = decode(s, g)
    special = g.kind_box >= 0 and ((mask >> g.kind_box) & 1) == 1
    n_open = 0
    for b in range(n_cat):
        if not (mask >> b) & 1:
            boxes[n_open] = b
            n_open += 1
    for b in range(n_cat):
        for k in range(width):
            w[b, k] = 0.0
        if not (mask >> b) & 1:
            for k in range(n_cls[b]):
                val[b, k] = place(V, mask | (1 << b), u, y, b, cls_score[b, k], g)
    n = 0
    for h in range(n_hands):
        if m[h] == 0.0:
            continue
        if special and is_kind[h]:
            _, p, nx = choose_box(cv, V, Vz, Vn, mask, u, y, h, g)
            prob_out[n] = m[h]
            pts_out[n] = p
            nxt_out[n] = nx
            n += 1
            continue
        b0 = boxes[0]
        best = val[b0, cls_t[h, b0]]
        for i in range(1, n_open):
            b = boxes[i]
            v = val[b, cls_t[h, b]]
            if v > best:
                best = v
                b0 = b
        w[b0, cls_t[h, b0]] += m[h]
    for b in range(n_cat):
        if (mask >> b) & 1:
            continue
        nm = mask | (1 << b)
        for k in range(n_cls[b]):
            if w[b, k] > 0.0:
                points = place(Vz, nm, u, y, b, cls_score[b, k], g)
                numbered = place(Vn, nm, u, y, b, cls_score[b, k], g)
                prob_out[n] = w[b, k]
                pts_out[n] = int(points)
                nxt_out[n] = int(numbered - points)
                n += 1
    return n


@njit(cache=True, boundscheck=False)
def _supports(src: Any, pts: Any, tgt: Any, lo: Any, length: Any, nlo: Any, nhi: Any) -> None:
    """The points-so-far range of each next state: the union of its sources' shifted."""
    for e in range(src.shape[0]):
        a = lo[src[e]] + pts[e]
        b = a + length[src[e]] - 1
        t = tgt[e]
        if a < nlo[t]:
            nlo[t] = a
        if b > nhi[t]:
            nhi[t] = b


@njit(cache=True, boundscheck=False)
def _scatter(
    src: Any,
    prob: Any,
    pts: Any,
    tgt: Any,
    lo: Any,
    length: Any,
    offset: Any,
    F: Any,
    nlo: Any,
    noffset: Any,
    G: Any,
) -> None:
    """``G[next state][x + points] += probability * F[state][x]`` for every outcome."""
    for e in range(src.shape[0]):
        s = src[e]
        t = tgt[e]
        q = prob[e]
        a = offset[s]
        d = noffset[t] + lo[s] + pts[e] - nlo[t]
        for x in range(length[s]):
            G[d + x] += q * F[a + x]


def _turn_outcomes(
    solution: YahtzeeSolution, states: NDArray[np.int64], Vz: Any, Vn: Any
) -> tuple[NDArray[np.int32], NDArray[np.float64], NDArray[np.int32], NDArray[np.int32]]:
    """Every outcome of the policy's turn from each of ``states`` (sources as positions;
    ``Vz``, ``Vn``: the :func:`~perfectplay.yahtzee._policy.point_tables`)."""
    game = solution.game
    g, lat = game.arrays, game.lattice.arrays
    width = int(game.n_cls.sum()) + len(game.kind_hand)
    srcs, probs, ptss, nxts = [], [], [], []
    for lo in range(0, len(states), BLOCK):
        block = states[lo : lo + BLOCK]
        n = len(block)
        prob = np.empty((n, width))
        pts = np.empty((n, width), dtype=np.int32)
        nxt = np.empty((n, width), dtype=np.int32)
        cnt = np.empty(n, dtype=np.int64)
        _outcomes(prob, pts, nxt, cnt, block, solution.values, Vz, Vn, g, lat)
        keep = np.arange(width) < cnt[:, None]
        srcs.append(np.repeat(np.arange(lo, lo + n, dtype=np.int32), cnt))
        probs.append(prob[keep])
        ptss.append(pts[keep])
        nxts.append(nxt[keep])
    return _join(srcs), _join(probs), _join(ptss), _join(nxts)


def _join(parts: list[np.ndarray]) -> np.ndarray:
    """Concatenate, freeing each part once copied (the outcomes of a tier are the
    largest arrays of the pass after its probability arrays)."""
    out = np.empty(sum(len(p) for p in parts), dtype=parts[0].dtype)
    at = 0
    while parts:
        p = parts.pop(0)
        out[at : at + len(p)] = p
        at += len(p)
    return out


@njit(cache=True, boundscheck=False)
def _number(nxt: Any, where: Any) -> Any:
    """The distinct next states, sorted, and each outcome's position among them;
    ``where`` (one entry per state number, all -1) is scratch, left as found."""
    for e in range(nxt.shape[0]):
        where[nxt[e]] = 0
    n = 0
    for s in range(where.shape[0]):
        if where[s] == 0:
            where[s] = n
            n += 1
    states = np.empty(n, dtype=np.int64)
    tgt = np.empty(nxt.shape[0], dtype=np.int32)
    for e in range(nxt.shape[0]):
        tgt[e] = where[nxt[e]]
        states[where[nxt[e]]] = nxt[e]
    for i in range(n):
        where[states[i]] = -1
    return states, tgt


def score_span(game: ScorecardGame) -> int:
    """How many final scores the rules allow at most, from an empty card: the highest
    total (each box's best points or joker value, the upper bonus, an extra n-of-a-kind
    bonus every turn after the first) less the lowest (the negative points), plus one.

    >>> from perfectplay.yahtzee.ruleset import rules
    >>> from perfectplay.yahtzee.game import ScorecardGame
    >>> score_span(ScorecardGame(rules("american")))  # 0 to 340 + 35 + 12 * 100
    1576
    """
    best = np.maximum(game.score.max(axis=1), game.joker_score)
    worst = np.minimum(game.score.min(axis=1), 0)
    high = int(best.sum()) + game.bonus + game.rules.kind_bonus * (game.n_categories - 1)
    return high - int(worst.sum()) + 1


def score_distribution(solution: YahtzeeSolution, card: Card | None = None) -> ScoreDistribution:
    """The exact distribution of the final score from the start of a turn with ``card``
    (the empty card by default; its score so far included) under the optimal policy of
    ``solution`` (see the module docstring for the method). Before each tier's
    arrays are allocated their size is checked against the memory budget
    (:func:`perfectplay._util.memory.require`).

    >>> from perfectplay.yahtzee.ruleset import Category, Rules
    >>> from perfectplay.yahtzee.solution import solve
    >>> coin = Rules("coin", (Category.upper(1, "ones"), Category.upper(2, "twos")), dice=1,
    ...              faces=2, rolls=2, upper_threshold=2, upper_bonus=10)
    >>> d = score_distribution(solve(coin))
    >>> d.pmf.nonzero()[0].tolist()     # 12 and 13 with the bonus; never 0
    [1, 12, 13]
    >>> round(d.mean, 9) == round(solve(coin).value(), 9)
    True
    """
    game = solution.game
    refuse_saved_throws(game, "the score distribution")
    # the point tables and the state numbering (one entry each per state number), and one
    # block's outcome buffers; each tier's arrays are checked when their size is known
    width = int(game.n_cls.sum()) + len(game.kind_hand)
    require(20 * game.n_states + 48 * BLOCK * width, f"the score distribution of {game.rules.name}")
    # the final pmf spans every score the rules allow: checked before any tier is played
    require(8 * score_span(game), f"the score distribution of {game.rules.name}")
    Vz, Vn = point_tables(game)
    start, so_far = solution._state(card or Card())
    states = np.array([start], dtype=np.int64)
    lo = np.array([so_far], dtype=np.int64)
    length = np.ones(1, dtype=np.int64)
    offset = np.zeros(1, dtype=np.int64)
    F = np.ones(1)
    where = np.full(game.n_states, -1, dtype=np.int32)
    progress = Progress(f"score distribution of {game.rules.name}")
    filled = bin(game.decode(start)[0]).count("1")
    for t in range(filled, game.n_categories):
        src, prob, pts, nxt = _turn_outcomes(solution, states, Vz, Vn)
        nstates, tgt = _number(nxt, where)
        del nxt
        big = np.iinfo(np.int64).max
        nlo = np.full(len(nstates), big, dtype=np.int64)
        nhi = np.full(len(nstates), -big, dtype=np.int64)
        _supports(src, pts, tgt, lo, length, nlo, nhi)
        nlength = nhi - nlo + 1
        noffset = np.concatenate(([0], np.cumsum(nlength)[:-1]))
        total = int(nlength.sum())
        require(
            8 * total,
            f"the score distribution of {game.rules.name} (tier {t + 1})",
        )
        G = np.zeros(total)
        _scatter(src, prob, pts, tgt, lo, length, offset, F, nlo, noffset, G)
        del src, prob, pts, tgt, F
        states, lo, length, offset, F = nstates, nlo, nlength, noffset, G
        progress.update(t + 1, "turns", total=game.n_categories)
    progress.done()
    low = min(0, int(lo.min()))
    require(8 * (int((lo + length).max()) - low), f"the score distribution of {game.rules.name}")
    pmf = np.zeros(int((lo + length).max()) - low)
    for s in range(len(states)):
        a = int(lo[s]) - low
        pmf[a : a + int(length[s])] += F[offset[s] : offset[s] + length[s]]
    return ScoreDistribution(game.rules.name, pmf, low)


def plot(distribution: ScoreDistribution, path: str | os.PathLike[str]) -> None:
    """Draw the distribution (probability by final score, mean and percentiles 10/50/90
    marked) to an image file with matplotlib (``pip install perfectplay[plot]``); an
    :class:`~perfectplay.errors.InputError` names the missing package without it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise InputError("plotting needs matplotlib: pip install 'perfectplay[plot]'") from None
    d = distribution
    fig, ax = plt.subplots(figsize=(8, 4.5))
    try:
        ax.bar(d.scores, d.pmf, width=1.0, color="#4a78b5", linewidth=0)
        for q, style in ((10, ":"), (50, "--"), (90, ":")):
            label = "median" if q == 50 else f"{q}th percentile"
            ax.axvline(d.percentile(q), color="#555555", linestyle=style, linewidth=1, label=label)
        ax.axvline(d.mean, color="#c0392b", linewidth=1, label="mean")
        ax.legend(frameon=False)
        ax.set_xlabel("final score")
        ax.set_ylabel("probability")
        ax.set_title(
            f"{d.rules}: mean {d.mean:.4f}, standard deviation {d.std:.4f}, median {d.median}"
        )
        nz = np.flatnonzero(d.pmf > d.pmf.max() * 1e-6)
        ax.set_xlim(d.low + nz[0] - 5, d.low + nz[-1] + 5)
        fig.tight_layout()
        kind = os.path.splitext(path)[1].lstrip(".").lower() or "png"
        with atomic_writer(path) as fh:  # whole or not at all, as every file written
            fig.savefig(fh, format=kind)
    except OSError as exc:
        raise WriteError(f"cannot write {path}: {exc.strerror or exc}") from None
    finally:
        plt.close(fig)
