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

from streamplace.model.plan import SolveStatus


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


class EitherStop(StopRequest):
    """Set when it is set itself or when any of ``requests`` is: a phase that ends on the
    user's request and on one of its own (another part of the method proved the result)."""

    __slots__ = ("requests",)

    def __init__(self, *requests: StopRequest) -> None:
        super().__init__()
        self.requests = requests

    def __bool__(self) -> bool:
        return self.signum is not None or any(self.requests)


@dataclass
class Work:
    """Units of work spent so far, shared by every phase of one method run."""

    spent: int = 0


@dataclass(frozen=True)
class Budget:
    """How long a method may run: its time limit from ``started``, the stop request, and
    optionally a work limit in the method's own units (``work_limit``), counted on a shared
    :class:`Work`. A run that ends by its work limit does the same on any machine; one that
    ends by the clock says so (:attr:`clock_cut`).

    >>> budget = Budget(time_limit=None, work_limit=2)
    >>> budget.spend(); budget.expired(), budget.spend(), budget.expired()
    (False, None, True)
    >>> budget.clock_cut
    False
    """

    time_limit: float | None
    stop: StopRequest = field(default_factory=StopRequest)
    started: float = field(default_factory=time.perf_counter)
    work_limit: int | None = None
    work: Work = field(default_factory=Work)

    @property
    def deadline(self) -> float:
        return math.inf if self.time_limit is None else self.started + self.time_limit

    @property
    def interrupted(self) -> bool:
        return bool(self.stop)

    @property
    def worked_out(self) -> bool:
        return self.work_limit is not None and self.work.spent >= self.work_limit

    @property
    def clock_cut(self) -> bool:
        """Whether the clock (not the work limit nor a stop request) ended it: such a run
        depends on how fast the machine was."""
        return not self.stop and not self.worked_out and \
            time.perf_counter() >= self.deadline

    def expired(self) -> bool:
        return bool(self.stop) or self.worked_out or time.perf_counter() >= self.deadline

    def stop_status(self) -> SolveStatus:
        """The status of a run this budget ended early: ``interrupted`` where a stop was
        requested, else ``time_limit`` (the clock or the work limit)."""
        return SolveStatus.INTERRUPTED if self.interrupted else SolveStatus.TIME_LIMIT

    def stop_reason(self) -> str:
        """Why this budget ended a run, in a result's words."""
        return "interrupted" if self.interrupted else "the time limit passed"

    def spend(self, units: int = 1) -> None:
        self.work.spent += units

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

    def or_when(self, request: StopRequest) -> Budget:
        """The same budget, ended also by ``request``; :attr:`interrupted` then says so too
        (the caller knows which of the two it was).

        >>> user, proof = StopRequest(), StopRequest()
        >>> phase = Budget(None, user).or_when(proof)
        >>> phase.expired(), proof.set(), phase.expired(), bool(user)
        (False, None, True, False)
        """
        return Budget(self.time_limit, EitherStop(self.stop, request), self.started,
                      self.work_limit, self.work)

    def until(self, deadline: float, work: int | None = None) -> Budget:
        """The same stop request and work counter with an earlier deadline (a phase of the
        method), and an earlier work limit where one is given."""
        limit = min(deadline, self.deadline) - self.started
        works = [w for w in (work, self.work_limit) if w is not None]
        return Budget(None if math.isinf(limit) else max(0.0, limit), self.stop, self.started,
                      min(works) if works else None, self.work)


class Stopped(Exception):
    """Raised inside a method when its budget ran out mid-step (e.g. while building a model);
    the method catches it and returns what it has."""
