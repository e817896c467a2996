"""Why this plan: objective by term and operator, binding constraints, what-if moves.

Every number comes from the one evaluator: a what-if is the evaluation of the plan with one
operator's replicas changed (one replica moved, added or removed), so its delta is exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from streamplace.model.application import Application, Operator
from streamplace.model.evaluate import evaluate, resolve_bounds
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.evaluate.scorer import PlacementScorer, one_replica_changes
from streamplace.model.evaluate.utility import candidates
from streamplace.model.graph import AppGraph, build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import Metric
from streamplace.model.network import Network
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current

SATURATION = 0.9  # a replica loaded above this share of its service rate is called out
WHATIF_WORK = 12_000_000  # what-ifs x (operators + streams) in all: the what-ifs' work
MIN_WHATIF = 24  # what-ifs per operator however large the application


@dataclass(frozen=True)
class Watch:
    """Whether to stop trying what-ifs (a time limit, a signal) and whom to tell how far
    they got (operators done, operators)."""

    stop: Callable[[], bool] = lambda: False
    progress: Callable[[int, int], None] = lambda done, total: None


@dataclass(frozen=True)
class OperatorRole:
    id: str
    replicas: dict[str, int]
    latency: float
    on_critical_path: bool
    compute_cost: float
    traffic_out: float
    utilisation: float | None  # per-replica load / service rate


@dataclass(frozen=True)
class Binding:
    kind: str  # "node full" | "replica cap" | "pinned" | "near saturation"
    subject: str
    detail: str


@dataclass(frozen=True)
class WhatIf:
    operator: str
    move: str
    utility: float
    delta: float
    response_time: float
    cost: float


@dataclass
class Explanation:
    evaluation: Evaluation
    operators: list[OperatorRole] = field(default_factory=list)
    binding: list[Binding] = field(default_factory=list)
    what_if: list[WhatIf] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        ev = self.evaluation
        return {"metrics": ev.metrics(),
                "utility": asdict(ev.utility) if ev.utility else None,
                "critical_path": ev.odrp.critical_path if ev.odrp else None,
                "operators": [asdict(o) for o in self.operators],
                "binding": [asdict(b) for b in self.binding],
                "what_if": [asdict(w) for w in self.what_if], "notes": self.notes,
                "violations": [v.to_json() for v in ev.violations]}


def explain(app: Application, infra: Infrastructure, plan: Plan,
            objective: Objective | None = None, watch: Watch | None = None,
            current: Current | None = None) -> Explanation:
    """Roles and binding constraints always; the what-ifs until ``watch`` says stop. With
    the plan that runs now (``current``), F and every what-if count the reconfiguration
    term, as ``solve --current`` scores plans."""
    objective = objective or Objective()
    ev = evaluate(app, infra, plan, objective, current)
    out = Explanation(ev)
    if ev.odrp is None or ev.utility is None:
        out.notes.append("some operator has no replica: nothing to explain beyond violations")
        return out
    out.operators, out.binding = roles(app, ev), bindings(app, ev)
    out.what_if = _what_if(app, infra, plan, objective, ev, out.notes, watch or Watch(),
                           current)
    return out


def roles(app: Application, ev: Evaluation) -> list[OperatorRole]:
    """Each operator's part in a complete plan: latency, critical path, cost, traffic, load."""
    assert ev.odrp is not None
    critical = set(ev.odrp.critical_path)
    traffic = {op.id: 0.0 for op in app.operators}
    for s in ev.odrp.streams:
        traffic[s.source] += s.traffic
    return [OperatorRole(op.id, m.replicas, m.latency, op.id in critical, m.cost,
                         traffic[op.id], _utilisation(op, m.load_per_replica))
            for op, m in zip(app.operators, ev.odrp.operators, strict=True)]


def bindings(app: Application, ev: Evaluation) -> list[Binding]:
    """The constraints that bind a complete plan: pinned operators, replica caps reached,
    replicas near saturation, nodes full."""
    assert ev.odrp is not None
    out: list[Binding] = []
    for op, m in zip(app.operators, ev.odrp.operators, strict=True):
        util = _utilisation(op, m.load_per_replica)
        if op.candidates is not None and len(op.candidates) == 1:
            out.append(Binding("pinned", op.id, f"only candidate {op.candidates[0]}"))
        if op.replicas is None and m.count == op.replica_cap and op.replica_cap > 1:
            out.append(Binding("replica cap", op.id,
                               f"{m.count} replicas, max_replicas {op.replica_cap}"))
        if util is not None and util > SATURATION:
            out.append(Binding("near saturation", op.id,
                               f"each replica at {util:.0%} of its service rate"))
    for node, dims in ev.odrp.node_usage.items():
        for dim, (used, cap) in dims.items():
            if used >= cap - 1e-9:
                out.append(Binding("node full", node, f"{used:g} of {cap:g} {dim}"))
    return out


