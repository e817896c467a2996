"""The master program of the column bound (:mod:`.search`): which
groups of operators to buy processors of which class for, over the columns generated so far.

Besides covering each operator once, it counts processors: the first count row counts
them all (at least ``fewest``: the total work over the fastest class's speed, rounded up),
the others those of a set of classes: as fast as some speed, with a card as wide as some
bandwidth, or of one class. The branching (:mod:`.branching`) bounds
these counts, and forbids the columns that break its pair rules. As an LP it gives the
prices that price new columns. As an integer program over the same columns (a *restricted
master*) it gives plans: the cheapest exact cover of the operators by groups already
known. On heavy trees those covers are cheaper than the annealing's (docs/models.md sec.
3); they hold constraints (1)-(2) by construction, and the caller chooses servers and checks
the links (5) before keeping one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from streamplace.solve.benoit.branch_price.pricing import Column, Pairs, follows
from streamplace.solve.benoit.group_costs import Needs
from streamplace.solve.budget import Budget
from streamplace.solve.mip.persistent import Ended, PersistentModel


def count_sets(needs: Needs) -> tuple[np.ndarray, list[int]]:
    """The class sets the master counts processors of (a row each, over the classes), the
    first all of them, and each set's family: 0 all, 1 by speed, 2 by card, 3 one class."""
    candidates = [(0, np.ones(len(needs.cost), dtype=bool))]
    candidates += [(1, needs.speed >= s) for s in np.unique(needs.speed)]
    candidates += [(2, needs.card >= b) for b in np.unique(needs.card)]
    candidates += [(3, np.arange(len(needs.cost)) == c) for c in range(len(needs.cost))]
    seen: set[bytes] = set()
    sets, families = [], []
    for family, mask in candidates:
        if mask.tobytes() not in seen:
            seen.add(mask.tobytes())
            sets.append(mask)
            families.append(family)
    return np.array(sets), families


@dataclass(frozen=True)
class Solved:
    value: float
    prices: np.ndarray      # the operators' duals, then the count rows'
    used: np.ndarray        # each column's value, in the order added


class Master:
    """min sum cost * lambda over the columns so far, each operator covered once, within the
    count rows' bounds (an LP); an artificial column per operator and per count row keeps it
    feasible whatever the bounds."""

    def __init__(self, needs: Needs, fewest: int) -> None:
        n = len(needs.ops)
        self.needs = needs
        self.sets, self.families = count_sets(needs)
        counts = len(self.sets)
        self.fewest = fewest
        lp = self.lp = PersistentModel(threads=None)
        lp.add_rows([(1.0, 1.0, [], [])] * n + [(float(fewest), math.inf, [], [])]
                    + [(0.0, math.inf, [], [])] * (counts - 1))
        artificial = 10.0 * n * float(needs.cost.max())
        for row in range(n + counts):
            lp.add_column(artificial, 0.0, math.inf, np.array([row]), np.ones(1))
        self.artificial = n + counts
        self.seen: set[tuple[bytes, int]] = set()
        self.columns: list[Column] = []  # after the artificial ones, in order
        self.pairs: Pairs = {}

    def add(self, columns: Iterable[Column]) -> int:
        """Add the columns not known yet whose class runs their group; how many."""
        added, n = 0, len(self.needs.ops)
        for group, cls in columns:
            key = (group.tobytes(), cls)
            if key in self.seen or not group.any() or not self.needs.runs(group, cls):
                continue
            self.seen.add(key)
            self.columns.append((group.copy(), cls))
            rows = np.append(np.flatnonzero(group), n + np.flatnonzero(self.sets[:, cls]))
            self.lp.add_column(float(self.needs.cost[cls]), 0.0,
                               math.inf if follows(group, self.pairs) else 0.0,
                               rows, np.ones(len(rows)))
            added += 1
        return added

    def restrict(self, lower: np.ndarray, upper: np.ndarray, pairs: Pairs) -> None:
        """Bound the count rows, and forbid the columns that break the pair rules."""
        n, lp = len(self.needs.ops), self.lp
        for row, (low, high) in enumerate(zip(lower, upper, strict=True)):
            lp.set_row_bounds(n + row, float(low), float(high))
        if pairs != self.pairs and self.columns:
            allowed = np.array([follows(group, pairs) for group, _ in self.columns])
            lp.set_column_bounds(np.arange(self.artificial, self.artificial + len(allowed)),
                                 np.zeros(len(allowed)), np.where(allowed, math.inf, 0.0))
        self.pairs = dict(pairs)

    def class_values(self, prices: np.ndarray) -> np.ndarray:
        """Each class's value at these prices: its count rows' prices less its cost."""
        values: np.ndarray = prices[len(self.needs.ops):] @ self.sets - self.needs.cost
        return values

    def solve(self, budget: Budget) -> Solved | None:
        if self.lp.solve(budget) is Ended.STOPPED or budget.expired():
            return None
        return Solved(self.lp.objective, self.lp.row_duals(),
                      self.lp.values()[self.artificial:])

    def partition(self, budget: Budget) -> list[np.ndarray] | None:
        """The cheapest exact cover of the operators by the columns so far, with at least
        ``fewest`` groups (or the best HiGHS found within ``budget``); None if none."""
        cover = self.lp.integer_copy(threads=1)
        n, counts = len(self.needs.ops), len(self.sets)
        for row in range(counts):  # the root's rows, not a branch's
            cover.set_row_bounds(n + row, float(self.fewest) if row == 0 else 0.0, math.inf)
        cols = cover.num_cols
        upper = np.array([0.0] * self.artificial + [1.0] * (cols - self.artificial))
        cover.set_column_bounds(np.arange(cols), np.zeros(cols), upper)
        if cover.solve(budget) is Ended.STOPPED or not cover.has_solution:
            return None
        chosen = cover.values()[self.artificial:] > 0.5
        return [self.columns[j][0] for j in np.flatnonzero(chosen)]
