"""Routes over bi-modal links (seed 003; models.md sec. 6): what a plan's routes cost and
which bandwidths they use.

Every remote replica pair of a stream travels a route: the plan's ``routes`` entry for it,
else the logical link's own path. A route is either dedicated links only (forwarding
through the nodes between) or one opportunistic hop: an explicit ``kind: opportunistic``
link, or under ``routing: mesh`` the public default link. Cost is additive over the links
used (per byte); dedicated links and the senders' Internet uplinks (node ``bandwidth``)
carry at most their bandwidth.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict

from streamplace.model.evaluate.constraints import over
from streamplace.model.evaluate.odrp import pair_traffic
from streamplace.model.evaluate.report import PathMetrics, Usage, Violation
from streamplace.model.graph import AppGraph
from streamplace.model.network import LogicalLink, Network
from streamplace.model.plan import Plan

RouteKey = tuple[str, str, str, str]  # stream source, stream target, from node, to node


def given_routes(plan: Plan) -> dict[RouteKey, tuple[str, ...]]:
    return {(r.stream[0], r.stream[1], r.source, r.target): tuple(r.path) for r in plan.routes}


def routed_links(network: Network, routes: dict[RouteKey, tuple[str, ...]],
                 ) -> dict[RouteKey, LogicalLink]:
    """Each given route as one logical link (delays and costs add, availabilities multiply),
    so every other metric of the plan follows the routes it names."""
    out: dict[RouteKey, LogicalLink] = {}
    for key, path in routes.items():
        hops = [network.hop(a, b) for a, b in itertools.pairwise(path)]
        if any(h is None for h in hops) or len(path) < 2:
            continue  # reported as a violation; metrics keep the logical link
        links = [h.link for h in hops if h is not None]
        out[key] = LogicalLink(sum(lk.delay for lk in links),
                               math.prod(lk.availability for lk in links),
                               sum(lk.cost for lk in links),
                               min(lk.bandwidth for lk in links), path)
    return out


def path_metrics(graph: AppGraph, network: Network, plan: Plan,
                 placement: dict[str, dict[str, int]],
                 ) -> tuple[PathMetrics, list[Violation]]:
    routes = given_routes(plan)
    violations: list[Violation] = []
    cost = 0.0
    dedicated_hops = public_hops = forwarding = 0
    on_link: dict[tuple[str, str], float] = defaultdict(float)
    uplink: dict[str, float] = defaultdict(float)
    for s in graph.streams:
        for (u, v), tuples in pair_traffic(s.rate, placement[s.source],
                                           placement[s.target]).items():
            if u == v:
                continue
            volume = tuples * s.tuple_size
            path = routes.get((s.source, s.target, u, v)) or network.link(u, v).path
            where = f"stream {s.source} -> {s.target} ({u} -> {v})"
            hops = [network.hop(a, b) for a, b in itertools.pairwise(path)]
            if not hops or any(h is None for h in hops):
                violations.append(Violation("route.invalid", where,
                                            f"route {' -> '.join(path)} uses a pair with no "
                                            "link"))
                continue
            known = [h for h in hops if h is not None]
            if all(h.dedicated for h in known):
                dedicated_hops += 1
                forwarding += len(known) - 1
                for a, b in itertools.pairwise(path):
                    on_link[(a, b)] += volume
            elif len(known) == 1:
                public_hops += 1
                uplink[u] += volume
            else:
                violations.append(Violation("route.mixed", where,
                                            "a route is dedicated links only or one "
                                            "opportunistic link, not a mix"))
                continue
            cost += volume * sum(h.link.cost for h in known)
    links = []
    for (a, b), used in sorted(on_link.items()):
        hop = network.hop(a, b)
        capacity = hop.link.bandwidth if hop is not None else math.inf
        links.append(Usage(f"{a} -> {b}", used, capacity))
        if over(used, capacity):
            violations.append(Violation("bandwidth", f"link {a} -> {b}",
                                        f"dedicated link {a} -> {b} carries {used:g} B/s, "
                                        f"has {capacity:g}", used - capacity))
    uplinks = []
    for u, used in sorted(uplink.items()):
        capacity = network.nodes[u].bandwidth
        uplinks.append(Usage(u, used, capacity))
        if over(used, capacity):
            violations.append(Violation("uplink", f"node {u}",
                                        f"{u} sends {used:g} B/s over the Internet, its "
                                        f"uplink has {capacity:g}", used - capacity))
    return PathMetrics(cost, load_balance(graph, network, placement), dedicated_hops, public_hops,
                       forwarding, links, uplinks), violations


def load_balance(graph: AppGraph, network: Network,
                 placement: dict[str, dict[str, int]]) -> float:
    """Mean load factor of the nodes used (sec. 4.3): their current ``load`` plus the share
    of their scarcest resource the plan takes."""
    use: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for op in graph.app.operators:
        for u, c in placement[op.id].items():
            use[u]["__used"] += c
            for dim, amount in op.resources.items():
                use[u][dim] += amount * c
    if not use:
        return 0.0
    return sum(node_load(network, u, use[u]) for u in sorted(use)) / len(use)


def node_load(network: Network, u: str, use: dict[str, float]) -> float:
    node = network.nodes[u]
    shares = [use.get(dim, 0.0) / cap for dim, cap in (node.resources or {}).items()
              if cap > 0 and math.isfinite(cap)]
    return min(1.0, node.load + max(shares, default=0.0))
