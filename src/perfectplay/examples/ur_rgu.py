"""RoyalUr's ``.rgu`` tables of the Royal Game of Ur, read and written for :mod:`.ur`.

RoyalUr.net publishes its solved maps as ``.rgu`` files (RoyalUr-Java's ``Lut.java``,
MIT licence); with this module our tables and theirs compare position by position.

**The file** (every integer big-endian):

=========================  ==========================================================
``RGU`` and a byte 0       the magic and the format version
``u32`` N, N bytes         the metadata, compact UTF-8 JSON: ``value_type``
                           (``percent16``, ``f32`` or ``f64``), free keys, and
                           ``game_settings``: ``board_shape`` (``standard``), ``paths``
                           (``bell`` or ``masters``), ``dice`` (``four_binary`` or
                           ``three_binary_0eq4``), ``start_pieces``, ``safe_rosettes``,
                           ``rosettes_grant_rolls``, ``captures_grant_rolls``
``u32`` M, M x ``u32``     the number of maps, then each map's number of entries
the keys                   map after map, each map's keys ``u32``, ascending
the values                 map after map, in the keys' order
=========================  ==========================================================

A position's key is a 64-bit number; its upper 32 bits say which map holds it (maps
``0..M-1``, empty ones included), its lower 32 bits are the key within the map. A value
is light's winning chance in percent, light being the player to move (our mover):
``percent16`` stores ``round(percent / 100 * 65535)`` as a ``u16`` (a step of
1.5e-5 in the chance), ``f32`` and ``f64`` the percent as an IEEE float.

**The key** (``SimpleGameStateEncoding``; its Finkel special case gives the same bits).
The board's tiles are numbered ``(x - 1) + 3 * (y - 1)`` (x 1..3 across, light's lane
1, y 1..8 along). A tile on light's path only is light's *safe* tile, on dark's only
dark's, on both a *war* tile; each kind is taken in the order of that number. From the
lowest bit:

- dark's safe tiles, one bit each (1: a dark piece there), the first tile lowest;
- the war tiles, cut into segments of at most 8 tiles (8 war tiles: one segment; 12:
  two of 6). A segment's tiles are read first to last as base-4 digits, the first most
  significant (0 empty, 1 dark, 2 light); that number's rank among all such strings
  with at most ``start_pieces`` of each colour (in the order of those numbers) is
  stored in as few bits as the largest rank needs (by RoyalUr's rule: the least ``b``
  with ``2**b >= rank``); the first segment is the most significant;
- light's safe tiles, as dark's;
- dark's pieces in hand (3 bits), then light's (3 bits).

Finkel rules (Bell's path) have 6 safe tiles a side and 8 war tiles: 31 bits, one map;
Masters' path 4 and 12: 34 bits, so several maps. A table holds every position with
light to move that the rules allow, counting those where light has already borne off
every piece (worth 100 %, never reached in play: the game ends with that move) and not
those where dark has. Our tables hold the positions play reaches, which are all the
others (with 2 pieces, 12,869 of RoyalUr's 12,990); :func:`write_rgu` adds the 121 so
that the file is theirs key for key.

>>> import pathlib, tempfile
>>> from perfectplay.compiled import solve_compiled
>>> from perfectplay.examples.ur import Ur
>>> sol = solve_compiled(Ur(pieces=1))
>>> path = write_rgu(sol, pathlib.Path(tempfile.mkdtemp()) / "finkel1p.rgu")
>>> table = read_rgu(path)
>>> table.model().name, table.value_type
('Ur(finkel+pieces=1)', 'percent16')
>>> sol.n_positions, len(table)   # and the 15 where light has borne off its piece
(217, 232)
>>> round(table.value(), 5), round(sol.value(), 5)
(0.53005, 0.53005)
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from perfectplay.compiled.solution import CompiledSolution, load_compiled
from perfectplay.errors import InputError
from perfectplay.examples.ur import HAND_BITS, PATHS, RULES, Tile, Ur, UrRules, ur_start

__all__ = ["VALUE_TYPES", "RguLayout", "RguTable", "read_rgu", "write_rgu"]

MAGIC = b"RGU"
VERSION = 0
#: The value types this module reads and writes, as NumPy big-endian dtypes.
VALUE_TYPES: dict[str, str] = {"percent16": ">u2", "f32": ">f4", "f64": ">f8"}
_PERCENT16_MAX = (1 << 16) - 1
_DICE = {(4, 0): "four_binary", (3, 4): "three_binary_0eq4"}
_WIDTH = 3  # the standard board: 3 tiles across, 8 along
_CHUNK = 1 << 20  # positions encoded at once (the war tiles take 100 MB)


def _board_index(tile: Tile) -> int:
    return (tile[0] - 1) + _WIDTH * (tile[1] - 1)


def _bits_for(largest: int) -> int:
    # RoyalUr's SimpleGameStateEncoding.calculateBitsRequired, kept as written (a
    # largest rank of exactly 2**b gets b bits): the keys must be theirs bit for bit.
    bits = 1
    while largest > (1 << bits):
        bits += 1
    return bits


def _segment_tiles(war_tiles: int) -> int:
    # RoyalUr's estimateGoodWarTileCompressionTileCount: one segment up to 8 tiles,
    # else the fewest segments of at most 8.
    if war_tiles <= 8:
        return war_tiles
    segments = 2
    while True:
        size = -(-war_tiles // segments)
        segments += 1
        if size <= 8:
            return size


@cache
def _ranks(pieces: int, tiles: int) -> np.ndarray:
    """The rank of every base-4 string of ``tiles`` digits 0..2 with at most ``pieces``
    1s and 2s, in ascending order of the strings (-1 for the others)."""
    rank = np.full(1 << (2 * tiles), -1, dtype=np.int64)
    count = 0
    for string in range(1 << (2 * tiles)):
        digits = [(string >> (2 * k)) & 3 for k in range(tiles)]
        if 3 in digits or digits.count(1) > pieces or digits.count(2) > pieces:
            continue
        rank[string] = count
        count += 1
    rank.flags.writeable = False  # shared by every layout of these counts
    return rank


@dataclass(frozen=True)
class RguLayout:
    """Where each of our path steps goes in a RoyalUr key, for one rule set."""

    rules: UrRules
    #: Per step of light's path (index ``step - 1``): its bit among light's safe tiles,
    #: or -1 on a war tile; likewise for dark's path.
    light_safe: tuple[int, ...]
    dark_safe: tuple[int, ...]
    #: Per step: its position among the war tiles, or -1 on a safe tile.
    light_war: tuple[int, ...]
    dark_war: tuple[int, ...]
    safe_bits: int
    war_tiles: int
    segment_tiles: int
    segment_bits: int
    rank: np.ndarray = field(compare=False, repr=False)

    @classmethod
    def of(cls, rules: UrRules) -> RguLayout:
        """The layout of ``rules`` (a :class:`ValueError` when ``.rgu`` cannot hold them)."""
        settings(rules)  # refuses what RoyalUr's settings cannot say
        light = rules.tiles()
        dark = tuple((4 - x, y) for x, y in light)
        war = sorted(set(light) & set(dark), key=_board_index)
        light_only = sorted(set(light) - set(dark), key=_board_index)
        dark_only = sorted(set(dark) - set(light), key=_board_index)
        size = _segment_tiles(len(war))
        rank = _ranks(rules.pieces, size)
        return cls(
            rules=rules,
            light_safe=tuple(light_only.index(t) if t in light_only else -1 for t in light),
            dark_safe=tuple(dark_only.index(t) if t in dark_only else -1 for t in dark),
            light_war=tuple(war.index(t) if t in war else -1 for t in light),
            dark_war=tuple(war.index(t) if t in war else -1 for t in dark),
            safe_bits=len(light_only),
            war_tiles=len(war),
            segment_tiles=size,
            segment_bits=_bits_for(int(rank.max())),
            rank=rank,
        )

    @property
    def board_bits(self) -> int:
        return 2 * self.safe_bits + self._segments() * self.segment_bits

    def _segments(self) -> int:
        return -(-self.war_tiles // self.segment_tiles)

    def _segment_spans(self) -> list[range]:
        return [
            range(start, min(start + self.segment_tiles, self.war_tiles))
            for start in range(0, self.war_tiles, self.segment_tiles)
        ]

    def encode(self, states: np.ndarray) -> np.ndarray:
        """The RoyalUr keys (``uint64``) of our states (``int64``, the mover as light)."""
        return _by_chunks(self._encode, np.asarray(states, dtype=np.int64), np.uint64)

    def decode(self, keys: np.ndarray) -> np.ndarray:
        """Our states (``int64``, light as the mover) of RoyalUr keys (the inverse of
        :meth:`encode`); a key no position has is a :class:`ValueError`."""
        return _by_chunks(self._decode, np.asarray(keys, dtype=np.uint64), np.int64)

    def _encode(self, s: np.ndarray) -> np.ndarray:
        n = len(self.light_safe)
        full = (1 << n) - 1
        mine, theirs = s & full, (s >> n) & full
        my_hand = (s >> (2 * n)) & 15
        their_hand = (s >> (2 * n + HAND_BITS)) & 15
        light_safe = np.zeros_like(s)
        dark_safe = np.zeros_like(s)
        occupant = np.zeros((max(self.war_tiles, 1), s.size), dtype=np.int64)
        for step in range(n):
            lit, drk = (mine >> step) & 1, (theirs >> step) & 1
            if self.light_safe[step] >= 0:
                light_safe |= lit << self.light_safe[step]
            else:
                occupant[self.light_war[step]] += 2 * lit
            if self.dark_safe[step] >= 0:
                dark_safe |= drk << self.dark_safe[step]
            else:
                occupant[self.dark_war[step]] += drk
        war = np.zeros_like(s)
        for span in self._segment_spans():
            string = np.zeros_like(s)
            for w in span:
                string = (string << 2) | occupant[w]
            compressed = self.rank[string]
            if (compressed < 0).any():
                raise ValueError("a war tile holds two pieces or a colour has too many")
            war = (war << self.segment_bits) | compressed
        board = (
            dark_safe
            | (war << self.safe_bits)
            | (light_safe << (self.safe_bits + self._segments() * self.segment_bits))
        )
        keys: np.ndarray = board | (their_hand << self.board_bits)
        keys |= my_hand << (self.board_bits + 3)
        return keys.astype(np.uint64)

    def _decode(self, keys: np.ndarray) -> np.ndarray:
        k = keys.astype(np.int64)
        n = len(self.light_safe)
        bb = self.board_bits
        my_hand, their_hand = (k >> (bb + 3)) & 7, (k >> bb) & 7
        safe_mask = (1 << self.safe_bits) - 1
        war_bits = self._segments() * self.segment_bits
        dark_safe = k & safe_mask
        war = (k >> self.safe_bits) & ((1 << war_bits) - 1)
        light_safe = (k >> (self.safe_bits + war_bits)) & safe_mask
        strings = np.flatnonzero(self.rank >= 0)  # rank -> string
        occupant = np.zeros((max(self.war_tiles, 1), k.size), dtype=np.int64)
        spans = self._segment_spans()
        for i, span in enumerate(spans):
            shift = (len(spans) - 1 - i) * self.segment_bits
            compressed = (war >> shift) & ((1 << self.segment_bits) - 1)
            if (compressed >= strings.size).any():
                raise ValueError("a key's war tiles rank beyond the last")
            string = strings[compressed]
            for j, w in enumerate(span):
                occupant[w] = (string >> (2 * (len(span) - 1 - j))) & 3
        mine = np.zeros_like(k)
        theirs = np.zeros_like(k)
        for step in range(n):
            if self.light_safe[step] >= 0:
                mine |= ((light_safe >> self.light_safe[step]) & 1) << step
            else:
                mine |= (occupant[self.light_war[step]] == 2).astype(np.int64) << step
            if self.dark_safe[step] >= 0:
                theirs |= ((dark_safe >> self.dark_safe[step]) & 1) << step
            else:
                theirs |= (occupant[self.dark_war[step]] == 1).astype(np.int64) << step
        return mine | (theirs << n) | (my_hand << (2 * n)) | (their_hand << (2 * n + HAND_BITS))

    def light_won(self) -> np.ndarray:
        """Our states where light (to move) has borne off every piece and dark has not:
        the positions RoyalUr's tables hold that play never reaches."""
        n, pieces = len(self.light_safe), self.rules.pieces
        out = []
        for theirs in range(1 << n):
            on_board = theirs.bit_count()
            if on_board > pieces:
                continue
            for hand in range(pieces - on_board + 1):
                if on_board or hand:  # dark has not borne off everything
                    out.append((theirs << n) | (hand << (2 * n + HAND_BITS)))
        return np.array(out, dtype=np.int64)


