"""A local search on F itself, run by ``odrp`` before the solver: its plan is the solver's
first incumbent, so the solver starts from a good plan instead of a framework baseline.

Iterated local search (Lourenco, Martin and Stuetzle's scheme) over the moves of one
operator: a replica moved to another candidate, added, or removed, within the counts the
operator may run (stable, at most k_i), and at a local optimum of those the emptying of a
node (every replica on it moved to one other node at once); each move scored by the
incremental scorer (:mod:`streamplace.model.evaluate.scorer`), which gives the evaluator's
F, capacity and the metric limits. First improvement, operators in a seeded random order;
at a local optimum a kick re-places one operator and its neighbours in the DAG at random,
the search climbs again and keeps the better of the two optima. Every move tried is one
unit of work: the same seed and work give the same plan on any machine.

The result is never worse than the start: the best plan seen is what it returns.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

from streamplace.model.evaluate.scorer import Multiset, PlacementScorer, one_replica_changes
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.odrp.data import OdrpData

KICKS_WITHOUT_GAIN = 30  # local optima in a row no better than the best: the search ends
MIN_GAIN = 1e-12  # an improvement smaller than this is rounding, not progress


@dataclass(frozen=True)
class SearchResult:
    plan: Plan
    value: float  # F of the plan, as the scorer gives it
    start_value: float
    moves_tried: int
    local_optima: int


def improve(data: OdrpData, start: Plan, budget: Budget, seed: int = 0) -> SearchResult:
    """The best plan the search finds from ``start`` (a complete, feasible plan) until the
    budget runs out or KICKS_WITHOUT_GAIN kicks in a row find nothing better."""
    scorer = data.scorer(start)
    rng = random.Random(seed)
    search = _Search(data, scorer, budget, rng)
    start_value = search.value
    best_value = search.climb()
    best = scorer.snapshot()
    optima, futile = 1, 0
    while futile < KICKS_WITHOUT_GAIN and not budget.expired():
        value = search.climb(search.kick())
        optima += 1
        if value > best_value + MIN_GAIN:
            best_value, best, futile = value, scorer.snapshot(), 0
        else:
            futile += 1
            scorer.restore(best)
    scorer.restore(best)
    plan = Plan.model_validate({"placement": {op: dict(reps) for op, reps in best.items()},
                                "bounds_used": data.bounds_used()})
    return SearchResult(plan, best_value, start_value, budget.work.spent, optima)


class _Search:
    def __init__(self, data: OdrpData, scorer: PlacementScorer, budget: Budget,
                 rng: random.Random) -> None:
        self.data, self.scorer, self.budget, self.rng = data, scorer, budget, rng
        self.movable = data.movable
        graph = data.graph
        self.neighbours = {op: sorted(set(graph.preds[op]) | set(graph.succs[op]))
                           for op in self.movable}
        self.value = scorer.score()

    def climb(self, active: list[str] | None = None) -> float:
        """First improvement until no move of any operator, nor the emptying of a node,
        improves F (or the budget ends). Only the ``active`` operators are looked at first
        (all by default); an operator that improves wakes its DAG neighbours (don't-look
        bits, as in Bentley's 2-opt)."""
        queue = list(self.movable if active is None else active)
        self.rng.shuffle(queue)
        waiting = set(queue)
        while not self.budget.expired():
            if not queue:
                queue = self._empty_a_node()
                waiting = set(queue)
                if not queue:
                    break
            op_id = queue.pop(0)
            waiting.discard(op_id)
            if self._improve_operator(op_id):
                for other in (op_id, *self.neighbours[op_id]):
                    if other in self.neighbours and other not in waiting:
                        waiting.add(other)
                        queue.append(other)
        return self.value

    def _empty_a_node(self) -> list[str]:
        """Move every replica on one node to another node at once, the first such move
        that improves F; the operators moved and their neighbours ([] if none improves).
        Availability is a product over the nodes in use: moving one replica off a node
        gains nothing until the node is empty, so no single move finds this."""
        scorer, cands = self.scorer, self.data.cands
        on_node: dict[str, list[str]] = {}
        for op_id, reps in scorer.placement.items():
            for u in reps:
                on_node.setdefault(u, []).append(op_id)
        # a node holding a pinned operator stays in use whatever moves
        nodes = [u for u, ops in on_node.items() if all(op in self.neighbours for op in ops)]
        self.rng.shuffle(nodes)
        for u in nodes:
            ops = on_node[u]
            targets = [v for v in cands[ops[0]] if v != u and all(v in cands[op] for op in ops)]
            self.rng.shuffle(targets)
            for v in targets:
                before = {op: scorer.placement[op] for op in ops}
                for op in ops:
                    self.budget.spend()
                    moved = {w: n for w, n in before[op].items() if w != u}
                    moved[v] = moved.get(v, 0) + before[op][u]
                    scorer.change(op, moved)
                value = scorer.value() if scorer.feasible() else -math.inf
                if value > self.value + MIN_GAIN:
                    self.value = value
                    return [n for op in ops for n in (op, *self.neighbours[op])
                            if n in self.neighbours]
                for op in ops:
                    scorer.change(op, before[op])
                if self.budget.expired():
                    return []
        return []

    def _improve_operator(self, op_id: str) -> bool:
        scorer = self.scorer
        for multiset in self._moves(op_id):
            self.budget.spend()
            before = scorer.placement[op_id]
            scorer.change(op_id, multiset)
            if scorer.feasible():
                value = scorer.value()
                if value > self.value + MIN_GAIN:
                    self.value = value
                    return True
            scorer.change(op_id, before)
            if self.budget.expired():
                break
        return False

    def _moves(self, op_id: str) -> Iterator[Multiset]:
        current = self.scorer.placement[op_id]
        cands = self.data.cands[op_id]
        counts = self.data.counts[op_id]
        count = sum(current.values())
        targets = list(cands)
        self.rng.shuffle(targets)
        changes = one_replica_changes(current, targets, add=count + 1 in counts,
                                      remove=count - 1 in counts)
        return (multiset for _words, multiset in changes)


    def kick(self) -> list[str]:
        """Re-place an operator and its DAG neighbours at random (feasibly, where the
        tries find a way), so the next climb starts elsewhere; the operators moved."""
        if not self.movable:
            return []
        centre = self.rng.choice(self.movable)
        group = [centre, *(op for op in self.neighbours[centre] if op in self.neighbours)]
        scorer = self.scorer
        # half the kicks gather the group on one node (a chain moved to the cloud or the
        # edge at once, which no single move reaches), half scatter it at random
        together = self.rng.random() < 0.5
        node = self.rng.choice(self.data.cands[centre])
        for op_id in group:
            before = scorer.placement[op_id]
            for _ in range(8):
                self.budget.spend()
                scorer.change(op_id, self._random_multiset(op_id, node if together else None))
                if scorer.feasible():
                    break
                scorer.change(op_id, before)
        self.value = scorer.score()
        return [n for op in group for n in (op, *self.neighbours[op]) if n in self.neighbours]

    def _random_multiset(self, op_id: str, node: str | None = None) -> Multiset:
        counts = self.data.counts[op_id]
        m = self.rng.choice(list(counts))
        cands = self.data.cands[op_id]
        if node is not None and node in cands:
            return {node: m}
        out: Multiset = {}
        for _ in range(m):
            u = self.rng.choice(cands)
            out[u] = out.get(u, 0) + 1
        return out
