"""The cluster's slots shared among its jobs: the jobs re-planned as one bundle whose widths
add up to the slots (solve/bundle, ``slots``), and what the per-job safeguards leave held
back shared out again by priority, so that no PUT asks for slots that are not free."""

from __future__ import annotations

from collections.abc import Mapping

from streamplace.control.autoscale.decide import Proposal
from streamplace.control.autoscale.judged import Judged
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import ds2, spread
from streamplace.control.flink.rescale import slots_needed
from streamplace.control.running.documents import SLOTS
from streamplace.io.readers import infrastructure_from
from streamplace.model.application import Application
from streamplace.model.bundle import BundleMode
from streamplace.model.decision import Decision, Replan, number
from streamplace.model.fields import unique_id
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.jobs import JobTerms
from streamplace.model.metrics import Metric, MetricLimits
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.solve import SolveOptions
from streamplace.solve.baseline.ds2 import ds2_parallelism
from streamplace.solve.budget import StopRequest
from streamplace.solve.bundle.instance import BundleInstance, evaluate_bundle
from streamplace.solve.bundle.modes import place_bundle
from streamplace.solve.registry import get_method


def width_of(counts: Mapping[str, int]) -> int:
    """Slots a job takes at ``counts`` in one slot-sharing group: its widest vertex."""
    return max(counts.values(), default=0)


def slots_of(j: Judged, counts: Mapping[str, int]) -> int:
    """Slots the job takes at ``counts`` (operator: parallelism), its slot-sharing groups
    as the job's JSON gives them."""
    ids = {v.op: v.id for v in j.reading.observation.vertices}
    job = j.reading.snapshot.get("job") if isinstance(j.reading.snapshot, dict) else None
    return slots_needed(job, {ids[op]: k for op, k in counts.items() if op in ids}) \
        if isinstance(job, dict) else width_of(counts)


def joint_proposals(judged: dict[str, Judged], terms: dict[str, JobTerms],
                    names: dict[str, str], slots: int, mode: BundleMode,
                    options: AutoscaleOptions, objective: Objective, stop: StopRequest,
                    ) -> tuple[dict[str, Proposal], list[str]]:
    """Each job's part of the cluster's plan, and why it is taken. Every job is re-planned
    when one breaks its bounds or when the cluster's F improves by ``min_improvement``; no
    plan for the whole gives each job what DS2 asks (then shared out by priority)."""
    apps: dict[str, Application] = {}
    taken: set[str] = set()
    for jid, j in judged.items():
        name = unique_id(j.observed.app.name, taken, "job")
        apps[jid] = _own_dimensions(j.observed.app, name, terms[jid])
    bundle = BundleInstance(
        tuple(apps.values()), _joint_infrastructure(judged, apps), objective,
        current={apps[jid].name: Current({op: j.observed.plan.replicas(op)
                                          for op in j.observed.app.operator_ids},
                                         None, "the plan the job runs")
                 for jid, j in judged.items()},
        max_moves=options.max_moves, slots=slots,  # --max-moves over every job, as solve's
        own_limits={apps[jid].name: MetricLimits({Metric.RESPONSE_TIME: j.latency.model_limit})
                    for jid, j in judged.items()
                    if j.latency is not None and j.latency.model_limit is not None})
    triggered = [f"{names[jid]}: {why}" for jid, j in judged.items() for why in j.triggered]
    result = place_bundle(bundle, get_method("odrp"), mode, SolveOptions(
        time_limit=options.replan_time_limit, stop=stop))
    running = evaluate_bundle(bundle, {apps[jid].name: j.observed.plan
                                       for jid, j in judged.items()})
    before = running.utility if running.feasible else None
    if result.plans is None:
        said = f"no plan for the cluster: {result.message or result.status.value}"
        if not triggered:
            return {jid: Proposal(None, []) for jid in judged}, [said]
        proposals = by_priority(judged, terms, slots)
        for jid, proposal in proposals.items():  # what runs is still valued, and said
            was = running.evaluations[apps[jid].name].utility
            proposals[jid] = Proposal(proposal.plan, proposal.why, Replan(
                running=number(was.value if was else None), plan=None,
                status=result.status.value))
        return proposals, [
            *triggered, said, "each job at what DS2 asks, in priority order, every job "
            "below keeping a slot"]
    why = triggered
    if not why and not running.feasible:
        why = ["the running plans break the cluster's constraints"]
    if not why and before is not None and result.objective is not None and \
            result.objective - before > options.min_improvement * max(abs(before), 1e-9):
        why = [f"the cluster's F improves from {before:.4g} to {result.objective:.4g}"]
    out = {}
    for jid, j in judged.items():
        name = apps[jid].name
        plan: Plan | None = result.plans[name] if why else None
        mine = result.evaluation.evaluations[name].utility if result.evaluation else None
        was = running.evaluations[name].utility
        replan = Replan(running=number(was.value if was else None),
                        plan=number(mine.value if mine else None), status=result.status.value)
        out[jid] = Proposal(plan, j.triggered or ([f"the cluster's plan ({why[0]})"]
                                                  if why else []), replan)
    return out, why


