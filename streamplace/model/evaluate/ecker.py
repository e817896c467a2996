"""The latency-aware score s(x) of Ecker et al. (eq. 1; docs/models.md sec. 4), minimised.

s = w1 s_lat + w2 s_sup + w3 s_co + w4 s_event over the instance-level topology, where
every replica of i sends to every replica of j. s_lat follows the paper's recursion
s_lat(o) = max_p (s_lat(p) + l_(p,o)) over instances, so consecutive edges share the replica
in between; the headroom constraint keeps every resource dimension at most 95% used.
"""

from __future__ import annotations

import math
from collections import defaultdict

from streamplace.model.evaluate.constraints import over
from streamplace.model.evaluate.odrp import pair_traffic
from streamplace.model.evaluate.report import EckerScore, Subject, Violation
from streamplace.model.graph import AppGraph
from streamplace.model.network import Network

DEFAULT_WEIGHTS = (1e-6, 1.0, 1.0, 1.0)
HEADROOM = 0.95


def ecker_score(graph: AppGraph, network: Network, placement: dict[str, dict[str, int]],
                weights: tuple[float, float, float, float] = DEFAULT_WEIGHTS,
                ) -> tuple[EckerScore, list[Violation]]:
    lat: dict[tuple[str, str], float] = {}
    for op in graph.topological_order():
        for u in placement[op]:
            preds = graph.preds[op]
            lat[(op, u)] = max((lat[(p, v)] + network.delay(v, u)
                                for p in preds for v in placement[p]), default=0.0)
    s_lat = max((lat[(s, u)] for s in graph.sinks for u in placement[s]), default=0.0)
    used = {u for reps in placement.values() for u in reps}
    s_sup = len(used) / max(1, len(network.processors))
    edges = remote_edges = 0
    events = remote_events = 0.0
    for s in graph.streams:
        up, down = placement[s.source], placement[s.target]
        edges += sum(up.values()) * sum(down.values())
        remote_edges += sum(cu * cv for u, cu in up.items() for v, cv in down.items() if u != v)
        for (u, v), tuples in pair_traffic(s.rate, up, down).items():
            events += tuples
            remote_events += tuples if u != v else 0.0
    s_co = remote_edges / edges if edges else 0.0
    s_event = remote_events / events if events else 0.0

    violations: list[Violation] = []
    use: dict[tuple[str, str], float] = defaultdict(float)
    for operator in graph.app.operators:
        for u, c in placement[operator.id].items():
            for dim, amount in operator.resources.items():
                use[(u, dim)] += amount * c
    for (u, dim), amount in sorted(use.items()):
        resources = network.nodes[u].resources
        capacity = math.inf if resources is None else resources.get(dim, math.inf)
        if over(amount, HEADROOM * capacity):
            violations.append(Violation("ecker.headroom", Subject("node", (u,)),
                                        f"{u} uses {amount:g} of {capacity:g} {dim}, over 95%",
                                        amount - HEADROOM * capacity))
    w1, w2, w3, w4 = weights
    score = w1 * s_lat + w2 * s_sup + w3 * s_co + w4 * s_event
    return EckerScore(score, s_lat, s_sup, s_co, s_event, weights, len(violations)), violations
