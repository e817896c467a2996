"""Random ODRP instances for the benchmarks: a layered DAG on a geographic-like cluster.

Nodes sit at random points; delays grow with distance (2-40 ms); each node has 4-8 slots.
The DAG has a pinned source and sink and layers of 1-3 operators between them, every
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


def dag(n_ops: int, k: int, seed: int, rate: float = 80.0) -> dict[str, Any]:
    rng = random.Random(seed)
    ops: list[dict[str, Any]] = [{"id": "source", "service_rate": 4 * rate,
                                  "candidates": ["n0"]}]
    layers: list[list[str]] = [["source"]]
    made = 1
    while made < n_ops - 1:
        width = min(rng.choice([1, 1, 2, 3]), n_ops - 1 - made)
        layer = []
        for _ in range(width):
            name = f"op{made}"
            ops.append({"id": name, "service_rate": round(rng.uniform(0.6, 2.5) * rate, 1),
                        "max_replicas": k})
            layer.append(name)
            made += 1
        layers.append(layer)
    ops.append({"id": "sink", "service_rate": 3 * rate, "candidates": ["n0"]})
    layers.append(["sink"])
    streams = []
    for upper, lower in itertools.pairwise(layers):
        for target in lower:
            sources = rng.sample(upper, k=min(len(upper), rng.choice([1, 2])))
            for source in sources:
                streams.append({"from": source, "to": target,
                                "rate": round(rate / len(sources), 2), "tuple_size": 100})
        for source in upper:  # every operator feeds the next layer
            if not any(s["from"] == source for s in streams):
                streams.append({"from": source, "to": rng.choice(lower), "rate": rate,
                                "tuple_size": 100})
    return {"name": f"dag-{n_ops}-k{k}", "operators": ops, "streams": streams}


def instance(n_nodes: int, n_ops: int, k: int, seed: int = 0) -> tuple[Application,
                                                                         Infrastructure]:
    app = build_document(Application, dag(n_ops, k, seed), SourceMap("generated"))
    infra = build_document(Infrastructure, cluster(n_nodes, seed), SourceMap("generated"))
    return app, infra


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
    app = build_document(Application, dag(n_ops, k, seed), SourceMap("generated"))
    infra = build_document(Infrastructure, edge_cloud(n_nodes, seed), SourceMap("generated"))
    return app, infra
