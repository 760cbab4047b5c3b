"""A compiled model's table played in the page: the Royal Game of Ur and its kin.

A compiled model (:mod:`perfectplay.compiled`) is a two-player game with dice whose turn
is: the dice are thrown, then the mover chooses a move. So a state travels as the model's
own notation (its ``describe``/``parse``, e.g. Ur's ``4,8+2/6``) before the throw, and
with ``:K`` after a throw of K (``4,8+2/6:3``), as ``perfectplay solve --query`` reads it.
Before the throw the answer is the throw's outcomes with their probabilities (the page
rolls, or you set the throw by hand); after it, the moves with the mover's winning chance
after each (the table's :meth:`~perfectplay.compiled.solution.CompiledSolution.options`).

What a move leads to, and whether the other player moves next, comes from the model's own
compiled functions (:meth:`~perfectplay.compiled.model.CompiledModel.functions`): the
model named on the command line, never one a request names.

>>> from perfectplay.compiled import solve_compiled
>>> from perfectplay.examples.ur import Ur
>>> game = CompiledGame("ur", solve_compiled(Ur(pieces=1)))
>>> game.start(), [(c["state"], c["probability"]) for c in game.position("/")["chances"]][:2]
('/', [('/:0', 0.0625), ('/:1', 0.25)])
>>> [(o["action"], round(o["value"], 4)) for o in game.position("/:2")["options"]]
[('enter to 2', 0.5269)]
>>> game.apply("/:2", "enter to 2")
{'state': '/2', 'passes': True}
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from perfectplay.errors import InputError, UnsupportedError
from perfectplay.serve.games import ServedGame, _checked_text, own_order

if TYPE_CHECKING:
    from perfectplay.compiled.model import CompiledModel
    from perfectplay.compiled.solution import CompiledSolution
    from perfectplay.objectives import Objective

__all__ = ["CompiledGame"]

#: A state: the model's integer position and the throw made (``None``: not yet thrown).
State = tuple[int, "int | None"]


class CompiledGame(ServedGame):
    """A compiled model's solution (solved now, or a table loaded with its model)."""

    kind = "stochastic"
    players = 2

    def __init__(self, game_id: str, solution: CompiledSolution, title: str = "") -> None:
        super().__init__(game_id, title or solution.name)
        if solution.model is None:
            raise UnsupportedError(f"{solution.name}: a compiled table is served with its model")
        self.solution = solution
        self.model: CompiledModel = solution.model
        self._start, self._outcome, self._rolls, self._moves, _ = self.model.functions()
        self._p = np.ascontiguousarray(self.model.params, dtype=np.int64)
        start = self.text((int(solution.position(None)), None))
        self.notation = (
            f"a position as {self.model.name} writes it, e.g. {start}; after a throw of K, "
            f"POSITION:K (e.g. {start}:1)"
        )
        self.position(start)  # compiles the model's functions for Python calls once

    @property
    def objective(self) -> Objective:
        return self.solution.objective

    def parse(self, text: Any) -> State:
        text = _checked_text(text)
        where, sep, throw = text.rpartition(":") if ":" in text else (text, "", "")
        s = self.solution.position(where)
        if self._over(s) is None:  # a finished game is not in the table
            self.solution.value(s)  # UnknownStateError for a position never reached
        if not sep:
            return s, None
        weights = self._throws(s)
        if not throw.strip().isdigit() or not 0 <= int(throw) < len(weights):
            raise InputError(f"{text[:60]!r}: the throw after ':' is 0..{len(weights) - 1}")
        return s, int(throw)

    def text(self, state: Any) -> str:
        s, throw = state
        return self.model.describe(s) + ("" if throw is None else f":{throw}")

    def start(self) -> str | None:
        return self.text((int(self.solution.position(None)), None))

    def _throws(self, s: int) -> list[int]:
        weights = np.zeros(self.model.max_rolls, np.int64)
        n = int(self._rolls(s, self._p, weights))
        return [int(w) for w in weights[:n]]

    def _over(self, s: int) -> float | None:
        value = float(self._outcome(s, self._p))
        return value if value >= 0.0 else None

    def position(self, text: Any) -> dict[str, Any]:
        s, throw = self.parse(text)
        over = self._over(s)
        shown = self.text((s, throw))
        if over is not None:
            return {"state": shown, "value": over, "number": over, "over": True, "options": []}
        if throw is None:
            weights = self._throws(s)
            total = sum(weights)
            chances = [
                {"state": self.text((s, r)), "probability": w / total, "passes": False,
                 "label": self.model.outcome_label(s, r), "weight": w, "of": total}
                for r, w in enumerate(weights)
            ]  # fmt: skip
            value = self.solution.value(s)
            return {"state": shown, "value": value, "number": value, "over": False,
                    "chances": chances}  # fmt: skip
        options = self.solution.options((s, throw))
        value = options[0].value
        return {
            "state": shown,
            "value": value,
            "number": value,
            "over": False,
            "options": [o.to_json() for o in options],
            "order": own_order([o.label for o in options]),
            "throw": throw,
        }

    def apply(self, text: Any, action: Any) -> dict[str, Any]:
        s, throw = self.parse(text)
        if throw is None:
            raise InputError("throw the dice first: POSITION:K")
        label = self._option(self.solution.options((s, throw)), action).label
        nexts = np.zeros(self.model.max_moves, np.int64)
        flips = np.zeros(self.model.max_moves, np.int64)
        m = int(self._moves(s, throw, self._p, nexts, flips))
        for j in range(m):
            t, flip = int(nexts[j]), int(flips[j])
            if self.model.move_label(s, throw, j, t, flip) == label:
                return {"state": self.text((t, None)), "passes": bool(flip)}
        raise InputError(f"no move {label!r} here")  # pragma: no cover - options are the moves
