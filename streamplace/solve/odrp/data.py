"""Everything both ODRP formulations need, computed once from an instance.

Also the checks that prove infeasibility before any model is built, each with a reason a
person can act on (an operator that cannot be stable, pinned operators that overflow a node,
candidates with no room, streams that cannot be routed).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from streamplace.errors import InfeasibleError
from streamplace.model.application import Operator
from streamplace.model.evaluate import resolve_bounds
from streamplace.model.evaluate.scorer import PlacementScorer
from streamplace.model.evaluate.utility import candidates, one_value
from streamplace.model.graph import AppGraph, ResolvedStream, build_graph
from streamplace.model.links import LogicalLink
from streamplace.model.metrics import Metric, Term
from streamplace.model.network import Network
from streamplace.model.objective import terms
from streamplace.model.plan import Plan
from streamplace.model.replicas import (
    BEYOND_ANY_CAP,
    fewest_stable,
    per_node_cap,
    replica_ranges,
)
from streamplace.solve.mip.model import LinearModel
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
    counts: dict[str, Sequence[int]]  # replica counts allowed (model/replicas.py)
    streams: list[ResolvedStream]
    dims: list[str]
    bounds: dict[Term, tuple[float, float]]
    scales: dict[Term, TermScale]

    def new_model(self) -> LinearModel:
        """An empty model maximising F: the constant parts of eq. 21 as its offset."""
        return LinearModel(maximize=True, offset=sum(s.offset for s in self.scales.values()))

    def count_cost(self, op: Operator, m: int) -> float:
        """How m replicas of ``op`` move F through the cost term (eq. 2)."""
        return self.scales[Term.COST].slope * op.cost * op.billing_units * m

    def scorer(self, plan: Plan) -> PlacementScorer:
        """``plan``'s F kept up to date change by change, under this instance's bounds,
        limits and current plan (what the primal searches climb on)."""
        placement = {op.id: dict(plan.replicas(op.id)) for op in self.ops}
        instance = self.instance
        return PlacementScorer(self.graph, self.network, instance.objective, self.bounds,
                               placement, instance.limits, instance.current)

    @property
    def movable(self) -> list[str]:
        """The operators a search can change: more than one candidate or count."""
        return [op.id for op in self.ops
                if len(self.cands[op.id]) > 1 or len(self.counts[op.id]) > 1]

    def bounds_used(self) -> dict[str, list[float]]:
        """The normalisation bounds of F, as a plan records them."""
        return {term: list(pair) for term, pair in self.bounds.items()}

    def moves_cost(self, op: Operator, node: str, m: int) -> float:
        """What starting the ``m``-th replica of ``op`` on ``node`` costs, 0 while the
        current plan already runs that many there (the reconfiguration term)."""
        current = self.instance.current
        if current is None or m <= current.count(op.id, node):
            return 0.0
        return op.migration_cost

    def latency(self, op: Operator, m: int) -> float:
        """R_i(lambda_i / m) on the reference node (eq. 1 before the speed-up)."""
        if op.service_rate is None:
            return op.latency or 0.0
        return 1.0 / (op.service_rate - self.graph.input_rates[op.id] / m)

    def node_cap(self, op: Operator, u: str, m: int) -> int:
        """The most of ``m`` replicas of ``op`` that node ``u`` can hold."""
        cap = per_node_cap(op, self.network, u)
        return m if cap is None else min(m, cap)

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
        return Metric(self.instance.objective.network_metric).per_byte(delay)


def prepare(instance: Instance, single_replica: bool = False) -> OdrpData:
    """Check the instance and precompute tables; raise InfeasibleError with reasons."""
    graph = build_graph(instance.app)
    graph.topological_order()
    network = Network(instance.infra)
    ops = instance.app.operators
    reasons: list[str] = []
    cands: dict[str, list[str]] = {}
    counts: dict[str, Sequence[int]] = {}
    processors = set(network.processors)
    for op in ops:
        cands[op.id] = [u for u in candidates(op, network) if u in processors]
        if not cands[op.id]:
            reasons.append(f"operator {op.id} has no processor among its candidates")
    ranges = replica_ranges(ops, graph.input_rates, cands, network, single_replica)
    least: dict[str, int] = {}  # fewest stable replicas, for operators that have them
    crowded = []  # stable counts exist, but capacity leaves room for none of them
    for op in ops:
        rate = graph.input_rates[op.id]
        counts[op.id] = ranges[op.id]
        cap = op.replica_cap if not (single_replica and op.replicas is None) else 1
        need = fewest_stable(op, rate)
        if need > cap:
            reasons.append(_unstable_reason(op, rate, cap, need))
        else:
            least[op.id] = need
            if cands[op.id] and not counts[op.id]:
                crowded.append(op.id)
    dims = sorted({d for op in ops for d in op.resources})
    room = _capacity_reasons(ops, cands, least, network, dims)
    if crowded and not room:  # subtler than the checks above: say which bound it was
        room = [f"the candidates of {op} cannot host the replicas it needs next to the other "
                "operators' minimum needs — add capacity or candidates" for op in crowded]
    reasons += room
    if room and instance.app.extracted:
        reasons.append("this application was extracted from a Spark event log, whose stages "
                       "Spark ran one after another on the executors' slots: size the "
                       "infrastructure for a deployment running them side by side with "
                       "`streamplace extract ... --nodes N --cores C --infrastructure-out "
                       "FILE`")
    reasons += _route_reasons(graph, cands, network)
    if reasons:
        raise InfeasibleError(reasons)
    for op in ops:  # a node that cannot hold even one replica is no candidate at all
        cands[op.id] = [u for u in cands[op.id] if per_node_cap(op, network, u) != 0]
    replanning = instance.current is not None
    bounds, derived = resolve_bounds(graph, network, instance.objective, replanning=replanning)
    weights = instance.objective.weights.normalised(replanning)
    scales = {t: _scale(t, weights[t], bounds[t], t in derived) for t in terms(replanning)}
    return OdrpData(instance, graph, network, list(ops), cands, counts, graph.streams,
                    dims, bounds, scales)


def _unstable_reason(op: Operator, rate: float, cap: int, need: int) -> str:
    if need == BEYOND_ANY_CAP:  # the share per replica overflows: no count is stable
        return (f"operator {op.id}: no number of replicas is stable at its input rate "
                f"{rate:g}/s with service rate {op.service_rate or 0:g}/s and target "
                f"utilisation {op.target_utilization:g} — raise the service rate or the "
                "target utilisation")
    return (f"operator {op.id} cannot be stable with {cap} replica(s) at its input rate "
            f"{rate:g}/s (service rate {op.service_rate or 0:g}/s): it needs at least {need}"
            + (" — raise max_replicas" if op.replicas is None else " — raise replicas"))


def _scale(term: Term, weight: float, bound: tuple[float, float], derived: bool) -> TermScale:
    """The term's slope and offset in F; a constant term (bounds within rounding of each
    other, as the evaluator scores it) adds its weight and no slope."""
    lo, hi = bound
    if one_value(lo, hi):
        return TermScale(weight, lo, hi, 0.0, weight, derived)
    if term.higher_is_better:  # availability
        lo_, hi_ = (math.log(lo) if lo > 0 else -math.inf), math.log(hi)
        span = hi_ - lo_
        if weight == 0 or not math.isfinite(span):
            return TermScale(weight, lo, hi, 0.0, weight, derived)
        return TermScale(weight, lo, hi, weight / span, -weight * lo_ / span, derived)
    span = hi - lo
    if weight == 0 or not math.isfinite(span):
        return TermScale(weight, lo, hi, 0.0, weight, derived)
    return TermScale(weight, lo, hi, -weight / span, weight * hi / span, derived)


def _capacity_reasons(ops: list[Operator], cands: dict[str, list[str]],
                      least: dict[str, int], network: Network,
                      dims: list[str]) -> list[str]:
    reasons = []
    pinned_load: dict[tuple[str, str], list[str]] = {}
    for op in ops:
        if op.id not in least or not cands[op.id]:
            continue
        fewest = least[op.id]
        for dim, amount in op.resources.items():
            room = [u for u in cands[op.id] if _cap(network, u, dim) >= amount]
            total = sum(_cap(network, u, dim) for u in cands[op.id])
            if not room:
                reasons.append(f"the candidates of {op.id} have no room: one replica needs "
                               f"{amount:g} {dim}, the largest candidate offers "
                               f"{max(_cap(network, u, dim) for u in cands[op.id]):g}")
            elif fewest * amount > total:
                reasons.append(f"the candidates of {op.id} have no room for {fewest} stable "
                               f"replicas ({fewest * amount:g} {dim}; they offer {total:g})")
            if len(cands[op.id]) == 1:
                pinned_load.setdefault((cands[op.id][0], dim), []).append(op.id)
    for (u, dim), names in sorted(pinned_load.items()):
        need = sum(least.get(o.id, 0) * o.resources.get(dim, 0.0) for o in ops if o.id in names)
        if need > _cap(network, u, dim):
            reasons.append(f"operators pinned to {u} ({', '.join(names)}) need {need:g} {dim}, "
                           f"{u} has {_cap(network, u, dim):g}")
    for dim in dims:
        need = sum(least.get(o.id, 0) * o.resources.get(dim, 0.0) for o in ops
                   if cands[o.id])
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


def compact_columns(data: OdrpData) -> int:
    """Columns the thermometer code needs, twice (the traffic products q repeat it per
    stream end); computed before anything is built, to refuse a model too large to hold."""
    cells = 0
    for op in data.ops:
        for u in data.cands[op.id]:
            cells += _thermometer(data.counts[op.id], per_node_cap(op, data.network, u))
    return 2 * cells


def _thermometer(counts: Sequence[int], cap: int | None) -> int:
    """sum over m in counts of min(m, cap), in closed form for a range (counts may be
    huge)."""
    if not counts:
        return 0
    if not isinstance(counts, range):  # replica_counts: listed, so few
        return sum(m if cap is None else min(m, cap) for m in counts)
    lo, hi = counts[0], counts[-1]
    top = hi if cap is None else min(hi, cap)
    below = (top * (top + 1) - (lo - 1) * lo) // 2 if top >= lo else 0
    above = (hi - max(top, lo - 1)) * (cap or 0)
    return below + above
