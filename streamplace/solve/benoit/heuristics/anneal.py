"""Simulated annealing over what each bought processor runs (Constr), the primal side of
``benoit`` before its MIP.

A state is a partition of the operators into groups, each bought as the cheapest class
that meets its compute (1) and card (2) needs; a move takes one operator to another group
(most often a tree neighbour's, sometimes any, sometimes a new processor) and is refused if
no class could run either group or if it overloads a processor link (5). Each move is
scored in constant time from the two groups' running sums. The server rows (3)-(4) are
left to server selection afterwards; the caller keeps the plan only if the evaluator finds
no violation. The schedule is counted in moves, so a seed gives the same answer on any
machine unless the time limit ends it first. Three schedules run from the start, each on its
own path (they end in different places on heavy trees), the cheapest kept; where the first
improves nothing (a tree one processor runs), the others do not run.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence

import numpy as np

from streamplace.solve.benoit.data import TreeData
from streamplace.solve.benoit.group_costs import Needs
from streamplace.solve.budget import Budget

MOVES_PER_OPERATOR = 4000
ROUNDS = 3                # cooling schedules, each from the start
START_TEMPERATURE = 0.25  # of the cheapest class's cost
NEIGHBOUR_MOVES = 0.6     # share of moves to a tree neighbour's processor
NEW_PROCESSOR = 0.1       # share of moves to a processor of its own
CHECK_EVERY = 1000        # moves between looks at the budget


class _Partition:
    """Groups with their running needs: compute, objects held (counted), card cut, and the
    tree-edge volume between each pair of groups (processor links)."""

    def __init__(self, needs: Needs, groups: Sequence[set[str]]) -> None:
        n = len(needs.ops)
        self.needs = needs
        self.of = np.zeros(n, dtype=int)
        for g, group in enumerate(groups):
            self.of[needs.mask(group)] = g
        self.size = np.bincount(self.of, minlength=n)
        self.work = np.bincount(self.of, weights=needs.work, minlength=n)
        self.held = np.zeros((n, needs.objects.shape[1]))
        np.add.at(self.held, self.of, needs.objects)
        self.cut = np.zeros(n)
        self.between = np.zeros((n, n))
        self.neighbours = [[(int(j), float(needs.volume[i, j]))
                            for j in np.flatnonzero(needs.volume[i])] for i in range(n)]
        for i in range(n):
            for j, v in self.neighbours[i]:
                a, b = self.of[i], self.of[j]
                if a != b:
                    self.cut[a] += v
                    self.between[a, b] += v
        self.cost = np.array([self.price(g, self.work[g], self.held[g], self.cut[g],
                                         self.size[g]) for g in range(n)])

    def price(self, g: int, work: float, held: np.ndarray, cut: float, size: int) -> float:
        if size == 0:
            return 0.0
        card = float(self.needs.rate @ (held > 0.5)) + cut
        return float(self.needs.prices(np.array([work]), np.array([card]))[0])

    def groups(self) -> list[set[str]]:
        return [self.needs.names(self.of == g) for g in dict.fromkeys(self.of.tolist())]


def anneal(data: TreeData, start: Sequence[set[str]], budget: Budget, seed: int,
           rounds: int = ROUNDS,
           improved: Callable[[list[set[str]]], object] | None = None) -> list[set[str]]:
    """The cheapest partition met (never dearer than ``start``): ``rounds`` cooling schedules
    from ``start``, each its own path, unless the first improves nothing. Each schedule's
    result that is the cheapest so far is passed to ``improved`` as it ends."""
    needs = Needs(data)
    rng = random.Random(seed)
    best, cheapest = list(start), _cost(needs, start)
    for _ in range(rounds):
        found = _cool(data, needs, start, budget, rng)
        if found is None and cheapest == _cost(needs, start):
            break
        if found is not None and _cost(needs, found) < cheapest - 1e-9:
            best, cheapest = found, _cost(needs, found)
            if improved is not None:
                improved([set(g) for g in best])
    return [set(g) for g in best]


def _cost(needs: Needs, groups: Sequence[set[str]]) -> float:
    return sum(needs.price(needs.mask(group)) for group in groups)


def _cool(data: TreeData, needs: Needs, start: Sequence[set[str]], budget: Budget,
          rng: random.Random) -> list[set[str]] | None:
    """One cooling schedule from ``start``: a cheaper partition, or None."""
    state = _Partition(needs, start)
    n = len(needs.ops)
    total = best = first = float(state.cost.sum())
    best_of = state.of.copy()
    moves = MOVES_PER_OPERATOR * n
    hot = START_TEMPERATURE * float(needs.cost.min())
    for move in range(moves):
        if move % CHECK_EVERY == 0 and budget.expired():
            break
        temperature = hot * (1 - move / moves) + 1e-9
        delta = _try(state, rng, rng.randrange(n), data.link_bandwidth, temperature)
        if delta is not None:
            total += delta
            if total < best - 1e-9:
                best, best_of = total, state.of.copy()
    if best >= first - 1e-9:
        return None
    state.of = best_of
    return state.groups()


def _try(state: _Partition, rng: random.Random, i: int, link: float,
         temperature: float) -> float | None:
    """Move operator ``i`` if the annealing accepts it; the change of cost, or None."""
    a = int(state.of[i])
    draw = rng.random()
    if draw < NEIGHBOUR_MOVES and state.neighbours[i]:
        b = int(state.of[rng.choice(state.neighbours[i])[0]])
    elif draw < 1 - NEW_PROCESSOR:
        b = int(state.of[rng.randrange(len(state.of))])
    else:
        b = int(np.argmin(state.size))  # an empty group: a processor of its own
    if b == a or (state.size[a] == 1 and state.size[b] == 0):
        return None
    cut_a, cut_b = state.cut[a], state.cut[b]
    links: dict[tuple[int, int], float] = {}
    for j, v in state.neighbours[i]:
        g = int(state.of[j])
        if g != a:  # the edge was cut at a; now at b unless j is on b
            cut_a -= v
            links[(a, g)] = links.get((a, g), 0.0) - v
        else:
            cut_a += v
        if g != b:
            cut_b += v
            links[(b, g)] = links.get((b, g), 0.0) + v
        else:
            cut_b -= v
    if any(g != h and state.between[g, h] + v > link * (1 + 1e-12)
           for (g, h), v in links.items()):
        return None
    work_a, work_b = state.work[a] - state.needs.work[i], state.work[b] + state.needs.work[i]
    held_a = state.held[a] - state.needs.objects[i]
    held_b = state.held[b] + state.needs.objects[i]
    cost_a = state.price(a, work_a, held_a, cut_a, state.size[a] - 1)
    cost_b = state.price(b, work_b, held_b, cut_b, state.size[b] + 1)
    if not (math.isfinite(cost_a) and math.isfinite(cost_b)):
        return None
    delta = cost_a + cost_b - state.cost[a] - state.cost[b]
    if delta > 0 and rng.random() >= math.exp(-delta / temperature):
        return None
    state.of[i] = b
    state.work[a], state.work[b] = work_a, work_b
    state.held[a], state.held[b] = held_a, held_b
    state.cut[a], state.cut[b] = cut_a, cut_b
    for (g, h), v in links.items():
        if g != h:
            state.between[g, h] += v
            state.between[h, g] += v
    state.size[a] -= 1
    state.size[b] += 1
    state.cost[a], state.cost[b] = cost_a, cost_b
    return float(delta)
