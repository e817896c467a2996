"""The Constr heuristics of Benoit et al. 2008, sec. 6: seven operator placements, two server
selections and the downgrade step.

Each placement heuristic buys processors from the catalog ("most expensive" is the dearest
class) and assigns operators; Server-Selection-Intelligent (Random: Server-Selection-Random)
then picks a server for every download, and every processor is downgraded to the cheapest
class that still meets its compute and card needs. A heuristic that cannot proceed raises
:class:`PlacementFailure` saying where; the caller also rejects any plan the evaluator
finds violating constraints (1)-(5), so no violating plan ever leaves.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from streamplace.model.infrastructure import ProcessorClass
from streamplace.solve.benoit.data import TreeData, group_needs, handles
from streamplace.solve.placement import PlacementFailure


@dataclass(eq=False)  # identity: two processors with equal contents are still two
class Processor:
    group: set[str]
    cls: ProcessorClass


@dataclass
class TreeMapping:
    processors: list[Processor] = field(default_factory=list)
    downloads: list[tuple[int, str, str]] = field(default_factory=list)  # (proc, object, server)


class _Shop:
    """Buying, selling and sizing processors for one instance."""

    def __init__(self, data: TreeData) -> None:
        self.data = data
        if not data.classes:
            raise PlacementFailure("the catalog is empty")
        self.top = max(data.classes, key=lambda c: (c.cost, c.speed, c.bandwidth, c.id))
        self.mapping = TreeMapping()

    def fits(self, group: set[str], cls: ProcessorClass | None = None) -> bool:
        return handles(cls or self.top, *group_needs(self.data, group))

    def cheapest(self, group: set[str]) -> ProcessorClass | None:
        compute, card = group_needs(self.data, group)
        return next((c for c in self.data.classes if handles(c, compute, card)), None)

    def buy(self, group: set[str], cls: ProcessorClass | None = None) -> Processor:
        chosen = cls or self.cheapest(group)
        if chosen is None:
            raise PlacementFailure(f"no processor class can run {_names(group)} at the "
                                   "required throughput")
        proc = Processor(set(group), chosen)
        self.mapping.processors.append(proc)
        return proc

    def sell(self, proc: Processor) -> None:
        self.mapping.processors.remove(proc)

    def owner(self, op: str) -> Processor | None:
        return next((p for p in self.mapping.processors if op in p.group), None)

    def partner(self, op: str, unassigned: set[str] | None = None) -> str | None:
        """The neighbour with the most demanding communication with ``op``."""
        pool = [n for n in self.data.neighbours(op) if unassigned is None or n in unassigned]
        return max(pool, key=lambda n: (self.data.edge_volume(op, n), n), default=None)

    def seed_group(self, op: str, unassigned: set[str]) -> set[str]:
        """{op} if the dearest processor runs it, else op with its heaviest free neighbour."""
        if self.fits({op}):
            return {op}
        mate = self.partner(op, unassigned)
        if mate is not None and self.fits({op, mate}):
            return {op, mate}
        raise PlacementFailure(f"operator {op} cannot run at the required throughput even on "
                               f"the most expensive processor ({self.top.id})"
                               + (f", alone or with {mate}" if mate else ""))

    def fill(self, group: set[str], candidates: list[str], unassigned: set[str]) -> None:
        for op in candidates:
            if op in unassigned and op not in group and self.fits(group | {op}):
                group.add(op)

    def settle(self, group: set[str], unassigned: set[str]) -> None:
        self.buy(group, self.top)
        unassigned -= group


def _names(group: set[str]) -> str:
    return ", ".join(sorted(group))


def _by_work(data: TreeData, ops: list[str]) -> list[str]:
    return sorted(ops, key=lambda o: (-data.work[o], o))


def random_placement(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.1 Random."""
    shop = _Shop(data)
    unassigned = set(data.ops)
    for _ in range(20 * len(data.ops) + 20):
        if not unassigned:
            return shop.mapping
        op = rng.choice(sorted(unassigned))
        if shop.cheapest({op}) is not None:
            shop.buy({op})
            unassigned.discard(op)
            continue
        mate = shop.partner(op)
        if mate is None:
            raise PlacementFailure(f"operator {op} fits no processor and has no neighbour")
        owner = shop.owner(mate)
        if shop.cheapest({op, mate}) is None:
            raise PlacementFailure(f"operators {op} and {mate} together fit no processor")
        if owner is not None:  # sold back; its other operators wait again
            shop.sell(owner)
            unassigned |= owner.group
        shop.buy({op, mate})
        unassigned -= {op, mate}
    raise PlacementFailure("random placement kept selling back processors; giving up")


