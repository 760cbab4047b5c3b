"""Game graphs as arrays: chance graphs, game graphs and canonical state indexes."""
