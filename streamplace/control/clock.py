"""Time, as the control layer is given it: a :class:`Clock` (the system's, or a test's that
moves only when slept), the one way to wait (:func:`nap`, which sees a stop request within a
fraction of a second) and the one way to poll (:func:`poll_until`). No other module of
``control/`` reads the time or sleeps: a loop tested in-process runs a day of windows in
milliseconds."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Protocol, TypeVar

from streamplace.solve.budget import StopRequest

NAP = 0.2   # seconds between two looks at the stop request while waiting
POLL = 0.5  # seconds between two looks at what a poll waits for

T = TypeVar("T")


class Clock(Protocol):
    def now(self) -> float:
        """Seconds on a monotonic clock: what durations are measured on."""

    def wall(self) -> float:
        """Unix time: what outlives the process (the state file's times)."""

    def sleep(self, seconds: float) -> None: ...


class SystemClock:
    """The machine's clocks."""

    def now(self) -> float:
        return time.monotonic()

    def wall(self) -> float:
        return time.time()

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


class Stopped(Exception):
    """A stop request came while waiting."""


def nap(seconds: float, clock: Clock, stop: StopRequest | None = None) -> None:
    """Wait ``seconds``, in short naps so that a stop request is seen at once
    (:class:`Stopped`)."""
    ends = clock.now() + seconds
    while not stop and clock.now() < ends:
        clock.sleep(min(NAP, max(0.0, ends - clock.now())))
    if stop:
        raise Stopped


def poll_until(look: Callable[[], T | None], seconds: float, clock: Clock,
               stop: StopRequest | None = None, every: float = POLL) -> T | None:
    """``look()`` every ``every`` seconds until it answers (not None), ``seconds`` pass or a
    stop request comes; its answer, else None. It looks once at least, and once more at
    the deadline."""
    ends = clock.now() + seconds
    while True:
        found = look()
        if found is not None or clock.now() >= ends or stop:
            return found
        clock.sleep(min(every, max(0.0, ends - clock.now())))
