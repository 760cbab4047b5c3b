"""Chance models whose plays stop at dead ends (non-goal states without a choice) or go
round a loop for ever, and a two-player dice game whose first mover has no move: the
regressions of tests/test_model_dead_ends.py, loaded by path there and by the command line.

Under a probability objective such a play is over without the event (worth 0); under a
cost or a score it cannot finish (worth ``inf``, or the worst score).
"""

from fractions import Fraction

from perfectplay.models import Objective


class Chain:
    """'S' rolls 4:3 to the dead end 'D' or to 'B'; 'B' rolls to 'C'; 'C' rolls 2:3 to
    the goal 'WIN' or to 'L', which rolls back to itself for ever. P(S) = 3/7 * 2/5."""

    objective = Objective.probability()
    start = "S"
    ROLLS = {"S": {"D": 4, "B": 3}, "B": {"C": 1}, "C": {"WIN": 2, "L": 3}, "L": {"L": 1}}

    def is_goal(self, s):
        return s == "WIN"

    def choices(self, s):
        return [s] if s in self.ROLLS else []

    def roll(self, s):
        return self.ROLLS[s]


class ChainMin(Chain):
    """The same, minimised: there is no choice, so the same 6/35."""

    objective = Objective.probability("min")


class ChainNoLoop(Chain):
    """'L' is a dead end instead of a loop (acyclic: backward induction)."""

    ROLLS = {"S": {"D": 4, "B": 3}, "B": {"C": 1}, "C": {"WIN": 2, "L": 3}}


class ChainNoDeadEnd(Chain):
    """'D' is a goal worth 0 instead of a dead end; 'L' still loops for ever."""

    def is_goal(self, s):
        return s in ("WIN", "D")

    def value(self, s):
        return int(s == "WIN")


class Split:
    """'S' rolls 1:1:2 to the goal 'WIN', the dead end 'D' or the loop 'L' (whose only
    roll comes back to it): 1/4 in both senses."""

    objective = Objective.probability()
    start = "S"

    def is_goal(self, s):
        return s == "WIN"

    def choices(self, s):
        return {"S": ["r"], "L": ["l"]}.get(s, [])

    def roll(self, p):
        return {"WIN": 1, "D": 1, "L": 2} if p == "r" else {"L": 1}


class SplitMin(Split):
    objective = Objective.probability("min")


class Stuck:
    """The start has no choice and is not a goal: the event never happens (0)."""

    objective = Objective.probability("min")
    start = "S"

    def is_goal(self, s):
        return False

    def choices(self, s):
        return []

    def roll(self, p):
        return {}


class Dodge:
    """Minimise the chance of 'WIN': 'S' may stop at the dead end 'D' (0) or roll 1:1 for
    'WIN' or 'D' (1/2). Before, the dead end was worth ``inf`` and the roll was taken."""

    objective = Objective.probability("min")
    start = "S"

    def is_goal(self, s):
        return s == "WIN"

    def choices(self, s):
        return ["stop", "roll"] if s == "S" else []

    def roll(self, p):
        return {"D": 1} if p == "stop" else {"WIN": 1, "D": 1}


class ScoreDead:
    """Maximise the score: 'S' rolls 1:1 to the goal 'TOP' (worth 4) or to the dead end
    'D'. A score cannot finish at a dead end: the worst value, ``-inf``."""

    objective = Objective.score()
    start = "S"

    def is_goal(self, s):
        return s == "TOP"

    def value(self, s):
        return 4

    def choices(self, s):
        return ["r"] if s == "S" else []

    def roll(self, p):
        return {"TOP": 1, "D": 1}


class ScoreAvoid(ScoreDead):
    """'S' may also take 1 for sure ('safe', to the goal 'LOW'): value 1, avoiding the
    dead end whatever the other roll promises."""

    def is_goal(self, s):
        return s in ("TOP", "LOW")

    def value(self, s):
        return 4 if s == "TOP" else 1

    def choices(self, s):
        return ["r", "safe"] if s == "S" else []

    def roll(self, p):
        return {"LOW": 1} if p == "safe" else {"TOP": 1, "D": 1}


class ThreeQuarters:
    """The default objective with a custom price: each roll costs 3/4 and ends the game
    half the time, so 3/2 is expected."""

    start = 0

    def is_goal(self, s):
        return s == 1

    def choices(self, s):
        return ["go"]

    def cost(self, p):
        return Fraction(3, 4)

    def roll(self, p):
        return {1: 1, 0: 1}


class StartNoMoves:
    """Two players with dice; the first mover has no move at all (and the game has no
    roll): with the default ``no_moves`` they lose at once (value 0)."""

    start = 0

    def outcome(self, s):
        return None

    def moves(self, s):
        return []

    def chances(self, s, m):
        return []


class StartNoMovesWins(StartNoMoves):
    no_moves = "win"
