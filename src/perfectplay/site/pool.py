"""The thread pool a build waits on other programs with, and the futures it collects."""

from __future__ import annotations

import concurrent.futures as cf
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from perfectplay._util.progress import Progress
from perfectplay.site import contained

__all__ = ["Pool", "Work", "done"]


@dataclass
class Work:
    """Futures of the programs a build runs, keyed by what they produce."""

    samples: dict[tuple[str, str], cf.Future[Any]] = field(default_factory=dict)
    tests: dict[tuple[str, str], cf.Future[Any]] = field(default_factory=dict)
    helps: dict[str, cf.Future[str]] = field(default_factory=dict)
    statements: dict[str, cf.Future[str]] = field(default_factory=dict)
    solutions: dict[str, cf.Future[str]] = field(default_factory=dict)
    docs: dict[str, cf.Future[str]] = field(default_factory=dict)
    texts: dict[str, cf.Future[str]] = field(default_factory=dict)


def done(value: Any) -> cf.Future[Any]:
    """A future that already holds ``value`` (a result remembered from an earlier build).

    >>> done(3).result()
    3
    """
    future: cf.Future[Any] = cf.Future()
    future.set_result(value)
    return future


class Pool:
    """A thread pool whose first failure wins: pending work is cancelled, and the error that
    comes first in submission order among those raised is reported, so the message does not
    depend on timing when several things are wrong."""

    def __init__(self, jobs: int, progress: Progress | None) -> None:
        self.executor = cf.ThreadPoolExecutor(max_workers=jobs)
        self.futures: list[cf.Future[Any]] = []
        self.progress = progress

    def __enter__(self) -> Pool:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc: object) -> None:
        interrupted = kind is not None and not issubclass(kind, Exception)
        if interrupted:
            # Ctrl-C or a signal: every program still running is killed now, so the
            # threads waiting on them end at once instead of at their time limits.
            contained.stop_all()
        try:
            self.executor.shutdown(wait=True, cancel_futures=True)
        finally:
            if interrupted:
                contained.resume()

    def submit(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> cf.Future[Any]:
        future = self.executor.submit(fn, *args, **kwargs)
        self.futures.append(future)
        return future

    def wait(self) -> None:
        pending = set(self.futures)
        while pending:
            finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            if self.progress:
                self.progress.update(len(self.futures) - len(pending), "steps", len(self.futures))
            if any(f.exception() is not None for f in finished):
                for f in pending:
                    f.cancel()
                cf.wait(pending)  # the ones already running finish (each has a time limit)
                break
        for f in self.futures:
            error = f.exception() if f.done() and not f.cancelled() else None
            if error is not None:
                raise error
