"""The logical network: delay, availability, cost and bandwidth for every ordered node pair.

``routing: mesh`` uses the explicit link of a pair, else ``defaults.link``.
``routing: shortest-path`` routes every pair over the explicit links (minimum delay, networkx
Dijkstra): delays and costs add, availabilities multiply, bandwidth is the bottleneck.
A node talking to itself uses a perfect link. Processors bought from the catalog connect to
every other node through ``defaults.link`` (formats.md).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx

from streamplace.model.infrastructure import Infrastructure, Link
from streamplace.model.plan import Purchase


@dataclass(frozen=True)
class LogicalLink:
    delay: float
    availability: float
    cost: float
    bandwidth: float
    path: tuple[str, ...]

    @property
    def reachable(self) -> bool:
        return math.isfinite(self.delay)


PERFECT = LogicalLink(0.0, 1.0, 0.0, math.inf, ())
UNREACHABLE = LogicalLink(math.inf, 0.0, math.inf, 0.0, ())


@dataclass(frozen=True)
class PlatformNode:
    """A node as the evaluator sees it: an infrastructure node or a bought processor."""

    id: str
    role: str
    resources: dict[str, float] | None
    speedup: float
    availability: float
    cost: float
    speed: float
    bandwidth: float
    objects: tuple[str, ...]
    purchased_class: str | None = None


@dataclass
class Network:
    """Nodes of an infrastructure (plus bought processors) and their logical links."""

    infra: Infrastructure
    purchased: tuple[Purchase, ...] = ()
    _explicit: dict[tuple[str, str], Link] = field(default_factory=dict, repr=False)
    _routes: dict[str, dict[str, LogicalLink]] = field(default_factory=dict, repr=False)
    _links: dict[tuple[str, str], LogicalLink] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._bought = frozenset(p.id for p in self.purchased)
        for link in self.infra.links:
            self._explicit[(link.source, link.target)] = link
            if link.bidirectional:
                self._explicit.setdefault((link.target, link.source), link)

    @cached_property
    def nodes(self) -> dict[str, PlatformNode]:
        out = {n.id: PlatformNode(n.id, n.role, n.resources, n.speedup, n.availability, n.cost,
                                  n.speed, n.bandwidth, tuple(n.objects))
               for n in self.infra.nodes}
        for p in self.purchased:
            c = self.infra.processor_class(p.class_)
            out[p.id] = PlatformNode(p.id, "processor", c.resources, c.speedup, c.availability,
                                     c.cost, c.speed, c.bandwidth, (), purchased_class=c.id)
        return out

    @property
    def processors(self) -> list[str]:
        return [n.id for n in self.nodes.values() if n.role == "processor"]

    @property
    def servers(self) -> list[str]:
        return [n.id for n in self.nodes.values() if n.role == "server"]

    def link(self, u: str, v: str) -> LogicalLink:
        """The logical link from ``u`` to ``v`` (memoised: solvers ask for it often)."""
        if u == v:
            return PERFECT
        found = self._links.get((u, v))
        if found is None:
            found = self._links[(u, v)] = self._link(u, v)
        return found

    def _link(self, u: str, v: str) -> LogicalLink:
        if u in self._bought or v in self._bought:
            return self._defaults((u, v))
        if self.infra.routing == "mesh":
            link = self._explicit.get((u, v))
            return self._resolve(link, (u, v)) if link else self._defaults((u, v))
        return self._routed_from(u).get(v, UNREACHABLE)

    def delay(self, u: str, v: str) -> float:
        return self.link(u, v).delay

    def _defaults(self, pair: tuple[str, str]) -> LogicalLink:
        d = self.infra.defaults.link
        return LogicalLink(d.delay, d.availability, d.cost, d.bandwidth, pair)

    def _resolve(self, link: Link, pair: tuple[str, str]) -> LogicalLink:
        d = self.infra.defaults.link
        return LogicalLink(
            link.delay if link.delay is not None else d.delay,
            link.availability if link.availability is not None else d.availability,
            link.cost if link.cost is not None else d.cost,
            link.bandwidth if link.bandwidth is not None else d.bandwidth,
            pair,
        )

    @cached_property
    def _graph(self) -> nx.DiGraph:
        graph = nx.DiGraph()
        graph.add_nodes_from(n.id for n in self.infra.nodes)
        for (u, v), link in self._explicit.items():
            graph.add_edge(u, v, link=self._resolve(link, (u, v)))
        return graph

    def _routed_from(self, source: str) -> dict[str, LogicalLink]:
        """Shortest-delay routes from ``source``; attributes combined along each route."""
        if source not in self._routes:
            graph = self._graph
            _, paths = nx.single_source_dijkstra(
                graph, source, weight=lambda u, v, d: d["link"].delay)
            table: dict[str, LogicalLink] = {}
            for target, path in paths.items():
                if target == source:
                    continue
                hops = [graph.edges[a, b]["link"] for a, b in itertools.pairwise(path)]
                table[target] = LogicalLink(
                    delay=sum(h.delay for h in hops),
                    availability=math.prod(h.availability for h in hops),
                    cost=sum(h.cost for h in hops),
                    bandwidth=min(h.bandwidth for h in hops),
                    path=tuple(path),
                )
            self._routes[source] = table
        return self._routes[source]
