"""The games a server serves: one adapter per kind of solution, each turning text states
into the result surface's answers and back.

Every adapter answers three questions, all with states as text:

* :meth:`ServedGame.position`: the value of a state, whether play is over, and either its
  options (a decision: the result surface's :meth:`~perfectplay.results.surface.Solution.options`,
  best first, ties marked) or its chance outcomes (a roll to make before anyone decides);
* :meth:`ServedGame.apply`: what a choice leads to: one next state, or the chance
  outcomes with their probabilities;
* :meth:`ServedGame.parse`: a typed state, checked as the command line checks it.

A model's states travel as their ``repr`` and come back through
:func:`perfectplay.results.table.key_value`, which evaluates literals only; a Yahtzee
family table's as the situation notation (:mod:`perfectplay.serve.scorecard`). Nothing
here imports a model or opens a path: the command line built every game before the server
started.

>>> import perfectplay
>>> from perfectplay.examples.pig import Piglet
>>> game = ModelGame("piglet", perfectplay.solve(Piglet(goal=2)))
>>> game.start()
'(0, 0, 0)'
>>> [(o["action"], round(o["value"], 4)) for o in game.position("(0, 0, 1)")["options"]]
[('roll', 0.7143), ('hold', 0.6)]
>>> after = game.apply("(0, 0, 1)", "roll")["chances"]
>>> [(c["state"], c["probability"], c["passes"]) for c in after]
[('(0, 0, 0)', 0.5, True), ('(0, 0, 2)', 0.5, False)]
"""

from __future__ import annotations

import math
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from perfectplay.errors import (
    InputError,
    PerfectplayError,
    UnknownStateError,
    UnsupportedError,
)
from perfectplay.results.options import Option, Result, outcome_score, value_json

if TYPE_CHECKING:
    from perfectplay.objectives import Objective
    from perfectplay.results.surface import Solution
    from perfectplay.yahtzee.cards import Situation
    from perfectplay.yahtzee.ruleset import Rules
    from perfectplay.yahtzee.solution import YahtzeeSolution

__all__ = ["ModelGame", "ScorecardTable", "ServedGame", "own_order"]

#: The longest state text the server reads (a situation, a model's ``repr``).
MAX_STATE_CHARS = 2000


def _number(value: Any) -> float | None:
    """The value as one number for the chart: a float, or for a game without dice the
    outcome's worth (:func:`~perfectplay.results.options.outcome_score`)."""
    if isinstance(value, Result):
        return outcome_score(value.value)
    v = float(value)
    return v if math.isfinite(v) else None


def _natural(label: str) -> list[tuple[int, int, str]]:
    """A label's sort key with its numbers compared as numbers (``move 4`` before
    ``move 10``)."""
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", label)]


def own_order(actions: Sequence[str], own: Sequence[str] = ()) -> list[int]:
    """The indices of the answered options (``actions``, best first) in the game's own
    order: where each comes in ``own`` (the model's moves as it lists them), the rest
    after those, by label with numbers compared as numbers. With hints hidden the page
    lists the options in this order: best first would give the best away.

    >>> own_order(["move 10", "move 9", "hold"])
    [2, 1, 0]
    >>> own_order(["roll", "hold"], ["roll", "hold"])
    [0, 1]
    """
    place = {label: k for k, label in enumerate(own)}
    return sorted(
        range(len(actions)), key=lambda i: (place.get(actions[i], len(place)), _natural(actions[i]))
    )


def _checked_text(given: Any) -> str:
    if not isinstance(given, str):
        raise InputError("the state must be a string")
    text = given.strip()
    if not text:
        raise InputError("the state is empty")
    if len(text) > MAX_STATE_CHARS:
        raise InputError(f"the state is longer than {MAX_STATE_CHARS} characters")
    return text


