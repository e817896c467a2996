"""A path task (Asaduzzaman and Maheswaran, sec. 2.3): services t_0 -> t_1 ... -> t_m, one
instance each, and what a map of it onto the platform is, costs and uses (docs/models.md sec. 6).

A hop t_i -> t_(i+1) between different nodes travels either a simple route of dedicated
links with at most ``max_null`` forwarding-only nodes, or one opportunistic link (Alg. 3).
Maps are ranked by cost (additive over links, per byte), then as sec. 4.3 says: a lower
load-balance factor (in bands of 0.1), more hops on dedicated links, fewer on public links.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from streamplace.errors import InputError
from streamplace.model.evaluate.paths import load_balance
from streamplace.model.network import Network
from streamplace.model.shapes import why_not_chain
from streamplace.solve.placement import PlacementState
from streamplace.solve.result import Instance

MAX_NULL = 2
COST_DIGITS = 12  # costs equal to this many decimals tie
LOAD_BALANCE_BAND = 0.1


@dataclass(frozen=True)
class RouteOption:
    path: tuple[str, ...]  # () when both services share a node
    cost: float  # per byte
    dedicated: bool


@dataclass
class PathTask:
    state: PlacementState
    services: list[str]
    volume: list[float]  # bytes/s of hop i (t_i -> t_(i+1))
    max_null: int
    _routes: dict[tuple[str, str], list[RouteOption]] = field(default_factory=dict)

    @property
    def network(self) -> Network:
        return self.state.network

    def cands(self, i: int) -> list[str]:
        return self.state.cands[self.services[i]]

    def routes(self, u: str, v: str) -> list[RouteOption]:
        """Every way from ``u`` to ``v``, cheapest first."""
        if u == v:
            return [RouteOption((), 0.0, True)]
        if (u, v) not in self._routes:
            options = [RouteOption(p, c, True) for p, c in self._dedicated(u, v)]
            hop = self.network.hop(u, v)
            if hop is not None and not hop.dedicated:
                options.append(RouteOption((u, v), hop.link.cost, False))
            options.sort(key=lambda r: (r.cost, not r.dedicated, len(r.path), r.path))
            self._routes[(u, v)] = options
        return self._routes[(u, v)]

    def _dedicated(self, u: str, v: str) -> list[tuple[tuple[str, ...], float]]:
        found: list[tuple[str, ...]] = []

        def walk(path: tuple[str, ...]) -> None:
            for nb in self.network.dedicated_neighbours(path[-1]):
                if nb == v:
                    found.append((*path, nb))
                elif nb not in path and len(path) - 1 < self.max_null:
                    walk((*path, nb))

        walk((u,))
        return [(p, _route_cost(self.network, p)) for p in found]

    def cheapest(self, u: str, v: str) -> float:
        options = self.routes(u, v)
        return options[0].cost if options else math.inf


@dataclass(frozen=True)
class Map:
    nodes: tuple[str, ...]
    routes: tuple[RouteOption, ...]
    cost: float
    load_balance: float
    dedicated: int
    public: int

    def rank(self) -> tuple[float, int, int, int, float, tuple[str, ...]]:
        """Sec. 4.3's order as a total one: cost, then the load-balance factor in bands of
        0.1 (the paper's "within 0.1" is not transitive, so no best map would exist under
        it), then more dedicated hops, fewer public hops, lower balance, node names."""
        return (round(self.cost, COST_DIGITS), math.floor(self.load_balance / LOAD_BALANCE_BAND),
                -self.dedicated, self.public, self.load_balance, self.nodes)

    def better_than(self, other: Map) -> bool:
        return self.rank() < other.rank()


def build_map(task: PathTask, nodes: tuple[str, ...], routes: tuple[RouteOption, ...]) -> Map:
    cost = sum(task.volume[i] * r.cost for i, r in enumerate(routes))
    dedicated = sum(1 for r in routes if r.path and r.dedicated)
    public = sum(1 for r in routes if r.path and not r.dedicated)
    placement = {op: {u: 1} for op, u in zip(task.services, nodes, strict=True)}
    balance = load_balance(task.state.graph, task.network, placement)
    return Map(nodes, routes, cost, balance, dedicated, public)


def _route_cost(network: Network, path: tuple[str, ...]) -> float:
    route = network.route(path)
    return route.cost if route is not None else math.inf


def path_task(instance: Instance, max_null: int) -> PathTask:
    """The path task of ``instance``, or why the application is not one (exit 2)."""
    state = PlacementState.empty(instance)
    graph = state.graph
    digraph = graph.digraph
    reason = why_not_chain(graph)
    if reason is not None:
        raise InputError.single(reason, "use a placement method for DAGs (relaxation, "
                                "hill-climbing, odrp)", path="method")
    services = [graph.sources[0]]
    while digraph.out_degree(services[-1]):
        services.append(next(iter(digraph.successors(services[-1]))))
    volume = [s.bytes_per_s for s in sorted(
        graph.streams, key=lambda s: services.index(s.source))]
    for service in services:
        state.counts[service] = 1
    return PathTask(state, services, volume, max_null)


def lower_bound(task: PathTask) -> float:
    """The relaxed multi-stage shortest path of sec. 4.2: bandwidths ignored, each service on
    a node it fits on alone, each hop at its cheapest route."""
    best = {u: 0.0 for u in task.cands(0) if task.state.fits(task.services[0], u)}
    for i in range(1, len(task.services)):
        op = task.services[i]
        best = {v: min((c + task.volume[i - 1] * task.cheapest(u, v) for u, c in best.items()),
                       default=math.inf)
                for v in task.cands(i) if task.state.fits(op, v)}
    return min(best.values(), default=math.inf)