def _by_chunks(fn: Callable[[np.ndarray], np.ndarray], arr: np.ndarray, dtype: Any) -> np.ndarray:
    """``fn`` over ``arr`` a chunk at a time (its temporaries stay small)."""
    out = np.empty(arr.size, dtype=dtype)
    for start in range(0, arr.size, _CHUNK):
        out[start : start + _CHUNK] = fn(arr[start : start + _CHUNK])
    return out


def settings(rules: UrRules) -> dict[str, Any]:
    """RoyalUr's ``game_settings`` of ``rules`` (a :class:`ValueError` names what an
    ``.rgu`` file cannot hold).

    >>> settings(RULES["masters"])["dice"]
    'three_binary_0eq4'
    """
    tiles = rules.tiles()
    path = next((name for name, p in PATHS.items() if p == tiles), None)
    if path is None:
        raise ValueError(".rgu tables hold Bell's or Masters' path only")
    dice = _DICE.get((rules.dice, rules.zero))
    if dice is None:
        raise ValueError(
            ".rgu tables hold 4 binary dice (a 0 passes) or 3 (a 0 counts 4) only, "
            f"not {rules.dice} with a 0 counting {rules.zero}"
        )
    if rules.pieces > 7:
        raise ValueError(f".rgu tables hold up to 7 pieces a side, not {rules.pieces}")
    return {
        "board_shape": "standard",
        "paths": path,
        "dice": dice,
        "start_pieces": rules.pieces,
        "safe_rosettes": rules.safe_rosettes,
        "rosettes_grant_rolls": rules.rosette_extra,
        "captures_grant_rolls": rules.capture_extra,
    }


