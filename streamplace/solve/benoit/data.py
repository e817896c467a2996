"""The in-network operator tree of Benoit et al. 2008 as both its ILP and its heuristics see it.

Edges run child -> parent and carry rho * delta_child bytes/s (docs/models.md sec. 3). Objects
are downloaded once per processor that needs them, rate_k = size_k * frequency_k.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from streamplace.errors import InputError
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import ProcessorClass
from streamplace.model.network import Network
from streamplace.solve.result import Instance


@dataclass(frozen=True)
class Edge:
    child: str
    parent: str
    volume: float


@dataclass
class TreeData:
    instance: Instance
    rho: float
    ops: list[str]                       # children before parents (bottom-up order)
    work: dict[str, float]               # rho * w_i: operations per second needed
    objects: dict[str, tuple[str, ...]]  # objects each operator downloads
    rate: dict[str, float]               # rate_k per object
    holders: dict[str, list[str]]        # servers holding each object
    edges: list[Edge]
    parent: dict[str, str | None]
    children: dict[str, list[str]]
    servers: list[str]
    server_card: dict[str, float]
    classes: list[ProcessorClass] = field(default_factory=list)
    link_bandwidth: float = math.inf     # bought processors: defaults.link

    def edge_volume(self, a: str, b: str) -> float:
        return sum(e.volume for e in self.edges if {e.child, e.parent} == {a, b})

    def neighbours(self, op: str) -> list[str]:
        out = list(self.children[op])
        if self.parent[op] is not None:
            out.append(self.parent[op])  # type: ignore[arg-type]
        return out


def tree_data(instance: Instance, need_catalog: bool) -> TreeData:
    """Check that the instance is an operator tree with a throughput; raise InputError if not."""
    app, infra = instance.app, instance.infra
    problems = []
    if app.throughput is None:
        problems.append(app.problem("throughput", "this model needs the required throughput",
                                    "set throughput: (results per second)"))
    if need_catalog and not infra.catalog:
        problems.append(infra.problem("catalog", "this heuristic buys processors (Constr) but "
                                      "the infrastructure has no catalog",
                                      "add a catalog, or use the method benoit for Non-Constr"))
    graph = build_graph(app)
    order = graph.topological_order()
    parent: dict[str, str | None] = {o: None for o in order}
    children: dict[str, list[str]] = {o: [] for o in order}
    for s in graph.streams:
        if parent[s.source] is not None:
            problems.append(app.problem(f"streams[{s.index}]",
                                        f"operator {s.source} has two parents in a tree model",
                                        "give every operator at most one outgoing stream"))
        parent[s.source] = s.target
        children[s.target].append(s.source)
    if problems:
        raise InputError(problems)
    rho = app.throughput or 0.0
    rate = {o.id: o.rate for o in app.objects}
    network = Network(infra)
    holders = {k: [s for s in network.servers if k in network.nodes[s].objects] for k in rate}
    edges = []
    for s in graph.streams:
        size = app.operator(s.source).output_size
        edges.append(Edge(s.source, s.target, rho * size if size is not None
                          else s.bytes_per_s))
    return TreeData(
        instance=instance, rho=rho, ops=order,
        work={op.id: rho * op.work for op in app.operators},
        objects={op.id: tuple(dict.fromkeys(op.objects)) for op in app.operators},
        rate=rate, holders=holders, edges=edges, parent=parent, children=children,
        servers=network.servers,
        server_card={s: network.nodes[s].bandwidth for s in network.servers},
        classes=sorted(infra.catalog, key=lambda c: (c.cost, c.id)),
        link_bandwidth=infra.defaults.link.bandwidth,
    )


def group_needs(data: TreeData, group: set[str]) -> tuple[float, float]:
    """(operations/s, card bytes/s) a processor running ``group`` needs (constraints 1-2)."""
    compute = sum(data.work[o] for o in group)
    objects = {k for o in group for k in data.objects[o]}
    card = sum(data.rate[k] for k in objects)
    card += sum(e.volume for e in data.edges if (e.child in group) != (e.parent in group))
    return compute, card


def handles(cls: ProcessorClass, compute: float, card: float) -> bool:
    return compute <= cls.speed * (1 + 1e-12) and card <= cls.bandwidth * (1 + 1e-12)
