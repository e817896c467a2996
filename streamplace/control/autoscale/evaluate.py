"""Evaluate: a reading turned into an assessment. The instance to plan (the application at
the target utilisation, the TaskManagers less what the cluster's other jobs hold, the plan
the job runs), the load the sources offer (given, or from their lag), what each vertex did,
and what triggers a rescale: the Flink autoscaler's bounds, backpressure, the response time
bound, and a rescale sized from a lower bound closed from above."""

from __future__ import annotations

from typing import Any

from streamplace.control.autoscale.alignment import accepted_counts
from streamplace.control.autoscale.history import remember
from streamplace.control.autoscale.latency import Markers, hold_latency
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.output_growth import fitted, record
from streamplace.control.autoscale.predict import shape_of
from streamplace.control.autoscale.rule import Seen, predicted, pressing, triggers
from streamplace.control.autoscale.stages import Assessment, Observed
from streamplace.control.engine import Reading
from streamplace.control.running.documents import documents, other_jobs
from streamplace.control.running.observation import PRESSED, Observation, ObservedVertex
from streamplace.control.running.offered import (
    Backlog,
    catch_up_targets,
    fill_stalled,
    offer,
    read_backlog,
)
from streamplace.errors import InputError
from streamplace.io.readers import application_from, infrastructure_from, plan_from
from streamplace.model.decision import VertexSeen, number
from streamplace.model.occupied import beside
from streamplace.model.state import Memory

RESTART_TIME = 300.0
"""Seconds a rescale is taken to stop the job until autoscale has measured one of its own
(the Flink autoscaler's restart.time default)."""
CLOSE = 0.1
"""How far above the target a vertex may run, once free, before a rescale sized from a lower
bound is re-sized (the drift check's tolerance)."""
OBSERVED = "observed (a lower bound under backpressure)"


def assess(number: int, reading: Reading, o: AutoscaleOptions, memory: Memory,
           rates: dict[str, float], markers: Markers, now: float,
           shared: frozenset[str] = frozenset(), markers_required: bool = True,
           ) -> Assessment:
    """The step's assessment of ``reading`` (its window ending at ``now``, Unix time); the
    memory keeps the output-growth readings, the offered rates and the capacities.
    ``shared``: jobs whose slots are planned with this one's; ``markers_required``: a job
    without latency markers at its first reading is bad input (one job), else said and
    scaled on the other triggers (a cluster's job)."""
    obs = reading.observation
    remember(memory, obs, now, rates)
    if rates:
        offer(obs, rates)
    record(memory.output_growth, obs)
    offered, backlog = _offered(obs, reading.metered, o, memory, rates)
    # odrp plans within the counts the mode accepts; DS2's rule has no alignment, and the
    # Flink rule aligns its own count (decide.aligned)
    observed = observed_instance(
        reading, o.utilization_target, o.metrics_busy_time_aggregator,
        o.scaling_parallelism_alignment_mode if o.method == "odrp" else "OFF", shared)
    _describe(memory, reading, observed)
    # with the offered load known (given, or from the lag), judged at it
    at_offered = predicted(observed.app, observed.infra, observed.plan) \
        if not offered.startswith("observed") else None
    judged = seen(obs, o.metrics_busy_time_aggregator, at_offered)
    triggered = triggers(judged, o.low, o.high) or _above_target(judged, memory, o)
    held = hold_latency(markers, obs, observed, o.max_response_time,
                        markers_required and not memory.read_once, o.response_time_statistic)
    broken = held.broken if held else []
    return Assessment(number, reading, offered, backlog, observed, [*triggered, *broken], held,
                      [*pressing(judged, o.high), *broken])


