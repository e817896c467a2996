"""Time limits and interrupts: the one object every method polls to know when to stop.

A method is handed a :class:`StopRequest` in its options. The command line sets it from its
SIGINT/SIGTERM handlers; a notebook or a test may set it from another thread. Methods never
block signals: they poll :meth:`Budget.expired` between steps (a move, an ant, a node of a
search tree, an operator of a model being built) and HiGHS polls it from its callbacks, so
a stop takes effect within a fraction of a second and the best plan found so far survives.

>>> stop = StopRequest()
>>> budget = Budget(time_limit=None, stop=stop)
>>> budget.expired()
False
>>> stop.set()
>>> budget.expired(), budget.interrupted
(True, True)
"""

from __future__ import annotations

import math
import signal
import time
from dataclasses import dataclass, field


class StopRequest:
    """A flag set once, asynchronously (signal handlers, other threads); cheap to read."""

    __slots__ = ("signum",)

    def __init__(self) -> None:
        self.signum: int | None = None

    def set(self, signum: int = signal.SIGINT) -> None:
        if self.signum is None:
            self.signum = signum

    def __bool__(self) -> bool:
        return self.signum is not None


@dataclass(frozen=True)
class Budget:
    """How long a method may run: its time limit from ``started``, and the stop request."""

    time_limit: float | None
    stop: StopRequest = field(default_factory=StopRequest)
    started: float = field(default_factory=time.perf_counter)

    @property
    def deadline(self) -> float:
        return math.inf if self.time_limit is None else self.started + self.time_limit

    @property
    def interrupted(self) -> bool:
        return bool(self.stop)

    def expired(self) -> bool:
        return bool(self.stop) or time.perf_counter() >= self.deadline

    def check(self) -> None:
        """Raise :class:`Stopped` once the budget has run out (for long builds)."""
        if self.expired():
            raise Stopped

    def elapsed(self) -> float:
        return time.perf_counter() - self.started

    def remaining(self) -> float | None:
        """Seconds left (never negative), or None without a limit."""
        if self.time_limit is None:
            return None
        return max(0.0, self.deadline - time.perf_counter())

    def until(self, deadline: float) -> Budget:
        """The same stop request with an earlier deadline (a phase of the method)."""
        limit = min(deadline, self.deadline) - self.started
        return Budget(None if math.isinf(limit) else max(0.0, limit), self.stop, self.started)


class Stopped(Exception):
    """Raised inside a method when its budget ran out mid-step (e.g. while building a model);
    the method catches it and returns what it has."""
