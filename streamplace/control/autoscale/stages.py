"""What passes between the loop's roles, one type per hand-over:

    engine.read -> Reading -> evaluate -> Assessment -> decide -> Proposal
                -> safeguards -> Verdict -> send -> Outcome -> the step's Decision

The engine's :class:`~streamplace.control.engine.Reading` is the job over a window; an
:class:`Assessment` is what the step makes of it (the instance to plan, the offered load,
what triggers); a :class:`Proposal` the plan a method asks for; a :class:`Verdict` what the
safeguards let through; an :class:`Outcome` what came of sending it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from streamplace.control.engine import Reading
from streamplace.control.running.latency import PathLatency
from streamplace.control.running.observation import slots_taken
from streamplace.control.running.offered import Backlog
from streamplace.model.application import Application
from streamplace.model.decision import Replan
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.occupied import HeldBy
from streamplace.model.plan import Plan


@dataclass(frozen=True)
class Observed:
    """The instance a step plans: the job's application at the target utilisation, the
    slots left to it beside the cluster's other jobs, and the plan it runs."""

    app: Application
    infra: Infrastructure
    plan: Plan
    others: list[HeldBy]                                  # the cluster's other jobs
    shares: dict[str, int] = field(default_factory=dict)  # op: its key groups or partitions

    @property
    def running(self) -> dict[str, int]:
        return {op: sum(self.plan.replicas(op).values()) for op in self.app.operator_ids}

    def occupied(self) -> dict[str, int]:
        """Each other job's slots: a slot takes one unit of every dimension of a
        TaskManager."""
        return {held.name: int(sum(min(dims.values(), default=0.0)
                                   for dims in held.nodes.values())) for held in self.others}


@dataclass(frozen=True)
class LatencyHold:
    """``--max-response-time`` against the job's latency markers."""

    broken: list[str]              # each path above the limit, and by how much
    model_limit: float | None      # the re-plan's bound on the model's response time
    measured: dict[str, float] = field(default_factory=dict)  # "source -> sink": held statistic, s
    said: list[str] = field(default_factory=list)
    paths: list[PathLatency] = field(default_factory=list)  # the model beside the markers


@dataclass(frozen=True)
class Assessment:
    """A step's reading of one job, evaluated: what the decision is made on."""

    number: int
    reading: Reading
    offered: str                 # where the offered load comes from
    backlog: Backlog | None
    observed: Observed
    triggered: list[str]
    latency: LatencyHold | None = None
    pressing: list[str] = field(default_factory=list)  # the triggers that ask for more

    @property
    def capacity(self) -> dict[str, float]:
        """Each vertex's records per second at full busy time, over all its subtasks."""
        return {v.op: v.service_rate * v.parallelism
                for v in self.reading.observation.vertices if v.service_rate}

    def slots(self, counts: Mapping[str, int]) -> int:
        """Slots the job takes at ``counts``, its slot-sharing groups added up."""
        return slots_taken(self.reading.groups, counts)


@dataclass(frozen=True)
class Proposal:
    plan: Plan | None            # None: leave the job as it runs
    why: list[str]
    replan: Replan | None = None  # odrp's F before and after


@dataclass
class Verdict:
    """What the safeguards let through: the parallelism to run and the plan to send (None:
    leave the job as it runs), and why each change they cut or made wait was."""

    to: dict[str, int]
    plan: Plan | None
    why: list[str] = field(default_factory=list)
    dry_run: bool = False


@dataclass(frozen=True)
class Outcome:
    """What came of a verdict: the decision it makes, the parallelism the job was asked to
    run, and what was said on the way."""

    decision: str                # rescale, no change, dry run
    to: dict[str, int]
    said: list[str] = field(default_factory=list)
    seconds_to_rescale: float | None = None
