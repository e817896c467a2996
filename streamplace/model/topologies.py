"""Wide-area instances after seed 002's simulation (sec. 4): a transit-stub topology and
aggregation queries.

The paper used the Georgia Tech generator (GT-ITM): 10 transit domains of 5 nodes, 150 stub
domains of about 10 nodes, 1,550 nodes, an 878 ms diameter. Here networkx builds the same
shape: each domain is a connected random graph; transit domains are joined to each other,
every stub domain hangs off one transit node (sometimes two). Delays grow from stub to
transit to inter-domain links, and routing is shortest-delay.
"""

from __future__ import annotations

import random
from typing import Any

import networkx as nx

STUB_DELAY = (0.001, 0.008)
STUB_UPLINK_DELAY = (0.005, 0.030)
TRANSIT_DELAY = (0.010, 0.040)
INTER_TRANSIT_DELAY = (0.040, 0.120)


def transit_stub(seed: int = 0, transit_domains: int = 10, transit_size: int = 5,
                 stub_domains: int = 150, stub_size: int = 10) -> dict[str, Any]:
    """An infrastructure document (``routing: shortest-path``), every node a processor.

    >>> doc = transit_stub()
    >>> len(doc["nodes"]), doc["routing"]
    (1550, 'shortest-path')
    """
    rng = random.Random(seed)
    graph: nx.Graph = nx.Graph()
    transit: list[list[str]] = []
    for d in range(transit_domains):
        names = [f"t{d}.{k}" for k in range(transit_size)]
        _connected(graph, names, 0.6, TRANSIT_DELAY, rng)
        transit.append(names)
    domains = [rng.choice(t) for t in transit]  # inter-domain: a ring plus random chords
    for d in range(transit_domains):
        _link(graph, rng.choice(transit[d]), rng.choice(transit[(d + 1) % transit_domains]),
              INTER_TRANSIT_DELAY, rng)
    for _ in range(transit_domains):
        a, b = rng.sample(domains, 2)
        _link(graph, a, b, INTER_TRANSIT_DELAY, rng)
    all_transit = [u for t in transit for u in t]
    sizes = _stub_sizes(stub_domains, stub_size, rng)
    for s, size in enumerate(sizes):
        names = [f"s{s}.{k}" for k in range(size)]
        _connected(graph, names, 0.3, STUB_DELAY, rng)
        _link(graph, names[0], rng.choice(all_transit), STUB_UPLINK_DELAY, rng)
        if rng.random() < 0.1:  # a few multi-homed stubs
            _link(graph, rng.choice(names), rng.choice(all_transit), STUB_UPLINK_DELAY, rng)
    nodes = [{"id": u} for u in sorted(graph.nodes)]
    links = [{"from": a, "to": b, "delay": d["delay"]}
             for a, b, d in sorted(graph.edges(data=True))]
    return {"name": f"transit-stub-{len(nodes)}", "routing": "shortest-path",
            "nodes": nodes, "links": links}


def _stub_sizes(count: int, mean: int, rng: random.Random) -> list[int]:
    """``count`` sizes around ``mean`` that sum to exactly count * mean."""
    sizes = [mean] * count
    for _ in range(count):
        a, b = rng.randrange(count), rng.randrange(count)
        shift = rng.randint(0, 3)
        if sizes[a] - shift >= 3:
            sizes[a] -= shift
            sizes[b] += shift
    return sizes


def _connected(graph: nx.Graph, names: list[str], p: float, delay: tuple[float, float],
               rng: random.Random) -> None:
    graph.add_nodes_from(names)
    for k in range(1, len(names)):  # a random spanning tree keeps the domain connected
        _link(graph, names[k], names[rng.randrange(k)], delay, rng)
    for a in range(len(names)):
        for b in range(a + 1, len(names)):
            if rng.random() < p / len(names) * 2:
                _link(graph, names[a], names[b], delay, rng)


def _link(graph: nx.Graph, a: str, b: str, delay: tuple[float, float],
          rng: random.Random) -> None:
    if a != b and not graph.has_edge(a, b):
        graph.add_edge(a, b, delay=round(rng.uniform(*delay), 6))


def aggregation_query(nodes: list[str], rng: random.Random, name: str = "query",
                      producers: int = 4, rate: float = 2000.0,
                      selectivity: float = 8.0) -> dict[str, Any]:
    """Seed 002's query: ``producers`` pinned producers sending ``rate`` bytes/s each to one
    unpinned aggregator (join + select, ``selectivity``:1), then a pinned consumer. Producers
    sit on distinct nodes."""
    hosts = rng.sample(nodes, producers + 1)
    ops: list[dict[str, Any]] = [{"id": f"p{k}", "candidates": [hosts[k]]}
                                 for k in range(producers)]
    ops += [{"id": "aggregator"}, {"id": "consumer", "candidates": [hosts[-1]]}]
    streams = [{"from": f"p{k}", "to": "aggregator", "rate": rate, "tuple_size": 1}
               for k in range(producers)]
    streams.append({"from": "aggregator", "to": "consumer",
                    "rate": rate * producers / selectivity, "tuple_size": 1})
    return {"name": name, "operators": ops, "streams": streams}
