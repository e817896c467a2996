"""Network-aware placement of Pietzuch et al. 2006 (SBON; docs/models.md sec. 5), minimising
network usage u = sum over streams of bytes/s * latency.

- relaxation: unpinned operators are placed in the latency cost space by spring relaxation
  (Fig. 7: springs of extension = latency and constant = data rate, so the energy is
  sum DR * Lat^2), then each virtual position is mapped to a physical node (sec. 3.1.3):
  the k = 10 candidates nearest to it in the latency/load space, a node already running
  the operator first, else the nearest with room (``mapping=nearest``) or, by default, the
  one of least true network usage among those and the nodes on the routes between the
  neighbours' hosts (``mapping=usage``); k doubles when none has room.
- producer / consumer: each unpinned operator on a node of one of its upstream (downstream)
  operators, picked at random, as the paper's PRODUCER (CONSUMER) baseline does; where none
  of them may host it, the candidate nearest to that node.
- random: every instance on a random candidate with room.
Operators with one candidate are pinned (producers and consumers, typically).
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Callable

import numpy as np

from streamplace.model.costspace import CostSpace, cost_space
from streamplace.model.metrics import Metric
from streamplace.solve.budget import Budget
from streamplace.solve.method import Method, Param, Setting, SolveFn, acyclic
from streamplace.solve.placement import (
    Place,
    PlacementFailure,
    PlacementState,
    run_placement,
)
from streamplace.solve.result import Instance, SolveOptions, SolveResult

K_NEAREST = 10
TOLERANCE = 1e-9  # of the space's extent: when relaxation stops moving
MAX_SWEEPS = 10_000


def springs(state: PlacementState) -> list[tuple[str, str, float]]:
    """(operator, operator, data rate in bytes/s) for every stream between two operators."""
    return [(s.source, s.target, s.bytes_per_s) for s in state.graph.streams
            if s.source != s.target]


def relax(fixed: dict[str, np.ndarray], free: list[str], edges: list[tuple[str, str, float]],
          start: np.ndarray, budget: Budget | None = None,
          ) -> tuple[dict[str, np.ndarray], int]:
    """Spring relaxation of the ``free`` operators (Fig. 7), to the minimum of
    sum DR * |S_a - S_b|^2 with the ``fixed`` positions held.

    Each sweep moves every free operator to the DR-weighted centroid of its neighbours:
    the exact minimiser along that operator's coordinates, so the energy never rises and the
    sweeps converge (Gauss-Seidel on the springs' Laplacian). The paper's damped step
    S <- S - delta F is the same move with delta = 1 / sum DR. Returns positions and sweeps.

    >>> import numpy as np
    >>> pos, _ = relax({"p": np.array([0.0]), "c": np.array([4.0])}, ["a"],
    ...                [("p", "a", 3.0), ("a", "c", 1.0)], np.array([9.0]))
    >>> float(pos["a"][0])
    1.0
    """
    pos = dict(fixed) | {op: start.copy() for op in free}
    around: dict[str, list[tuple[str, float]]] = {op: [] for op in free}
    for a, b, rate in edges:
        if a in around:
            around[a].append((b, rate))
        if b in around:
            around[b].append((a, rate))
    extent = max((float(np.abs(p).max()) for p in fixed.values()), default=1.0) or 1.0
    sweeps = 0
    while sweeps < MAX_SWEEPS and (budget is None or not budget.expired()):
        sweeps += 1
        moved = 0.0
        for op in free:
            weight = sum(rate for _, rate in around[op])
            if weight <= 0:
                continue
            target = np.sum([rate * pos[nb] for nb, rate in around[op]], axis=0) / weight
            moved = max(moved, float(np.abs(target - pos[op]).max()))
            pos[op] = target
        if moved <= TOLERANCE * extent:
            break
    return pos, sweeps


def _pinned(state: PlacementState) -> list[str]:
    return [op for op in state.graph.topological_order() if len(state.cands[op]) == 1]


def _place_pinned(state: PlacementState) -> None:
    for op in _pinned(state):
        node = state.cands[op][0]
        for _ in range(state.counts[op]):
            if not state.fits(op, node):
                raise PlacementFailure(f"pinned operator {op} does not fit on {node}")
            state.place(op, node)


def _free(state: PlacementState) -> list[str]:
    return [op for op in state.graph.topological_order() if len(state.cands[op]) > 1]


def _check_cands(state: PlacementState) -> None:
    for op, cands in state.cands.items():
        if not cands:
            raise PlacementFailure(f"operator {op} has no candidate processor")


def relaxation(state: PlacementState, space: CostSpace, load_weight: float | None,
               budget: Budget, by_usage: bool = False) -> dict[str, object]:
    _check_cands(state)
    _place_pinned(state)
    index = space.index()
    point = {u: space.coords[index[u]] for u in index}
    fixed = {op: point[state.cands[op][0]] for op in _pinned(state)}
    free = _free(state)
    start = space.coords.mean(axis=0)
    virtual, sweeps = relax(fixed, free, springs(state), start, budget)
    weight = _load_weight(space) if load_weight is None else load_weight
    for op in free:
        _map(state, op, virtual[op], point, weight, by_usage)
    return {"relaxation_sweeps": sweeps, "load_weight": weight,
            "virtual": {op: [round(float(x), 9) for x in virtual[op]] for op in free}}


def _load_weight(space: CostSpace) -> float:
    """Seconds of cost-space distance for a fully loaded node: the mean distance to the
    space's centre, so load and latency weigh alike (Pietzuch et al. 2006, sec. 5.2, "equal
    weight")."""
    centre = space.coords.mean(axis=0)
    return float(np.linalg.norm(space.coords - centre, axis=1).mean())


def _map(state: PlacementState, op: str, target: np.ndarray, point: dict[str, np.ndarray],
         load_weight: float, by_usage: bool) -> None:
    """Physical mapping (sec. 3.1.3, steps 1-5) of every instance of ``op``.

    With ``by_usage`` the k nearest nodes with room are compared by the network usage they
    would give with the neighbours placed so far, as SBON's local placement optimizer
    measures it before a migration (sec. 3.2), instead of taking the nearest.
    """
    cands = state.cands[op]
    loads = np.array([state.network.nodes[u].load for u in cands])
    where = np.array([point[u] for u in cands])
    dist = np.sqrt(((where - target) ** 2).sum(axis=1) + (load_weight * loads) ** 2)
    order = [cands[k] for k in np.lexsort((np.arange(len(cands)), dist))]
    for _ in range(state.counts[op]):
        k = K_NEAREST
        while True:
            near = order[:k]
            running = [u for u in near if u in state.nodes[op] and state.fits(op, u)]
            roomy = running or [u for u in near if state.fits(op, u)]
            if roomy and by_usage and not running:
                allowed = set(cands)
                roomy += [u for u in _on_routes(state, op) if u in allowed and u not in roomy
                          and state.fits(op, u)]
            if roomy:
                state.place(op, _least_usage(state, op, roomy) if by_usage else roomy[0])
                break
            if k >= len(order):
                raise PlacementFailure(f"no candidate of {op} has room for another replica")
            k *= 2


def _on_routes(state: PlacementState, op: str) -> list[str]:
    """The nodes on the routes between the hosts of ``op``'s placed neighbours: where a
    cost space that fits the delays badly (graphs with no geometry) misses the best node,
    the true routes still pass by it."""
    hosts = sorted({h for s in state.graph.streams
                    if op in (s.source, s.target) and s.source != s.target
                    for h in state.nodes[s.target if s.source == op else s.source]})
    found: dict[str, None] = {}
    for a, b in itertools.combinations(hosts, 2):
        found.update(dict.fromkeys(state.network.link(a, b).path))
    return list(found)


def _least_usage(state: PlacementState, op: str, nodes: list[str]) -> str:
    usage = dict.fromkeys(nodes, 0.0)
    table: Callable[[str], dict[str, float]]
    for s in state.graph.streams:
        if s.source == op and s.target != op:
            hosts, table = state.nodes[s.target], state.network.delays_to
        elif s.target == op and s.source != op:
            hosts, table = state.nodes[s.source], state.network.delays_from
        else:
            continue
        placed = sum(hosts.values())
        for h, c in hosts.items():
            delays = table(h)
            for u in nodes:
                usage[u] += s.bytes_per_s * c / placed * delays.get(u, math.inf)
    return min(nodes, key=lambda u: (usage[u], nodes.index(u)))


def neighbour_hosted(state: PlacementState, rng: random.Random, upstream: bool) -> None:
    """PRODUCER (``upstream``) or CONSUMER baseline."""
    _check_cands(state)
    _place_pinned(state)
    digraph = state.graph.digraph
    order = _free(state)
    for op in order if upstream else order[::-1]:
        near = digraph.predecessors(op) if upstream else digraph.successors(op)
        hosts = sorted({u for nb in near for u in state.nodes[nb]})
        for _ in range(state.counts[op]):
            if not hosts:
                _place_random(state, op, rng)
                continue
            host = rng.choice(hosts)
            if host in state.cands[op] and state.fits(op, host):
                state.place(op, host)
                continue
            delays = state.network.delays_from(host)
            roomy = [u for u in state.cands[op] if state.fits(op, u) and u in delays]
            if not roomy:
                raise PlacementFailure(f"no candidate of {op} has room near {host}")
            state.place(op, min(roomy, key=lambda u: (delays[u], u)))


def _place_random(state: PlacementState, op: str, rng: random.Random) -> None:
    roomy = [u for u in state.cands[op] if state.fits(op, u)]
    if not roomy:
        raise PlacementFailure(f"no candidate of {op} has room for another replica")
    state.place(op, rng.choice(roomy))


def random_placement(state: PlacementState, rng: random.Random) -> None:
    _check_cands(state)
    _place_pinned(state)
    for op in _free(state):
        for _ in range(state.counts[op]):
            _place_random(state, op, rng)


def _network_aware(method: str, instance: Instance, options: SolveOptions,
                   place: Place) -> SolveResult:
    return run_placement(method, "sbon", instance, options, place,
                         objective_metric=Metric.NETWORK_USAGE)


def _relaxation(instance: Instance, options: SolveOptions) -> SolveResult:
    load_weight = _LOAD_WEIGHT.of(options)
    mapping = _MAPPING.of(options)

    def place(state: PlacementState, rng: random.Random, budget: Budget) -> dict[str, object]:
        space = cost_space(state.network)
        info = relaxation(state, space, load_weight, budget, by_usage=mapping == "usage")
        return space.report() | info | {"mapping": mapping}

    return _network_aware("relaxation", instance, options, place)


def _neighbour_hosted(name: str, upstream: bool) -> SolveFn:
    def solve(instance: Instance, options: SolveOptions) -> SolveResult:
        return _network_aware(name, instance, options,
                    lambda s, r, d: neighbour_hosted(s, r, upstream=upstream))

    return solve


_SEEDED = frozenset({Setting.TIME_LIMIT, Setting.SEED})
_LOAD_WEIGHT: Param[float | None] = Param(
    "load_weight", float, None, "cost-space seconds of a fully loaded node (default: the "
    "mean distance to the space's centre)", low=0.0)
_MAPPING = Param("mapping", str, "usage", "usage: the k nearest and the nodes on the routes "
                 "between the neighbours' hosts, compared by true network usage; nearest: the "
                 "paper's mapping", ("usage", "nearest"))
METHODS = (
    Method("relaxation", "sbon", exact=False, run=_relaxation, accepts=acyclic,
           paper="Pietzuch et al. 2006",
           params=(_LOAD_WEIGHT, _MAPPING),
           summary="SBON: spring relaxation in the latency space, then the node of least "
                   "network usage near the spot (k = 10) or on the neighbours' routes"),
    Method("producer", "sbon", exact=False, run=_neighbour_hosted("producer", True),
           settings=_SEEDED, accepts=acyclic, paper="Pietzuch et al. 2006",
           summary="SBON baseline: each unpinned operator on a random upstream host"),
    Method("consumer", "sbon", exact=False, run=_neighbour_hosted("consumer", False),
           settings=_SEEDED, accepts=acyclic, paper="Pietzuch et al. 2006",
           summary="SBON baseline: each unpinned operator on a downstream host"),
)
