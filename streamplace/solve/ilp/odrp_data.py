"""Everything both ODRP formulations need, computed once from an instance.

Also the checks that prove infeasibility before any model is built, each with a reason a
person can act on (an operator that cannot be stable, pinned operators that overflow a node,
candidates with no room, streams that cannot be routed).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamplace.errors import InfeasibleError
from streamplace.model.application import Operator
from streamplace.model.evaluate import resolve_bounds
from streamplace.model.evaluate.utility import candidates
from streamplace.model.graph import AppGraph, ResolvedStream, build_graph
from streamplace.model.network import LogicalLink, Network
from streamplace.model.objective import TERMS, Term
from streamplace.solve.linear import LinearModel
from streamplace.solve.result import Instance


@dataclass(frozen=True)
class TermScale:
    """How one SAW term enters F: ``contribution = offset + slope * value`` (eq. 21)."""

    weight: float
    lo: float
    hi: float
    slope: float
    offset: float
    derived: bool


@dataclass
class OdrpData:
    instance: Instance
    graph: AppGraph
    network: Network
    ops: list[Operator]
    cands: dict[str, list[str]]
    counts: dict[str, list[int]]
    latency: dict[str, dict[int, float]]  # R_i(lambda_i / m) on the reference node
    streams: list[ResolvedStream]
    dims: list[str]
    bounds: dict[Term, tuple[float, float]]
    scales: dict[Term, TermScale]

    def new_model(self) -> LinearModel:
        """An empty model maximising F: the constant parts of eq. 21 as its offset."""
        return LinearModel(maximize=True, offset=sum(s.offset for s in self.scales.values()))

    def count_cost(self, op: Operator, m: int) -> float:
        """How m replicas of ``op`` move F through the cost term (eq. 2)."""
        return self.scales["cost"].slope * op.cost * op.billing_units * m

    def link(self, u: str, v: str) -> LogicalLink:
        return self.network.link(u, v)

    def speedup(self, u: str) -> float:
        return self.network.nodes[u].speedup

    def availability(self, u: str) -> float:
        return self.network.nodes[u].availability

    def capacity(self, u: str, dim: str) -> float:
        resources = self.network.nodes[u].resources
        return math.inf if resources is None else resources.get(dim, math.inf)

    def network_factor(self, u: str, v: str) -> float:
        """Per byte/s: the selected network metric's factor for the pair (0 on one node)."""
        if u == v:
            return 0.0
        delay = self.link(u, v).delay
        metric = self.instance.objective.network_metric
        return {"traffic": 1.0, "network_usage": delay, "elastic_energy": delay**2}[metric]


def prepare(instance: Instance, single_replica: bool = False) -> OdrpData:
    """Check the instance and precompute tables; raise InfeasibleError with reasons."""
    graph = build_graph(instance.app)
    graph.topological_order()
    network = Network(instance.infra)
    ops = instance.app.operators
    reasons: list[str] = []
    cands: dict[str, list[str]] = {}
    counts: dict[str, list[int]] = {}
    latency: dict[str, dict[int, float]] = {}
    processors = set(network.processors)
    for op in ops:
        cands[op.id] = [u for u in candidates(op, network) if u in processors]
        cap = op.replica_cap if not (single_replica and op.replicas is None) else 1
        rate = graph.input_rates[op.id]
        allowed = range(op.min_replicas, cap + 1)
        if op.service_rate is not None:
            stable = [m for m in allowed if rate / m < op.service_rate]
            if not stable:
                need = math.floor(rate / op.service_rate) + 1
                reasons.append(
                    f"operator {op.id} cannot be stable with {cap} replica(s) at its input rate "
                    f"{rate:g}/s (service rate {op.service_rate:g}/s): it needs at least {need}"
                    + (" — raise max_replicas" if op.replicas is None else " — raise replicas"))
            counts[op.id] = stable
            latency[op.id] = {m: 1.0 / (op.service_rate - rate / m) for m in stable}
        else:
            counts[op.id] = list(allowed)
            latency[op.id] = {m: op.latency or 0.0 for m in allowed}
        if not cands[op.id]:
            reasons.append(f"operator {op.id} has no processor among its candidates")
    dims = sorted({d for op in ops for d in op.resources})
    reasons += _capacity_reasons(ops, cands, counts, network, dims)
    reasons += _route_reasons(graph, cands, network)
    if reasons:
        raise InfeasibleError(reasons)
    bounds, derived = resolve_bounds(graph, network, instance.objective)
    weights = instance.objective.weights.normalised()
    scales = {t: _scale(t, weights[t], bounds[t], t in derived) for t in TERMS}
    return OdrpData(instance, graph, network, list(ops), cands, counts, latency, graph.streams,
                    dims, bounds, scales)