class ServedGame(ABC):
    """A solved game as the page plays it (see the module docstring)."""

    #: The solution's kind: ``chance``, ``game``, ``stochastic`` or ``scorecard``.
    kind: str = ""
    #: One player, or two (who alternate as the game says).
    players: int = 1
    #: What a state is, as a person types it (shown beside the state box).
    notation: str = ""

    def __init__(self, game_id: str, title: str) -> None:
        self.id = game_id
        self.title = title

    @property
    @abstractmethod
    def objective(self) -> Objective:
        """What the game's values optimise."""

    @property
    def ready(self) -> bool:
        """Whether answers are quick (milliseconds): the server then computes them on its
        event loop; a rule set still to solve is answered from a worker thread."""
        return True

    @property
    def playable(self) -> bool:
        """Whether the page can play on from a state (it knows every choice's outcome);
        a table loaded without its model only answers questions about states."""
        return True

    def warm(self, steps: int = 12) -> None:
        """Play the first option and the first chance outcome from the start for
        ``steps`` answers (a whole Yahtzee turn: rolls, keeps, a box): every compiled
        kernel an answer calls is loaded now, before the server forks its workers, rather
        than by each worker on the request that first needs it (seconds, while every
        connection of that worker waits)."""
        state = self.start()
        if not self.ready or state is None:
            return
        for _ in range(steps):
            pos = self.position(state)
            if pos["over"]:
                return
            options = pos.get("options")
            if options and self.playable:
                step = self.apply(pos["state"], options[0]["action"])
                chances = step.get("chances")
                state = chances[0]["state"] if chances else step.get("state")
            else:
                chances = pos.get("chances")
                state = chances[0]["state"] if chances else None
            if state is None:  # a roll the page makes itself, a table without its model
                return

    def describe(self) -> dict[str, Any]:
        """The game as ``GET /api/games`` lists it."""
        objective = self.objective
        return {
            "id": self.id,
            "title": self.title,
            "kind": self.kind,
            "players": self.players,
            "objective": objective.describe(),
            "maximise": objective.sense == "max",
            "measure": objective.measure,
            "unit": objective.unit,
            "playable": self.playable,
            "start": self.start(),
            "notation": self.notation,
        }

    @abstractmethod
    def parse(self, text: Any) -> Any:
        """The state ``text`` names, checked; :class:`InputError` otherwise."""

    @abstractmethod
    def text(self, state: Any) -> str:
        """The text of ``state`` (what :meth:`parse` reads back)."""

    def parsed(self, text: Any) -> dict[str, Any]:
        """``POST /parse``'s answer: ``{"state": ...}``, the state checked and written
        back."""
        return {"state": self.text(self.parse(text))}

    @abstractmethod
    def start(self) -> str | None:
        """The first state's text (``None``: none to play from)."""

    @abstractmethod
    def position(self, text: Any) -> dict[str, Any]:
        """``state``, ``value``, ``number`` (the value as one number, for the chart),
        ``over``, and ``options`` (a decision) or ``chances`` (a roll to make)."""

    @abstractmethod
    def apply(self, text: Any, action: Any) -> dict[str, Any]:
        """What ``action`` leads to from ``text``: ``{"state": ..., "passes": ...}`` or
        ``{"chances": [{"state", "probability", "passes", "label"}, ...]}``."""

    def _option(self, options: list[Option], action: Any) -> Option:
        if not isinstance(action, str):
            raise InputError("the action must be a string (an option's 'action')")
        for o in options:
            if o.label == action:
                return o
        shown = ", ".join(o.label for o in options[:12]) or "none: play is over"
        raise InputError(f"no option {action[:60]!r} here (options: {shown})")