def _describe(memory: Memory, reading: Reading, observed: Observed) -> None:
    """What the memory keeps of the job's shape, for the plans made ahead and in
    hindsight: its graph and selectivities (before the offered load rescales the
    streams), the counts each vertex may run, its groups and the slots."""
    shape = shape_of(reading.observation)
    memory.shape, memory.selectivity = shape.inputs, shape.selectivity
    memory.counts = {op.id: op.replica_counts or list(range(1, op.replica_cap + 1))
                     for op in observed.app.operators}
    memory.groups = dict(reading.groups)
    memory.slots = sum(t.slots for t in reading.observation.taskmanagers) - \
        sum(observed.occupied().values())


def _offered(obs: Observation, metered: Observation | None, o: AutoscaleOptions,
             memory: Memory, rates: dict[str, float]) -> tuple[str, Backlog | None]:
    """Where the offered load comes from, and the backlog where the sources report their
    lag; the lag's rates are applied to ``obs`` here."""
    if rates:
        return "given", None
    backlog = read_backlog(obs)
    if backlog is None:
        return OBSERVED, None
    restart = o.restart_time if o.restart_time is not None else \
        memory.restarts[-1] if memory.restarts else RESTART_TIME
    # odrp plans for the larger need, the Flink rule (and DS2 beside it) for their sum
    targets = catch_up_targets(backlog, o.catch_up_duration, restart,
                               o.utilization_target, larger=o.method == "odrp")
    bent = fitted(memory.output_growth)
    fill_stalled(obs, metered)
    try:
        offer(obs, targets, "pendingRecords", bent)
    except InputError as exc:  # a source that sent nothing: its streams keep their rate
        obs.warnings.append(f"the lag could not be applied: {exc}")
        return OBSERVED, backlog
    said = ", ".join(f"{op} {rate:.4g}/s" for op, rate in targets.items())
    if bent:  # measured, so said: a prediction downstream rests on it
        said += "; outputs measured to grow as input^e: " + ", ".join(
            f"{op} e={e:.2f}" for op, e in sorted(bent.items()))
    return (f"from the sources' pendingRecords, with the backlog worked off over "
            f"{o.catch_up_duration:g} s and a restart of {restart:.3g} s at full capacity "
            f"(planned for: {said})"), backlog


def _above_target(judged: list[Seen], memory: Memory, o: AutoscaleOptions) -> list[str]:
    """Closing the band from above: after a rescale sized from the throughput of a
    back-pressured job (a lower bound of the load), the first reading that runs free
    re-sizes every vertex busy above the target by more than CLOSE, though it lies within
    the bounds, where a rescale sized from the true load would have put it."""
    if not memory.lower_bound or any(s.pressed >= PRESSED for s in judged):
        return []
    memory.lower_bound = False
    target = o.utilization_target
    return [f"{s.op} {s.said}, above the target {target:g}: the last rescale was sized from "
            "what a back-pressured job let through, and the job now runs free"
            for s in judged if s.busy is not None and not s.source
            and s.busy > target + CLOSE]


def observed_instance(reading: Reading, target: float, aggregator: str = "avg",
                      alignment: str = "OFF", shared: frozenset[str] = frozenset(),
                      ) -> Observed:
    """The instance a step plans: the TaskManagers less the slots the cluster's other jobs
    hold (a session cluster is shared). With the ``max`` aggregator a vertex's capacity is
    its busiest subtask's: under skew that one saturates while the mean looks fine, so each
    replica's service rate is scaled by mean busy over max busy (PR #505 of the Flink
    operator made MAX its default for the same reason). With an ``alignment`` mode, a source
    or keyed vertex may run only the counts the mode accepts, and the count it runs
    (:mod:`~streamplace.control.autoscale.alignment`). The slots of the jobs ``shared``
    (planned together with this one) are left in."""
    obs = reading.observation
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
    if reading.holdings is None:
        unknown = reading.holdings_unknown or "the cluster does not say which job holds a slot"
        obs.warnings.append(f"{unknown} — planned as if every slot were this job's")
        others = []
    else:
        others = other_jobs(obs, reading.holdings, shared)[1].applications
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
