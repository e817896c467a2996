"""The infrastructure: nodes, links, routing and a processor catalog (docs/formats.md).

Defaults not stated in docs/formats.md are the neutral ones: availability 1, speed-up 1, cost 0,
unbounded resources, speed and bandwidth. A link that leaves a field out takes it from
``defaults.link``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any, Literal, TypeVar

from pydantic import Field, PrivateAttr

from streamplace.model.base import Document, StrictModel
from streamplace.model.fields import (
    Bandwidth,
    Fraction,
    Identifier,
    Money,
    Positive,
    PositiveBandwidth,
    Probability,
    Resources,
    Seconds,
    Speed,
)
from streamplace.model.holds import Holds

INFRASTRUCTURE_SCHEMA = "streamplace/infrastructure/v1"
T = TypeVar("T")
Role = Literal["processor", "server", "router"]


class Node(StrictModel):
    id: Identifier
    description: str | None = None
    role: Role = Field("processor", description="processor | server | router")
    zone: str | None = Field(None, description=(
        "A group of nodes (edge, fog, cloud, a rack, a region): drawings group nodes by it."))
    resources: Resources | None = Field(None, description="Res_u; default unbounded.")
    speedup: Positive = Field(1.0, description="S_u relative to the reference node.")
    availability: Probability = Field(1.0, description="A_u in (0, 1].")
    cost: Money = Field(0.0, description="Cost of using the node (Benoit Non-Constr).")
    speed: Speed = Field(float("inf"), description="Operations/s (Benoit s_u).")
    bandwidth: PositiveBandwidth = Field(float("inf"), description="Card bytes/s (Bp_u, Bs_l).")
    objects: list[Identifier] = Field(default_factory=list,
                                      description="Objects a server holds.")
    coordinates: list[float] | None = Field(None, min_length=1,
                                            description="Cost-space coordinates (s).")
    load: Fraction = Field(0.0, description="Current utilisation in [0, 1].")


class Link(StrictModel):
    source: Identifier = Field(alias="from")
    target: Identifier = Field(alias="to")
    delay: Seconds | None = Field(None, description="d_(u,v) in seconds.")
    availability: Probability | None = None
    cost: Money | None = Field(None, description="C_(u,v) per byte carried.")
    bandwidth: Bandwidth | None = None
    kind: Literal["dedicated", "opportunistic"] = "dedicated"
    bidirectional: bool = True


class LinkDefaults(StrictModel):
    delay: Seconds = 0.0
    availability: Probability = 1.0
    cost: Money = 0.0
    bandwidth: Bandwidth = float("inf")


class Defaults(StrictModel):
    link: LinkDefaults = Field(default_factory=LinkDefaults)


class ProcessorClass(StrictModel):
    """A processor class that can be bought (Benoit Constr)."""

    id: Identifier
    cost: Money
    speed: Speed = float("inf")
    bandwidth: PositiveBandwidth = float("inf")
    resources: Resources | None = None
    speedup: Positive = 1.0
    availability: Probability = 1.0


class Infrastructure(Document):
    """Computing and network resources (docs/formats.md, ``streamplace/infrastructure/v1``)."""

    schema_: Literal["streamplace/infrastructure/v1"] | None = Field(None, alias="schema")
    name: Identifier
    description: str | None = None
    nodes: list[Node] = Field(min_length=1)
    links: list[Link] = Field(default_factory=list)
    defaults: Defaults = Field(default_factory=Defaults)
    routing: Literal["mesh", "shortest-path"] = "mesh"
    catalog: list[ProcessorClass] = Field(default_factory=list)
    _derived: dict[str, Any] = PrivateAttr(default_factory=dict)
    # what other applications hold, already taken out of the capacities (model/occupied.py)
    _holds: Holds = PrivateAttr(default_factory=Holds)

    def without(self, nodes: Collection[str] = (),
                links: Collection[tuple[str, str]] = ()) -> Infrastructure:
        """This infrastructure where ``nodes`` (and every link touching them) and ``links``
        (by their ends, as written) have failed. Nothing derived is carried over."""
        kept_links = [link for link in self.links
                      if link.source not in nodes and link.target not in nodes
                      and (link.source, link.target) not in links]
        out = self.model_copy(update={
            "nodes": [n for n in self.nodes if n.id not in nodes], "links": kept_links})
        out._derived = {}  # a copy would share the whole infrastructure's network view
        out.attach_source(self.source)
        return out

    def derived(self, key: str, build: Callable[[], T]) -> T:
        """``build()``, made once per infrastructure object (a document never changes once
        read): the network view that every evaluation of a plan on it shares."""
        if key not in self._derived:
            self._derived[key] = build()
        return self._derived[key]  # type: ignore[no-any-return]

    @property
    def holds(self) -> Holds:
        return self._holds

    @property
    def processors(self) -> list[Node]:
        return [n for n in self.nodes if n.role == "processor"]

    def node(self, node_id: str) -> Node:
        for n in self.nodes:
            if n.id == node_id:
                return n
        raise KeyError(node_id)

    def processor_class(self, class_id: str) -> ProcessorClass:
        for c in self.catalog:
            if c.id == class_id:
                return c
        raise KeyError(class_id)


CATALOG_SCHEMA = "streamplace/catalog/v1"


class CatalogFile(Document):
    """Processor classes on their own (the ``catalog`` of an infrastructure, kept in a file
    of its own as samples/benoit-tree/catalog.yaml is)."""

    schema_: Literal["streamplace/catalog/v1"] | None = Field(None, alias="schema")
    catalog: list[ProcessorClass] = Field(min_length=1)
