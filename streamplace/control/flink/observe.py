"""An application, an infrastructure skeleton and the current plan from a running Flink job
(``streamplace observe``, docs/engines.md "Reading a running Flink job"), as the Flink
Kubernetes operator's autoscaler reads a job:

- operators are the job vertices (a chain of operators runs, and is placed, as one vertex);
  their ``engine_id`` is the JobVertexID, so ``export`` finds them again;
- streams are the plan's inputs; a stream's rate is its consumer's ``numRecordsInPerSecond``
  when that is its only input, else what the consumer's other inputs leave of it, else the
  producer's ``numRecordsOutPerSecond`` (the autoscaler's three cases, ScalingMetricEvaluator
  ``computeEdgeDataRate``); its tuple size is the bytes per record the consumer has read;
- a replica's service rate is its true processing rate: records taken in (a source: sent)
  per second of busy time, from the vertex's accumulated counters over its life, else from
  the meters, rate / (``busyTimeMsPerSecond`` / 1000) (the autoscaler's ``computeTprFromBusyTime``);
- nodes are the TaskManagers. Under slot sharing a slot holds one subtask of every vertex,
  so each operator takes one unit of a dimension of its own, ``slots.<operator>``, of which
  a TaskManager has as many as slots: exact for one slot-sharing group (Flink's default);
- the current plan is where each subtask runs (``taskmanager-id``).
"""

from __future__ import annotations

from typing import Any

from streamplace.control.flink.answers import (
    as_count,
    as_list,
    as_number,
    incomplete,
    meters,
    placed,
    totals,
)
from streamplace.control.flink.job import SNAPSHOT_SCHEMA, version_of
from streamplace.control.flink.window import windows
from streamplace.control.running.observation import (
    PRESSED,
    SATURATED,
    Observation,
    ObservedStream,
    ObservedVertex,
    TaskManager,
)
from streamplace.errors import EngineError, InputError, Problem
from streamplace.io.engines.flink import VERTEX_ID, Vertex
from streamplace.model.fields import unique_id

METER_SECONDS = 75.0
"""How long a vertex runs before its meters hold a full window: Flink's MeterView averages
the last 60 s, updated every 5 s, and the JobManager's metric fetcher adds up to 10 s."""


def observe(snapshot: Any, file: str) -> Observation:
    """The observation a snapshot (:func:`~streamplace.control.flink.job.fetch_snapshot`,
    or the same keys read from a file) holds; every shape problem at once."""
    problems: list[Problem] = []

    def need(key: str, kind: type) -> Any:
        value = snapshot.get(key) if isinstance(snapshot, dict) else None
        if not isinstance(value, kind):
            problems.append(Problem(f"no {key!r} {kind.__name__} in the snapshot",
                                    "save it with streamplace observe URL --save FILE",
                                    path=key, file=file))
        return value

    if isinstance(snapshot, dict) and snapshot.get("schema") not in (None, SNAPSHOT_SCHEMA):
        raise InputError.single(f"schema {snapshot.get('schema')!r} is not a Flink snapshot",
                                f"give a file written by observe --save ({SNAPSHOT_SCHEMA})",
                                path="schema", file=file)
    if isinstance(snapshot, dict) and "jid" in snapshot and "job" not in snapshot:
        raise InputError.single("this is a job's JSON (GET /jobs/:jobid) alone: its rates and "
                                "TaskManagers are not in it", "give the job's address "
                                "http://JOBMANAGER:8081/jobs/JOBID, or a snapshot saved from "
                                "it with observe --save", file=file)
    job, details, metrics, tms = (need("job", dict), need("vertices", dict),
                                  need("metrics", dict), need("taskmanagers", dict))
    if problems:
        raise InputError(problems)
    said: list[str] = []
    vertices = _vertices(job, details, metrics, file, said)
    managers = [_taskmanager(t) for t in as_list(tms.get("taskmanagers"))
                if isinstance(t, dict) and isinstance(t.get("id"), str)]
    if not managers:
        raise InputError.single("the cluster lists no TaskManager (each with an 'id')",
                                "observe the job while it runs: its TaskManagers are the "
                                "infrastructure", path="taskmanagers.taskmanagers", file=file)
    taken = snapshot.get("taken")
    obs = Observation(str(job.get("name") or job.get("jid") or "flink-job"),
                      str(job.get("jid", "")), version_of(snapshot.get("config")),
                      str(snapshot.get("address") or file),
                      taken if isinstance(taken, str) else None, vertices, [], managers,
                      said)
    if job.get("state") != "RUNNING":
        obs.warnings.append(f"the job is {job.get('state')}, not RUNNING: its rates are those "
                            "of its last moments")
    groups = {v.slot_group for v in vertices} - {None}
    if len(groups) > 1:
        obs.warnings.append(f"the job has {len(groups)} slot-sharing groups, which split a "
                            "TaskManager's slots between them: the skeleton gives every "
                            "operator all of them; lower its slots.* to what each may use")
    before = snapshot.get("before")
    if isinstance(before, dict):
        between = snapshot.get("between")
        found = windows({v.id: v.name for v in vertices}, before, details,
                        between if isinstance(between, list) else None)
        for v in vertices:  # the rest of the reading is the same as from the meters
            v.meters, v.totals, v.window = found[v.id].meters(), found[v.id].totals(), \
                found[v.id]
        obs.window = sum(w.seconds for w in found.values()) / max(1, len(found))
    _lag(vertices, snapshot.get("pending"), before, obs.window)
    read = snapshot.get("partitions")
    for v in vertices:
        v.partitions = as_count(read.get(v.id)) if isinstance(read, dict) else None
        _service(v, obs.warnings)
    obs.streams = _streams(vertices, obs.warnings)
    if obs.window is None:
        _age(vertices, obs.warnings)
    return obs


