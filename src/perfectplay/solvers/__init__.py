"""One module per algorithm; the solvers of chance graphs and game graphs."""
