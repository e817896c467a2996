"""The seam between the autoscaler and what it scales: an :class:`Engine` is one running job
(read a window, the latency markers, the free slots, rescale and wait, the configuration),
a :class:`Cluster` a session cluster of them. ``control/flink/engine.py`` is Flink's; a
test's engine runs a job in memory on a clock it moves itself.

An engine's failures are typed, each with what the loop does about it:

- :class:`NoReading` (a value, not an exception): the window cannot be trusted; the step
  decides nothing;
- :class:`~streamplace.errors.Unreachable` inside a NoReading: the engine did not answer
  at all (a wrong address at the first step; counted after);
- :class:`TooFewSlots`: a change was not sent, for want of free slots;
- :class:`~streamplace.errors.ChangeSent`: a change was sent and did not settle;
- :class:`WaitStopped`: a stop request ended the wait for a change that was sent;
- :class:`~streamplace.errors.EngineError` from ``rescale``: the change was refused.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Protocol

from streamplace.control.running.latency import Measured
from streamplace.control.running.memory import MemoryPressure
from streamplace.control.running.observation import JobSlots, Observation
from streamplace.errors import EngineError, Unreachable
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

WAIT = 120.0
"""Seconds a change is waited for, by default, until the job runs it."""


class TooFewSlots(EngineError):
    """The cluster has too few free slots for a change: nothing was sent (exit 3 for
    ``apply``; autoscale leaves the job as it runs, and says so)."""


class WaitStopped(Exception):
    """A stop request ended the wait for a change that was sent (the engine carries it
    on)."""


@dataclass(frozen=True)
class Reading:
    """A job over one window, complete: every subtask ran throughout and every counter was
    whole."""

    observation: Observation
    holdings: dict[str, JobSlots] | None = None  # each job of the cluster; None: not said
    holdings_unknown: str = ""               # why they are not known, where asked
    memory: MemoryPressure = field(default_factory=MemoryPressure)
    groups: dict[str, str] = field(default_factory=dict)  # operator: its slot-sharing group
    metered: Observation | None = None
    """The job as its life-long meters show it: what a source that sent nothing over the
    window falls back to."""


@dataclass(frozen=True)
class NoReading:
    why: str
    unreachable: Unreachable | None = None  # the engine did not answer in whole
    reached: bool = False  # it had answered before (a blip, not a wrong address)


@dataclass(frozen=True)
class Listing:
    """A session cluster now."""

    running: dict[str, str]   # job id: name, of the RUNNING jobs to autoscale this step
    slots: int                # the cluster's slots
    held: Counter[str] = field(default_factory=Counter)  # job id: slots it holds
    waiting: dict[str, str] = field(default_factory=dict)
    """job id: why a job that has not ended is left as it runs this step (restarting, or
    sharing its name with another for a moment), its memory kept."""
    unsound: str = ""         # why the listing does not add up, where it does not


class Engine(Protocol):
    """One running job, as the loop sees it."""

    @property
    def address(self) -> str:
        """Where the job runs, as messages show it (no credentials)."""

    def reach(self) -> None:
        """Whether the job can be read at all, asked at once: an
        :class:`~streamplace.errors.Unreachable` for an address that does not answer, an
        :class:`~streamplace.errors.InputError` for one that is not a running job's."""

    def read(self, window: float) -> Reading | NoReading:
        """The job over ``window`` seconds from now; a stop request ends the wait
        (:class:`~streamplace.control.clock.Stopped`)."""

    def gone(self, name: str | None) -> str | None:
        """Why the job no longer runs (naming a running job of the same ``name`` where one
        took its place); None while it runs or only restarts."""

    def markers(self, vertex_of: dict[str, str]) -> tuple[dict[tuple[str, str], Measured],
                                                           float]:
        """The latency markers ((source, operator): measured) of the operators
        ``vertex_of`` names (operator: vertex id), and the buffer timeout they crossed."""

    def free_slots(self, held: int) -> int | None:
        """The slots the job could hold now: those free and the ``held`` it holds."""

    def rescale(self, app: Application, infra: Infrastructure, plan: Plan,
                wait: float) -> float:
        """Send ``plan``'s parallelism and wait up to ``wait`` seconds until the job runs
        it; the seconds that took."""

    def configuration(self) -> dict[str, str]:
        """The cluster's configuration, key by key."""


class Cluster(Protocol):
    """A session cluster, as autoscale over every job of it sees it."""

    @property
    def address(self) -> str: ...

    def reach(self) -> None:
        """Whether the cluster answers at all, asked at once (an
        :class:`~streamplace.errors.Unreachable` where it does not)."""

    def listing(self) -> Listing:
        """The running jobs and the slots."""

    def job(self, jid: str) -> Engine:
        """One job of the cluster."""

    def read(self, jids: list[str], window: float) -> dict[str, Reading | NoReading]:
        """Every job named read over the same window."""