class ModelGame(ServedGame):
    """A model's solution, or a table saved from one: states are the model's ``repr``."""

    def __init__(self, game_id: str, solution: Solution, title: str = "", model: Any = None):
        super().__init__(game_id, title or solution.name)
        self.solution = solution
        self.kind = solution.kind
        self.players = 1 if self.kind == "chance" else 2
        self.model = model if model is not None else getattr(solution, "model", None)
        self.notation = "a state as Python writes it, e.g. " + (self.start() or "(0, 0, 0)")

    @property
    def objective(self) -> Objective:
        return self.solution.objective

    @property
    def playable(self) -> bool:
        return self.kind == "game" or self.model is not None

    def parse(self, text: Any) -> Any:
        from perfectplay.results.table import key_value

        text = _checked_text(text)
        try:
            state = key_value(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            raise InputError(f"{text[:60]!r} is not a state (a Python literal)") from None
        # value(None) and options(None) are the start's: the literal None is a state only
        # where it is the start.
        if state is None and self.start() != "None":
            raise UnknownStateError(f"None is not a state of {self.title}")
        self.solution.value(state)  # UnknownStateError for a state the game never reaches
        return state

    def text(self, state: Any) -> str:
        from perfectplay._util.ints import long_ints

        with long_ints():
            return repr(state)

    def start(self) -> str | None:
        table_start = getattr(self.solution, "keys", None)
        if table_start is not None and self.model is None:
            return str(table_start[self.solution.start])  # type: ignore[attr-defined]
        from perfectplay.models.explore import start_state

        return self.text(start_state(self.model)) if self.model is not None else None

    def _over(self, state: Any, options: list[Option]) -> bool:
        is_over = getattr(self.solution, "is_over", None)
        return bool(is_over(state)) if is_over is not None else not options

    def position(self, text: Any) -> dict[str, Any]:
        state = self.parse(text)
        options = self.solution.options(state)
        value = self.solution.value(state)
        listed = []
        for o in options:
            item = o.to_json()
            if self.kind == "game" and o.state is not None:
                item["next"] = self.text(o.state)
            listed.append(item)
        return {
            "state": self.text(state),
            "value": value_json(value),
            "number": _number(value),
            "over": self._over(state, options),
            "options": listed,
            "order": own_order(
                [o.label for o in options], self._own_order(state) if options else ()
            ),
        }

    def _own_order(self, state: Any) -> list[str]:
        """The labels of the model's choices in ``state`` in the order its ``moves`` (or a
        one-player model's ``choices``) lists them; none for a table without its model."""
        from perfectplay.results.options import label_of

        listing = getattr(self.model, "choices" if self.kind == "chance" else "moves", None)
        if listing is None:
            return []
        try:
            return [label_of(m) for m in listing(state)]
        except Exception:  # noqa: BLE001 - a model's fault: the labels' own order serves
            return []

    def apply(self, text: Any, action: Any) -> dict[str, Any]:
        state = self.parse(text)
        option = self._option(self.solution.options(state), action)
        if self.kind == "game":
            if option.state is None:
                raise UnsupportedError("this table does not say where a move leads")
            return {"state": self.text(option.state), "passes": True}
        if self.model is None:
            raise UnsupportedError(
                f"{self.title}: a table without its model does not know the dice; serve the "
                "model to play on"
            )
        cost = None
        if self.kind == "chance":
            raw: Any = self.model.roll(option.action)
            pairs = raw.items() if isinstance(raw, Mapping) else raw
            found = [(s, w, False) for s, w in pairs]
            if self.objective.measure == "cost":  # what this roll costs: the game's total
                price = getattr(self.model, "cost", None)
                cost = float(price(option.action)) if callable(price) else 1.0
        else:
            raw = self.model.chances(state, option.action)
            triples: Iterable[Any] = (
                ((s, w, p) for (s, p), w in raw.items()) if isinstance(raw, Mapping) else raw
            )
            found = [(s, w, bool(p)) for s, w, p in triples]
        total = sum(w for _, w, _ in found)
        if not found or not total > 0:
            raise PerfectplayError(f"{self.title}: {action!r} has no outcome")
        chances = [
            {"state": self.text(s), "probability": float(w / total), "passes": p,
             "label": self.text(s)}
            for s, w, p in found
        ]  # fmt: skip
        return {"chances": chances} if cost is None else {"chances": chances, "cost": cost}


class ScorecardTable(ServedGame):
    """A Yahtzee-family table: decisions are situations (``dice ...; rolls left ...``), the
    start of a turn is a card (``filled ...``) whose roll the page makes."""

    kind = "scorecard"
    notation = (
        "a situation, e.g. 'dice 1 3 3 5 6; rolls left 2; filled ones=3', or a card between "
        "turns, e.g. 'filled ones=3; score 3'"
    )

    def __init__(
        self,
        game_id: str,
        rules: Rules,
        solution: YahtzeeSolution | None = None,
        title: str = "",
        notify: Callable[[str], None] | None = None,
    ) -> None:
        super().__init__(game_id, title or f"Yahtzee: {rules.name} rules")
        self.rules = rules
        self._table = solution
        self._notify = notify
        self._solving = threading.Lock()
        from perfectplay.lattice import TurnLattice

        lattice = (
            solution.game.lattice
            if solution is not None
            else TurnLattice(rules.dice, rules.faces, rules.rolls)
        )
        self._faces = [str(f) for f in lattice.labels]

    @property
    def table(self) -> YahtzeeSolution:
        """The solved table: the one given, else solved on first use (seconds: the
        request that needs it waits; ``notify`` hears of it, the command prints it), or
        read from the disk cache ``perfectplay yahtzee`` keeps (another worker process,
        or an earlier run, solved it: :func:`~perfectplay.serve.scorecard.solve_once`)."""
        with self._solving:
            if self._table is None:
                from perfectplay.serve.scorecard import solve_once

                self._table = solve_once(self.rules, self._notify or (lambda text: None))
            return self._table

    @property
    def solved(self) -> bool:
        """Whether the table is solved already."""
        return self._table is not None

    @property
    def ready(self) -> bool:
        return self.solved

    @property
    def objective(self) -> Objective:
        from perfectplay.yahtzee.solution import SCORE

        return SCORE

    def describe(self) -> dict[str, Any]:
        rules = self.rules
        return {
            **super().describe(),
            "boxes": [c.name for c in rules.categories],
            "upper_boxes": [c.name for c in rules.categories if c.is_upper],
            "faces": self._faces,
            "dice": rules.dice,
            "rolls": rules.rolls,
            "about": rules.description,
            "solved": self.solved,
        }

    def parse(self, text: Any) -> Any:
        from perfectplay.problems.yahtzee.instance import parse_situation
        from perfectplay.serve.scorecard import parse_card
        from perfectplay.yahtzee.cards import card_state

        text = _checked_text(text)
        if "dice" in text.lower():
            return parse_situation(text, self.table.game)
        card = parse_card(text)
        card_state(self.table.game, card)
        return card

    def text(self, state: Any) -> str:
        from perfectplay.serve.scorecard import card_notation, situation_notation
        from perfectplay.yahtzee.cards import Situation

        return situation_notation(state) if isinstance(state, Situation) else card_notation(state)

    def start(self) -> str | None:
        return "filled -"

    def _full(self, card: Any) -> bool:
        return len(card.filled) == self.table.rules.n_categories

    def _roll(self, card: Any, kept: tuple[Any, ...], rolls_left: int) -> list[dict[str, Any]]:
        from perfectplay.serve.scorecard import outcomes

        return [
            {"state": self.text(s), "probability": p, "passes": False,
             "label": " ".join(map(str, rolled)), "dice": [str(d) for d in s.dice]}
            for s, p, rolled in outcomes(self.table, card, kept, rolls_left)
        ]  # fmt: skip

    def position(self, text: Any) -> dict[str, Any]:
        from perfectplay.yahtzee.cards import Situation, card_state

        state = self.parse(text)
        if isinstance(state, Situation):
            options = self.table.options(state)
            value = options[0].value
            return {
                "state": self.text(state),
                "value": value,
                "number": value,
                "over": False,
                "options": [o.to_json() for o in options],
                "order": own_order([o.label for o in options], self._own_order(options)),
                "dice": [str(d) for d in state.dice],
                "rolls_left": state.rolls_left,
                "card": self._card_json(state.card),
            }
        card = state
        if self._full(card):
            final = card_state(self.table.game, card)[1]
            return {"state": self.text(card), "value": final, "number": final, "over": True,
                    "options": [], "card": self._card_json(card)}  # fmt: skip
        value = self.table.value(card)
        return {
            "state": self.text(card),
            "value": value,
            "number": value,
            "over": False,
            "chances": self._roll(card, (), self.table.rules.rolls - 1),
            "card": self._card_json(card),
        }

    def _own_order(self, options: list[Option]) -> list[str]:
        """The options' labels in the card's order: the keeps by their dice (keeping
        nothing first), then the boxes as the card lists them."""
        boxes = [c.name for c in self.table.rules.categories]
        faces = self._faces

        def key(o: Option) -> tuple[int, list[int]]:
            chosen = o.action
            if chosen.box is not None:
                return 1, [boxes.index(chosen.box) if chosen.box in boxes else len(boxes)]
            return 0, [faces.index(str(d)) if str(d) in faces else len(faces) for d in chosen.keep]

        return [o.label for o in sorted(options, key=key)]

    def _card_json(self, card: Any) -> dict[str, Any]:
        """The card as the page draws it: the boxes' points, the score, and what the
        boxes alone do not show: the upper total, the upper bonus it earned (``bonus_at``
        the total that earns it; ``None`` under rules without one) and the other bonuses
        (extra n-of-a-kinds: the score less the boxes and the upper bonus; ``None`` where
        some box's points are unknown)."""
        from perfectplay.yahtzee.cards import card_state

        g = self.table.game
        rules = g.rules
        score = card_state(g, card)[1]
        filled = dict(card.filled)
        upper_boxes = {c.name for c in rules.categories if c.is_upper}
        upper = card.upper
        if upper is None:
            upper = sum(p or 0 for name, p in filled.items() if name in upper_boxes)
        has_bonus = g.n_upper_values > 1 and g.bonus > 0
        upper_bonus = int(g.bonus) if has_bonus and upper >= g.threshold else 0
        known = all(p is not None for p in filled.values())
        extra = score - sum(p or 0 for p in filled.values()) - upper_bonus if known else None
        return {
            "filled": filled,
            "score": score,
            "upper": upper,
            "upper_bonus": upper_bonus,
            "bonus_at": int(g.threshold) if has_bonus else None,
            "extra_bonus": extra,
        }

    def apply(self, text: Any, action: Any) -> dict[str, Any]:
        from perfectplay.serve.scorecard import card_after
        from perfectplay.yahtzee.cards import Situation

        state = self.parse(text)
        if not isinstance(state, Situation):
            raise InputError("a card between turns has no options: roll the dice first")
        option = self._option(self.table.options(state), action)
        chosen = option.action
        if chosen.box is not None:
            situation: Situation = state
            return {"state": self.text(card_after(self.table, situation, chosen.box)),
                    "passes": False}  # fmt: skip
        return {"chances": self._roll(state.card, chosen.keep, state.rolls_left - 1)}
