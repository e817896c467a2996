"""Routes over bi-modal links (Asaduzzaman and Maheswaran; docs/models.md sec. 6): what a
plan's routes cost and which bandwidths they use.

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
from streamplace.model.evaluate.report import PathMetrics, Subject, Usage, Violation
from streamplace.model.graph import AppGraph
from streamplace.model.links import LogicalLink
from streamplace.model.network import Network
from streamplace.model.plan import Plan

RouteKey = tuple[str, str, str, str]  # stream source, stream target, from node, to node


def routed_links(network: Network, plan: Plan) -> dict[RouteKey, LogicalLink]:
    """The plan's routes as logical links, so every metric follows the routes it names. A
    route that does not join its ends over links is reported by the constraint checks and
    left out here: its pair keeps the logical link."""
    out: dict[RouteKey, LogicalLink] = {}
    for r in plan.routes:
        link = network.route(r.path)
        if link is not None and (r.path[0], r.path[-1]) == (r.source, r.target):
            out[(r.stream[0], r.stream[1], r.source, r.target)] = link
    return out


def path_metrics(graph: AppGraph, network: Network, routed: dict[RouteKey, LogicalLink],
                 placement: dict[str, dict[str, int]],
                 ) -> tuple[PathMetrics, list[Violation]]:
    """Cost, hops and bandwidth use of every remote replica pair's route (the plan's, else
    the logical link's); routes without links are the constraint checks' to report."""
    violations: list[Violation] = []
    cost = 0.0
    dedicated_hops = public_hops = forwarding = 0
    on_link: dict[tuple[str, str], float] = defaultdict(float)
    uplink: dict[str, float] = defaultdict(float)
    for s in graph.streams:
        for (u, v), tuples in pair_traffic(s.rate, placement[s.source],
                                           placement[s.target]).items():
            route = routed.get((s.source, s.target, u, v)) or network.route(
                network.link(u, v).path)
            if u == v or route is None:
                continue
            volume = tuples * s.tuple_size
            hops = [network.hop(a, b) for a, b in itertools.pairwise(route.path)]
            if all(h is not None and h.dedicated for h in hops):
                dedicated_hops += 1
                forwarding += len(hops) - 1
                for pair in itertools.pairwise(route.path):
                    on_link[pair] += volume
            elif len(hops) == 1:
                public_hops += 1
                uplink[u] += volume
            else:
                violations.append(Violation(
                    "route.mixed", Subject("stream", (s.source, s.target)),
                    f"the route {u} -> {v} mixes kinds: a route is dedicated links only or "
                    "one opportunistic link"))
                continue
            cost += volume * route.cost
    links = []
    for (a, b), used in sorted(on_link.items()):
        hop = network.hop(a, b)
        capacity = hop.link.bandwidth if hop is not None else math.inf
        links.append(Usage(Subject("link", (a, b)), used, capacity))
        if over(used, capacity):
            violations.append(Violation("bandwidth", Subject("link", (a, b)),
                                        f"dedicated link {a} -> {b} carries {used:g} B/s, "
                                        f"has {capacity:g}{network.infra.holds.on_link(a, b)}",
                                        used - capacity))
    uplinks = []
    for u, used in sorted(uplink.items()):
        capacity = network.nodes[u].bandwidth
        uplinks.append(Usage(Subject("node", (u,)), used, capacity))
        if over(used, capacity):
            violations.append(Violation("uplink", Subject("node", (u,)),
                                        f"{u} sends {used:g} B/s over the Internet, its "
                                        f"uplink has {capacity:g}", used - capacity))
    return PathMetrics(cost, load_balance(graph, network, placement), dedicated_hops,
                       public_hops, forwarding, links, uplinks), violations


def load_balance(graph: AppGraph, network: Network,
                 placement: dict[str, dict[str, int]]) -> float:
    """Mean load factor of the nodes used (sec. 4.3): their current ``load`` plus the share
    of their scarcest resource the plan takes."""
    used = sorted({u for reps in placement.values() for u in reps})
    if not used:
        return 0.0
    use: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for op in graph.app.operators:
        for u, c in placement[op.id].items():
            for dim, amount in op.resources.items():
                use[u][dim] += amount * c
    return sum(node_load(network, u, use[u]) for u in used) / len(used)


def node_load(network: Network, u: str, use: dict[str, float]) -> float:
    node = network.nodes[u]
    shares = [use.get(dim, 0.0) / cap for dim, cap in (node.resources or {}).items()
              if cap > 0 and math.isfinite(cap)]
    return min(1.0, node.load + max(shares, default=0.0))