def _utilisation(op: Operator, load_per_replica: float) -> float | None:
    return load_per_replica / op.service_rate if op.service_rate else None


def _what_if(app: Application, infra: Infrastructure, plan: Plan, objective: Objective,
             ev: Evaluation, notes: list[str], watch: Watch,
             current: Current | None) -> list[WhatIf]:
    assert ev.utility is not None
    base = ev.utility.value
    if watch.stop():  # out of time before the first: not even the trial evaluator is built
        notes.append(f"what-ifs stopped at the time limit: {len(app.operators)} "
                     "operator(s) not tried")
        return []
    network = Network(infra, tuple(plan.purchased))
    placement = {op.id: dict(plan.replicas(op.id)) for op in app.operators}
    graph = build_graph(app)
    trial = _trial_function(app, infra, plan, objective, graph, network, placement, current)
    size = len(graph.streams) + len(app.operators)
    per_operator = max(MIN_WHATIF, WHATIF_WORK // max(1, size * len(app.operators)))
    best: list[WhatIf] = []
    narrowed: dict[str, int] = {}
    for done, op in enumerate(app.operators):
        if watch.stop():
            notes.append(f"what-ifs stopped at the time limit: {len(app.operators) - done} "
                         "operator(s) not tried")
            break
        watch.progress(done, len(app.operators))
        found = None
        options, nearest = _options(op, network, placement[op.id], per_operator)
        if nearest is not None:
            narrowed[op.id] = nearest
        for label, multiset in options:
            scored = trial(op.id, multiset)
            if scored is not None and (found is None or scored[0] > found.utility):
                found = WhatIf(op.id, label, scored[0], scored[0] - base, scored[1], scored[2])
        if found is not None:
            best.append(found)
        else:
            notes.append(f"{op.id}: no feasible single-replica change")
    watch.progress(len(app.operators), len(app.operators))
    if narrowed:
        named = ", ".join(list(narrowed)[:3]) + (", ..." if len(narrowed) > 3 else "")
        notes.append(f"{len(narrowed)} operator(s) ({named}) have more candidates than "
                     f"the what-ifs' share: only the {min(narrowed.values())}-"
                     f"{max(narrowed.values())} nearest their replicas were tried")
    return sorted(best, key=lambda w: -w.delta)


Trial = Callable[[str, dict[str, int]], "tuple[float, float, float] | None"]


def _trial_function(app: Application, infra: Infrastructure, plan: Plan,
                    objective: Objective, graph: AppGraph, network: Network,
                    placement: dict[str, dict[str, int]], current: Current | None) -> Trial:
    """F, response time and cost of the plan with one operator changed (None when that
    breaks a constraint): the incremental scorer where it scores exactly what the
    evaluator would (no routes of the plan's own, no Benoit or Ecker constraints), the
    evaluator itself otherwise."""
    if plan.routes or app.throughput is not None or plan.model == "ecker":
        def evaluated(op_id: str, multiset: dict[str, int]) -> tuple[float, float, float] | None:
            trial = plan.model_copy(update={"placement": placement | {op_id: multiset}})
            result = evaluate(app, infra, trial, objective, current)
            if result.violations or result.utility is None or result.odrp is None:
                return None
            return result.utility.value, result.odrp.response_time, result.odrp.cost
        return evaluated
    bounds, _derived = resolve_bounds(graph, network, objective, plan, current is not None)
    scorer = PlacementScorer(graph, network, objective, bounds, placement, current=current)

    def scored(op_id: str, multiset: dict[str, int]) -> tuple[float, float, float] | None:
        found = scorer.trial(op_id, multiset)
        return None if found is None else (found[0], found[1][Metric.RESPONSE_TIME],
                                           found[1][Metric.COST])
    return scored


def _options(op: Operator, network: Network, current: dict[str, int], budget: int,
             ) -> tuple[list[tuple[str, dict[str, int]]], int | None]:
    """One replica moved, added or removed; beyond ``budget`` changes, the candidates
    nearest the operator's replicas only (how many is said)."""
    nodes = candidates(op, network)
    wide = max(1, budget // (len(current) + 2))
    nearest = None
    if len(nodes) > wide:
        nearest = wide
        here = next(iter(current))

        def distance(v: str, h: str = here) -> float:
            return network.delay(h, v)

        nodes = sorted(nodes, key=distance)[:wide]
    count = sum(current.values())
    options = list(one_replica_changes(current, nodes,
                                       add=op.replicas is None and count < op.replica_cap,
                                       remove=op.replicas is None and count > op.min_replicas))
    return options, nearest
