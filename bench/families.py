"""Instance families for ``bench/odrp.py``: four, each reported on its own, so no figure
holds for one generator only.

- ``uniform``: bench/scenarios.py's edge + cloud instances. The source and the sink are
  pinned to the same edge node, every tuple is 100 B, every operator takes one slot at
  cost 1, and the nodes of a tier are alike.
- ``spread-pins``: the same clusters, but two sources and two or three sinks, each pinned
  to its own node (sinks on the edge and in the cloud).
- ``heterogeneous``: tuples of 100-1000 B, operators taking one or two slots at costs 1-3,
  a cloud twice as fast as the edge (speedup 2), availabilities 0.98-0.9999.
- ``routed``: real backbones from topohub (Internet Topology Zoo, SNDlib) with their
  coordinates. A link's delay is its great-circle length at 5 us/km (light in fibre) plus
  0.1 ms per hop; routes are shortest by delay; only some PoPs compute (the best-connected
  ones, as data centres sit at hubs), the others are routers.

Every instance is named ``<family>-<nodes>x<operators>-s<seed>`` (a real network's name
stands for its size), the name under which bench/best_known/ keeps its best plan.
"""

from __future__ import annotations

import argparse
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from scenarios import build, edge_cloud, edge_cloud_instance, layered

from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure

FIBRE_SECONDS_PER_KM = 5e-6
HOP_SECONDS = 1e-4


@dataclass(frozen=True)
class Case:
    family: str
    size: str          # "small" | "medium" | "large": the goal's row
    label: str         # what the instance is, e.g. "30 x 20" or "Geant2012 37 PoPs x 20"
    name: str          # the best-known file's name
    app: Application
    infra: Infrastructure


def pinned(prefix: str, nodes: list[str]) -> dict[str, list[str]]:
    """Operators ``<prefix>0``, ``<prefix>1``, ... each pinned to its own node."""
    return {f"{prefix}{i}": [node] for i, node in enumerate(nodes)}


def spread_pins(n_nodes: int, n_ops: int, k: int,
                seed: int) -> tuple[Application, Infrastructure]:
    rng = random.Random(seed * 7919)
    n_edge = max(1, (2 * n_nodes) // 3)
    edge = rng.sample(range(n_edge), 4)
    cloud = rng.randrange(n_edge, n_nodes)
    sinks = [f"n{edge[2]}", f"n{cloud}"] + ([f"n{edge[3]}"] if seed % 2 else [])
    app = layered(n_ops, k, seed, sources=pinned("source", [f"n{edge[0]}", f"n{edge[1]}"]),
                  sinks=pinned("sink", sinks))
    return build(app, edge_cloud(n_nodes, seed))


def heterogeneous(n_nodes: int, n_ops: int, k: int,
                  seed: int) -> tuple[Application, Infrastructure]:
    rng = random.Random(seed * 104729)
    infra = edge_cloud(n_nodes, seed)
    for node in infra["nodes"]:
        if node["zone"] == "cloud":
            node["speedup"] = 2.0
            node["availability"] = rng.choice([0.999, 0.9995, 0.9999])
        else:
            node["availability"] = rng.choice([0.98, 0.99, 0.995, 0.999])
    n_edge = max(1, (2 * n_nodes) // 3)
    source, sink = rng.sample(range(n_edge), 2)
    app = layered(n_ops, k, seed, sources=pinned("source", [f"n{source}"]),
                  sinks=pinned("sink", [f"n{sink}"]), heterogeneous=True)
    return build(app, infra)


def backbone(network: str, compute: int, seed: int) -> dict[str, Any]:
    """A topohub network as an infrastructure: its ``compute`` best-connected PoPs are
    processors (edge-like: 4-8 slots, availability 0.995-0.9999), the rest routers."""
    import topohub

    topo = topohub.get(network)
    degree = {n["id"]: 0 for n in topo["nodes"]}
    for e in topo["edges"]:
        degree[e["source"]] += 1
        degree[e["target"]] += 1
    rng = random.Random(seed)
    ranked = sorted(degree, key=lambda n: (-degree[n], n))
    processors = set(ranked[:compute])
    nodes = []
    for n in topo["nodes"]:
        if n["id"] in processors:
            nodes.append({"id": f"p{n['id']}", "resources": rng.choice([4, 6, 8]),
                          "availability": rng.choice([0.995, 0.999, 0.9999])})
        else:
            nodes.append({"id": f"p{n['id']}", "role": "router"})
    links = [{"from": f"p{e['source']}", "to": f"p{e['target']}",
              "delay": round(e["dist"] * FIBRE_SECONDS_PER_KM + HOP_SECONDS, 6)}
             for e in topo["edges"] if e["source"] != e["target"]]
    return {"name": network.replace("/", "-"), "nodes": nodes, "links": links,
            "routing": "shortest-path"}


def routed(network: str, compute: int, n_ops: int, k: int,
           seed: int) -> tuple[Application, Infrastructure]:
    infra = backbone(network, compute, seed)
    processors = [n["id"] for n in infra["nodes"] if n.get("role") != "router"]
    rng = random.Random(seed * 15485863)
    a, b, c = rng.sample(processors, 3)
    app = layered(n_ops, k, seed, sources=pinned("source", [a]), sinks=pinned("sink", [b, c]))
    return build(app, infra)


GENERATED: dict[str, Callable[[int, int, int, int], tuple[Application, Infrastructure]]] = {
    "uniform": edge_cloud_instance, "spread-pins": spread_pins, "heterogeneous": heterogeneous}
SIZES = {"small": (30, 20), "medium": (50, 40), "large": (100, 60)}
# (network, compute PoPs, operators) per size: two networks each, from two collections
NETWORKS = {"small": [("topozoo/Geant2012", 15, 20), ("sndlib/cost266", 15, 20)],
            "medium": [("topozoo/VtlWavenet2011", 32, 40), ("topozoo/Uninett2010", 30, 40)],
            "large": [("topozoo/TataNld", 55, 60), ("sndlib/brain", 55, 60)]}
K = 4


def cases(families: list[str], sizes: list[str], seeds: int) -> list[Case]:
    """Every instance asked for, family by family, smallest first."""
    out = []
    for family in families:
        for size in sizes:
            if family == "routed":
                for network, compute, n_ops in NETWORKS[size]:
                    app, infra = routed(network, compute, n_ops, K, 1)
                    short = network.split("/")[1]
                    n_pops = len(infra.nodes)
                    out.append(Case(family, size, f"{short} {n_pops} PoPs/{compute} x {n_ops}",
                                    f"routed-{short}-{compute}x{n_ops}", app, infra))
                continue
            n_nodes, n_ops = SIZES[size]
            for seed in range(1, seeds + 1):
                app, infra = GENERATED[family](n_nodes, n_ops, K, seed)
                name = (f"edge-cloud-{n_nodes}x{n_ops}x{K}-s{seed}" if family == "uniform"
                        else f"{family}-{n_nodes}x{n_ops}-s{seed}")
                out.append(Case(family, size, f"{n_nodes} x {n_ops} s{seed}", name, app,
                                infra))
    return out


def add_choice_arguments(parser: argparse.ArgumentParser) -> None:
    """--family, --size and --label: the instances a one-family bench measures."""
    parser.add_argument("--family", default="routed")
    parser.add_argument("--size", default="small", choices=list(SIZES))
    parser.add_argument("--label", default="", help="only instances whose label holds this")


def chosen(args: argparse.Namespace) -> list[Case]:
    """The instances of ``args.family`` and ``args.size`` whose label holds ``args.label``."""
    return [case for case in cases([args.family], [args.size], 1) if args.label in case.label]
