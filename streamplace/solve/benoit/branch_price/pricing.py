"""The pricing of the column bound (:mod:`.search`): groups of
operators, each with a class that runs it, whose reduced cost is positive at given prices.

A column's reduced cost is ``pi(S) + value[c]``: the operators' prices summed over the
group S, and the class's value, which is the prices of the master's count rows the class
counts in (:mod:`.master`) less its cost. A cheap pricing grows a
group from each operator greedily; the exact one is a MIP (HiGHS) over the group, its
objects, the edges it cuts and its class, with the branching's pair rules as rows.
"""

from __future__ import annotations

import math

import numpy as np

from streamplace.solve.benoit.data import TreeData
from streamplace.solve.benoit.group_costs import BestClasses, Needs
from streamplace.solve.budget import Budget
from streamplace.solve.mip.persistent import Ended, PersistentModel

SCALE = 1e9           # operations/s and bytes/s in the pricing rows, in giga-units
TOLERANCE = 1e-6      # relative: a reduced cost below this is none

Column = tuple[np.ndarray, int]  # a group (a mask over the operators) and its class
Pairs = dict[tuple[int, int], bool]  # operator pairs: True together, False apart


def follows(group: np.ndarray, pairs: Pairs) -> bool:
    """Whether the group keeps every pair rule: both or neither of a pair together, not
    both of a pair apart."""
    return all(group[a] == group[b] if together else not (group[a] and group[b])
               for (a, b), together in pairs.items())


def cheap_columns(needs: Needs, prices: np.ndarray, values: np.ndarray, most: int,
                  pairs: Pairs) -> list[Column]:
    """Columns with a positive reduced cost, found by growing a group from each operator,
    each step adding the operator that leaves the best reduced cost; those breaking a pair
    rule are left out. ``prices`` are the operators', ``values`` the classes'. The groups
    grow side by side, one step of all of them an array operation."""
    n = len(needs.ops)
    choose = BestClasses(needs.speed, needs.card, values)
    group = np.eye(n, dtype=bool)  # row s: the group grown from operator s
    work, held, cut = needs.work.copy(), needs.objects.copy(), needs.incident.copy()
    best, chosen = choose(work, needs.objects.astype(float) @ needs.rate + cut)
    total, value = prices.copy(), prices + best  # the groups' prices, their reduced costs
    rate_of = needs.objects.T.astype(float)  # objects x operators
    found: dict[bytes, tuple[float, Column]] = {}
    growing = np.arange(n)
    while len(growing):
        keeps = value[growing] > TOLERANCE * np.maximum(1.0, np.abs(value[growing]))
        for (a, b), together in pairs.items():
            has_a, has_b = group[growing, a], group[growing, b]
            keeps &= (has_a == has_b) if together else ~(has_a & has_b)
        for s in growing[keeps].tolist():
            key = group[s].tobytes()
            if key not in found:
                found[key] = (value[s], (group[s].copy(), int(chosen[s])))
        mine = held[growing].astype(float)
        works = work[growing, None] + needs.work
        cards = (mine @ needs.rate)[:, None] + (needs.objects @ needs.rate) \
            - (mine * needs.rate) @ rate_of + cut[growing, None] + needs.incident \
            - 2 * (group[growing].astype(float) @ needs.volume)
        bests, classes = choose(works, cards)
        grown = np.where(group[growing], -np.inf, total[growing, None] + prices + bests)
        step = grown.argmax(axis=1)
        rows = np.arange(len(growing))
        goes = np.isfinite(grown[rows, step])
        s, j, rows = growing[goes], step[goes], rows[goes]
        cut[s] += needs.incident[j] - 2 * (needs.volume[j] * group[s]).sum(axis=1)
        group[s, j] = True
        work[s], held[s] = works[rows, j], held[s] | needs.objects[j]
        total[s] += prices[j]
        value[s], chosen[s] = grown[rows, j], classes[rows, j]
        growing = s
    ranked = sorted(found.values(), key=lambda vc: -vc[0])
    return [column for _, column in ranked[:most]]


class Pricing:
    """max pi(S) + value[c] over a group S and a class c that runs it (a MIP, HiGHS)."""

    def __init__(self, data: TreeData, needs: Needs) -> None:
        n, k = len(needs.ops), len(needs.cost)
        z, e = len(needs.rate), len(data.edges)
        self.n, self.k, self.extra = n, k, z + e
        cols = n + k + z + e
        mip = self.mip = PersistentModel(threads=1, options={
            "mip_rel_gap": 1e-4,
            "mip_improving_solution_save": True})  # each improving solution a column to offer
        mip.add_variables(np.zeros(cols), np.ones(cols))
        mip.make_integer(np.arange(n + k))
        index = needs.index
        rows: list[tuple[float, float, list[int], list[float]]] = [
            (1.0, 1.0, list(range(n, n + k)), [1.0] * k),            # one class
            (1.0, math.inf, list(range(n)), [1.0] * n),               # an operator at least
            (-math.inf, 0.0, list(range(n + k)),                      # compute (1)
             [*(needs.work / SCALE), *(-needs.speed / SCALE)]),
            (-math.inf, 0.0, list(range(n, n + k + z + e)),         # card (2)
             [*(-needs.card / SCALE), *(needs.rate / SCALE),
              *(edge.volume / SCALE for edge in data.edges)])]
        for i in range(n):                                            # objects held
            for held in np.flatnonzero(needs.objects[i]).tolist():
                rows.append((0.0, math.inf, [n + k + held, i], [1.0, -1.0]))
        for j, edge in enumerate(data.edges):                         # edges cut
            a, b, cut = index[edge.child], index[edge.parent], n + k + z + j
            rows += [(0.0, math.inf, [cut, a, b], [1.0, -1.0, 1.0]),
                     (0.0, math.inf, [cut, b, a], [1.0, -1.0, 1.0])]
        mip.add_rows(rows)
        mip.maximize()
        self.rows = mip.num_rows  # the pair rules' rows come after these
        self.pairs: Pairs = {}

    def follow(self, pairs: Pairs) -> None:
        """Offer only groups that keep these pair rules (a branch's)."""
        if pairs == self.pairs:
            return
        self.mip.delete_rows_from(self.rows)
        self.mip.add_rows([(0.0, 0.0, [a, b], [1.0, -1.0]) if together else
                     (-math.inf, 1.0, [a, b], [1.0, 1.0])
                     for (a, b), together in pairs.items()])
        self.pairs = dict(pairs)

    def best(self, prices: np.ndarray, values: np.ndarray,
             budget: Budget) -> tuple[list[Column], float] | None:
        """The columns of every improving solution HiGHS found, the best last (none if it
        found none), and an upper bound on the best reduced cost; None when the budget ended
        before the bound was known."""
        mip = self.mip
        mip.set_costs(np.concatenate([prices, values, np.zeros(self.extra)]))
        ended = mip.solve(budget)
        if ended is Ended.STOPPED or budget.expired():
            return None
        if ended is Ended.INFEASIBLE:
            return [], -math.inf  # the pair rules leave no group a class runs
        upper = mip.dual_bound
        if not math.isfinite(upper):
            return None
        found = [x[:self.n + self.k] for x in mip.improving_solutions()] \
            if mip.has_solution else []
        return [(x[:self.n] > 0.5, int(np.argmax(x[self.n:]))) for x in found], upper
