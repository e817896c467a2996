"""The cluster's slots shared among its jobs: the jobs re-planned as one bundle whose widths
add up to the slots (solve/bundle, ``slots``), and what the per-job safeguards leave held
back shared out again by priority, so that no PUT asks for slots that are not free."""

from __future__ import annotations

from collections.abc import Mapping

from streamplace.control.autoscale.decide import Proposal
from streamplace.control.autoscale.evaluate import Judged
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import ds2, spread
from streamplace.control.flink.documents import SLOTS
from streamplace.control.flink.rescale import slots_needed
from streamplace.control.flink.values import unique_id
from streamplace.io.readers import infrastructure_from
from streamplace.model.application import Application
from streamplace.model.bundle import BundleMode
from streamplace.model.decision import Decision, Replan, number
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.jobs import JobTerms
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.solve import SolveOptions
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
                                         options.max_moves, "the plan the job runs")
                 for jid, j in judged.items()},
        max_moves=options.max_moves, slots=slots)
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
        return {jid: Proposal(spread(j.observed.app, j.observed.infra,
                                     ds2(j.observed.app, j.observed.running)), j.triggered)
                for jid, j in judged.items()}, [
            *triggered, said, "each job at what DS2 asks, shared out by priority"]
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


def share_out(judged: dict[str, Judged], concluded: dict[str, tuple[Decision, Plan | None]],
              slots: int, priority: dict[str, int], names: dict[str, str]) -> list[str]:
    """Where what the jobs will run takes more than ``slots`` (a safeguard held a job's
    scale-down back, or each job asked alone), the scale-ups of the lowest priority wait,
    named, until the rest fits."""
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
        asked = taking(jid)
        running = judged[jid].observed.running
        decision.to = dict(running)
        decision.decision = "no change"
        left = slots - (total - asked)
        decision.why.append(f"waits for slots: it asks {asked} and {left} are left of the "
                            f"cluster's {slots} (priority {priority[jid]}: higher "
                            "priorities keep theirs)")
        concluded[jid] = (decision, None)
        needs = " below what it needs" if judged[jid].triggered else ""
        said.append(f"{names[jid]} cannot get the {asked} slots it asks: it runs on "
                    f"{slots_of(judged[jid], running)}{needs}")
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
