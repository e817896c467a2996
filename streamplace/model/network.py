"""The logical network: delay, availability, cost and bandwidth for every ordered node pair.

``routing: mesh`` uses the explicit link of a pair, else ``defaults.link``.
``routing: shortest-path`` routes every pair over the explicit links (minimum delay, networkx
Dijkstra): delays and costs add, availabilities multiply, bandwidth is the bottleneck.
A node talking to itself uses a perfect link. Processors bought from the catalog connect to
every other node through ``defaults.link`` (docs/formats.md).

Large routed infrastructures (thousands of nodes) are served by delay tables: one Dijkstra
per source (``delays_from``) or per target on the reversed graph (``delays_to``), so a method
that asks "how far is every node from this producer" pays one search, not one per pair.
"""

from __future__ import annotations

import itertools
import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

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


@dataclass(frozen=True)
class Hop:
    """One physical hop of a route: an explicit link, or the mesh's default (public) link."""

    link: LogicalLink
    dedicated: bool


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
    load: float = 0.0


@dataclass
class Network:
    """Nodes of an infrastructure (plus bought processors) and their logical links."""

    infra: Infrastructure
    purchased: tuple[Purchase, ...] = ()
    _explicit: dict[tuple[str, str], Link] = field(default_factory=dict, repr=False)
    _routes: dict[str, dict[str, list[str]]] = field(default_factory=dict, repr=False)
    _links: dict[tuple[str, str], LogicalLink] = field(default_factory=dict, repr=False)
    memo: dict[object, object] = field(default_factory=dict, repr=False)  # derived structures

    @classmethod
    def of(cls, infra: Infrastructure) -> Network:
        """The shared network of ``infra`` (no purchases), so searches are paid once per
        infrastructure, not once per call. Loaded infrastructures are never mutated."""
        key = id(infra)
        hit = _SHARED.get(key)
        if hit is not None and hit[0] is infra:
            _SHARED.move_to_end(key)
            return hit[1]
        network = cls(infra)
        _SHARED[key] = (infra, network)
        while len(_SHARED) > _SHARED_SIZE:
            _SHARED.popitem(last=False)
        return network

    def __post_init__(self) -> None:
        self._delays_from: dict[str, dict[str, float]] = {}
        self._delays_to: dict[str, dict[str, float]] = {}
        self._bought = frozenset(p.id for p in self.purchased)
        for link in self.infra.links:
            self._explicit[(link.source, link.target)] = link
            if link.bidirectional:
                self._explicit.setdefault((link.target, link.source), link)

    @cached_property
    def nodes(self) -> dict[str, PlatformNode]:
        out = {n.id: PlatformNode(n.id, n.role, n.resources, n.speedup, n.availability, n.cost,
                                  n.speed, n.bandwidth, tuple(n.objects), load=n.load)
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
        path = self._routed_from(u).get(v)
        return self._combine(path) if path is not None else UNREACHABLE

    def delay(self, u: str, v: str) -> float:
        if u == v:
            return 0.0
        if self._routed(u) and v not in self._bought:
            return self.delays_from(u).get(v, math.inf)  # no route objects for a delay
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

    def _routed_from(self, source: str) -> dict[str, list[str]]:
        """Shortest-delay routes from ``source``; a pair's attributes are combined along its
        route only when asked for (most pairs never are)."""
        if source not in self._routes:
            _, paths = nx.single_source_dijkstra(self._graph, source, weight=_delay)
            self._routes[source] = paths
        return self._routes[source]

    def _combine(self, path: list[str]) -> LogicalLink:
        return _chain([self._graph.edges[a, b]["link"] for a, b in itertools.pairwise(path)],
                      tuple(path))

    def route(self, path: Sequence[str]) -> LogicalLink | None:
        """A route over physical hops (:meth:`hop`) as one logical link; None when the path
        has fewer than two nodes or a hop with no link."""
        hops = [self.hop(a, b) for a, b in itertools.pairwise(path)]
        if not hops or any(h is None for h in hops):
            return None
        return _chain([h.link for h in hops if h is not None], tuple(path))

    def reach_from(self, source: str, targets: list[str]) -> dict[str, Reach]:
        """Delay, availability and cost from ``source`` to each of ``targets``, equal to
        :meth:`link`'s, without building route objects.

        Routed networks combine attributes once along the tree of routes out of ``source``
        (a node's values are its parent's plus one hop, summed in route order as
        :meth:`link` sums them), instead of once per route.
        """
        if not self._routed(source) or len(targets) < 2:
            return {v: _reach(self.link(source, v)) for v in targets}
        paths = self._routed_from(source)
        table = {source: Reach(0.0, 1.0, 0.0)}
        for v in sorted(paths, key=lambda n: len(paths[n])):
            if v == source:
                continue
            prev = paths[v][-2]
            hop = self._graph.edges[prev, v]["link"]
            if prev == source:
                table[v] = Reach(hop.delay, hop.availability, hop.cost)
            else:
                head = table[prev]
                table[v] = Reach(head.delay + hop.delay, head.availability * hop.availability,
                                 head.cost + hop.cost)
        return {v: table.get(v, _UNREACHED) for v in targets}

    def reach_to(self, target: str, sources: list[str]) -> dict[str, Reach]:
        """Delay, availability and cost from each of ``sources`` to ``target``.

        Routed networks answer with one search on the reversed graph. Among equally short
        routes that search may pick another than :meth:`link` would, and sums run in
        another order, so only summaries (bounds) use it; a plan's metrics always come
        from :meth:`link`.
        """
        if not self._routed(target) or len(sources) < 2:
            return {u: _reach(self.link(u, target)) for u in sources}
        _, paths = nx.single_source_dijkstra(self._graph.reverse(copy=False), target,
                                             weight=_delay)
        table = {target: Reach(0.0, 1.0, 0.0)}
        for u in sorted(paths, key=lambda n: len(paths[n])):
            if u == target:
                continue
            hop, rest = self._graph.edges[u, paths[u][-2]]["link"], table[paths[u][-2]]
            table[u] = Reach(hop.delay + rest.delay, hop.availability * rest.availability,
                             hop.cost + rest.cost)
        return {u: table.get(u, _UNREACHED) for u in sources}

    def delays_from(self, source: str) -> dict[str, float]:
        """Delay from ``source`` to every node it reaches (itself included, at 0)."""
        if source not in self._delays_from:
            if self._routed(source):
                table = nx.single_source_dijkstra_path_length(self._graph, source,
                                                              weight=_delay)
            else:
                table = {v: self.link(source, v).delay for v in self.nodes}
            self._delays_from[source] = {v: float(d) for v, d in table.items()}
        return self._delays_from[source]

    def delays_to(self, target: str) -> dict[str, float]:
        """Delay from every node that reaches ``target`` to it (one reversed search)."""
        if target not in self._delays_to:
            if self._routed(target):
                table = nx.single_source_dijkstra_path_length(self._graph.reverse(copy=False),
                                                              target, weight=_delay)
            else:
                table = {u: self.link(u, target).delay for u in self.nodes}
            self._delays_to[target] = {u: float(d) for u, d in table.items()}
        return self._delays_to[target]

    def _routed(self, node: str) -> bool:
        return self.infra.routing == "shortest-path" and node not in self._bought

    def hop(self, u: str, v: str) -> Hop | None:
        """The physical hop ``u -> v`` a route may take: an explicit link (dedicated unless
        its ``kind`` is opportunistic), else under ``mesh`` the public default link."""
        explicit = self._explicit.get((u, v))
        if explicit is not None:
            return Hop(self._resolve(explicit, (u, v)), explicit.kind == "dedicated")
        if self.infra.routing == "mesh" or u in self._bought or v in self._bought:
            return Hop(self._defaults((u, v)), False)
        return None

    def dedicated_neighbours(self, u: str) -> list[str]:
        return self._dedicated.get(u, [])

    @cached_property
    def _dedicated(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for (a, b), link in sorted(self._explicit.items()):
            if link.kind == "dedicated":
                out.setdefault(a, []).append(b)
        return out


def _chain(hops: list[LogicalLink], path: tuple[str, ...]) -> LogicalLink:
    """Links in series: delays and costs add, availabilities multiply, the narrowest
    bandwidth carries."""
    return LogicalLink(
        delay=sum(h.delay for h in hops),
        availability=math.prod(h.availability for h in hops),
        cost=sum(h.cost for h in hops),
        bandwidth=min(h.bandwidth for h in hops),
        path=path,
    )


class Reach(NamedTuple):
    """What a summary needs of a logical link."""

    delay: float
    availability: float
    cost: float


_UNREACHED = Reach(math.inf, 0.0, math.inf)


def _reach(link: LogicalLink) -> Reach:
    return Reach(link.delay, link.availability, link.cost)


def _delay(u: str, v: str, data: dict[str, LogicalLink]) -> float:
    return data["link"].delay


_SHARED: OrderedDict[int, tuple[Infrastructure, Network]] = OrderedDict()
_SHARED_SIZE = 8
