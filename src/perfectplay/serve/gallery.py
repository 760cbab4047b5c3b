"""Gallery games played in the page: Alea Iacta Est (ICPC World Finals 2023, problem K).

Roll the dice, keep any, reroll the others until the symbols spell a dictionary word, in
the fewest rolls on average. A state is the symbols showing, one per die in input order
(``PXRES``, as ``perfectplay alea advise`` reads them), or ``-`` before the first roll. The
values are the problem's own (:meth:`~perfectplay.problems.alea.solution.AleaSolution.options`,
expected rolls still to come), ranked by the result surface's
:func:`~perfectplay.results.options.rank_options`.

A roll is answered as the dice to roll and their faces (``"roll"``), not as a list of
outcomes: five dice have 7,776 of them, and each face of a die is equally likely, so the
page rolls each die itself (or you set it by hand).

>>> from perfectplay.problems.alea import EXAMPLE_DICE, EXAMPLE_WORDS, solve
>>> game = AleaGame("alea", solve(list(EXAMPLE_DICE), list(EXAMPLE_WORDS)))
>>> best = game.position("PXRES")["options"][0]
>>> best["action"], best["value"]
('keep P R E S (dice 1 3 4 5), reroll die 2', 2.0)
>>> game.apply("PXRES", best["action"])["roll"]
{'template': 'P?RES', 'dice': [{'die': 2, 'faces': 'AEHOXU'}]}
>>> game.position("PARES")["over"], game.position("PARES")["word"]   # spells PARSE
(True, 'PARSE')
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from perfectplay.errors import InputError
from perfectplay.results.options import value_json
from perfectplay.serve.games import ServedGame, _checked_text, _number, own_order

if TYPE_CHECKING:
    from perfectplay.objectives import Objective
    from perfectplay.problems.alea.solution import AleaSolution, Keep

__all__ = ["AleaGame"]

#: The state before the first roll.
NOTHING = "-"


def _label(keep: Keep) -> str:
    """The option as a person reads it: ``keep P R E S (dice 1 3 4 5), reroll die 2``."""
    return str(keep).rsplit(":", 1)[0]


def _dice(keep: Keep) -> tuple[int, ...]:
    return tuple(keep.keep)


class AleaGame(ServedGame):
    """An Alea Iacta Est instance: its dice, its words, its solution."""

    kind = "chance"
    notation = "the symbols showing, one per die in order, e.g. PXRES (- before the first roll)"

    def __init__(self, game_id: str, solution: AleaSolution, title: str = "") -> None:
        super().__init__(game_id, title or "Alea Iacta Est")
        self.solution = solution
        self.dice: tuple[str, ...] = tuple(solution.graph.layout.dice)

    @property
    def objective(self) -> Objective:
        from perfectplay.objectives import MIN_COST

        return MIN_COST

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "dice_faces": list(self.dice)}

    def parse(self, text: Any) -> Any:
        from perfectplay.problems.alea.solution import roll_symbols

        text = _checked_text(text)
        return NOTHING if text == NOTHING else "".join(roll_symbols(self.dice, text))

    def text(self, state: Any) -> str:
        return str(state)

    def start(self) -> str | None:
        return NOTHING

    def _roll(self, keep: tuple[int, ...], showing: str) -> dict[str, Any]:
        template = "".join(showing[i] if i in keep else "?" for i in range(len(self.dice)))
        dice = [{"die": i + 1, "faces": f} for i, f in enumerate(self.dice) if i not in keep]
        return {"template": template, "dice": dice}

    def position(self, text: Any) -> dict[str, Any]:
        from perfectplay.results.options import rank_options

        roll = self.parse(text)
        if roll == NOTHING:
            value = self.solution.value
            return {"state": NOTHING, "value": value_json(value), "number": _number(value),
                    "over": False, "roll": self._roll((), "")}  # fmt: skip
        word = self.solution.word_for(roll)
        keeps = self.solution.options(roll)
        ranked = rank_options(
            [_label(k) for k in keeps], [k.expected_rolls for k in keeps], _label(keeps[0])
        ) if keeps else []  # fmt: skip
        value = 0.0 if word is not None else self.solution.roll_value(roll)
        return {
            "state": roll,
            "value": value_json(value),
            "number": _number(value),
            "over": word is not None,
            "word": word,
            "options": [o.to_json() for o in ranked],
            # The keeps by the dice they keep (the problem lists them best first).
            "order": own_order(
                [o.label for o in ranked], [_label(k) for k in sorted(keeps, key=_dice)]
            ),
            "dice": list(roll),
        }

    def apply(self, text: Any, action: Any) -> dict[str, Any]:
        roll = self.parse(text)
        if roll == NOTHING:
            raise InputError("nothing is rolled yet: roll the dice first")
        for keep in self.solution.options(roll):
            if _label(keep) == action:
                return {"roll": self._roll(keep.keep, roll)}
        raise InputError(f"no option {str(action)[:60]!r} for {roll}")