def rules_of(game_settings: dict[str, Any]) -> UrRules:
    """Our rules of RoyalUr's ``game_settings`` (the inverse of :func:`settings`)."""
    try:
        if game_settings.get("board_shape", "standard") != "standard":
            raise ValueError(f"board shape {game_settings['board_shape']!r}")
        dice = {v: k for k, v in _DICE.items()}
        if game_settings["paths"] not in PATHS:
            raise ValueError(f"paths {game_settings['paths']!r}")
        if game_settings["dice"] not in dice:
            raise ValueError(f"dice {game_settings['dice']!r}")
        count, zero = dice[game_settings["dice"]]
        return UrRules(
            path=game_settings["paths"],
            pieces=int(game_settings["start_pieces"]),
            dice=count,
            zero=zero,
            safe_rosettes=bool(game_settings["safe_rosettes"]),
            rosette_extra=bool(game_settings["rosettes_grant_rolls"]),
            capture_extra=bool(game_settings["captures_grant_rolls"]),
        )
    except KeyError as exc:
        raise ValueError(f"the game settings lack {exc.args[0]!r}") from None


def model_of(rules: UrRules) -> Ur:
    """``rules`` as an :class:`~.ur.Ur` named by the rule set it changes least
    (``Ur("finkel", pieces=2)``)."""
    name = min(RULES, key=lambda k: len(rules.changes(RULES[k])))
    changes = rules.changes(RULES[name])
    return Ur(name, **changes)


