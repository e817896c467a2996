"""Wide-area instances after Pietzuch et al. 2006's simulation (sec. 4): a transit-stub topology and
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
    """Pietzuch et al. 2006's query: ``producers`` pinned producers sending ``rate``
    bytes/s each to one unpinned aggregator (join + select, ``selectivity``:1), then a
    pinned consumer. Producers sit on distinct nodes."""
    hosts = rng.sample(nodes, producers + 1)
    ops: list[dict[str, Any]] = [{"id": f"p{k}", "candidates": [hosts[k]]}
                                 for k in range(producers)]
    ops += [{"id": "aggregator"}, {"id": "consumer", "candidates": [hosts[-1]]}]
    streams = [{"from": f"p{k}", "to": "aggregator", "rate": rate, "tuple_size": 1}
               for k in range(producers)]
    streams.append({"from": "aggregator", "to": "consumer",
                    "rate": rate * producers / selectivity, "tuple_size": 1})
    return {"name": name, "operators": ops, "streams": streams}


# -- Ecker et al., sec. 6.1: an edge/cloud switch network of Storm supervisors and random DAGs

WORKER_CAPACITY = {"large": {"cpu": 1.5, "memory": 2048.0},
                   "medium": {"cpu": 1.0, "memory": 1024.0},
                   "small": {"cpu": 0.3, "memory": 768.0}}
ECKER_SEED = 3141592653589793238  # the paper seeds Java's Random with the first 19 digits of pi


def ecker_workers(workers: int = 11, per_switch: int = 5, seed: int = 0) -> dict[str, Any]:
    """Sec. 6.1.1's switch-based network: w1 has 1.5 cores and 2048 MB, w2, w6, w7 one core
    and 1024 MB, the rest 0.3 cores and 768 MB; for more workers the pattern repeats. The
    paper gives the link latencies only in its Fig. 2: here a core switch joins access
    switches over 2-4 ms links and each worker hangs off an access switch at 1-2 ms."""
    rng = random.Random(seed)
    pattern = ["large", "medium", "small", "small", "small", "medium", "medium",
               "small", "small", "small", "small"]
    nodes: list[dict[str, Any]] = [{"id": "core", "role": "router"}]
    links: list[dict[str, Any]] = []
    switches = max(1, -(-workers // per_switch))
    for s in range(switches):
        nodes.append({"id": f"sw{s + 1}", "role": "router"})
        links.append({"from": "core", "to": f"sw{s + 1}",
                      "delay": round(rng.uniform(0.002, 0.004), 4)})
    for w in range(workers):
        kind = pattern[w % len(pattern)]
        nodes.append({"id": f"w{w + 1}", "resources": dict(WORKER_CAPACITY[kind])})
        links.append({"from": f"w{w + 1}", "to": f"sw{w // per_switch + 1}",
                      "delay": round(rng.uniform(0.001, 0.002), 4)})
    return {"name": f"storm-{workers}-workers", "routing": "shortest-path",
            "nodes": nodes, "links": links}


def ecker_topology(index: int, operations: int | None = None, cycle: bool = False,
                   parallelism: tuple[int, int] = (1, 3), rate: float = 100.0,
                   demand: dict[str, float] | None = None, duplicate: bool = True,
                   ) -> dict[str, Any]:
    """Sec. 6.1.2's random topology number ``index``: an operation count drawn from 3-24
    (or ``operations``), grown from source -> sink by replacing a random edge with one
    operation (60%) or a diamond of two (40%). Every operation has a selectivity in
    [0.5, 1.5]; Storm sends each output to every following operation, so a split
    duplicates the rate (``duplicate=False`` splits it instead, which keeps rates bounded in
    topologies far larger than the paper's). Instances per operation come from
    ``parallelism`` (source and sink one each); each instance asks ``demand`` (default
    Storm's: 10% of a core, 128 MB). ``cycle`` adds one edge back from a late operation to
    an earlier one (T-R8, T-R9)."""
    rng = random.Random(ECKER_SEED + 1000 * (index - 1))
    count = operations if operations is not None else rng.randint(3, 24)
    edges: list[tuple[str, str]] = [("source", "sink")]
    made = 0
    while made + 2 < count:
        a, b = edges.pop(rng.randrange(len(edges)))
        if rng.random() < 0.6 or made + 4 > count:
            made += 1
            op = f"op{made}"
            edges += [(a, op), (op, b)]
        else:
            left, right = f"op{made + 1}", f"op{made + 2}"
            made += 2
            edges += [(a, left), (a, right), (left, b), (right, b)]
    graph = nx.DiGraph(edges)
    order = list(nx.topological_sort(graph))
    selectivity = {op: rng.uniform(0.5, 1.5) for op in order}
    inflow: dict[str, float] = {"source": rate}
    streams = []
    for op in order:
        out = inflow.get(op, 0.0) * (selectivity[op] if op != "source" else 1.0)
        if not duplicate and graph.out_degree(op):
            out /= graph.out_degree(op)
        for nxt in sorted(graph.successors(op)):
            inflow[nxt] = inflow.get(nxt, 0.0) + out
            streams.append({"from": op, "to": nxt, "rate": round(out, 4), "tuple_size": 100})
    if cycle and len(order) > 3:
        late, early = order[-2], order[1 + rng.randrange(len(order) // 2)]
        if late != early and not graph.has_edge(late, early):
            streams.append({"from": late, "to": early, "tuple_size": 100,
                            "rate": round(inflow[late] * 0.1, 4)})
    ops = [{"id": op, "replicas": 1 if op in ("source", "sink") else rng.randint(*parallelism),
            "resources": dict(demand or {"cpu": 0.1, "memory": 128.0})} for op in order]
    return {"name": f"ecker-r{index}", "operators": ops, "streams": streams}