def by_priority(judged: dict[str, Judged], terms: dict[str, JobTerms], slots: int,
                ) -> dict[str, Proposal]:
    """More load than the slots carry at the target: each job, higher priority first, gets
    what DS2 asks (its sources sized by their own busy time too), as far as the slots left
    go once every job below it keeps one."""
    order = sorted(judged, key=lambda jid: -terms[jid].priority)
    left, out = slots, {}
    for k, jid in enumerate(order):
        j = judged[jid]
        asks = _sources_too(j, ds2(j.observed.app, j.observed.running))
        room = max(1, left - (len(order) - k - 1))
        counts = {op: max(1, min(n, room)) for op, n in asks.items()}
        left -= slots_of(j, counts)
        out[jid] = Proposal(spread(j.observed.app, j.observed.infra, counts), j.triggered)
    return out


def _sources_too(j: Judged, counts: dict[str, int]) -> dict[str, int]:
    """DS2's rule keeps a source as it runs; here a source with a service rate is sized as
    any vertex is, from the rate it sends (a source holding slots it does not need would
    keep them from the jobs that do)."""
    app = j.observed.app
    sends = {op.id: sum(s.rate or 0.0 for s in app.streams if s.source == op.id)
             for op in app.operators}
    out = dict(counts)
    for op in app.operators:
        if not any(s.target == op.id for s in app.streams) and op.service_rate:
            out[op.id] = min(ds2_parallelism(op, sends[op.id]), op.replica_cap)
    return out


def waits_for(judged: dict[str, Judged], concluded: dict[str, tuple[Decision, Plan | None]],
              slots: int, priority: dict[str, int]) -> str | None:
    """The job of the highest priority whose scale-up does not fit beside what the others
    will run (their safeguards holding slots back); None when everything fits."""
    def taking(jid: str) -> int:
        decision, plan = concluded[jid]
        return slots_of(judged[jid], decision.to if plan is not None else
                        judged[jid].observed.running)

    if sum(taking(jid) for jid in concluded) <= slots:
        return None
    growing = [jid for jid, (_d, plan) in concluded.items() if plan is not None
               and taking(jid) > slots_of(judged[jid], judged[jid].observed.running)]
    return max(growing, key=lambda jid: priority[jid], default=None)


def share_out(judged: dict[str, Judged], concluded: dict[str, tuple[Decision, Plan | None]],
              slots: int, priority: dict[str, int], names: dict[str, str]) -> list[str]:
    """Where what the jobs will run takes more than ``slots`` (a safeguard held a job's
    scale-down back, or each job asked alone), the scale-ups of the lowest priority get
    what is left, named: no vertex above the slots left (where that is more than the job
    runs on now), else the job runs on as it does."""
    def taking(jid: str) -> int:
        decision, plan = concluded[jid]
        return slots_of(judged[jid], decision.to if plan is not None else
                        judged[jid].observed.running)

    said = []
    growing = sorted((jid for jid, (_d, plan) in concluded.items() if plan is not None
                      and taking(jid) > slots_of(judged[jid], judged[jid].observed.running)),
                     key=lambda jid: (priority[jid], names[jid]))
    for jid in growing:
        total = sum(taking(other) for other in concluded)
        if total <= slots:
            break
        decision, _plan = concluded[jid]
        j, asked = judged[jid], taking(jid)
        left = slots - (total - asked)
        now = slots_of(j, j.observed.running)
        part = {op: min(k, left) for op, k in decision.to.items()}
        if left > now and slots_of(j, part) <= left:
            decision.to = part
            concluded[jid] = (decision, spread(j.observed.app, j.observed.infra, part))
            decision.why.append(f"on {left} of the {asked} slots it asks: the rest of the "
                                f"cluster's {slots} go to higher priorities first")
            runs = f"it gets {left}"
        else:
            decision.to = dict(j.observed.running)
            decision.decision = "no change"
            decision.why.append(f"waits for slots: it asks {asked} and {left} are left of the "
                                f"cluster's {slots} while the other jobs keep theirs (a "
                                "scale-down held back, or a higher priority)")
            concluded[jid] = (decision, None)
            runs = f"it runs on {now}"
        needs = " (below what it needs)" if j.triggered else ""
        said.append(f"{names[jid]} cannot get the {asked} slots it asks: {runs}{needs}")
    return said


def _own_dimensions(app: Application, name: str, terms: JobTerms) -> Application:
    """``app`` under the bundle's ``name``, its weight and priority, each operator's slot
    dimension named for the job (slots.<job>.<operator>), so that two jobs' operators never
    share one: the jobs share slots through the pool, not per dimension."""
    ops = [op.model_copy(update={"resources": {_renamed(dim, name): amount
                                               for dim, amount in op.resources.items()}})
           for op in app.operators]
    out = app.model_copy(update={"name": name, "weight": terms.weight,
                                 "priority": terms.priority, "operators": ops})
    out.attach_source(app.source)
    return out


def _renamed(dim: str, job: str) -> str:
    return f"{SLOTS}.{job}.{dim.removeprefix(SLOTS + '.')}" if dim.startswith(SLOTS + ".") \
        else dim


def _joint_infrastructure(judged: dict[str, Judged], apps: dict[str, Application],
                          ) -> Infrastructure:
    """The TaskManagers with every job's slot dimensions (each at what a TaskManager holds
    for one job: Flink places the subtasks; the pool keeps the totals)."""
    first = next(iter(judged.values())).observed.infra
    doc = first.model_dump(by_alias=True, exclude_none=True, mode="json")
    doc.pop("schema", None)
    for node in doc.get("nodes", []):
        resources: dict[str, float] = {}
        for jid, j in judged.items():
            own = j.observed.infra.node(node["id"]).resources or {}
            for dim, amount in own.items():
                resources[_renamed(dim, apps[jid].name)] = amount
        node["resources"] = resources
    return infrastructure_from(doc, "<the cluster's TaskManagers>")