def _scale(term: Term, weight: float, bound: tuple[float, float], derived: bool) -> TermScale:
    lo, hi = bound
    if term == "availability":
        lo_, hi_ = (math.log(lo) if lo > 0 else -math.inf), math.log(hi)
        span = hi_ - lo_
        if weight == 0 or span == 0 or not math.isfinite(span):
            return TermScale(weight, lo, hi, 0.0, weight, derived)
        return TermScale(weight, lo, hi, weight / span, -weight * lo_ / span, derived)
    span = hi - lo
    if weight == 0 or span == 0 or not math.isfinite(span):
        return TermScale(weight, lo, hi, 0.0, weight, derived)
    return TermScale(weight, lo, hi, -weight / span, weight * hi / span, derived)


def _capacity_reasons(ops: list[Operator], cands: dict[str, list[str]],
                      counts: dict[str, list[int]], network: Network,
                      dims: list[str]) -> list[str]:
    reasons = []
    pinned_load: dict[tuple[str, str], list[str]] = {}
    for op in ops:
        if not counts[op.id] or not cands[op.id]:
            continue
        least = min(counts[op.id])
        for dim, amount in op.resources.items():
            room = [u for u in cands[op.id] if _cap(network, u, dim) >= amount]
            total = sum(_cap(network, u, dim) for u in cands[op.id])
            if not room:
                reasons.append(f"the candidates of {op.id} have no room: one replica needs "
                               f"{amount:g} {dim}, the largest candidate offers "
                               f"{max(_cap(network, u, dim) for u in cands[op.id]):g}")
            elif least * amount > total:
                reasons.append(f"the candidates of {op.id} have no room for {least} stable "
                               f"replicas ({least * amount:g} {dim}; they offer {total:g})")
            if len(cands[op.id]) == 1:
                pinned_load.setdefault((cands[op.id][0], dim), []).append(op.id)
    for (u, dim), names in sorted(pinned_load.items()):
        need = sum(min(counts[o.id]) * o.resources.get(dim, 0.0) for o in ops if o.id in names)
        if need > _cap(network, u, dim):
            reasons.append(f"operators pinned to {u} ({', '.join(names)}) need {need:g} {dim}, "
                           f"{u} has {_cap(network, u, dim):g}")
    for dim in dims:
        need = sum(min(counts[o.id]) * o.resources.get(dim, 0.0) for o in ops
                   if counts[o.id] and cands[o.id])
        have = sum(_cap(network, u, dim) for u in network.processors)
        if need > have:
            reasons.append(f"the operators need at least {need:g} {dim} in total, the "
                           f"processors have {have:g}")
    return reasons


def _cap(network: Network, u: str, dim: str) -> float:
    resources = network.nodes[u].resources
    return math.inf if resources is None else resources.get(dim, math.inf)


def _route_reasons(graph: AppGraph, cands: dict[str, list[str]], network: Network) -> list[str]:
    reasons = []
    for s in graph.streams:
        if cands[s.source] and cands[s.target] and not any(
                network.link(u, v).reachable for u in cands[s.source] for v in cands[s.target]):
            reasons.append(f"stream {s.source} -> {s.target} cannot be routed: no candidate of "
                           f"{s.source} reaches a candidate of {s.target}")
    return reasons
