"""Evaluate: the observed instance (application, TaskManagers less what the cluster's other
jobs hold, the plan the job runs) and what each vertex did over the window."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamplace.control.autoscale.alignment import accepted_counts
from streamplace.control.autoscale.rule import Seen
from streamplace.control.flink.holdings import holdings
from streamplace.control.running.documents import documents, other_jobs
from streamplace.control.running.observation import Observation, ObservedVertex
from streamplace.errors import InputError
from streamplace.io.readers import application_from, infrastructure_from, plan_from
from streamplace.model.application import Application
from streamplace.model.decision import VertexSeen, number
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.occupied import HeldBy, beside
from streamplace.model.plan import Plan


@dataclass(frozen=True)
class Observed:
    app: Application             # at the target utilisation
    infra: Infrastructure        # the slots left to this job
    plan: Plan                   # what runs
    others: list[HeldBy]         # the cluster's other jobs
    shares: dict[str, int] = field(default_factory=dict)  # op: its key groups or partitions

    @property
    def running(self) -> dict[str, int]:
        return {op: sum(self.plan.replicas(op).values()) for op in self.app.operator_ids}

    def occupied(self) -> dict[str, int]:
        """Each other job's slots: a slot takes one unit of every dimension of a
        TaskManager."""
        return {held.name: int(sum(min(dims.values(), default=0.0)
                                   for dims in held.nodes.values())) for held in self.others}


def observed_instance(obs: Observation, target: float, load: Any,
                      aggregator: str = "avg", alignment: str = "OFF",
                      shared: frozenset[str] = frozenset()) -> Observed:
    """The instance a step plans: the TaskManagers less the slots the cluster's other jobs
    hold (a session cluster is shared). With the ``max`` aggregator a vertex's capacity is
    its busiest subtask's: under skew that one saturates while the mean looks fine, so each
    replica's service rate is scaled by mean busy over max busy (PR #505 of the Flink
    operator made MAX its default for the same reason). With an ``alignment`` mode, a source
    or keyed vertex may run only the counts the mode accepts, and the count it runs
    (:mod:`~streamplace.control.autoscale.alignment`). The slots of the jobs ``shared``
    (planned together with this one) are left in."""
    docs = documents(obs)
    if "plan" not in docs:
        raise InputError.single("where the job's subtasks run is not known (see the "
                                "warnings)", "observe it again once it runs", path="JOB")
    if aggregator == "max":
        _capacity_of_the_busiest(docs["application"], obs)
    shares = {v.op: v.shares for v in obs.vertices if v.shares}
    _aligned(docs["application"], obs, shares, alignment)
    app = application_from(docs["application"], f"<observed {obs.address}>")
    infra = infrastructure_from(docs["infrastructure"], f"<observed {obs.address}>")
    plan = plan_from(docs["plan"], f"<observed {obs.address}>", app, infra)
    try:
        others = other_jobs(obs, holdings(load, obs.address), shared)[1].applications
    except InputError as exc:  # a cluster that does not say which job holds a slot
        obs.warnings.append(f"{exc} — planned as if every slot were this job's")
        others = []
    return Observed(app.with_target_utilization(target), beside(infra, others), plan, others,
                    shares)


def seen(obs: Observation, aggregator: str = "avg",
         at_offered: dict[str, float | None] | None = None) -> list[Seen]:
    """Each vertex as the triggers judge it. ``at_offered``: the utilisation the running
    plan has at the offered load (the Flink autoscaler's bounds are in rate space: the
    capacity against the rate to be taken in, not the busy share of what got through)."""
    out = []
    for v in obs.vertices:
        busy = busiest(v) if aggregator == "max" else v.busy
        offered = bool(at_offered and at_offered.get(v.op) is not None and busy is not None)
        if offered and at_offered is not None:
            busy = at_offered[v.op]
        out.append(Seen(v.op, v.parallelism, busy, v.pressed, v.source, offered))
    return out


def busiest(v: ObservedVertex) -> float | None:
    """The busy share of a vertex's busiest subtask, over a window; else its mean."""
    return max(v.window.busy) if v.window and v.window.busy else v.busy


def _capacity_of_the_busiest(app: dict[str, Any], obs: Observation) -> None:
    by_op = {v.op: v for v in obs.vertices}
    for op in app.get("operators", []):
        v = by_op.get(op.get("id"))
        peak = busiest(v) if v is not None else None
        if v is not None and v.busy and peak and peak > v.busy and op.get("service_rate"):
            op["service_rate"] *= v.busy / peak


def _aligned(app: dict[str, Any], obs: Observation, shares: dict[str, int],
             mode: str) -> None:
    running = {v.op: v.parallelism for v in obs.vertices}
    for op in app.get("operators", []):
        n = shares.get(op.get("id"))
        counts = accepted_counts(n, op["max_replicas"], mode) if n else None
        if counts is not None:
            op["replica_counts"] = sorted({*counts, running[op["id"]]})


def excluded(obs: Observation, given: tuple[str, ...]) -> set[str]:
    """The operators ``given`` names, each by operator id, vertex name or JobVertexID (as
    the Flink autoscaler's vertex.exclude.ids names them)."""
    names = set(given)
    return {v.op for v in obs.vertices if {v.op, v.name, v.id} & names}


def seen_record(obs: Observation) -> dict[str, VertexSeen]:
    """What each vertex did, as the decision line holds it."""
    return {v.op: VertexSeen(
        parallelism=v.parallelism, busy=_four(v.busy),
        busy_max=_four(max(v.window.busy)) if v.window else None,
        backpressured=_four(v.pressed) or 0.0,
        records_in=_four(v.meter("numRecordsInPerSecond")),
        records_out=_four(v.meter("numRecordsOutPerSecond")),
        service_rate=_four(v.service_rate)) for v in obs.vertices}


def _four(value: float | None) -> float | None:
    out = number(value)
    return out if isinstance(out, float) or out is None else None
