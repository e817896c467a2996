"""ODRP / ODP metrics of a plan (Cardellini et al. 2017, sec. 4.2; docs/models.md sec. 2).

A plan maps operator i to a multiset U_i. With equal split and all-to-all streams, stream
(i, j) carries lambda_(i,j) * U_i(u) * U_j(v) / (|U_i| |U_j|) tuples/s from u to v (eq. 7).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial

from streamplace.model.application import Operator
from streamplace.model.evaluate.report import OdrpMetrics, OperatorMetrics, PathStep, StreamMetrics
from streamplace.model.graph import AppGraph
from streamplace.model.links import LogicalLink
from streamplace.model.network import Network


def operator_latency(op: Operator, input_rate: float, replicas: dict[str, int],
                     speedups: dict[str, float]) -> float:
    """R_(i,U) = max_{u in U} R_i(lambda_i / |U|) / S_u (eq. 1); inf when unstable.

    >>> from streamplace.model.application import Operator
    >>> op = Operator(id="a", service_rate=10)
    >>> operator_latency(op, 16, {"u": 2}, {"u": 1.0})  # 1 / (10 - 8)
    0.5
    >>> operator_latency(op, 16, {"u": 1}, {"u": 1.0})
    inf
    """
    count = sum(replicas.values())
    if count == 0:
        return math.inf
    slowest = min(speedups[u] for u in replicas)
    if op.service_rate is not None:
        load = input_rate / count
        if load >= op.service_rate:
            return math.inf
        return (1.0 / (op.service_rate - load)) / slowest
    return (op.latency or 0.0) / slowest


def pair_traffic(rate: float, up: dict[str, int],
                 down: dict[str, int]) -> dict[tuple[str, str], float]:
    """Tuples/s from node u to node v for one stream (eq. 7 summed over replica pairs).

    >>> pair_traffic(12.0, {"a": 2, "b": 1}, {"a": 1})
    {('a', 'a'): 8.0, ('b', 'a'): 4.0}
    """
    total = sum(up.values()) * sum(down.values())
    return {(u, v): rate * cu * cv / total for u, cu in up.items() for v, cv in down.items()}


@dataclass(frozen=True)
class StreamLoad:
    """What one stream puts on the network under a placement."""

    delay: float      # the worst pair delay (eq. 4)
    traffic: float    # bytes/s between distinct nodes (eq. 18)
    usage: float      # bytes/s x delay (eq. 19)
    energy: float     # bytes/s x delay^2 (eq. 20)
    link_cost: float  # bytes/s x cost per byte (eq. 5)
    remote: tuple[tuple[str, str, float], ...]  # pairs carrying tuples, their availability


def stream_load(rate: float, tuple_size: float, up: dict[str, int], down: dict[str, int],
                link: Callable[[str, str], LogicalLink]) -> StreamLoad:
    """One stream's terms from its replicas' nodes (eqs. 4, 5, 7, 18-20); ``link`` gives
    the logical link of each pair."""
    delay = max(link(u, v).delay for u in up for v in down)
    t = n = ee = lc = 0.0
    remote = []
    for (u, v), tuples in pair_traffic(rate, up, down).items():
        volume = tuples * tuple_size
        if u != v and volume > 0:
            logical = link(u, v)
            remote.append((u, v, logical.availability))
            t += volume
            n += volume * logical.delay
            ee += volume * logical.delay ** 2
            lc += volume * logical.cost
    return StreamLoad(delay, t, n, ee, lc, tuple(remote))


def odrp_metrics(graph: AppGraph, network: Network, placement: dict[str, dict[str, int]],
                 routed: dict[tuple[str, str, str, str], LogicalLink] | None = None,
                 ) -> OdrpMetrics:
    """Every ODRP metric of a complete placement (each operator has >= 1 replica).

    ``routed`` holds the plan's own routes (stream, from, to) where it names them; every
    other replica pair uses the logical link.
    """
    given = routed or {}

    def link_of(a: str, b: str, u: str, v: str) -> LogicalLink:
        return given.get((a, b, u, v)) or network.link(u, v)

    app = graph.app
    nodes = network.nodes
    speedups = {u: n.speedup for u, n in nodes.items()}
    op_metrics: dict[str, OperatorMetrics] = {}
    usage: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    compute_cost = 0.0
    for op in app.operators:
        reps = placement[op.id]
        count = sum(reps.values())
        rate = graph.input_rates[op.id]
        latency = operator_latency(op, rate, reps, speedups)
        cost = op.cost * op.billing_units * count  # eq. 2
        compute_cost += cost
        for u, c in reps.items():
            for dim, amount in op.resources.items():
                usage[u][dim] += amount * c
        op_metrics[op.id] = OperatorMetrics(
            op.id, dict(reps), count, rate, rate / count, latency, math.isfinite(latency), cost)

    stream_metrics: list[StreamMetrics] = []
    used_links: dict[tuple[str, str], float] = {}  # pair -> availability of its route
    network_cost = traffic = usage_n = energy = 0.0
    delays: dict[tuple[str, str], float] = {}
    for s in graph.streams:
        load = stream_load(s.rate, s.tuple_size, placement[s.source], placement[s.target],
                           partial(link_of, s.source, s.target))
        delays[(s.source, s.target)] = load.delay
        for u, v, availability in load.remote:
            used_links[(u, v)] = min(used_links.get((u, v), 1.0), availability)
        stream_metrics.append(StreamMetrics(s.source, s.target, s.rate, s.bytes_per_s,
                                            load.delay, load.traffic, load.usage, load.energy,
                                            load.link_cost))
        traffic, usage_n, energy, network_cost = traffic + load.traffic, \
            usage_n + load.usage, energy + load.energy, network_cost + load.link_cost

    response, path, steps = _critical_path(graph, {k: v.latency for k, v in op_metrics.items()},
                                           delays)
    used_nodes = sorted({u for reps in placement.values() for u in reps})
    node_log = sum(math.log(nodes[u].availability) for u in used_nodes)
    link_log = sum(_log(a) for _, a in sorted(used_links.items()))
    log_a = node_log + link_log  # eq. 16
    return OdrpMetrics(
        response_time=response, critical_path=path, critical_steps=steps,
        cost=compute_cost + network_cost, compute_cost=compute_cost, network_cost=network_cost,
        availability=math.exp(log_a), log_availability=log_a,
        node_log_availability=node_log, link_log_availability=link_log,
        traffic=traffic, network_usage=usage_n, elastic_energy=energy,
        used_nodes=used_nodes, used_links=sorted(used_links),
        operators=[op_metrics[o] for o in app.operator_ids], streams=stream_metrics,
        node_usage={u: {dim: (used, _capacity(nodes[u].resources, dim))
                        for dim, used in d.items()} for u, d in sorted(usage.items())},
    )


def _capacity(resources: dict[str, float] | None, dim: str) -> float:
    return math.inf if resources is None else resources.get(dim, math.inf)


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


def _critical_path(graph: AppGraph, latency: dict[str, float],
                   delay: dict[tuple[str, str], float]) -> tuple[float, list[str], list[PathStep]]:
    """Longest source-to-sink path (eqs. 8-11): operator latencies plus stream delays."""
    best: dict[str, float] = {}
    came_from: dict[str, str | None] = {}
    for op in graph.topological_order():
        preds = graph.preds[op]
        if not preds:
            best[op], came_from[op] = latency[op], None
            continue
        prev = max(preds, key=lambda p: (best[p] + delay[(p, op)], p))
        best[op], came_from[op] = best[prev] + delay[(prev, op)] + latency[op], prev
    sinks = graph.sinks
    end = max(sinks, key=lambda s: (best[s], s))
    path: list[str] = []
    node: str | None = end
    while node is not None:
        path.append(node)
        node = came_from[node]
    path.reverse()
    steps: list[PathStep] = []
    for k, op in enumerate(path):
        if k:
            steps.append(PathStep("stream", f"{path[k - 1]} -> {op}", delay[(path[k - 1], op)]))
        steps.append(PathStep("operator", op, latency[op]))
    return best[end], path, steps