def _taskmanager(t: dict[str, Any]) -> TaskManager:
    hardware, memory = t.get("hardware"), t.get("memoryConfiguration")
    cores = as_number(hardware.get("cpuCores")) if isinstance(hardware, dict) else None
    total = as_number(memory.get("totalProcessMemory")) if isinstance(memory, dict) else None
    return TaskManager(t["id"], as_count(t.get("slotsNumber")) or 0,
                       cores if cores is not None and cores > 0 else None,
                       total if total is not None and total > 0 else None)


def _vertices(job: dict[str, Any], details: dict[str, Any], metrics: dict[str, Any],
              file: str, warnings: list[str]) -> list[ObservedVertex]:
    listed = job.get("vertices")
    if not isinstance(listed, list):
        raise InputError.single("the job has no 'vertices' list", "save the unedited "
                                "answer of GET /jobs/:jobid", path="job.vertices", file=file)
    plan = job.get("plan")
    nodes = as_list(plan.get("nodes")) if isinstance(plan, dict) else []
    inputs = {n["id"]: [i["id"] for i in as_list(n.get("inputs")) if isinstance(i, dict)
                        and isinstance(i.get("id"), str)]
              for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), str)}
    keyed = {n["id"] for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), str)
             and any(isinstance(i, dict) and i.get("ship_strategy") == "HASH"
                     for i in as_list(n.get("inputs")))}
    forward = {n["id"]: [i["id"] for i in as_list(n.get("inputs")) if isinstance(i, dict)
                         and i.get("ship_strategy") == "FORWARD"]
               for n in nodes if isinstance(n, dict) and isinstance(n.get("id"), str)}
    out: list[ObservedVertex] = []
    problems: list[Problem] = []
    taken: set[str] = set()
    for k, v in enumerate(listed):
        vid = v.get("id") if isinstance(v, dict) else None
        if not (isinstance(vid, str) and VERTEX_ID.fullmatch(vid)
                and isinstance(v.get("name"), str) and as_count(v.get("parallelism"))):
            problems.append(Problem("a vertex needs an 'id', a 'name' and a 'parallelism' "
                                    "(at least 1)",
                                    "save the unedited answer of GET /jobs/:jobid",
                                    path=f"job.vertices[{k}]", file=file))
            continue
        if vid not in metrics:
            problems.append(Problem(f"no metrics for vertex {v['name']!r}", "save the "
                                    "snapshot with observe --save", path=f"metrics.{vid}",
                                    file=file))
            continue
        op = unique_id("-".join(Vertex(vid, v["name"], None, None).members).lower(), taken,
                       "vertex")
        duration = as_number(v.get("duration"))
        group = v.get("slotSharingGroupId")
        out.append(ObservedVertex(
            vid, v["name"], op, v["parallelism"], as_count(v.get("maxParallelism")),
            inputs.get(vid, []), duration / 1000 if duration is not None and duration >= 0
            else None, group if isinstance(group, str) else None, whole_totals(v, warnings),
            meters(metrics[vid]), placed(details.get(vid)), keyed=vid in keyed,
            forward=forward.get(vid, [])))
    if problems:
        raise InputError(problems)
    return out


def _lag(vertices: list[ObservedVertex], pending: Any, before: Any,
         window: float | None) -> None:
    """Each source's pendingRecords (summed over its subtasks and operators), and over a
    window how fast it grew: the part of the offered load the job did not take."""
    earlier = before.get("pending") if isinstance(before, dict) else None
    for v in vertices:
        now = _pending_sum(pending, v.id)
        v.pending = now
        then = _pending_sum(earlier, v.id)
        if now is not None and then is not None and window:
            v.pending_growth = (now - then) / window


def _pending_sum(pending: Any, vid: str) -> float | None:
    answer = pending.get(vid) if isinstance(pending, dict) else None
    sums = [as_number(m.get("sum")) for m in answer if isinstance(m, dict)] \
        if isinstance(answer, list) else []
    known = [x for x in sums if x is not None and x >= 0]
    return sum(known) if known and len(known) == len(sums) else None


