"""The cluster's slots shared among its jobs: the jobs re-planned as one bundle whose widths
add up to the slots (solve/bundle, ``slots``), and what the per-job safeguards leave held
back shared out again by priority, so that no PUT asks for slots that are not free."""

from __future__ import annotations

from streamplace.control.autoscale.decide import FALLBACK, fallback, improves
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.autoscale.rule import spread
from streamplace.control.autoscale.stages import Assessment, Proposal, Verdict
from streamplace.control.running.documents import SLOTS
from streamplace.io.readers import infrastructure_from
from streamplace.model.application import Application
from streamplace.model.bundle import BundleMode
from streamplace.model.decision import Replan, number
from streamplace.model.fields import unique_id
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.jobs import JobTerms
from streamplace.model.metrics import Metric, MetricLimits
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.solve import SolveOptions, SolveStatus
from streamplace.solve.budget import StopRequest
from streamplace.solve.bundle.instance import BundleInstance, evaluate_bundle
from streamplace.solve.bundle.modes import place_bundle
from streamplace.solve.registry import get_method


def joint_proposals(judged: dict[str, Assessment], terms: dict[str, JobTerms],
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
        # not proven infeasible, a plan may exist: nothing is changed on a guess
        if not triggered or result.status is not SolveStatus.INFEASIBLE:
            return {jid: Proposal(None, j.triggered) for jid, j in judged.items()}, [
                *triggered, said]
        proposals = by_priority(judged, terms, slots)
        for jid, proposal in proposals.items():  # what runs is still valued, and said
            was = running.evaluations[apps[jid].name].utility
            proposals[jid] = Proposal(proposal.plan, proposal.why, Replan(
                running=number(was.value if was else None), plan=None,
                status=result.status.value))
        return proposals, [*triggered, said, f"{FALLBACK}: in priority order, every job "
                           "below keeping a slot"]
    why = triggered
    if not why and not running.feasible:
        why = ["the running plans break the cluster's constraints"]
    better = improves(before, result.objective, options.min_improvement, "the cluster's ")
    if not why and better:
        why = [better]
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


def by_priority(judged: dict[str, Assessment], terms: dict[str, JobTerms], slots: int,
                ) -> dict[str, Proposal]:
    """More load than the slots carry at the target: each job, higher priority first, gets
    what the fallback asks (:func:`~streamplace.control.autoscale.decide.fallback`), as far
    as the slots left go once every job below it keeps one."""
    order = sorted(judged, key=lambda jid: -terms[jid].priority)
    left, out = slots, {}
    for k, jid in enumerate(order):
        j = judged[jid]
        asks = fallback(j.observed)
        room = max(1, left - (len(order) - k - 1))
        counts = {op: max(1, min(n, room)) for op, n in asks.items()}
        left -= j.slots(counts)
        out[jid] = Proposal(spread(j.observed.app, j.observed.infra, counts), j.triggered)
    return out


def taking(a: Assessment, verdict: Verdict) -> int:
    """Slots the job takes once ``verdict`` is carried out."""
    return a.slots(verdict.to if verdict.plan is not None else a.observed.running)


def waits_for(judged: dict[str, Assessment], verdicts: dict[str, Verdict], slots: int,
              priority: dict[str, int]) -> str | None:
    """The job of the highest priority whose scale-up does not fit beside what the others
    will run (their safeguards holding slots back); None when everything fits."""
    if sum(taking(judged[jid], v) for jid, v in verdicts.items()) <= slots:
        return None
    growing = [jid for jid, v in verdicts.items() if v.plan is not None
               and taking(judged[jid], v) > judged[jid].slots(judged[jid].observed.running)]
    return max(growing, key=lambda jid: priority[jid], default=None)


def share_out(judged: dict[str, Assessment], verdicts: dict[str, Verdict], slots: int,
              priority: dict[str, int], names: dict[str, str]) -> list[str]:
    """Where what the jobs will run takes more than ``slots`` (a safeguard held a job's
    scale-down back, or each job asked alone), the scale-ups of the lowest priority get
    what is left, named: no vertex above the slots left (where that is more than the job
    runs on now), else the job runs on as it does."""
    said = []
    growing = sorted((jid for jid, v in verdicts.items() if v.plan is not None
                      and taking(judged[jid], v) > judged[jid].slots(
                          judged[jid].observed.running)),
                     key=lambda jid: (priority[jid], names[jid]))
    for jid in growing:
        total = sum(taking(judged[other], v) for other, v in verdicts.items())
        if total <= slots:
            break
        a, verdict = judged[jid], verdicts[jid]
        asked = taking(a, verdict)
        left = slots - (total - asked)
        now = a.slots(a.observed.running)
        part = {op: min(k, left) for op, k in verdict.to.items()}
        if left > now and a.slots(part) <= left:
            verdict.to, verdict.plan = part, spread(a.observed.app, a.observed.infra, part)
            verdict.why.append(f"on {left} of the {asked} slots it asks: the rest of the "
                                f"cluster's {slots} go to higher priorities first")
            runs = f"it gets {left}"
        else:
            verdict.to, verdict.plan = dict(a.observed.running), None
            verdict.why.append(f"waits for slots: it asks {asked} and {left} are left of the "
                                f"cluster's {slots} while the other jobs keep theirs (a "
                                "scale-down held back, or a higher priority)")
            runs = f"it runs on {now}"
        needs = " (below what it needs)" if a.triggered else ""
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


def _joint_infrastructure(judged: dict[str, Assessment], apps: dict[str, Application],
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
