"""The source-first archive and documentation site (``perfectplay site build``).

The site is a function of the repository tree: every page is generated at build time from
``archive/`` (one folder per solved problem: ``meta.toml``, ``statement.md``,
``solution.tex``, samples), the package files an entry's metadata names, and ``docs/``.
A page shows those files' bytes and the output its samples printed during the build; a
build that cannot do so stops with :class:`SiteError` and leaves the output untouched.

Building needs the ``site`` extra (Jinja2, Pygments, pandoc through ``pypandoc-binary``)::

    from pathlib import Path
    from perfectplay.site import build_site
    result = build_site(Path("."), Path("site-out"))
    print(result.entries, "entries in", result.out)

Importing this package is cheap; the builder and its dependencies load on first use.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from perfectplay.site.errors import SiteError

if TYPE_CHECKING:
    from perfectplay.site.build import BuildResult

__all__ = ["SiteError", "build_site"]


def build_site(
    root: Path,
    out: Path,
    *,
    jobs: int | None = None,
    quiet: bool = True,
    cache: Path | None = None,
    force: bool = False,
    trust: bool = False,
    keep_going: bool = False,
) -> BuildResult:
    """Build the site of repository ``root`` into ``out`` and return what was written.

    ``out`` is replaced whole on success and left as it was on failure. Raises
    :class:`SiteError` (one line: entry, file, problem) when the tree cannot be honoured.
    ``cache`` is where solutions are compiled and checks remembered (default
    ``$XDG_CACHE_HOME/perfectplay-site``): an entry unchanged since a build that checked
    it is not run again, unless ``force``. The tree's programs run sandboxed; where no
    sandbox is available the build refuses to run them unless ``trust`` is given.
    With ``keep_going``, a failing entry (a sample, a program that does not build, a
    checker that fails) is shown failing and listed in ``result.failed`` instead of
    stopping the build (the command line's default).
    """
    from perfectplay.site.build import build

    return build(
        root,
        out,
        jobs=jobs,
        quiet=quiet,
        cache=cache,
        force=force,
        trust=trust,
        keep_going=keep_going,
    )
