"""The one error a site build can end with."""

from __future__ import annotations

from perfectplay.errors import PerfectplayError

__all__ = ["SiteError"]


class SiteError(PerfectplayError):
    """A build that cannot honour the tree: names the entry (or page), the file and the problem.

    ``where`` is the entry id (``icpc/2023/K-alea-iacta-est``), ``docs``, or empty for the
    build as a whole (the output folder, the repository); ``file`` is repository-relative
    (or a path outside it when the problem is there); ``line`` is 1-based when known.

    >>> print(SiteError("icpc/2023/K-x", "archive/icpc/2023/K-x/meta.toml", "missing key 'title'"))
    site: icpc/2023/K-x: archive/icpc/2023/K-x/meta.toml: missing key 'title'
    >>> print(SiteError("docs", "docs/cli.md", "link to nowhere.md: no such file", line=4))
    site: docs: docs/cli.md:4: link to nowhere.md: no such file
    >>> print(SiteError("", "/tmp/x", "output exists and is not a folder"))
    site: /tmp/x: output exists and is not a folder
    """

    def __init__(self, where: str, file: str, message: str, line: int | None = None) -> None:
        self.where = where
        self.file = file
        self.line = line
        self.message = " ".join(message.split())  # always one line
        super().__init__(self.message)

    def __str__(self) -> str:
        at = self.file if self.line is None else f"{self.file}:{self.line}"
        return ": ".join(part for part in ("site", self.where, at, self.message) if part)
