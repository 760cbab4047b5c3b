"""The signals held while compiled code runs (``perfectplay._util.interrupts``)."""

from __future__ import annotations

import os
import signal

import pytest

from perfectplay._util import interrupts
from perfectplay._util.interrupts import deferrable, deferred_interrupt


def test_holding_signals_skips_the_enum_conversions(monkeypatch):
    # signal.signal and signal.getsignal turn a function handler into an enum by failing
    # to (some 50 microseconds a call, 1,200 blocks a Pig 100 solve): the block uses the
    # raw functions, and still holds and restores the handlers.
    def refuse(*args: object) -> None:
        raise AssertionError("the enum-converting signal functions were called")

    monkeypatch.setattr(signal, "signal", refuse)
    monkeypatch.setattr(signal, "getsignal", refuse)
    before = interrupts._raw.getsignal(int(signal.SIGINT))
    with pytest.raises(KeyboardInterrupt):
        with deferred_interrupt():
            os.kill(os.getpid(), signal.SIGINT)
            assert interrupts._raw.getsignal(int(signal.SIGINT)) is not before
    assert interrupts._raw.getsignal(int(signal.SIGINT)) is before


def test_a_deferrable_terminate_handler_runs_after_the_block():
    got: list[int] = []

    @deferrable
    def stop(signum: int, frame: object) -> None:
        got.append(signum)

    old = signal.signal(signal.SIGTERM, stop)
    try:
        with deferred_interrupt():
            os.kill(os.getpid(), signal.SIGTERM)
            assert got == []
        assert got == [int(signal.SIGTERM)]
        assert signal.getsignal(signal.SIGTERM) is stop
    finally:
        signal.signal(signal.SIGTERM, old)