class RguTable(Mapping[int, float]):
    """A read ``.rgu`` file: our state (light, to move, as the mover) to light's winning
    chance (0..1), with the file's metadata, value type and rules.

    It keeps the file's values as stored and its keys as 64-bit numbers (a full Finkel
    table of 16-bit values: 0.3 GB and 1.1 GB) and finds a state by its key, so reading
    decodes nothing: :meth:`lookup` answers many
    states at once, :meth:`states` decodes every key."""

    def __init__(
        self, metadata: dict[str, Any], rules: UrRules, keys: np.ndarray, raw: np.ndarray
    ) -> None:
        self.metadata = metadata
        self.value_type: str = metadata.get("value_type", "percent16")
        self.rules = rules
        self.layout = RguLayout.of(rules)
        #: The keys, ascending (``uint64``), and their values as the file stores them.
        self.rgu_keys = keys
        self.raw = raw
        self._model: Ur | None = None

    def model(self) -> Ur:
        """The :class:`~.ur.Ur` model of the file's rules (positions typed as text)."""
        if self._model is None:
            self._model = model_of(self.rules)
        return self._model

    def value(self, state: int | str | None = None) -> float:
        """The mover's winning chance at ``state`` (an integer state, its notation, or
        the start when omitted)."""
        if state is None:
            state = int(ur_start(self.model().params))
        elif isinstance(state, str):
            state = self.model().parse(state)
        return self[state]

    def lookup(self, states: np.ndarray) -> np.ndarray:
        """The winning chances of many of our states (``NaN`` where the file has none; a
        :class:`ValueError` for a state these rules cannot have)."""
        keys = self.layout.encode(np.asarray(states, dtype=np.int64))
        at = np.minimum(np.searchsorted(self.rgu_keys, keys), max(self.rgu_keys.size - 1, 0))
        found = self.rgu_keys[at] == keys if self.rgu_keys.size else np.zeros(keys.size, bool)
        chances: np.ndarray = np.where(found, self._chances(at), np.nan)
        return chances

    def _chances(self, at: np.ndarray) -> np.ndarray:
        percent: np.ndarray = self.raw[at].astype(np.float64)
        if self.value_type == "percent16":
            percent = percent * 100.0 / _PERCENT16_MAX
        return percent / 100.0

    def states(self) -> np.ndarray:
        """Every state of the file (``int64``), in the order of its keys."""
        return self.layout.decode(self.rgu_keys)

    def __getitem__(self, state: int) -> float:
        if not isinstance(state, int | np.integer):
            raise KeyError(state)
        try:
            chance = float(self.lookup(np.array([state], dtype=np.int64))[0])
        except ValueError:  # not a position of these rules at all
            raise KeyError(state) from None
        if np.isnan(chance):
            raise KeyError(state)
        return chance

    def __iter__(self) -> Iterator[int]:
        for start in range(0, self.rgu_keys.size, _CHUNK):
            yield from (int(s) for s in self.layout.decode(self.rgu_keys[start : start + _CHUNK]))

    def __len__(self) -> int:
        return int(self.rgu_keys.size)


