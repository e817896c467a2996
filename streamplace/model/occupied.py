"""The load already there: what other applications hold on a shared infrastructure
(docs/formats.md, ``streamplace/occupied/v1``; docs/models.md sec. 2).

A plan made beside an occupied load is a plan on the *free* infrastructure: each node's
resources less what the others hold, per dimension, and each dedicated link's bandwidth less
the traffic they send over it, per direction. Every method, the evaluator and the checks read
capacities from the infrastructure, so they all see the free one; :class:`Holds` keeps who
holds what, so that a capacity message can say it.
"""

from __future__ import annotations

import math
from collections import defaultdict
from typing import Literal

from pydantic import Field

from streamplace.errors import InfeasibleError, Problem
from streamplace.model.base import Document, StrictModel
from streamplace.model.evaluate.constraints import over
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.fields import Bandwidth, Demand, Identifier
from streamplace.model.holds import Holds, named
from streamplace.model.infrastructure import Infrastructure, Link, Node

OCCUPIED_SCHEMA = "streamplace/occupied/v1"


class HeldLink(StrictModel):
    source: Identifier = Field(alias="from")
    target: Identifier = Field(alias="to")
    bandwidth: Bandwidth = Field(description="Bytes/s the application sends from -> to.")


class HeldBy(StrictModel):
    """What one running application holds."""

    name: Identifier
    description: str | None = None
    nodes: dict[Identifier, Demand] = Field(
        default_factory=dict, description="node id -> resources held (a number or a map).")
    links: list[HeldLink] = Field(default_factory=list)


class OccupiedFile(Document):
    schema_: Literal["streamplace/occupied/v1"] | None = Field(None, alias="schema")
    applications: list[HeldBy] = Field(description=(
        "One entry per running application; none when nothing else runs."))


def held_by_plan(name: str, ev: Evaluation) -> HeldBy:
    """What a plan of application ``name`` holds, from its evaluation: the resources its
    replicas use on each node, and the traffic its routes send over dedicated links."""
    assert ev.odrp is not None, "a complete plan"
    nodes = {u: {dim: used for dim, (used, _cap) in dims.items() if used > 0}
             for u, dims in ev.odrp.node_usage.items()}
    links = [HeldLink.model_validate({"from": u.subject.ids[0], "to": u.subject.ids[1],
                                      "bandwidth": u.used})
             for u in (ev.paths.links if ev.paths is not None else []) if u.used > 0]
    return HeldBy(name=name, nodes={u: d for u, d in nodes.items() if d}, links=links)


def problems_of(held: HeldBy, infra: Infrastructure, where: Document, path: str,
                ) -> list[Problem]:
    """Nodes and links the holder names that ``infra`` lacks (``path`` locates it)."""
    known = {n.id for n in infra.nodes}
    out = [where.problem(f"{path}.nodes.{u}", f"unknown node {u!r}",
                         f"use a node of {infra.name}")
           for u in held.nodes if u not in known]
    for k, link in enumerate(held.links):
        if not _has_link(infra, link.source, link.target):
            out.append(where.problem(f"{path}.links[{k}]",
                                     f"{infra.name} has no link {link.source} -> {link.target}",
                                     "name a link of the infrastructure (its from and to)"))
    return out


def _has_link(infra: Infrastructure, a: str, b: str) -> bool:
    """Whether a link of ``infra`` (not the defaults) carries ``a -> b``."""
    return any((link.source, link.target) == (a, b) or
               (link.bidirectional and (link.target, link.source) == (a, b))
               for link in infra.links)


def beside(infra: Infrastructure, occupied: list[HeldBy]) -> Infrastructure:
    """``infra`` with what ``occupied`` holds taken out of its capacities. Raises
    InfeasibleError (exit 1) naming each node or link the holders already overfill."""
    if not occupied:
        return infra
    assert not infra.holds.names, "an occupied load is taken out once, from the whole"
    node_held: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    link_held: dict[tuple[str, str], list[tuple[str, float]]] = defaultdict(list)
    for holder in occupied:
        for u, demand in holder.nodes.items():
            for dim, amount in demand.items():
                if amount > 0:
                    node_held[(u, dim)].append((holder.name, amount))
        for link in holder.links:
            if link.bandwidth > 0:
                link_held[(link.source, link.target)].append((holder.name, link.bandwidth))
    reasons: list[str] = []
    nodes, capacity = _free_nodes(infra, node_held, reasons)
    links, bandwidth = _free_links(infra, link_held, reasons)
    if reasons:
        raise InfeasibleError(reasons)
    out = infra.model_copy(update={"nodes": nodes, "links": links})
    out._derived = {}  # a copy would share the whole infrastructure's network view
    out.attach_source(infra.source)
    out._holds = Holds(dict(node_held), dict(link_held), capacity, bandwidth,
                      tuple(h.name for h in occupied))
    return out


def _free_nodes(infra: Infrastructure, held: dict[tuple[str, str], list[tuple[str, float]]],
                reasons: list[str]) -> tuple[list[Node], dict[tuple[str, str], float]]:
    capacity: dict[tuple[str, str], float] = {}
    nodes = []
    for node in infra.nodes:
        resources = dict(node.resources) if node.resources is not None else None
        for (u, dim), holders in held.items():
            if u != node.id:
                continue
            whole = math.inf if resources is None else resources.get(dim, math.inf)
            capacity[(u, dim)] = whole
            taken = sum(amount for _, amount in holders)
            if over(taken, whole):
                reasons.append(f"node {u}: the occupied load holds {taken:g} {dim} "
                               f"({named(holders)}), it has {whole:g}")
            elif resources is not None and math.isfinite(whole):
                resources[dim] = max(0.0, whole - taken)
        nodes.append(node.model_copy(update={"resources": resources}))
    return nodes, capacity


def _free_links(infra: Infrastructure, held: dict[tuple[str, str], list[tuple[str, float]]],
                reasons: list[str]) -> tuple[list[Link], dict[tuple[str, str], float]]:
    """The links, a bidirectional one split in its two directions where traffic is held on
    it: the evaluator counts each direction against the link's bandwidth on its own."""
    bandwidth: dict[tuple[str, str], float] = {}
    default = infra.defaults.link.bandwidth
    links: list[Link] = []
    for link in infra.links:
        ways = [(link.source, link.target)]
        if link.bidirectional:
            ways.append((link.target, link.source))
        if not any(w in held for w in ways):
            links.append(link)
            continue
        whole = link.bandwidth if link.bandwidth is not None else default
        for a, b in ways:
            holders = held.get((a, b), [])
            taken = sum(amount for _, amount in holders)
            bandwidth[(a, b)] = whole
            if holders and over(taken, whole):
                reasons.append(f"link {a} -> {b}: the occupied load sends {taken:g} B/s "
                               f"({named(holders)}), it carries {whole:g}")
            links.append(link.model_copy(update={
                "source": a, "target": b, "bidirectional": False,
                "bandwidth": max(0.0, whole - taken) if math.isfinite(whole) else whole}))
    return links, bandwidth
