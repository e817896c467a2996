"""The master program of the column bound (:mod:`~streamplace.solve.tree_columns`): which
groups of operators to buy processors for, over the columns generated so far.

As an LP it gives the duals that price new columns. As an integer program over the same
columns (a *restricted master*) it gives plans: the cheapest exact cover of the operators
by groups already known. On heavy trees those covers are cheaper than the annealing's
(docs/models.md sec. 3); they hold constraints (1)-(2) by construction, and the caller
chooses servers and checks the links (5) before keeping one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from streamplace.solve.budget import Budget
from streamplace.solve.highs_thread import own_locks, solve_in_thread
from streamplace.solve.tree_needs import Needs


class Master:
    """min sum cost * lambda over the columns so far, each operator covered once, at least
    ``fewest`` processors (an LP); an artificial column per operator keeps it feasible from
    the first round."""

    def __init__(self, needs: Needs, fewest: int) -> None:
        import highspy

        n = len(needs.ops)
        self.needs = needs
        h = self.h = highspy.Highs()
        own_locks(h)
        h.silent()
        empty = np.array([], dtype=np.int32)
        h.addRows(n + 1, np.array([1.0] * n + [fewest]), np.array([1.0] * n + [math.inf]),
                  0, empty, empty, np.array([], dtype=float))
        artificial = 10.0 * n * float(needs.cost.max())
        for i in range(n):
            h.addCol(artificial, 0.0, math.inf, 2, np.array([i, n], dtype=np.int32),
                     np.ones(2))
        self.seen: set[bytes] = set()
        self.groups: list[np.ndarray] = []  # the columns after the artificial ones, in order

    def add(self, groups: Iterable[np.ndarray]) -> int:
        added = 0
        for group in groups:
            key = group.tobytes()
            if key in self.seen or not group.any():
                continue
            cost = self.needs.price(group)
            if not math.isfinite(cost):
                continue
            self.seen.add(key)
            self.groups.append(group.copy())
            rows = np.append(np.flatnonzero(group), len(group)).astype(np.int32)
            self.h.addCol(cost, 0.0, math.inf, len(rows), rows, np.ones(len(rows)))
            added += 1
        return added

    def solve(self, budget: Budget) -> tuple[float, np.ndarray] | None:
        if not solve_in_thread(self.h, budget) or budget.expired():
            return None
        return self.h.getInfo().objective_function_value, \
            np.array(self.h.getSolution().row_dual)

    def partition(self, budget: Budget) -> list[np.ndarray] | None:
        """The cheapest exact cover of the operators by the columns so far, with at least
        ``fewest`` groups (or the best HiGHS found within ``budget``); None if none."""
        import highspy

        h = highspy.Highs()
        own_locks(h)
        h.silent()
        h.setOptionValue("threads", 1)
        h.passModel(self.h.getLp())
        cols, n = h.getNumCol(), len(self.needs.ops)
        h.changeColsIntegrality(cols, np.arange(cols, dtype=np.int32),
                                np.array([highspy.HighsVarType.kInteger] * cols))
        h.changeColsBounds(cols, np.arange(cols, dtype=np.int32), np.zeros(cols),
                           np.array([0.0] * n + [1.0] * (cols - n)))  # no artificial one
        left = budget.remaining()
        if left is not None:
            h.setOptionValue("time_limit", max(left, 0.01))
        if not solve_in_thread(h, budget) or h.getInfo().primal_solution_status != 2:
            return None
        chosen = np.array(h.getSolution().col_value[n:]) > 0.5
        return [self.groups[j] for j in np.flatnonzero(chosen)]