def comp_greedy(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.2 Comp-Greedy: most demanding operator first on the dearest processor, then fill."""
    shop = _Shop(data)
    order = _by_work(data, data.ops)
    unassigned = set(data.ops)
    _greedy_fill(shop, order, order, unassigned)
    return shop.mapping


def _greedy_fill(shop: _Shop, firsts: list[str], fillers: list[str],
                 unassigned: set[str]) -> None:
    while unassigned:
        first = next(o for o in firsts if o in unassigned)
        group = shop.seed_group(first, unassigned)
        shop.fill(group, fillers, unassigned)
        shop.buy(group, shop.cheapest(group))  # downgraded at once
        unassigned -= group


def comm_greedy(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.3 Comm-Greedy: co-locate the two operators with the heaviest communication."""
    shop = _Shop(data)
    for e in sorted(data.edges, key=lambda e: (-e.volume, e.child)):
        a, b = e.child, e.parent
        pa, pb = shop.owner(a), shop.owner(b)
        if pa is None and pb is None:
            cls = shop.cheapest({a, b})
            if cls is not None:
                shop.buy({a, b}, cls)
            else:
                for op in (a, b):
                    if not shop.fits({op}):
                        raise PlacementFailure(f"operator {op} fits no processor")
                    shop.buy({op}, shop.top)
        elif (pa is None) != (pb is None):
            owner, other = (pb, a) if pa is None else (pa, b)
            assert owner is not None
            cls = shop.cheapest(owner.group | {other})
            if cls is not None:
                owner.group.add(other)
                owner.cls = cls
            elif shop.fits({other}):
                shop.buy({other}, shop.top)
            else:
                raise PlacementFailure(f"operator {other} fits no processor")
        elif pa is not pb:
            assert pa is not None and pb is not None
            cls = shop.cheapest(pa.group | pb.group)
            if cls is not None:
                pa.group |= pb.group
                pa.cls = cls
                shop.sell(pb)
    for op in data.ops:  # operators on no edge
        if shop.owner(op) is None:
            shop.buy({op})
    return shop.mapping


def object_greedy(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.4 Object-Greedy: al-operators by their largest download rate, then the rest."""
    shop = _Shop(data)
    al = sorted((o for o in data.ops if data.objects[o]),
                key=lambda o: (-max(data.rate[k] for k in data.objects[o]), -data.work[o], o))
    rest = _by_work(data, [o for o in data.ops if not data.objects[o]])
    _greedy_fill(shop, al + rest, al + rest, set(data.ops))
    return shop.mapping


def subtree_bottom_up(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.5 Subtree-Bottom-Up: one processor per al-operator, then merge upwards."""
    shop = _Shop(data)
    for op in data.ops:  # children before parents
        kids = [shop.owner(c) for c in data.children[op]]
        owners = [p for p in dict.fromkeys(kids) if p is not None]
        if not owners:
            if not shop.fits({op}):
                raise PlacementFailure(f"operator {op} fits no processor")
            shop.buy({op}, shop.top)
            continue
        union = set().union(*(p.group for p in owners)) | {op}
        if shop.fits(union):
            keep = owners[0]
            for extra in owners[1:]:
                shop.sell(extra)
            keep.group = union
            continue
        heaviest = max(owners, key=lambda p: sum(data.edge_volume(op, c) for c in p.group))
        if shop.fits(heaviest.group | {op}):
            heaviest.group.add(op)
        elif shop.fits({op}):
            shop.buy({op}, shop.top)
        else:
            raise PlacementFailure(f"operator {op} fits no processor")
    return shop.mapping


def object_grouping(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.6 Object-Grouping: al-operators by the popularity of their objects."""
    shop = _Shop(data)
    popularity = {k: sum(k in data.objects[o] for o in data.ops) for k in data.rate}
    score = {o: sum(popularity[k] for k in data.objects[o]) for o in data.ops}
    al = sorted((o for o in data.ops if data.objects[o]), key=lambda o: (-score[o], o))
    rest = _by_work(data, [o for o in data.ops if not data.objects[o]])
    unassigned = set(data.ops)
    while unassigned:
        first = next(o for o in al + rest if o in unassigned)
        group = shop.seed_group(first, unassigned)
        sharing = [o for o in al if set(data.objects[o]) & set(data.objects[first])]
        shop.fill(group, sharing, unassigned)
        shop.fill(group, rest, unassigned)
        shop.settle(group, unassigned)
    return shop.mapping


def object_availability(data: TreeData, rng: random.Random) -> TreeMapping:
    """6.1.7 Object-Availability: rarest objects first, then the rest as Comp-Greedy."""
    shop = _Shop(data)
    unassigned = set(data.ops)
    for obj in sorted(data.rate, key=lambda k: (len(data.holders[k]), k)):
        needers = [o for o in data.ops if obj in data.objects[o]]
        while any(o in unassigned for o in needers):
            first = next(o for o in needers if o in unassigned)
            group = shop.seed_group(first, unassigned)
            shop.fill(group, needers, unassigned)
            shop.settle(group, unassigned)
    order = _by_work(data, data.ops)
    _greedy_fill(shop, order, order, unassigned)
    return shop.mapping


def downgrade(data: TreeData, mapping: TreeMapping) -> None:
    """Every processor becomes the cheapest class meeting its compute and card needs."""
    for proc in mapping.processors:
        cheapest = _Shop(data).cheapest(proc.group)
        if cheapest is None:
            raise PlacementFailure(f"no processor class can run {_names(proc.group)}")
        proc.cls = cheapest


TreePlacer = Callable[[TreeData, random.Random], TreeMapping]
PLACEMENTS: dict[str, tuple[TreePlacer, str]] = {
    "random": (random_placement, "6.1.1 Random, with Server-Selection-Random"),
    "comp-greedy": (comp_greedy, "6.1.2 Comp-Greedy: most demanding operators first"),
    "comm-greedy": (comm_greedy, "6.1.3 Comm-Greedy: heaviest edges co-located first"),
    "object-greedy": (object_greedy, "6.1.4 Object-Greedy: heaviest downloads first"),
    "subtree-bottom-up": (subtree_bottom_up, "6.1.5 Subtree-Bottom-Up: merge subtrees upwards"),
    "object-grouping": (object_grouping, "6.1.6 Object-Grouping: popular objects together"),
    "object-availability": (object_availability,
                            "6.1.7 Object-Availability: rarest objects first"),
}
