"""The score and the hill climbing of Ecker et al. (sec. 4.3.1), over instances.

The score is kept incrementally: a move touches only its operator's streams and two nodes,
so s_sup, s_co, s_event and the violations update in O(degree); s_lat (weighted 1e-6) is
recomputed by its DP only when the other parts cannot decide. Cyclic topologies are ordered
by Alg. 3 (feedback arcs dropped from s_lat), as the paper does.
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass

from streamplace.model.evaluate.ecker import DEFAULT_WEIGHTS, HEADROOM
from streamplace.model.graph import cyclic_order
from streamplace.model.reconfiguration import Current
from streamplace.solve.budget import Budget
from streamplace.solve.placement import PlacementState

PENALTY = 10_000.0  # S_k = score + 10000 * violations (sec. 4.3.2)


@dataclass(frozen=True)
class Move:
    op: str
    source: str
    target: str


class Score:
    """The Ecker score of a placement, updated move by move. Re-planning against a
    ``current`` plan adds its reconfiguration, normalised by the most it can be and weighed
    like the utility weighs it, so the search prefers plans that leave replicas running."""

    def __init__(self, state: PlacementState, weights: tuple[float, float, float, float]
                 = DEFAULT_WEIGHTS, current: Current | None = None,
                 moves_weight: float = 0.0) -> None:
        self.state = state
        self.weights = weights
        self.current = current
        ops = {op.id: op for op in state.graph.app.operators}
        top = sum(ops[o].migration_cost * c for o, c in state.counts.items())
        self.moves_scale = moves_weight / top if current is not None and top > 0 else 0.0
        self.moves = current.moves(list(ops.values()), state.nodes) if current else 0.0
        graph = state.graph
        self.order, feedback = cyclic_order(graph.digraph)
        dropped = set(feedback)
        self.preds: dict[str, list[str]] = {o: [] for o in self.order}
        feeding: set[str] = set()
        for s in graph.streams:
            if (s.source, s.target) not in dropped:
                self.preds[s.target].append(s.source)
                feeding.add(s.source)
        self.sinks = [o for o in self.order if o not in feeding]
        self.streams = [(s.source, s.target, s.rate) for s in graph.streams]
        self.touching: dict[str, list[int]] = defaultdict(list)
        for k, (a, b, _) in enumerate(self.streams):
            self.touching[a].append(k)
            if b != a:
                self.touching[b].append(k)
        self.edges = sum(state.counts[a] * state.counts[b] for a, b, _ in self.streams)
        self.events = sum(rate for _, _, rate in self.streams)
        self.processors = len(state.network.processors)
        self.remote_edges = [0.0] * len(self.streams)
        self.remote_events = [0.0] * len(self.streams)
        for k in range(len(self.streams)):
            self._stream(k)
        self.on_node: dict[str, int] = defaultdict(int)
        for reps in state.nodes.values():
            for u, c in reps.items():
                self.on_node[u] += c
        self.over: dict[str, tuple[int, float]] = {u: self._overloads(u)
                                                  for u in state.network.processors}

    def _stream(self, k: int) -> None:
        a, b, rate = self.streams[k]
        up, down = self.state.nodes[a], self.state.nodes[b]
        na, nb = sum(up.values()), sum(down.values())
        same = sum(c * down.get(u, 0) for u, c in up.items())
        self.remote_edges[k] = na * nb - same
        self.remote_events[k] = rate * (1 - same / (na * nb)) if na and nb else 0.0

    def _overloads(self, u: str) -> tuple[int, float]:
        """(dimensions over 95%, by how much in shares of capacity)."""
        resources = self.state.network.nodes[u].resources or {}
        excess = [self.state.used[u][dim] / cap - HEADROOM for dim, cap in resources.items()
                  if cap > 0 and self.state.used[u][dim] > HEADROOM * cap + 1e-9]
        return len(excess), sum(excess)

    @property
    def violations(self) -> int:
        return sum(count for count, _ in self.over.values())

    @property
    def excess(self) -> float:
        """Tie-breaker among equal violation counts: piling onto a full node is worse."""
        return sum(amount for _, amount in self.over.values())

    def structural(self) -> float:
        """w2 s_sup + w3 s_co + w4 s_event: everything but the latency term."""
        _, w2, w3, w4 = self.weights
        used = sum(1 for c in self.on_node.values() if c > 0)
        s_co = sum(self.remote_edges) / self.edges if self.edges else 0.0
        s_event = sum(self.remote_events) / self.events if self.events else 0.0
        return (w2 * used / max(1, self.processors) + w3 * s_co + w4 * s_event
                + self.moves_scale * self.moves)

    def s_lat(self) -> float:
        delay = self.state.network.delay
        nodes = self.state.nodes
        lat: dict[tuple[str, str], float] = {}
        for op in self.order:
            for u in nodes[op]:
                lat[(op, u)] = max((lat[(p, v)] + delay(v, u) for p in self.preds[op]
                                    for v in nodes[p]), default=0.0)
        return max((lat[(s, u)] for s in self.sinks for u in nodes[s]), default=0.0)

    def total(self) -> float:
        return self.weights[0] * self.s_lat() + self.structural()

    def penalised(self) -> float:
        return self.total() + PENALTY * self.violations

    def apply(self, move: Move) -> None:
        if self.current is not None:
            cost = self.state.op(move.op).migration_cost
            here = self.state.nodes[move.op]
            if here.get(move.source, 0) > self.current.count(move.op, move.source):
                self.moves -= cost  # one started replica fewer there
            if here.get(move.target, 0) >= self.current.count(move.op, move.target):
                self.moves += cost
        self.state.remove(move.op, move.source)
        self.state.place(move.op, move.target)
        self.on_node[move.source] -= 1
        self.on_node[move.target] += 1
        for k in self.touching[move.op]:
            self._stream(k)
        for u in (move.source, move.target):
            self.over[u] = self._overloads(u)


def _attempt(score: Score, moves: list[Move]) -> bool:
    """Apply ``moves`` and keep them if violations do not grow and the score falls (sec.
    4.3.1); s_lat is computed only when the other parts tie."""
    need: dict[tuple[str, str], int] = defaultdict(int)
    for m in moves:  # moves were drawn before earlier ones changed the placement
        need[(m.op, m.source)] += 1
    if any(score.state.nodes[op].get(u, 0) < n for (op, u), n in need.items()):
        return False
    base_violations, base = (score.violations, score.excess), score.structural()
    for m in moves:
        score.apply(m)
    violations, structural = (score.violations, score.excess), score.structural()
    if violations < base_violations or (violations == base_violations
                                        and structural < base - 1e-12):
        return True
    keep = False
    if violations == base_violations and abs(structural - base) <= 1e-12:
        after = score.s_lat()
        _undo(score, moves)
        keep = after < score.s_lat() - 1e-12
        if keep:
            for m in moves:
                score.apply(m)
        return keep
    _undo(score, moves)
    return False


def _undo(score: Score, moves: list[Move]) -> None:
    for m in reversed(moves):
        score.apply(Move(m.op, m.target, m.source))


def hill_climb(score: Score, rng: random.Random, budget: Budget) -> int:
    """First-improvement hill climbing with the paper's three moves; returns moves made.
    Each move tried is one unit of work (:meth:`Budget.spend`)."""
    made = 0
    improved = True
    while improved and not budget.expired():
        improved = False
        for moves in _neighbourhood(score.state, rng):
            if budget.expired():
                break
            budget.spend()
            if _attempt(score, moves):
                made += 1
                improved = True
    return made


def _neighbourhood(state: PlacementState, rng: random.Random):  # type: ignore[no-untyped-def]
    """Moves of sec. 4.3.1 in random order: one instance, a swap, a whole node."""
    ops = [op for op in state.nodes if state.nodes[op]]
    nodes = list(state.network.processors)
    options: list[list[Move]] = []
    for op in ops:
        for u in list(state.nodes[op]):
            for v in state.cands[op]:
                if v != u and state.fits(op, v, HEADROOM):
                    options.append([Move(op, u, v)])
    rng.shuffle(options)
    singles = options[: 20 * len(nodes) + 200]
    swaps: list[list[Move]] = []
    instances = [(op, u) for op in ops for u in state.nodes[op]]
    for _ in range(min(len(instances) ** 2, 20 * len(instances) + 50)):
        (a, u), (b, v) = rng.sample(instances, 2) if len(instances) > 1 else (instances[0],) * 2
        if u != v and v in state.cands[a] and u in state.cands[b]:
            swaps.append([Move(a, u, v), Move(b, v, u)])
    wholes: list[list[Move]] = []
    for u in nodes:
        hosted = [(op, u) for op in ops for _ in range(state.nodes[op].get(u, 0))]
        if hosted:
            for v in rng.sample(nodes, min(len(nodes), 8)):
                if v != u and all(v in state.cands[op] for op, _ in hosted):
                    wholes.append([Move(op, u, v) for op, _ in hosted])
    merged = singles + swaps + wholes
    rng.shuffle(merged)
    yield from merged
