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
