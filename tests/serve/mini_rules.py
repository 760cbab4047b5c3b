"""A small Yahtzee-family rule set for the server's tests, also loaded by file path as
``perfectplay serve --rules tests/serve/mini_rules.py:MINI``."""

from perfectplay.yahtzee import Category, Rules

#: A small rule set with every feature of the family: an upper bonus, an n-of-a-kind box
#: with an extra bonus and jokers.
MINI = Rules(
    "mini",
    (
        Category.upper(1, "ones"),
        Category.upper(2, "twos"),
        Category.upper(3, "threes"),
        Category("chance", sum),
        Category("kind", lambda d: 30 if len(set(d)) == 1 else 0, joker=None),
    ),
    dice=3,
    faces=3,
    rolls=3,
    upper_threshold=10,
    upper_bonus=15,
    kind_box="kind",
    kind_bonus=50,
    joker="free",
)
