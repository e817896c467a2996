"""The placement constraints every model shares (docs/models.md sec. 2; Cardellini et al.
2017, eqs. 23, 26).

Names are stable (users grep for them in CI logs): ``placement.missing``,
``placement.role``, ``replicas.fixed``, ``replicas.max``, ``candidates``, ``capacity``,
``stability``, ``route.unreachable``, ``route.invalid``.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from streamplace.model.evaluate.report import OdrpMetrics, Subject, Violation
from streamplace.model.graph import AppGraph
from streamplace.model.metrics import MetricLimits
from streamplace.model.network import Network
from streamplace.model.plan import Plan

TOLERANCE = 1e-9


def over(used: float, capacity: float) -> bool:
    """True when ``used`` exceeds ``capacity`` beyond rounding."""
    return used > capacity + TOLERANCE * max(1.0, abs(capacity))


def placement_violations(graph: AppGraph, network: Network, plan: Plan) -> list[Violation]:
    out: list[Violation] = []
    nodes = network.nodes
    use: dict[tuple[str, str], float] = defaultdict(float)
    for op in graph.app.operators:
        reps = plan.replicas(op.id)
        count = sum(reps.values())
        if count == 0:
            out.append(Violation("placement.missing", Subject("operator", (op.id,)),
                                 f"{op.id} has no replica"))
            continue
        if op.replicas is not None and count != op.replicas:
            out.append(Violation("replicas.fixed", Subject("operator", (op.id,)),
                                 f"{op.id} has {count} replicas, fixed at {op.replicas}",
                                 abs(count - op.replicas)))
        elif count > op.replica_cap:
            out.append(Violation("replicas.max", Subject("operator", (op.id,)),
                                 f"{op.id} has {count} replicas, at most {op.replica_cap} allowed",
                                 count - op.replica_cap))
        elif not op.allows(count):
            out.append(Violation("replicas.counts", Subject("operator", (op.id,)),
                                 f"{op.id} has {count} replicas, not one of its replica_counts "
                                 f"{', '.join(map(str, sorted(set(op.replica_counts or []))))}"))
        for u, c in reps.items():
            if nodes[u].role != "processor":
                out.append(Violation("placement.role", Subject("operator", (op.id,)),
                                     f"{op.id} is on {u}, a {nodes[u].role}"))
            if op.candidates is not None and u not in op.candidates:
                out.append(Violation("candidates", Subject("operator", (op.id,)),
                                     f"{op.id} is on {u}, not one of its candidates "
                                     f"{', '.join(op.candidates)}"))
            for dim, amount in op.resources.items():
                use[(u, dim)] += amount * c
        if op.service_rate is not None:
            load = graph.input_rates[op.id] / count
            if not op.stable_at(load):
                rho = op.target_utilization
                limit = op.service_rate * rho
                rule = f">= service rate {op.service_rate:g}" if rho >= 1 else \
                    f"> {rho:g} x service rate {op.service_rate:g} (target utilisation)"
                out.append(Violation("stability", Subject("operator", (op.id,)),
                                     f"{op.id}: {load:g} tuples/s per replica on "
                                     f"{count} replica(s) {rule}", load - limit))
    for (u, dim), used in sorted(use.items()):
        resources = nodes[u].resources
        capacity = math.inf if resources is None else resources.get(dim, math.inf)
        if over(used, capacity):
            out.append(Violation("capacity", Subject("node", (u,)),
                                 f"{u} uses {used:g} {dim}, has {capacity:g}"
                                 f"{network.infra.holds.on_node(u, dim)}", used - capacity))
    out += _route_violations(graph, network, plan)
    return out


def _route_violations(graph: AppGraph, network: Network, plan: Plan) -> list[Violation]:
    out: list[Violation] = []
    for s in graph.streams:
        for u in plan.replicas(s.source):
            for v in plan.replicas(s.target):
                if not math.isfinite(network.delay(u, v)):
                    out.append(Violation("route.unreachable",
                                         Subject("stream", (s.source, s.target)),
                                         f"no route from {u} to {v}"))
    for r in plan.routes:
        where = Subject("route", (r.stream[0], r.stream[1]))
        if (r.path[0], r.path[-1]) != (r.source, r.target):
            out.append(Violation("route.invalid", where,
                                 f"path {r.path[0]}..{r.path[-1]} does not join {r.source} "
                                 f"to {r.target}"))
        for a, b in itertools.pairwise(r.path):
            if network.hop(a, b) is None:
                out.append(Violation("route.invalid", where, f"hop {a} -> {b} has no link"))
    return out


def limit_violations(limits: MetricLimits, metrics: OdrpMetrics) -> list[Violation]:
    """A violation ``limit.max_cost`` (``limit.min_availability`` ...) per broken limit."""
    out = []
    for metric, value, bound in limits.broken(metrics.metric):
        side = "below" if metric.higher_is_better else "above"
        out.append(Violation(f"limit.{metric.limit_name}", Subject("plan", (metric.value,)),
                             f"{metric} is {value:.6g}, {side} its limit {bound:.6g}",
                             abs(value - bound)))
    return out
