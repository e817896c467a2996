"""Server selection for operator trees (Benoit et al. 2008, sec. 6.2): which server feeds
each object to each processor, at random or by the paper's three loops."""

from __future__ import annotations

import random

from streamplace.solve.benoit.data import TreeData
from streamplace.solve.benoit.heuristics.placement import TreeMapping
from streamplace.solve.placement import PlacementFailure


def select_servers_random(data: TreeData, mapping: TreeMapping, rng: random.Random) -> None:
    """6.2.1 Server-Selection-Random."""
    for p, proc in enumerate(mapping.processors):
        for obj in sorted({k for o in proc.group for k in data.objects[o]}):
            if not data.holders[obj]:
                raise PlacementFailure(f"no server holds object {obj}")
            mapping.downloads.append((p, obj, rng.choice(data.holders[obj])))


def select_servers_intelligent(data: TreeData, mapping: TreeMapping, rng: random.Random) -> None:
    """6.2.2 Server-Selection-Intelligent: exclusive objects, single-object servers, then
    the rest by interested processors per possible server."""
    card = dict(data.server_card)
    link: dict[tuple[str, int], float] = {}
    todo = [(p, k) for p, proc in enumerate(mapping.processors)
            for k in sorted({k for o in proc.group for k in data.objects[o]})]

    def room(srv: str, p: int) -> float:
        return min(card[srv], link.get((srv, p), data.link_bandwidth))

    def take(p: int, obj: str, srv: str) -> None:
        card[srv] -= data.rate[obj]
        link[(srv, p)] = link.get((srv, p), data.link_bandwidth) - data.rate[obj]
        mapping.downloads.append((p, obj, srv))
        todo.remove((p, obj))

    for p, obj in list(todo):                                    # loop 1: exclusive objects
        holders = data.holders[obj]
        if not holders:
            raise PlacementFailure(f"no server holds object {obj}")
        if len(holders) == 1:
            if room(holders[0], p) < data.rate[obj]:
                raise PlacementFailure(f"object {obj} is held only by {holders[0]}, which cannot "
                                       f"serve processor {p + 1} as well")
            take(p, obj, holders[0])
    holds = {s: [k for k in data.rate if s in data.holders[k]] for s in data.servers}
    for srv in data.servers:                                     # loop 2: one-object servers
        if len(holds[srv]) == 1:
            for p, obj in [t for t in todo if t[1] == holds[srv][0]]:
                if room(srv, p) >= data.rate[obj]:
                    take(p, obj, srv)
    while todo:                                                  # loop 3: the rest
        def pressure(obj: str) -> float:
            possible = [s for s in data.holders[obj] if card[s] >= data.rate[obj]]
            interested = sum(1 for _, k in todo if k == obj)
            return interested / len(possible) if possible else float("inf")

        obj = max({k for _, k in todo}, key=lambda k: (pressure(k), k))
        for p, k in [t for t in todo if t[1] == obj]:
            def roomiest(s: str, p: int = p) -> tuple[float, str]:
                return (-room(s, p), s)

            servers = sorted(data.holders[obj], key=roomiest)
            chosen = next((s for s in servers if room(s, p) >= data.rate[obj]), None)
            if chosen is None:
                raise PlacementFailure(f"no server has bandwidth left to send {obj} to "
                                       f"processor {p + 1}")
            take(p, k, chosen)
