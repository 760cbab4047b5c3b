"""Example models written with :mod:`perfectplay.models`, each checked against a published number.

* :mod:`~perfectplay.examples.five_dice`: roll five dice, keep any, until all show the same
  face (Yahtzee with unlimited rerolls): exactly 191283/17248 rolls on average.
* :mod:`~perfectplay.examples.chutes_ladders`: the Milton Bradley Chutes and Ladders board,
  one player: the expected number of spins is the fraction Althoen, King and Schilling
  published in 1993 (about 39.2251).
* :mod:`~perfectplay.examples.tictactoe`: tic-tac-toe is a tie, nine moves long.
* :mod:`~perfectplay.examples.dodgem`: Colin Vout's Dodgem on a 3x3 board, a loopy game whose
  cars can shuffle sideways forever: the first player wins, and many positions are draws.
* :mod:`~perfectplay.examples.pig`: Pig and Piglet, two players with dice between moves:
  the first player wins 0.5305927 with optimal play (Neller and Presser 2004), and
  Piglet's hold tables match Neller's.

Solve any of them from the command line::

    perfectplay solve perfectplay.examples.five_dice:FiveDice --exact
"""

__all__: list[str] = []  # each example is a module: import it by name
