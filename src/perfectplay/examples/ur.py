"""The Royal Game of Ur, rules as data, as a compiled model.

Two players race their pieces along their own paths over a board of 20 tiles; the
middle lane is shared, where landing on an enemy piece sends it back to the hand.
Rosettes give another roll and may be safe. The rule sets of RoyalUr.net
(RoyalUr-Java's ``GameSettings``) by name, and any combination of their parts:

===========  ======  ==============  ==========================  =====  ============  ========
rule set     pieces  path            dice                        safe   extra roll:   capture
                                                                 roses  rosette       extra
===========  ======  ==============  ==========================  =====  ============  ========
``finkel``   7       Bell (14 tiles)  4 binary, a 0 passes        yes    yes           no
``blitz``    5       Masters (16)     4 binary, a 0 passes        no     yes           yes
``masters``  7       Masters (16)     3 binary, a 0 counts 4      no     yes           no
===========  ======  ==============  ==========================  =====  ============  ========

A piece moves exactly the throw along its path (from the hand onto the first tile with a
throw of 1), never onto its own piece, and bears off with the exact throw only. A throw
with no legal move passes the turn, as does a throw of 0 where a 0 passes.

**Positions** are for the player to move ("light" below; the other is "dark"); a value
is the mover's winning chance. The notation: each player's pieces on the board as their
steps along their own path (1 = the first tile), then ``+N`` for the pieces borne off
(the rest are in the hand), light first, a ``/`` between the players, and optionally
``:K`` for a throw of K::

    /            the start (every piece in hand)
    4,8+2/6      light on steps 4 and 8 with 2 borne off, dark on step 6
    4,8+2/6:3    the same, light having thrown 3 (for the moves' values)

>>> from perfectplay.compiled import solve_compiled
>>> ur = Ur(pieces=2)
>>> sol = solve_compiled(ur)
>>> round(sol.value(), 6), sol.n_positions   # RoyalUr's finkel2p table: 0.51858 (16 bits)
(0.518573, 12869)
>>> [(o.label, round(o.value, 4)) for o in sol.options("4/6:3")]
[('enter to 3', 0.4997), ('move 4 to 7', 0.4429)]
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

# perfectplay's njit (numba's, made ready as for every kernel of perfectplay): importing
# numba first would let it build AVX-512 code, which LLVM miscompiles.
from perfectplay.compiled import CompiledModel, njit
from perfectplay.errors import InputError, PerfectplayError, short_repr

__all__ = ["BOARD", "HAND_BITS", "PATHS", "RULES", "Ur", "UrRules"]

Tile = tuple[int, int]

#: Light's paths (column 1 is light's lane, 2 the shared one, rows 1..8); dark's path is
#: the mirror image (column 4 - x). Both start and end off the board.
PATHS: dict[str, tuple[Tile, ...]] = {
    "bell": tuple(
        [(1, y) for y in (4, 3, 2, 1)] + [(2, y) for y in range(1, 9)] + [(1, 8), (1, 7)]
    ),
    "masters": tuple(
        [(1, y) for y in (4, 3, 2, 1)]
        + [(2, y) for y in range(1, 8)]
        + [(3, 7), (3, 8), (2, 8), (1, 8), (1, 7)]
    ),
}
#: The 20 tiles of the board: three lanes of rows 1..8, the outer two without rows 5, 6.
BOARD: frozenset[Tile] = frozenset(
    (x, y) for x in (1, 2, 3) for y in range(1, 9) if x == 2 or y not in (5, 6)
)
#: The rosettes of the standard board.
ROSETTES: frozenset[Tile] = frozenset({(1, 1), (3, 1), (2, 4), (1, 7), (3, 7)})


@dataclass(frozen=True)
class UrRules:
    """One rule set: the path (a name of :data:`PATHS` or light's tiles), pieces a side,
    binary dice, what a throw of 0 counts (0: it passes), whether rosettes are safe and
    whether a rosette or a capture gives another roll."""

    path: str | tuple[Tile, ...] = "bell"
    pieces: int = 7
    dice: int = 4
    zero: int = 0
    safe_rosettes: bool = True
    rosette_extra: bool = True
    capture_extra: bool = False

    def __post_init__(self) -> None:
        # A path read back from JSON (a saved table's parameters) is a list of lists:
        # as tuples it compares, hashes and prints as the path it was written from.
        if not isinstance(self.path, str):
            try:
                tiles = tuple((_tile_int(x), _tile_int(y)) for x, y in self.path)
            except (TypeError, ValueError):
                raise ValueError(
                    f"a path is a name ({', '.join(PATHS)}) or light's tiles as (column, "
                    f"row) pairs of ints, not {self.path!r}"
                ) from None
            object.__setattr__(self, "path", tiles)

    def tiles(self) -> tuple[Tile, ...]:
        """Light's path as tiles."""
        if isinstance(self.path, str):
            if self.path not in PATHS:
                raise ValueError(
                    f"no Ur path {self.path!r}; known: {', '.join(PATHS)}, or light's tiles "
                    "as (column, row) pairs"
                )
            return PATHS[self.path]
        return tuple(self.path)

    def changes(self, base: UrRules | None = None) -> dict[str, Any]:
        """The fields that differ from ``base`` (Finkel's when omitted), JSON-ready (a
        path of tiles as lists).

        >>> RULES["blitz"].changes(RULES["masters"])
        {'pieces': 5, 'dice': 4, 'zero': 0, 'capture_extra': True}
        """
        base = base if base is not None else UrRules()
        return {
            f.name: _jsonable(getattr(self, f.name))
            for f in fields(self)
            if getattr(self, f.name) != getattr(base, f.name)
        }


def _is_int(value: Any) -> bool:
    """An int that is not a bool (``pieces=True`` is no number of pieces)."""
    return isinstance(value, int) and not isinstance(value, bool)


def _tile_int(value: Any) -> int:
    if isinstance(value, bool):
        raise TypeError(value)
    return operator.index(value)  # an int or numpy's, never a float or text


def _check_fields(parts: dict[str, Any]) -> None:
    unknown = set(parts) - set(UrRules.__dataclass_fields__)
    if unknown:
        raise ValueError(f"unknown Ur rule {sorted(unknown)[0]!r}")


def _jsonable(value: Any) -> Any:
    """``value`` as JSON keeps it: tuples (a path of tiles) as lists."""
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    return value


#: The rule sets of RoyalUr.net by name.
RULES: dict[str, UrRules] = {
    "finkel": UrRules(),
    "blitz": UrRules(path="masters", pieces=5, safe_rosettes=False, capture_extra=True),
    "masters": UrRules(path="masters", dice=3, zero=4, safe_rosettes=False),
}

# The parameter array: rule numbers, then per path step (0 = hand .. L + 1 = off)
# whether it is a rosette, and the opponent's step on the same tile (-1: none).
_L, _PIECES, _DICE, _ZERO, _SAFE, _ROSE_EXTRA, _CAPTURE_EXTRA = range(7)
_ROSE = 8
_OPP = 40
#: Bits of the pieces in hand in a packed position, for each player.
HAND_BITS = 4


@njit(cache=True)
def _unpack(s: int, p: Any) -> tuple[int, int, int, int]:
    n = p[_L]
    full = (1 << n) - 1
    return (
        s & full,
        (s >> n) & full,
        (s >> (2 * n)) & 15,
        (s >> (2 * n + HAND_BITS)) & 15,
    )


@njit(cache=True)
def _pack(mine: int, theirs: int, my_hand: int, their_hand: int, p: Any) -> int:
    n: int = p[_L]
    return mine | (theirs << n) | (my_hand << (2 * n)) | (their_hand << (2 * n + HAND_BITS))


@njit(cache=True)
def _popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def ur_start(p: Any) -> int:
    return _pack(0, 0, p[_PIECES], p[_PIECES], p)


@njit(cache=True)
def ur_outcome(s: int, p: Any) -> float:
    mine, theirs, my_hand, their_hand = _unpack(s, p)
    if theirs == 0 and their_hand == 0:
        return 0.0  # the player who just moved bore off their last piece
    if mine == 0 and my_hand == 0:
        return 1.0
    return -1.0


@njit(cache=True)
def ur_rolls(s: int, p: Any, weights: Any) -> int:
    dice = p[_DICE]
    c = 1
    for k in range(dice + 1):
        weights[k] = c  # C(dice, k): k of the binary dice up
        c = c * (dice - k) // (k + 1)
    return int(dice + 1)


@njit(cache=True)
def ur_moves(s: int, roll: int, p: Any, nexts: Any, flips: Any) -> int:
    n = p[_L]
    mine, theirs, my_hand, their_hand = _unpack(s, p)
    throw = roll if roll > 0 else p[_ZERO]
    m = 0
    if throw > 0:
        for step in range(0, n + 1):
            if step == 0:
                if my_hand == 0:
                    continue
            elif not (mine >> (step - 1)) & 1:
                continue
            dest = step + throw
            if dest > n + 1:
                continue
            new_mine = mine
            if step > 0:
                new_mine &= ~(1 << (step - 1))
            new_hand = my_hand - 1 if step == 0 else my_hand
            new_theirs = theirs
            new_their_hand = their_hand
            extra = False
            if dest <= n:
                if (mine >> (dest - 1)) & 1:
                    continue  # own piece there
                rose = p[_ROSE + dest] == 1
                o = p[_OPP + dest]
                if o > 0 and (theirs >> (o - 1)) & 1:
                    if rose and p[_SAFE] == 1:
                        continue  # safe on a rosette
                    new_theirs &= ~(1 << (o - 1))
                    new_their_hand += 1
                    extra = p[_CAPTURE_EXTRA] == 1
                new_mine |= 1 << (dest - 1)
                extra = extra or (rose and p[_ROSE_EXTRA] == 1)
            if extra:
                nexts[m] = _pack(new_mine, new_theirs, new_hand, new_their_hand, p)
                flips[m] = 0
            else:
                nexts[m] = _pack(new_theirs, new_mine, new_their_hand, new_hand, p)
                flips[m] = 1
            m += 1
    if m == 0:  # no legal move: the turn passes
        nexts[0] = _pack(theirs, mine, their_hand, my_hand, p)
        flips[0] = 1
        m = 1
    return m


@njit(cache=True)
def ur_layer(s: int, p: Any) -> int:
    mine, theirs, my_hand, their_hand = _unpack(s, p)
    a: int = p[_PIECES] - my_hand - _popcount(mine)
    b: int = p[_PIECES] - their_hand - _popcount(theirs)
    # Pieces borne off never return: the sum orders the layers, the smaller count
    # separates those of one sum (a swap of the players keeps the layer).
    return (a + b) * 16 + min(a, b)


class Ur(CompiledModel):
    """The Royal Game of Ur under ``rules`` (a name of :data:`RULES`, a :class:`UrRules`
    or its fields as a dict), with any of its parts overridden by keyword
    (``Ur("finkel", pieces=2)``, ``Ur("masters", dice=4, zero=0)``).

    :meth:`parameters` rebuilds it, which is what a saved table records, so the table
    loads back with its model (``perfectplay.load(path, Ur)``):

    >>> ur = Ur("masters", pieces=2)
    >>> ur.parameters()
    {'rules': 'masters', 'pieces': 2}
    >>> Ur(**ur.parameters()).rules == ur.rules
    True
    >>> Ur(UrRules(pieces=3, safe_rosettes=False)).parameters()
    {'rules': {'pieces': 3, 'safe_rosettes': False}}
    """

    start = ur_start
    outcome = ur_outcome
    rolls = ur_rolls
    moves = ur_moves
    layer = ur_layer

    def __init__(self, rules: str | UrRules | dict[str, Any] = "finkel", **parts: Any) -> None:
        if isinstance(rules, dict):  # a custom rule set as its saved table records it
            _check_fields(rules)
            rules = UrRules(**rules)
        if isinstance(rules, str):
            if rules not in RULES:
                raise ValueError(f"no Ur rule set {rules!r}; known: {', '.join(RULES)}")
            base = RULES[rules]
            self.rules_name = rules
        elif isinstance(rules, UrRules):
            base, self.rules_name = rules, "custom"
        else:
            raise ValueError(
                f"rules must be a rule set's name ({', '.join(RULES)}), a UrRules or its "
                f"fields as a dict, not {rules!r}"
            )
        _check_fields(parts)
        self.base = base
        self.rules = replace(base, **parts)
        # The parts as the rules hold them (a path as tuples), for the name and the
        # parameters alike.
        self.parts = {k: getattr(self.rules, k) for k in sorted(parts)}
        if parts:
            self.rules_name += "+" + ",".join(f"{k}={v}" for k, v in self.parts.items())
        self.params = self._params()
        self.max_rolls = self.rules.dice + 1
        self.max_moves = self.rules.pieces + 1

    def _params(self) -> np.ndarray:
        r = self.rules
        path = r.tiles()
        n = len(path)
        if not (_is_int(r.pieces) and 1 <= r.pieces <= 15):
            raise InputError(f"pieces must be 1..15, not {short_repr(r.pieces)}")
        if not (_is_int(r.dice) and 1 <= r.dice <= 8):
            raise InputError(f"dice must be 1..8, not {short_repr(r.dice)}")
        if not (_is_int(r.zero) and 0 <= r.zero <= n + 1):
            raise InputError(
                f"zero must be 0 (a 0 passes) or a throw 1..{n + 1}, not {short_repr(r.zero)}"
            )
        for flag in ("safe_rosettes", "rosette_extra", "capture_extra"):
            # The kernels test a flag for == 1: any other value (2, "no") would read as
            # False, the opposite of what Python's truth says, so only a bool is taken.
            if not isinstance(getattr(r, flag), bool):
                raise InputError(
                    f"{flag} must be True or False, not {short_repr(getattr(r, flag))}"
                )
        if not 1 <= n <= 24 or len(set(path)) != n:
            raise InputError("a path is 1..24 distinct tiles")
        off = [tile for tile in path if tile not in BOARD]
        if off:
            # A typo such as (2, 9) was solved as a tile of its own, silently.
            raise InputError(
                f"tile {off[0]} is not on the board: (column, row) with columns 1..3 and "
                "rows 1..8, but only column 2 in rows 5 and 6"
            )
        p = np.full(_OPP + 32, -1, np.int64)
        p[:7] = [n, r.pieces, r.dice, r.zero, r.safe_rosettes, r.rosette_extra, r.capture_extra]
        p[_ROSE:_OPP] = 0
        theirs = {(4 - x, y): step for step, (x, y) in enumerate(path, start=1)}
        for step, tile in enumerate(path, start=1):
            p[_ROSE + step] = tile in ROSETTES
            p[_OPP + step] = theirs.get(tile, -1)
        return p

    @property
    def name(self) -> str:
        return f"Ur({self.rules_name})"

    def parameters(self) -> dict[str, Any]:
        """The keyword arguments that rebuild this model: the rule set's name (a custom
        one as its fields that differ from Finkel's), then the parts overridden."""
        name = self.rules_name.partition("+")[0]
        rules: str | dict[str, Any] = self.base.changes() if name == "custom" else name
        return {"rules": rules, **{k: _jsonable(v) for k, v in self.parts.items()}}

    # -- notation -------------------------------------------------------------------

    def _fields(self, state: int) -> tuple[list[int], list[int], int, int]:
        n = len(self.rules.tiles())
        full = (1 << n) - 1
        mine, theirs = state & full, (state >> n) & full
        my_hand = (state >> (2 * n)) & 15
        their_hand = (state >> (2 * n + HAND_BITS)) & 15
        steps = [[k + 1 for k in range(n) if (mask >> k) & 1] for mask in (mine, theirs)]
        off = [
            self.rules.pieces - h - len(st)
            for h, st in zip((my_hand, their_hand), steps, strict=True)
        ]
        return steps[0], steps[1], off[0], off[1]

    def describe(self, state: int) -> str:
        mine, theirs, my_off, their_off = self._fields(state)

        def side(steps: list[int], off: int) -> str:
            return ",".join(map(str, steps)) + (f"+{off}" if off else "")

        return f"{side(mine, my_off)}/{side(theirs, their_off)}"

    def parse(self, text: str) -> int:
        n = len(self.rules.tiles())
        sides = text.strip().split("/")
        if len(sides) != 2:
            raise ValueError(f"an Ur position is LIGHT/DARK (e.g. 4,8+2/6), not {text!r}")
        masks, hands = [], []
        for side in sides:
            steps_text, _, off_text = side.strip().partition("+")
            try:
                steps = [int(x) for x in steps_text.split(",") if x.strip()]
                off = int(off_text) if off_text.strip() else 0
            except ValueError:
                raise ValueError(f"{side!r}: steps are numbers 1..{n}, then +N borne off") from None
            if any(not 1 <= st <= n for st in steps) or len(set(steps)) != len(steps):
                raise ValueError(f"{side!r}: steps are distinct numbers 1..{n}")
            hand = self.rules.pieces - len(steps) - off
            if off < 0:
                raise ValueError(f"{side!r}: +N counts the pieces borne off, 0 or more")
            if hand < 0:
                raise ValueError(f"{side!r}: more than {self.rules.pieces} pieces")
            masks.append(sum(1 << (st - 1) for st in steps))
            hands.append(hand)
        tiles = self.rules.tiles()
        mine = {tiles[k] for k in range(n) if (masks[0] >> k) & 1}
        theirs = {(4 - tiles[k][0], tiles[k][1]) for k in range(n) if (masks[1] >> k) & 1}
        if mine & theirs:
            raise ValueError(f"{text!r}: two pieces on one tile")
        return (
            masks[0] | (masks[1] << n) | (hands[0] << (2 * n)) | (hands[1] << (2 * n + HAND_BITS))
        )

    def roll_label(self, roll: int) -> str:
        # Where a 0 counts (Masters: 4), the label says so: the moves after ``:0`` go 4.
        if roll == 0 and self.rules.zero:
            return f"throw 0 (counts {self.rules.zero})"
        return f"throw {roll}"

    def move_label(self, state: int, roll: int, index: int, next_state: int, flip: int) -> str:
        before, _, _, _ = self._fields(state)
        after_fields = self._fields(next_state)
        after = after_fields[1] if flip else after_fields[0]
        gone = sorted(set(before) - set(after))
        new = sorted(set(after) - set(before))
        if not gone and not new:
            return "pass"
        step = gone[0] if gone else 0
        if not new:
            return f"bear off from {step}"
        return f"enter to {new[0]}" if step == 0 else f"move {step} to {new[0]}"


def main(lines: list[str]) -> list[str]:
    """``python -m perfectplay.examples.ur``: the first line names the rule set and the
    pieces (``finkel 2``), every other line a position to query (``4/6``, ``4,8/6:3``);
    ``#`` starts a comment. Prints the start's value, then each query's moves.

    >>> print("\\n".join(main(["finkel 1", "/:2"])))
    Ur(finkel+pieces=1): 217 positions, the first player wins 0.530049839525
    <BLANKLINE>
    position /: 0.530049840 for the player to move
      throw 2 (weight 6):
        enter to 2  0.526944188  best

    A line it cannot read is an :class:`~perfectplay.errors.InputError` naming the line
    (the command prints it as one line, ``perfectplay: <stdin>:LINE: problem``):

    >>> main(["finkel two"])
    Traceback (most recent call last):
    perfectplay.errors.InputError: line 1: the pieces are a number 1..15, not 'two'
    """
    from perfectplay.compiled import solve_compiled
    from perfectplay.compiled.cli import query_lines

    rows = [(n, line.split("#", 1)[0].strip()) for n, line in enumerate(lines, start=1)]
    rows = [(n, row) for n, row in rows if row]
    if not rows:
        raise InputError("the first line names the rules and the pieces, e.g. 'finkel 2'")
    first, head = rows[0]
    words = head.split()
    if len(words) > 2:
        raise InputError(f"expected 'RULES [PIECES]' (e.g. 'finkel 2'), not {head!r}", line=first)
    parts: dict[str, Any] = {}
    if len(words) == 2:
        if not words[1].isdigit():
            raise InputError(f"the pieces are a number 1..15, not {words[1]!r}", line=first)
        parts["pieces"] = int(words[1])
    try:
        model = Ur(words[0], **parts)
    except ValueError as exc:
        raise InputError(str(exc), line=first) from None
    sol = solve_compiled(model)
    out = [f"{model.name}: {sol.n_positions:,} positions, the first player wins {sol.value():.12f}"]
    for n, row in rows[1:]:
        out.append("")
        try:
            out.extend(query_lines(sol, row))
        except PerfectplayError as exc:
            raise InputError(getattr(exc, "message", str(exc)), line=n) from None
    return out


if __name__ == "__main__":
    import sys

    from perfectplay._util.command import run

    sys.exit(run(lambda: print("\n".join(main(sys.stdin.read().splitlines()))), "<stdin>"))