def whole_totals(vertex: dict[str, Any], warnings: list[str]) -> dict[str, float]:
    """A vertex's life-long counters less those Flink flags incomplete: its partial sum
    (often 0) is no count, and a missing counter is read from the meters instead."""
    partial = incomplete(vertex.get("metrics"))
    if partial:
        warnings.append(f"Flink answered {', '.join(sorted(partial))} of vertex "
                        f"{vertex['name']!r} as incomplete (complete: false): they are left "
                        "out, and its rates read from the meters")
    return {k: n for k, n in totals(vertex.get("metrics")).items() if k not in partial}


def _service(v: ObservedVertex, warnings: list[str]) -> None:
    """Records per second of busy time, per replica: over the vertex's life when Flink
    reports its accumulated busy time (1.17 and later), else from the meters."""
    source = not v.inputs
    records = v.totals.get("write-records" if source else "read-records", 0.0)
    busy_ms = v.totals.get("accumulated-busy-time", 0.0)
    if v.window is not None:
        v.busy = sum(v.window.busy) / len(v.window.busy)
    elif "busyTimeMsPerSecond" in v.meters:  # now, rather than over the vertex's life
        v.busy = v.meters["busyTimeMsPerSecond"][1] / 1000
    elif v.seconds and busy_ms > 0:
        v.busy = busy_ms / 1000 / v.parallelism / v.seconds
    if records > 0 and busy_ms > 0:
        v.service_rate = records / (busy_ms / 1000)
    else:
        rate = v.meter("numRecordsOutPerSecond" if source else "numRecordsInPerSecond")
        if rate and v.busy:
            v.service_rate = rate / v.parallelism / v.busy
    if v.service_rate is None:
        warnings.append(f"vertex {v.name!r} was never seen busy with records: it has no "
                        "service rate (it takes no time); give one")
    elif v.busy is not None and v.busy >= SATURATED:
        warnings.append(f"vertex {v.name!r} is busy {v.busy:.0%} of the time: it runs at its "
                        "capacity, and a plan that keeps its load needs more replicas")
    pressed = v.pressed
    if pressed >= PRESSED:
        warnings.append(f"vertex {v.name!r} is back-pressured {pressed:.0%} of the time: the "
                        "rates are what the job let through, below what its sources offer")


def _streams(vertices: list[ObservedVertex], warnings: list[str]) -> list[ObservedStream]:
    by_id = {v.id: v for v in vertices}
    outputs: dict[str, int] = {}
    for v in vertices:
        for i in v.inputs:
            outputs[i] = outputs.get(i, 0) + 1
    out = []
    for to in vertices:
        for i in to.inputs:
            frm = by_id.get(i)
            if frm is None:
                warnings.append(f"vertex {to.name!r} reads from {i}, which the job does not "
                                "list: that stream is left out")
                continue
            others = [by_id[o] for o in to.inputs if o != i and o in by_id]
            rate_in = to.meter("numRecordsInPerSecond")
            if not others:
                rate, basis = rate_in, "records in"
            elif rate_in is not None and all(outputs.get(o.id) == 1 and o.meter(
                    "numRecordsOutPerSecond") is not None for o in others):
                rate = max(0.0, rate_in - sum(o.meter("numRecordsOutPerSecond") or 0.0
                                              for o in others))
                basis = "records in less the other inputs"
            else:
                rate, basis = frm.meter("numRecordsOutPerSecond"), "producer's records out"
            if rate is None:
                raise EngineError(f"Flink reports no record rates for {to.name!r} yet (the "
                                  "JobManager fetches metrics every 10 s): read again")
            out.append(ObservedStream(frm.op, to.op, rate, _tuple_size(frm, to), basis))
    return out


def _tuple_size(frm: ObservedVertex, to: ObservedVertex) -> float | None:
    """Bytes per record as the consumer read them (a producer counts whole network buffers
    as it sends them, so its own ratio is coarse until many have gone)."""
    for vertex, kind in ((to, "read"), (frm, "write")):
        records = vertex.totals.get(f"{kind}-records", 0.0)
        if records > 0 and vertex.totals.get(f"{kind}-bytes", 0.0) > 0:
            return vertex.totals[f"{kind}-bytes"] / records
    return None


def _age(vertices: list[ObservedVertex], warnings: list[str]) -> None:
    young = [v for v in vertices if v.seconds is not None and v.seconds < METER_SECONDS]
    if young:
        least = min(v.seconds or 0.0 for v in young)
        warnings.append(f"{len(young)} vertex(es) have run only {least:.0f} s: Flink's rate "
                        "meters average the last 60 s, so their rates read low; read again "
                        f"in {METER_SECONDS - least:.0f} s")

