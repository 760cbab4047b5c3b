"""Solitaire Yahtzee and its family: rules as data, solved by tiered backward induction."""
