"""The API's answers as JSON bytes, and a bounded cache of them.

An answer is a pure function of the game, the route and the request's state (and action):
the solutions are read-only once the server runs. So the bytes of an answer are kept, keyed
by what the request asked, in a least-recently-used cache bounded by the bytes it holds,
one per server process. A situation asked for again (a page's undo, many players in the
same opening, a load test) costs a dictionary look-up instead of the options' computation
and their JSON encoding. Only answers are kept, never errors.

>>> cache = AnswerCache(max_bytes=60)
>>> calls = []
>>> def work():
...     calls.append(1)
...     return {"value": 1.5}
>>> cache.get_or_make(("g", "options", "s"), work), cache.get_or_make(("g", "options", "s"), work)
(b'{"value":1.5}', b'{"value":1.5}')
>>> len(calls), cache.hits, cache.misses
(1, 1, 1)
>>> for n in range(5):   # 13 bytes and a key of 9 characters: the oldest dropped past 60
...     _ = cache.get_or_make(("g", "options", str(n)), work)
>>> len(cache), cache.size
(2, 44)
"""

from __future__ import annotations

import json
from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Any

__all__ = ["AnswerCache", "encode"]

#: The bytes one server process keeps of answers (a Yahtzee situation's options take about
#: 3 KB: some 2,700 of them).
DEFAULT_BYTES = 8 * 1024 * 1024


def encode(data: Any) -> bytes:
    """``data`` as Starlette's ``JSONResponse`` writes it (compact, UTF-8, no NaN)."""
    return json.dumps(
        data, ensure_ascii=False, allow_nan=False, indent=None, separators=(",", ":")
    ).encode("utf-8")


class AnswerCache:
    """Encoded answers by key, the least recently used dropped first once they hold more
    than ``max_bytes`` (0: keep nothing)."""

    def __init__(self, max_bytes: int = DEFAULT_BYTES) -> None:
        self.max_bytes = max_bytes
        self.size = 0
        self.hits = 0
        self.misses = 0
        self._kept: OrderedDict[Hashable, bytes] = OrderedDict()

    def __len__(self) -> int:
        return len(self._kept)

    def get_or_make(self, key: Hashable, make: Callable[[], Any]) -> bytes:
        """The answer kept for ``key``, else ``make()`` encoded (and kept)."""
        found = self._kept.get(key)
        if found is not None:
            self.hits += 1
            self._kept.move_to_end(key)
            return found
        self.misses += 1
        body = encode(make())
        self.put(key, body)
        return body

    def put(self, key: Hashable, body: bytes) -> None:
        """Keep ``body`` for ``key`` (an answer larger than the whole cache is not kept)."""
        if _size(key, body) > self.max_bytes:
            return
        old = self._kept.pop(key, None)
        if old is not None:
            self.size -= _size(key, old)
        self._kept[key] = body
        self.size += _size(key, body)
        while self.size > self.max_bytes:
            dropped_key, dropped = self._kept.popitem(last=False)
            self.size -= _size(dropped_key, dropped)


def _size(key: Hashable, body: bytes) -> int:
    """What an entry holds, about: its answer and the text of its key (a state can be
    2,000 characters)."""
    texts = key if isinstance(key, tuple) else (key,)
    return len(body) + sum(len(t) for t in texts if isinstance(t, str))
