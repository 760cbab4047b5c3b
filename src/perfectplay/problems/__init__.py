"""The gallery: one module (or package) per solved game.

Each game offers ``parse(text) -> Instance`` (raising
:class:`~perfectplay.errors.InputError`), ``solve(...)`` returning a typed solution, and
``format(solution) -> str`` in the problem's official output format. Games build graphs and
call the core; they do not contain solvers of their own.
"""

__all__: list[str] = []  # each problem is a subpackage: import it by name
