"""Branching on the column bound's master (branch and price): the nodes of the search, the
bound valid in each, and where the master's LP solution splits.

A node bounds the master's count rows (:mod:`.master`) and sets pair
rules. Its children split the plans in it: a count that the LP makes fractional, first the
processors in all, then by speed, by card, by class (Vanderbeck's branching for cutting
stock with several stock types), at most its floor in one child and at least its ceiling
in the other; where every count is whole, a pair of operators the LP puts together
fractionally (Ryan and Foster): together in one child, apart in the other. Every plan lies
in one child, so the least bound over the nodes left open bounds every plan.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from streamplace.solve.benoit.branch_price.master import Master, Solved
from streamplace.solve.benoit.branch_price.pricing import Pairs

WHOLE = 1e-6  # a count or a pair's share within this of an integer is whole


@dataclass
class Node:
    lower: np.ndarray  # the count rows' bounds
    upper: np.ndarray
    pairs: Pairs = field(default_factory=dict)
    bound: float = -math.inf  # every plan in the node costs at least this
    depth: int = 0

    def child(self, lower: np.ndarray | None = None, upper: np.ndarray | None = None,
              pairs: Pairs | None = None) -> Node:
        return Node(self.lower if lower is None else lower,
                    self.upper if upper is None else upper,
                    self.pairs if pairs is None else pairs, self.bound, self.depth + 1)


def lagrangian(node: Node, prices: np.ndarray, n: int, most: int, best: float) -> float:
    """The least cost of a plan in the node with at most ``most`` processors, for
    operator prices ``prices[:n]``, count-row prices ``prices[n:]`` and ``best``, an upper
    bound on every allowed column's reduced cost (inf where the node holds no plan).

    A plan's cost is ``sum(pi) + sum_r d_r N_r - sum of its columns' reduced costs``, where
    N_r is its count in row r, between the node's bound and ``most``; it has N_0 columns
    (row 0 counts them all), each with a reduced cost of at most ``best``."""
    cap = np.minimum(node.upper, most)
    if best == -math.inf or np.any(node.lower > cap):
        return math.inf
    d = prices[n:]
    counted = float(np.minimum(d * node.lower, d * cap).sum())
    columns = cap[0] if best > 0 else node.lower[0]
    return float(prices[:n].sum()) + counted - float(columns) * best


def children(node: Node, master: Master, solved: Solved) -> list[Node]:
    """The node's two children where the LP solution splits, none where it is integral."""
    used = solved.used  # the columns added since the solve are not in it
    classes = np.zeros(len(master.needs.cost))
    for (_, cls), value in zip(master.columns[:len(used)], used, strict=True):
        classes[cls] += value
    counts = master.sets @ classes
    for family in sorted(set(master.families)):
        rows = [r for r, f in enumerate(master.families) if f == family]
        shares = np.array([counts[r] - math.floor(counts[r]) for r in rows])
        split = np.minimum(shares, 1 - shares)
        if split.max() > WHOLE:
            row = rows[int(np.argmax(split))]
            below, above = node.upper.copy(), node.lower.copy()
            below[row] = math.floor(counts[row])
            above[row] = math.ceil(counts[row])
            return [node.child(upper=below), node.child(lower=above)]
    chosen = used > WHOLE
    if not chosen.any():
        return []
    groups = np.array([master.columns[j][0] for j in np.flatnonzero(chosen)], dtype=float)
    together = (groups.T * used[chosen]) @ groups
    share = np.triu(np.minimum(together, 1 - together), 1)
    for a, b in node.pairs:
        share[a, b] = 0.0
    pair = tuple(int(i) for i in np.unravel_index(int(np.argmax(share)), share.shape))
    if share[pair] <= WHOLE:
        return []
    return [node.child(pairs={**node.pairs, (pair[0], pair[1]): True}),
            node.child(pairs={**node.pairs, (pair[0], pair[1]): False})]
