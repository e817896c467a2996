"""Random ODRP instances for the benchmarks: a layered DAG on a geographic-like cluster.

Nodes sit at random points; delays grow with distance (2-40 ms); each node has 4-8 slots.
The DAG has pinned sources and sinks and layers of 1-3 operators between them, every
operator replicable up to k, with M/M/1 service rates chosen so that some need replicas.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

from streamplace.io.readers import build_document
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.source import SourceMap


def cluster(n_nodes: int, seed: int) -> dict[str, Any]:
    rng = random.Random(seed)
    points = [(rng.random(), rng.random()) for _ in range(n_nodes)]
    nodes = [{"id": f"n{u}", "resources": rng.choice([4, 6, 8]),
              "availability": rng.choice([0.995, 0.999, 1.0])} for u in range(n_nodes)]
    links = []
    for u in range(n_nodes):
        for v in range(u + 1, n_nodes):
            distance = math.dist(points[u], points[v])
            links.append({"from": f"n{u}", "to": f"n{v}",
                          "delay": round(0.002 + 0.038 * distance / math.sqrt(2), 5)})
    return {"name": f"cluster-{n_nodes}", "nodes": nodes, "links": links}


def layered(n_ops: int, k: int, seed: int, *, sources: dict[str, list[str]],
            sinks: dict[str, list[str]], heterogeneous: bool = False,
            rate: float = 80.0) -> dict[str, Any]:
    """A layered DAG: the pinned ``sources`` and ``sinks`` (id: candidate nodes) and layers
    of 1-3 operators between them, every operator replicable up to k and feeding the next
    layer, every sink fed. ``heterogeneous``: tuples of 100-1000 B (else 100 B), operators
    of one or two slots at costs 1-3 (else one at cost 1)."""
    rng = random.Random(seed)
    ops: list[dict[str, Any]] = [{"id": name, "service_rate": 4 * rate, "candidates": where}
                                 for name, where in sources.items()]
    layers: list[list[str]] = [list(sources)]
    inner = n_ops - len(sources) - len(sinks)
    made = 0
    while made < inner:
        width = min(rng.choice([1, 1, 2, 3]), inner - made)
        layer = []
        for _ in range(width):
            op: dict[str, Any] = {"id": f"op{made + len(sources)}",
                                  "service_rate": round(rng.uniform(0.6, 2.5) * rate, 1),
                                  "max_replicas": k}
            if heterogeneous:
                op["resources"] = rng.choice([1, 1, 2])
                op["cost"] = rng.choice([1, 2, 3])
            ops.append(op)
            layer.append(op["id"])
            made += 1
        layers.append(layer)
    ops += [{"id": name, "service_rate": 3 * rate, "candidates": where}
            for name, where in sinks.items()]
    layers.append(list(sinks))

    def size() -> int:
        return rng.choice([100, 250, 500, 1000]) if heterogeneous else 100

    streams: list[dict[str, Any]] = []
    for upper, lower in itertools.pairwise(layers):
        for target in lower:
            froms = rng.sample(upper, k=min(len(upper), rng.choice([1, 2])))
            streams += [{"from": f, "to": target, "rate": round(rate / len(froms), 2),
                         "tuple_size": size()} for f in froms]
        for source in upper:  # every operator feeds the next layer
            if not any(s["from"] == source for s in streams):
                streams.append({"from": source, "to": rng.choice(lower), "rate": rate,
                                "tuple_size": size()})
    return {"name": f"dag-{n_ops}-k{k}", "operators": ops, "streams": streams}


def dag(n_ops: int, k: int, seed: int, rate: float = 80.0) -> dict[str, Any]:
    """:func:`layered` with one source and one sink, both pinned to n0."""
    return layered(n_ops, k, seed, sources={"source": ["n0"]}, sinks={"sink": ["n0"]},
                   rate=rate)


def build(app: dict[str, Any], infra: dict[str, Any]) -> tuple[Application, Infrastructure]:
    """The documents as models, as a file's would be read."""
    return (build_document(Application, app, SourceMap("generated")),
            build_document(Infrastructure, infra, SourceMap("generated")))


def instance(n_nodes: int, n_ops: int, k: int, seed: int = 0) -> tuple[Application,
                                                                         Infrastructure]:
    return build(dag(n_ops, k, seed), cluster(n_nodes, seed))


def edge_cloud(n_nodes: int, seed: int) -> dict[str, Any]:
    """Edge sites (two thirds of the nodes: 2-4 slots, 1-10 ms apart within a site's region)
    and cloud nodes (16 slots, 20-50 ms from the edge, 1 ms among themselves); n0 is edge."""
    rng = random.Random(seed)
    n_edge = max(1, (2 * n_nodes) // 3)
    points = [(rng.random(), rng.random()) for _ in range(n_nodes)]
    nodes = []
    for u in range(n_nodes):
        edge = u < n_edge
        nodes.append({"id": f"n{u}", "resources": rng.choice([2, 3, 4]) if edge else 16,
                      "availability": rng.choice([0.99, 0.995]) if edge else 0.9999,
                      "zone": "edge" if edge else "cloud"})
    links = []
    for u in range(n_nodes):
        for v in range(u + 1, n_nodes):
            if u < n_edge and v < n_edge:
                delay = 0.001 + 0.009 * math.dist(points[u], points[v]) / math.sqrt(2)
            elif u >= n_edge and v >= n_edge:
                delay = 0.001
            else:
                delay = 0.020 + 0.030 * points[min(u, v)][0]
            links.append({"from": f"n{u}", "to": f"n{v}", "delay": round(delay, 5)})
    return {"name": f"edge-cloud-{n_nodes}", "nodes": nodes, "links": links}


def edge_cloud_instance(n_nodes: int, n_ops: int, k: int,
                        seed: int = 0) -> tuple[Application, Infrastructure]:
    """A layered DAG whose source and sink are pinned to edge node n0, on :func:`edge_cloud`."""
    return build(dag(n_ops, k, seed), edge_cloud(n_nodes, seed))
