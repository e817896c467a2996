"""The files ``streamplace observe`` writes from an observation of a running job: an
application, an infrastructure skeleton of its TaskManagers, the plan it runs now and what
the cluster's other jobs hold, each checked as a file would be (what ``autoscale`` plans
from, too).

Under slot sharing a slot takes one subtask of every vertex of the job, so each operator
takes one unit of a dimension of its own, ``slots.<operator>``, of which a TaskManager has as
many as slots; a slot another job holds takes one unit of every such dimension of that
TaskManager."""

from __future__ import annotations

import re
from typing import Any

from streamplace.control.running.observation import JobSlots, Observation, ObservedVertex
from streamplace.io.readers import application_from, build_document, infrastructure_from
from streamplace.model.fields import MOST_REPLICAS, unique_id
from streamplace.model.occupied import OCCUPIED_SCHEMA, OccupiedFile
from streamplace.model.source import SourceMap

SLOTS = "slots"  # the prefix of each operator's slot dimension: slots.<operator>


def documents(obs: Observation, held: dict[str, JobSlots] | None = None,
              ) -> dict[str, dict[str, Any]]:
    """``application``, ``infrastructure``, when every subtask runs on a TaskManager the
    cluster lists ``plan``, and with what each job ``held`` ``occupied``: what the cluster's
    other jobs hold."""
    nodes = _node_ids(obs)
    app = _application(obs, nodes)
    infra = _infrastructure(obs, nodes)
    # checked here, as a file would be: what observe writes, the other commands read
    application_from(app, f"<application observed from {obs.address}>")
    infrastructure_from(infra, f"<infrastructure observed from {obs.address}>")
    out = {"application": app, "infrastructure": infra}
    if held is not None:
        out["occupied"] = other_jobs(obs, held)[0]
    plan = _plan(obs, nodes, app["name"], infra["name"])
    if plan is not None:
        out["plan"] = plan
    return out


def slot_dimension(v: ObservedVertex) -> str:
    return f"{SLOTS}.{v.op}"


def other_jobs(obs: Observation, held: dict[str, JobSlots],
               shared: frozenset[str] = frozenset()) -> tuple[dict[str, Any], OccupiedFile]:
    """What the cluster's other jobs hold (but those ``shared``, planned with this one):
    the document observe writes, and the same checked as a file would be (what --occupied
    reads)."""
    nodes = _node_ids(obs)
    dims = [slot_dimension(v) for v in obs.vertices]
    taken = {_name(obs.job)}
    applications = []
    for jid, job in sorted(held.items(), key=lambda item: (item[1].name, item[0])):
        on = {nodes[tm]: n for tm, n in sorted(job.slots.items()) if tm in nodes}
        if jid == obs.job_id or jid in shared or not on:
            continue
        applications.append({
            "name": unique_id(job.name, taken, "flink-job"),
            "description": f"Flink job {jid} ({job.state}): {sum(on.values())} slots",
            "nodes": {node: dict.fromkeys(dims, count) for node, count in on.items()}})
    doc = {"schema": OCCUPIED_SCHEMA, "applications": applications}
    return doc, build_document(OccupiedFile, doc, SourceMap(
        f"<occupied load observed from {obs.address}>"))


def _application(obs: Observation, nodes: dict[str, str]) -> dict[str, Any]:
    slots = sum(t.slots for t in obs.taskmanagers)
    operators = []
    for v in obs.vertices:
        entry: dict[str, Any] = {"id": v.op, "name": v.name, "engine_id": v.id}
        if v.service_rate is not None:
            entry["service_rate"] = _round(v.service_rate)
        # a source reads no more partitions than it has: a subtask more would idle
        entry["max_replicas"] = max(v.parallelism, min(v.max_parallelism or MOST_REPLICAS,
                                                       slots or MOST_REPLICAS,
                                                       v.partitions or MOST_REPLICAS))
        entry["resources"] = {slot_dimension(v): 1}
        operators.append(entry)
    streams = []
    for s in obs.streams:
        stream: dict[str, Any] = {"from": s.source, "to": s.target, "rate": _round(s.rate)}
        if s.tuple_size is not None:
            stream["tuple_size"] = _round(s.tuple_size)
        streams.append(stream)
    version = f"Flink {obs.version}" if obs.version else "Flink"
    return {"schema": "streamplace/application/v1", "name": _name(obs.job),
            "description": f"observed from {version} job {obs.job_id} ({obs.address})"
                           + (f" at {obs.taken}" if obs.taken else "") + ": rates are "
                           "Flink's 60 s meters; service rates are records per second of "
                           "busy time; one slot-sharing unit per replica",
            "operators": operators, "streams": streams}


def _infrastructure(obs: Observation, nodes: dict[str, str]) -> dict[str, Any]:
    out = []
    for t in obs.taskmanagers:
        facts = [f"{t.slots} slots"]
        if t.cores is not None:
            facts.append(f"{t.cores:g} CPU cores on its host")
        if t.memory is not None:
            facts.append(f"{t.memory / 2**30:.3g} GiB of process memory")
        out.append({"id": nodes[t.id], "role": "processor",
                    "description": f"TaskManager {t.id}: " + ", ".join(facts),
                    "resources": {slot_dimension(v): t.slots for v in obs.vertices}})
    return {"schema": "streamplace/infrastructure/v1", "name": f"{_name(obs.job)}-taskmanagers",
            "description": "the TaskManagers of the cluster that ran it; links between "
                           "their hosts are left to the defaults (no delay, no limit): add "
                           "what the network has",
            "nodes": out}


def _plan(obs: Observation, nodes: dict[str, str], app: str,
          infra: str) -> dict[str, Any] | None:
    placement: dict[str, dict[str, int]] = {}
    for v in obs.vertices:
        where = {nodes[tm]: n for tm, n in v.placed.items() if tm in nodes}
        if sum(where.values()) != v.parallelism:
            obs.warnings.append(f"no current plan: {sum(where.values())} of the "
                                f"{v.parallelism} subtasks of {v.name!r} run on a "
                                "TaskManager the cluster lists")
            return None
        placement[v.op] = where
    return {"schema": "streamplace/plan/v1", "application": app, "infrastructure": infra,
            "placement": placement}


def _node_ids(obs: Observation) -> dict[str, str]:
    taken: set[str] = set()
    return {t.id: unique_id(t.id, taken, "taskmanager")
            for t in sorted(obs.taskmanagers, key=lambda t: t.id)}


def _name(job: str) -> str:
    return re.sub(r"\s+", "-", job.strip()) or "flink-job"


def _round(value: float) -> float:
    """Four significant digits: what a meter can tell apart."""
    return float(f"{value:.4g}")