def read_rgu(path: str | Path) -> RguTable:
    """The ``.rgu`` file ``path`` as a :class:`RguTable` (an
    :class:`~perfectplay.errors.InputError` names what is wrong with it)."""
    path = Path(path)
    try:
        with open(path, "rb") as fh:
            return _read(fh, path.stat().st_size)
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    except (ValueError, KeyError, UnicodeDecodeError) as exc:
        raise InputError(f"{path}: not a readable .rgu table ({exc})") from None


def _read(fh: BinaryIO, size: int) -> RguTable:
    def array(dtype: str, count: int) -> np.ndarray:
        out = np.fromfile(fh, dtype, count)
        if out.size != count:
            raise ValueError("the file ends early")
        return out

    if fh.read(3) != MAGIC:
        raise ValueError("no RGU magic")
    version = fh.read(1)
    if version != bytes([VERSION]):
        raise ValueError(f"format version {version!r}; this reads version {VERSION}")
    metadata = json.loads(fh.read(int(array(">u4", 1)[0])).decode("utf-8"))
    value_type = metadata.get("value_type", "percent16")
    if value_type not in VALUE_TYPES:
        raise ValueError(f"value type {value_type!r}; this reads {', '.join(VALUE_TYPES)}")
    rules = rules_of(metadata["game_settings"])
    counts = array(">u4", int(array(">u4", 1)[0])).astype(np.int64)
    total = int(counts.sum())
    keys = array(">u4", total).astype(np.uint64)
    keys |= np.repeat(np.arange(counts.size, dtype=np.uint64), counts) << np.uint64(32)
    raw = array(VALUE_TYPES[value_type], total)
    if fh.tell() != size:
        raise ValueError(f"{size - fh.tell()} bytes after the values")
    if total > 1 and not (keys[1:] > keys[:-1]).all():
        raise ValueError("the keys of a map are not ascending")
    return RguTable(metadata, rules, keys, raw.astype(raw.dtype.newbyteorder("=")))


