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
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from streamplace.model.infrastructure import Infrastructure, Link
from streamplace.model.links import (
    PERFECT,
    UNREACHABLE,
    UNREACHED,
    Hop,
    LogicalLink,
    PlatformNode,
    Reach,
    chain,
    reach,
)
from streamplace.model.plan import Purchase

if TYPE_CHECKING:
    import networkx as nx

T = TypeVar("T")


@dataclass
class Network:
    """Nodes of an infrastructure (plus bought processors) and their logical links."""

    infra: Infrastructure
    purchased: tuple[Purchase, ...] = ()
    _explicit: dict[tuple[str, str], Link] = field(default_factory=dict, repr=False)
    # the one memo of everything derived (links, routes, delay tables, the graph, and what
    # other modules derive through cached(), like a cost space): a network never changes
    _memo: dict[Hashable, Any] = field(default_factory=dict, repr=False)

    @classmethod
    def of(cls, infra: Infrastructure) -> Network:
        """The network of ``infra`` without purchases, made once per infrastructure object
        (which never changes once read), so searches are paid once, not once per call."""
        return infra.derived(cls.__name__, lambda: cls(infra))

    def cached(self, key: Hashable, build: Callable[[], T]) -> T:
        """``build()``, computed once per network for ``key``."""
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]  # type: ignore[no-any-return]

    def __post_init__(self) -> None:
        self._bought = frozenset(p.id for p in self.purchased)
        for link in self.infra.links:
            self._explicit[(link.source, link.target)] = link
            if link.bidirectional:
                self._explicit.setdefault((link.target, link.source), link)

    @property
    def nodes(self) -> dict[str, PlatformNode]:
        return self.cached("nodes", self._nodes)

    def _nodes(self) -> dict[str, PlatformNode]:
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
        key = ("link", u, v)
        found = self._memo.get(key)
        if found is None:
            found = self._memo[key] = self._link(u, v)
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

    @property
    def _graph(self) -> nx.DiGraph:
        return self.cached("graph", self._build_graph)

    def _build_graph(self) -> nx.DiGraph:
        graph = _networkx().DiGraph()
        graph.add_nodes_from(n.id for n in self.infra.nodes)
        for (u, v), link in self._explicit.items():
            graph.add_edge(u, v, link=self._resolve(link, (u, v)))
        return graph

    def _routed_from(self, source: str) -> dict[str, list[str]]:
        """Shortest-delay routes from ``source``; a pair's attributes are combined along its
        route only when asked for (most pairs never are)."""
        def search() -> dict[str, list[str]]:
            paths: dict[str, list[str]] = _networkx().single_source_dijkstra(self._graph, source,
                                                                    weight=_delay)[1]
            return paths

        return self.cached(("routes", source), search)

    def _combine(self, path: list[str]) -> LogicalLink:
        return chain([self._graph.edges[a, b]["link"] for a, b in itertools.pairwise(path)],
                      tuple(path))

    def route(self, path: Sequence[str]) -> LogicalLink | None:
        """A route over physical hops (:meth:`hop`) as one logical link; None when the path
        has fewer than two nodes or a hop with no link."""
        hops = [self.hop(a, b) for a, b in itertools.pairwise(path)]
        if not hops or any(h is None for h in hops):
            return None
        return chain([h.link for h in hops if h is not None], tuple(path))

    def reach_from(self, source: str, targets: list[str]) -> dict[str, Reach]:
        """Delay, availability and cost from ``source`` to each of ``targets``, equal to
        :meth:`link`'s, without building route objects.

        Routed networks combine attributes once along the tree of routes out of ``source``
        (a node's values are its parent's plus one hop, summed in route order as
        :meth:`link` sums them), instead of once per route.
        """
        if not self._routed(source) or len(targets) < 2:
            return {v: reach(self.link(source, v)) for v in targets}
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
        return {v: table.get(v, UNREACHED) for v in targets}

    def reach_to(self, target: str, sources: list[str]) -> dict[str, Reach]:
        """Delay, availability and cost from each of ``sources`` to ``target``.

        Routed networks answer with one search on the reversed graph. Among equally short
        routes that search may pick another than :meth:`link` would, and sums run in
        another order, so only summaries (bounds) use it; a plan's metrics always come
        from :meth:`link`.
        """
        if not self._routed(target) or len(sources) < 2:
            return {u: reach(self.link(u, target)) for u in sources}
        _, paths = _networkx().single_source_dijkstra(self._graph.reverse(copy=False), target,
                                             weight=_delay)
        table = {target: Reach(0.0, 1.0, 0.0)}
        for u in sorted(paths, key=lambda n: len(paths[n])):
            if u == target:
                continue
            hop, rest = self._graph.edges[u, paths[u][-2]]["link"], table[paths[u][-2]]
            table[u] = Reach(hop.delay + rest.delay, hop.availability * rest.availability,
                             hop.cost + rest.cost)
        return {u: table.get(u, UNREACHED) for u in sources}

    def delays_from(self, source: str) -> dict[str, float]:
        """Delay from ``source`` to every node it reaches (itself included, at 0)."""
        def table() -> dict[str, float]:
            if self._routed(source):
                found = _networkx().single_source_dijkstra_path_length(
                    self._graph, source, weight=_delay)
            else:
                found = {v: self.link(source, v).delay for v in self.nodes}
            return {v: float(d) for v, d in found.items()}

        return self.cached(("delays from", source), table)

    def delays_to(self, target: str) -> dict[str, float]:
        """Delay from every node that reaches ``target`` to it (one reversed search)."""
        def table() -> dict[str, float]:
            if self._routed(target):
                found = _networkx().single_source_dijkstra_path_length(
                    self._graph.reverse(copy=False), target, weight=_delay)
            else:
                found = {u: self.link(u, target).delay for u in self.nodes}
            return {u: float(d) for u, d in found.items()}

        return self.cached(("delays to", target), table)

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
        return self.cached("dedicated", self._dedicated).get(u, [])

    def _dedicated(self) -> dict[str, list[str]]:
        out: dict[str, list[str]] = {}
        for (a, b), link in sorted(self._explicit.items()):
            if link.kind == "dedicated":
                out.setdefault(a, []).append(b)
        return out


def _delay(u: str, v: str, data: dict[str, LogicalLink]) -> float:
    return data["link"].delay


def _networkx() -> Any:
    """networkx, imported when a routed network first needs it (it takes a tenth of a
    second to import, more than solving a small instance)."""
    import networkx

    return networkx
