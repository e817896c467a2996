"""What a drawing of a plan shows, as plain data: nodes (grouped by zone) with their use of
resources, each operator's replicas on each node, the flows between replicas, the critical
path, and every violated constraint where it happens. The matplotlib and DOT back ends
draw the same scene.

Flows split as the evaluator splits them (models.md sec. 1): a stream's bytes/s between
node u and node v are its bytes/s x the share of the source's replicas on u x the share of
the target's replicas on v.
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass, field

from streamplace.model.application import Application
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.graph import AppGraph, build_graph, cyclic_order
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

DETAIL_LIMIT = (50, 30, 150)  # operators, nodes, replica boxes: beyond, the view aggregates


@dataclass
class NodeArea:
    id: str
    zone: str | None
    use: dict[str, tuple[float, float]]  # dimension -> (used, capacity left to the plan)
    violations: list[str] = field(default_factory=list)
    held: dict[str, float] = field(default_factory=dict)  # dimension -> other applications'

    @property
    def utilisation(self) -> float | None:
        """The fullest dimension's share of the whole node, the occupied load included
        (None when every capacity is unbounded)."""
        fullest = self._fullest()
        return fullest[0] if fullest else None

    @property
    def held_share(self) -> float:
        """The share of the fullest dimension that other applications hold."""
        fullest = self._fullest()
        return fullest[1] if fullest else 0.0

    def _fullest(self) -> tuple[float, float] | None:
        """(share used, share held) of the whole node in its fullest dimension."""
        shares = []
        for dim, (used, cap) in self.use.items():
            held = self.held.get(dim, 0.0)
            if 0 < cap + held < math.inf:
                shares.append(((used + held) / (cap + held), held / (cap + held)))
        return max(shares) if shares else None


@dataclass
class Box:
    """The replicas of one operator on one node."""

    operator: str
    node: str
    count: int
    level: int  # the operator's depth in the DAG (sources 0)
    critical: bool
    violations: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.operator}@{self.node}"


@dataclass(frozen=True)
class Flow:
    source: str  # box keys
    target: str
    bytes_per_s: float
    local: bool
    critical: bool


@dataclass
class Scene:
    title: str
    nodes: list[NodeArea]
    boxes: list[Box]
    flows: list[Flow]
    critical_path: list[str]  # operator ids, source to sink
    response_time: float | None
    notes: list[str] = field(default_factory=list)  # violations with no place to mark
    occupied: tuple[str, ...] = ()  # the other applications whose load the nodes carry

    @property
    def detailed(self) -> bool:
        operators = len({b.operator for b in self.boxes})
        limits = DETAIL_LIMIT
        return operators <= limits[0] and len(self.nodes) <= limits[1] and \
            len(self.boxes) <= limits[2]

    def zones(self) -> dict[str | None, list[NodeArea]]:
        out: dict[str | None, list[NodeArea]] = defaultdict(list)
        for node in self.nodes:
            out[node.zone].append(node)
        return dict(out)


def build_scene(app: Application, infra: Infrastructure, plan: Plan, ev: Evaluation,
                title: str = "") -> Scene:
    graph = build_graph(app)
    levels = _levels(graph)
    odrp = ev.odrp
    critical = list(odrp.critical_path) if odrp is not None else []
    on_path = set(critical)
    critical_streams = set(itertools.pairwise(critical))
    used_nodes = {u for op in app.operator_ids for u in plan.replicas(op)}
    use = odrp.node_usage if odrp is not None else {}
    holds = infra.holds
    nodes = [NodeArea(n.id, n.zone, dict(use.get(n.id) or {
                 dim: (0.0, cap) for dim, cap in (n.resources or {}).items()}),
                 held={dim: sum(a for _, a in who) for (u, dim), who in holds.nodes.items()
                       if u == n.id})
             for n in infra.nodes if n.role == "processor" or n.id in used_nodes]
    by_id = {n.id: n for n in nodes}
    boxes = [Box(op, u, count, levels[op], op in on_path)
             for op in app.operator_ids for u, count in sorted(plan.replicas(op).items())
             if count > 0]
    box_of = {(b.operator, b.node): b for b in boxes}
    notes = _place_violations(ev, by_id, boxes)
    flows = []
    for stream in graph.streams:
        src, dst = plan.replicas(stream.source), plan.replicas(stream.target)
        total_src, total_dst = sum(src.values()), sum(dst.values())
        if not total_src or not total_dst:
            continue
        rate = stream.bytes_per_s
        for u, cu in src.items():
            for v, cv in dst.items():
                if (stream.source, u) in box_of and (stream.target, v) in box_of:
                    flows.append(Flow(f"{stream.source}@{u}", f"{stream.target}@{v}",
                                      rate * cu / total_src * cv / total_dst, u == v,
                                      (stream.source, stream.target) in critical_streams))
    return Scene(title or f"{app.name} on {infra.name}", nodes, boxes, flows, critical,
                 odrp.response_time if odrp is not None else None, notes, holds.names)


def _levels(graph: AppGraph) -> dict[str, int]:
    """Each operator's depth: 0 for sources, else one more than its deepest predecessor
    (cycles, which Ecker's model allows, are cut where the evaluator cuts them)."""
    order, _feedback = cyclic_order(graph.digraph)
    level: dict[str, int] = {}
    for op in order:
        preds = [p for p in graph.digraph.predecessors(op) if p in level]
        level[op] = 1 + max((level[p] for p in preds), default=-1)
    return level


def _place_violations(ev: Evaluation, nodes: dict[str, NodeArea], boxes: list[Box],
                      ) -> list[str]:
    """Each violation on the node or replica box it concerns; the rest as notes."""
    by_operator: dict[str, list[Box]] = defaultdict(list)
    for box in boxes:
        by_operator[box.operator].append(box)
    notes = []
    for v in ev.violations:
        kind, ids = v.subject.kind, v.subject.ids
        text = f"{v.constraint}: {v.message}"
        if kind == "node" and ids and ids[0] in nodes:
            nodes[ids[0]].violations.append(text)
        elif kind == "operator" and ids and ids[0] in by_operator:
            for box in by_operator[ids[0]]:
                box.violations.append(text)
        else:
            notes.append(text)
    return notes