def write_rgu(
    solution: CompiledSolution,
    path: str | Path,
    value_type: str = "percent16",
    metadata: dict[str, Any] | None = None,
) -> Path:
    """Write an Ur solution (solved now, or a table loaded with or without its model) as
    the ``.rgu`` file ``path``; ``value_type`` is ``percent16`` (RoyalUr's published
    maps: 16 bits, 1.5e-5 apart), ``f32`` or ``f64``. ``metadata`` adds free keys.
    Memory: 8 bytes a position for the keys, twice while they are sorted, and the
    values as stored (a full Finkel table: about 3 GB)."""
    if value_type not in VALUE_TYPES:
        raise InputError(f"an .rgu value type is one of {', '.join(VALUE_TYPES)}")
    model = _ur_model(solution)
    try:
        layout = RguLayout.of(model.rules)
        game_settings = settings(model.rules)
    except ValueError as exc:
        raise InputError(f"{model.name}: {exc}") from None
    wd = solution.workdir
    parts = [(wd.keys(lid), wd.values(lid)) for lid in solution.layers]
    won = layout.light_won()
    parts.append((won, np.ones(won.size)))
    keys = np.concatenate([layout.encode(states) for states, _ in parts])
    stored = np.concatenate([_stored(values, value_type) for _, values in parts])
    order = np.argsort(keys)
    keys = keys[order]
    stored = stored[order]
    del order
    upper = keys >> np.uint64(32)
    counts = np.bincount(upper.astype(np.int64), minlength=1)
    del upper
    head = {
        "value_type": value_type,
        "source": "perfectplay",
        "model": model.name,
        "bound": solution.bound,
        **(metadata or {}),
        "game_settings": game_settings,
    }
    text = json.dumps(head, separators=(",", ":")).encode("utf-8")
    out = Path(path)
    with open(out, "wb") as fh:
        fh.write(MAGIC + bytes([VERSION]))
        fh.write(np.array([len(text)], ">u4").tobytes() + text)
        fh.write(np.array([counts.size, *counts], ">u4").tobytes())
        for start in range(0, keys.size, _CHUNK):
            lower = keys[start : start + _CHUNK] & np.uint64(0xFFFFFFFF)
            fh.write(lower.astype(">u4").tobytes())
        fh.write(stored.astype(VALUE_TYPES[value_type]).tobytes())
    return out


def _stored(chances: np.ndarray, value_type: str) -> np.ndarray:
    """Winning chances as the file stores them (native byte order)."""
    percent = np.asarray(chances, dtype=np.float64) * 100.0
    if value_type == "percent16":
        scaled = np.clip(percent, 0.0, 100.0) / 100.0 * _PERCENT16_MAX
        return np.floor(scaled + 0.5).astype(np.uint16)  # Java's Math.round
    return percent.astype(np.float32 if value_type == "f32" else np.float64)


def _ur_model(solution: CompiledSolution) -> Ur:
    """The Ur model of a solution: its own, or the one its table's parameters rebuild."""
    if isinstance(solution.model, Ur):
        return solution.model
    model = load_compiled(solution.workdir.path, Ur).model
    assert isinstance(model, Ur)
    return model
