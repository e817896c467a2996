"""Searches for a path task's map (Asaduzzaman and Maheswaran, sec. 4).

- :func:`exact`: every feasible map, depth first, pruning a partial map only when its cost
  plus the relaxed cost of the rest (sec. 4.2's multi-stage bound, suffix form) already
  exceeds the best map's: the best map under the full comparison rule is found.
- :func:`diffuse`: the map messages of Alg. 3, simulated in arrival (FIFO) order. A node
  receiving a partial map places the next x >= 0 services on itself where it offers them
  and has room, then forwards the map over dedicated links with room (x = 0 only within
  ``max_null`` forwarding hops) and, when it placed a service, over opportunistic links to
  the nodes offering the next one (uplink permitting). LeastCostMap forwards only maps
  cheaper than any seen at that node for that prefix length; AnnealedLeastCostMap also
  forwards a costlier one with a probability that shrinks exponentially with the prefix;
  RandomNeighbor forwards to k random dedicated neighbours without cost pruning.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import defaultdict, deque
from dataclasses import dataclass

from streamplace.solve.budget import Budget
from streamplace.solve.path.task import Map, PathTask, RouteOption, build_map
from streamplace.solve.placement import PlacementState


@dataclass
class Outcome:
    best: Map | None
    complete: bool  # False when the time limit or the message budget stopped the search
    explored: int


class _Usage:
    """Node resources (a :class:`PlacementState` of the services placed so far), dedicated-link
    and uplink bandwidth a partial map holds."""

    def __init__(self, task: PathTask) -> None:
        self.task = task
        state = task.state
        self.nodes = PlacementState(state.graph, state.network, state.counts, state.cands,
                               {op: {} for op in state.counts})
        self.link: dict[tuple[str, str], float] = defaultdict(float)
        self.uplink: dict[str, float] = defaultdict(float)

    def fits(self, i: int, u: str) -> bool:
        return self.nodes.fits(self.task.services[i], u)

    def add(self, i: int, u: str) -> None:
        self.nodes.place(self.task.services[i], u)

    def remove(self, i: int, u: str) -> None:
        self.nodes.remove(self.task.services[i], u)

    def route_fits(self, route: RouteOption, volume: float) -> bool:
        if not route.path:
            return True
        if not route.dedicated:
            u = route.path[0]
            return self.uplink[u] + volume <= self.task.network.nodes[u].bandwidth + 1e-9
        return all(self.link[(a, b)] + volume <= self._bandwidth(a, b) + 1e-9
                   for a, b in itertools.pairwise(route.path))

    def _bandwidth(self, a: str, b: str) -> float:
        hop = self.task.network.hop(a, b)
        return hop.link.bandwidth if hop is not None else 0.0

    def add_route(self, route: RouteOption, volume: float, sign: float = 1.0) -> None:
        if route.path and not route.dedicated:
            self.uplink[route.path[0]] += sign * volume
        elif route.path:
            for a, b in itertools.pairwise(route.path):
                self.link[(a, b)] += sign * volume


def exact(task: PathTask, budget: Budget) -> Outcome:
    m = len(task.services)
    suffix = _suffix_bounds(task)
    usage = _Usage(task)
    best: list[Map] = []
    explored = 0
    stopped = False
    nodes: list[str] = []
    routes: list[RouteOption] = []

    def search(i: int, cost: float) -> None:
        nonlocal explored, stopped
        if stopped:
            return
        if i == m:
            found = build_map(task, tuple(nodes), tuple(routes))
            if not best or found.better_than(best[0]):
                best[:] = [found]
            return
        explored += 1
        if explored % 1024 == 0 and budget.expired():
            stopped = True
            return
        for v in sorted(task.cands(i), key=lambda v: suffix[i].get(v, math.inf)):
            if not usage.fits(i, v):
                continue
            hops = task.routes(nodes[-1], v) if i else [RouteOption((), 0.0, True)]
            for route in hops:
                step = task.volume[i - 1] * route.cost if i else 0.0
                rest = cost + step + suffix[i].get(v, math.inf)
                if best and rest > best[0].cost + 1e-9 * max(1.0, abs(best[0].cost)):
                    break  # routes come cheapest first
                volume = task.volume[i - 1] if i else 0.0
                if not usage.route_fits(route, volume):
                    continue
                usage.add(i, v)
                usage.add_route(route, volume)
                nodes.append(v)
                if i:
                    routes.append(route)
                search(i + 1, cost + step)
                nodes.pop()
                if i:
                    routes.pop()
                usage.add_route(route, volume, -1.0)
                usage.remove(i, v)

    search(0, 0.0)
    return Outcome(best[0] if best else None, not stopped, explored)


def _suffix_bounds(task: PathTask) -> list[dict[str, float]]:
    """suffix[i][v]: the least relaxed cost of hops i.. to the end, with t_i on v."""
    m = len(task.services)
    suffix: list[dict[str, float]] = [{} for _ in range(m)]
    suffix[m - 1] = {v: 0.0 for v in task.cands(m - 1)}
    for i in range(m - 2, -1, -1):
        suffix[i] = {u: min((task.volume[i] * task.cheapest(u, v) + c
                             for v, c in suffix[i + 1].items()), default=math.inf)
                     for u in task.cands(i)}
    return suffix


@dataclass
class _Message:
    node: str
    placed: tuple[str, ...]  # nodes of t_0 .. t_(j-1)
    routes: tuple[RouteOption, ...]  # finished hops
    trail: tuple[str, ...]  # dedicated hop under way, sender first; () after a public hop
    cost: float


def diffuse(task: PathTask, budget: Budget, rng: random.Random, *, prune: str,
            neighbours: int | None = None, limit: int = 200_000,
            anneal: tuple[float, float] = (0.5, 0.5)) -> Outcome:
    """Alg. 3 with ``prune`` = "least-cost" | "annealed" | "none" (RandomNeighbor)."""
    m = len(task.services)
    seen: dict[tuple[str, int], float] = {}  # M(j) at every node
    queue: deque[_Message] = deque(_Message(u, (), (), (u,), 0.0) for u in task.cands(0))
    best: Map | None = None
    explored = 0
    while queue:
        if explored >= limit or (explored % 256 == 0 and budget.expired()):
            return Outcome(best, False, explored)
        msg = queue.popleft()
        explored += 1
        v, j = msg.node, len(msg.placed)
        placed, routes, cost = msg.placed, msg.routes, msg.cost
        for x in range(0, m - j + 1):
            if x:
                if v not in task.cands(j + x - 1):
                    break
                if x > 1:
                    routes = (*routes, RouteOption((), 0.0, True))  # co-located hop
                elif j and msg.trail:
                    links = task.network.route(msg.trail)
                    assert links is not None  # map messages travel over dedicated links
                    route = RouteOption(msg.trail, links.cost, True)
                    routes = (*routes, route)
                    cost += task.volume[j - 1] * route.cost
                placed = (*placed, v)
                if not _feasible(task, placed, routes):
                    break
                if j + x == m:
                    found = build_map(task, placed, routes)
                    if best is None or found.better_than(best):
                        best = found
                    break
            elif not j or not msg.trail or len(msg.trail) - 1 > task.max_null:
                continue  # nothing to forward yet, a public hop ends here, or too long
            prefix = j + x
            if not _forward(prune, seen, v, prefix, cost, rng, anneal):
                continue
            trail = (v,) if x else msg.trail
            targets: list[tuple[str, RouteOption | None]] = [
                (k, None) for k in task.network.dedicated_neighbours(v) if k not in trail]
            if x:  # opportunistic links only from a node that processed (line 31)
                for k in task.cands(prefix):
                    hop = task.network.hop(v, k)
                    if k != v and hop is not None and not hop.dedicated:
                        targets.append((k, RouteOption((v, k), hop.link.cost, False)))
            if neighbours is not None and len(targets) > neighbours:
                targets = rng.sample(targets, neighbours)
            for k, public in targets:
                if public is None:
                    queue.append(_Message(k, placed, routes, (*trail, k), cost))
                else:
                    queue.append(_Message(k, placed, (*routes, public), (),
                                          cost + task.volume[prefix - 1] * public.cost))
    return Outcome(best, True, explored)


def _forward(prune: str, seen: dict[tuple[str, int], float], v: str, prefix: int,
             cost: float, rng: random.Random, anneal: tuple[float, float]) -> bool:
    if prune == "none":
        return True
    known = seen.get((v, prefix), math.inf)
    if cost < known:
        seen[(v, prefix)] = cost
        return True
    if prune == "annealed":
        start, decay = anneal
        return rng.random() < start * math.exp(-decay * prefix)
    return False


def _feasible(task: PathTask, placed: tuple[str, ...], routes: tuple[RouteOption, ...]) -> bool:
    usage = _Usage(task)
    for i, u in enumerate(placed):
        if not usage.fits(i, u):
            return False
        usage.add(i, u)
    for i, route in enumerate(routes):
        if not usage.route_fits(route, task.volume[i]):
            return False
        usage.add_route(route, task.volume[i])
    return True
