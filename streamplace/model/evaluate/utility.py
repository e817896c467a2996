"""The SAW utility F (Cardellini et al. 2017, eq. 21) and cheap normalisation bounds.

Bounds left out of the objective are derived from the instance alone (never from the plan),
so a plan's F does not depend on which method made it. Each derived bound is valid for every
feasible plan, though not always tight:

- R: per-operator latency with the most stable replicas on the fastest candidate (lo) or
  the fewest on the slowest (hi); per-stream delay the closest (lo) or farthest (hi)
  candidate pair; then the longest path of each.
- C: fewest stable replicas and cheapest pairs (lo); the most replicas the operator may run
  (k_i, or fewer where its candidates' capacity says so) and dearest pairs (hi).
- A: lo = every candidate node and every candidate link up; hi = min over operators of the
  best candidate's availability, and the pinned nodes' product.
- Z: per stream, bytes/s times the smallest (lo) or largest (hi) candidate-pair factor
  (1 for traffic, d for network usage, d^2 for elastic energy; 0 on one node).

A term whose lo equals hi is constant; it is scored 1 (its best) rather than divided by 0,
0 where the value is worse than the bound. Bounds within rounding of each other
(:data:`SAME_BOUND`) are one value: a product taken in another order differs in its last
bits, and dividing by that difference would score the term anywhere (and give a solver
slopes of 1e15).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamplace.model.application import Operator
from streamplace.model.evaluate.report import OdrpMetrics, Utility, UtilityTerm
from streamplace.model.graph import AppGraph
from streamplace.model.metrics import Metric, Term
from streamplace.model.network import Network
from streamplace.model.objective import Objective
from streamplace.model.objective import terms as terms_of
from streamplace.model.replicas import replica_ranges


def candidates(op: Operator, network: Network) -> list[str]:
    return list(op.candidates) if op.candidates is not None else network.processors


def derive_bounds(graph: AppGraph, network: Network,
                  network_metric: str) -> dict[Term, tuple[float, float]]:
    app = graph.app
    cands = {op.id: candidates(op, network) for op in app.operators}
    nodes = network.nodes
    lat_lo: dict[str, float] = {}
    lat_hi: dict[str, float] = {}
    cost_lo = cost_hi = moves_hi = 0.0
    ranges = replica_ranges(app.operators, graph.input_rates, cands, network)
    for op in app.operators:
        rate = graph.input_rates[op.id]
        counts = ranges[op.id] or range(op.replica_cap, op.replica_cap + 1)
        fast = max(nodes[u].speedup for u in cands[op.id])
        slow = min(nodes[u].speedup for u in cands[op.id])
        lat_lo[op.id] = _latency(op, rate, counts[-1]) / fast
        lat_hi[op.id] = _latency(op, rate, counts[0]) / slow
        cost_lo += op.cost * op.billing_units * counts[0]
        cost_hi += op.cost * op.billing_units * counts[-1]
        moves_hi += op.migration_cost * counts[-1]
    d_lo: dict[tuple[str, str], float] = {}
    d_hi: dict[tuple[str, str], float] = {}
    z_lo = z_hi = 0.0
    # operators mostly share one candidate set: summarise each pair of sets only once
    summaries: dict[tuple[tuple[str, ...], tuple[str, ...]], _PairSummary] = {}
    for s in graph.streams:
        key = (tuple(cands[s.source]), tuple(cands[s.target]))
        if key not in summaries:
            summaries[key] = _summarise(network, key[0], key[1], network_metric)
        summary = summaries[key]
        d_lo[(s.source, s.target)], d_hi[(s.source, s.target)] = summary.delay
        cost_lo += s.bytes_per_s * summary.cost[0]
        cost_hi += s.bytes_per_s * summary.cost[1]
        z_lo += s.bytes_per_s * summary.factor[0]
        z_hi += s.bytes_per_s * summary.factor[1]
    r_lo = _longest(graph, lat_lo, d_lo)
    r_hi = _longest(graph, lat_hi, d_hi)
    used = sorted({u for c in cands.values() for u in c})
    a_lo = math.prod(nodes[u].availability for u in used)
    pairs = {pair: a for summary in summaries.values() for pair, a in summary.remote_pairs.items()}
    a_lo *= math.prod(a for _, a in sorted(pairs.items()))
    pinned = {c[0] for c in cands.values() if len(c) == 1}
    a_hi = min(min(max(nodes[u].availability for u in c) for c in cands.values()),
               math.prod(nodes[u].availability for u in pinned))
    return {Term.RESPONSE_TIME: (r_lo, r_hi), Term.AVAILABILITY: (a_lo, a_hi),
            Term.COST: (cost_lo, cost_hi), Term.NETWORK: (z_lo, z_hi),
            Term.RECONFIGURATION: (0.0, moves_hi)}


@dataclass(frozen=True)
class _PairSummary:
    delay: tuple[float, float]
    cost: tuple[float, float]
    factor: tuple[float, float]
    remote_pairs: dict[tuple[str, str], float]  # link availability per remote pair


def _summarise(network: Network, ups: tuple[str, ...], downs: tuple[str, ...],
               metric: str) -> _PairSummary:
    if len(ups) > len(downs):  # many senders, few receivers: one reversed search each
        pairs = {(u, v): r for v in downs for u, r in network.reach_to(v, list(ups)).items()}
    else:
        pairs = {(u, v): r for u in ups for v, r in network.reach_from(u, list(downs)).items()}
    finite = [(pair, r) for pair, r in pairs.items() if math.isfinite(r.delay)] \
        or list(pairs.items())
    delays = [r.delay for _, r in finite]
    costs = [r.cost for _, r in finite]
    factors = [_factor(r.delay, pair[0] == pair[1], metric) for pair, r in finite]
    return _PairSummary((min(delays), max(delays)), (min(costs), max(costs)),
                        (min(factors), max(factors)),
                        {pair: r.availability for pair, r in pairs.items()
                         if pair[0] != pair[1]})


def _latency(op: Operator, rate: float, count: int) -> float:
    if op.service_rate is not None:
        load = rate / count
        return 1.0 / (op.service_rate - load) if load < op.service_rate else math.inf
    return op.latency or 0.0


def _factor(delay: float, same_node: bool, metric: str) -> float:
    if same_node:
        return 0.0
    return Metric(metric).per_byte(delay)


def _longest(graph: AppGraph, weight: dict[str, float],
             delay: dict[tuple[str, str], float]) -> float:
    best: dict[str, float] = {}
    for op in graph.topological_order():
        preds = graph.preds[op]
        base = max((best[p] + delay[(p, op)] for p in preds), default=0.0)
        best[op] = base + weight[op]
    return max(best.values(), default=0.0)


def utility(metrics: OdrpMetrics, objective: Objective,
            bounds: dict[Term, tuple[float, float]], derived: set[Term],
            reconfiguration: float | None = None) -> Utility:
    """F = sum of weighted normalised terms (eq. 21); availability on a log scale; with a
    current plan, the reconfiguration term too (lower is better, like cost)."""
    replanning = reconfiguration is not None
    weights = objective.weights.normalised(replanning)
    network_metric = objective.network_metric
    values = {term: reconfiguration or 0.0 if term is Term.RECONFIGURATION
              else metrics.metric(term.metric(network_metric)) for term in Term}
    parts = []
    for term in terms_of(replanning):
        lo, hi = bounds[term]
        value = values[term]
        score = normalised(term, value, lo, hi)
        parts.append(UtilityTerm(
            term=term, metric=network_metric if term is Term.NETWORK else term,
            weight=weights[term], value=value, lo=lo, hi=hi, normalised=score,
            contribution=weights[term] * score if weights[term] else 0.0,
            derived_bound=term in derived))
    return Utility(sum(t.contribution for t in parts), network_metric, parts)


SAME_BOUND = 1e-12  # relative: bounds (and a value and its bound) this close are one value


def one_value(a: float, b: float) -> bool:
    """Whether two bounds, or a value and a bound, differ by rounding alone."""
    return a == b or math.isclose(a, b, rel_tol=SAME_BOUND)


def normalised(term: Term, value: float, lo: float, hi: float) -> float:
    """A term's score in [0, 1] when the value is within its bounds: availability on a
    log scale (higher is better), every other term lower is better. A constant term
    (:func:`one_value` bounds) scores 1 unless the value is worse than its bound."""
    if one_value(lo, hi):
        if math.isnan(value):
            return 0.0
        worse = value < hi if term.higher_is_better else value > lo
        return 0.0 if worse and not one_value(value, hi if term.higher_is_better else lo) \
            else 1.0
    if term.higher_is_better:  # availability
        return _scaled(_log(value) - _log(lo), _log(hi) - _log(lo))
    return _scaled(hi - value, hi - lo)


def _scaled(numerator: float, span: float) -> float:
    if math.isnan(numerator):
        return 0.0
    if not math.isfinite(span):  # a zero span is a constant term: normalised() took it
        return 1.0 if numerator >= 0 else 0.0
    return numerator / span


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf
