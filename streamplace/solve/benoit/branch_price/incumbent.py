"""What the column bound's search (:mod:`.search`) knows of plans,
shared by its workers behind one lock: U, the cheapest valid plan's cost, and kappa, the
most processors a plan cheaper than U can have; which nodes U closes, and the least bound of
those closed within the gap (it bounds their plans); when the columns next become a plan.
And what the search answers in the end (:class:`ColumnBound`).
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from streamplace.solve.benoit.data import TreeData
from streamplace.solve.benoit.group_costs import Needs, most_processors

Groups = list[set[str]]
Found = Callable[[Groups], float | None]  # takes a partition, gives the cheapest plan's cost
Known = Callable[[], float]  # the cheapest valid plan's cost found elsewhere so far


@dataclass(frozen=True)
class ColumnBound:
    bound: float | None   # a lower bound on every plan's cost (None: none found in time)
    converged: bool       # the root's LP optimum was reached (within NODE_GAP)
    iterations: int
    columns: int
    pricings: int         # exact pricing MIPs solved
    master: float | None  # the root's last master LP optimum: at or above the whole LP's
    nodes: int            # nodes whose column generation ended, the root among them
    open: int             # nodes left open, the bound the least of theirs
    cheapest: float       # the cheapest valid plan's cost the search knew (inf: none)

    @property
    def proven(self) -> bool:
        """Whether every node was closed by a plan's cost: none is cheaper than
        :attr:`cheapest` by more than the gap."""
        return self.open == 0 and math.isfinite(self.cheapest)  # then bound <= cheapest

    def counters(self) -> dict[str, float | int | bool | None]:
        """What the solver report says of it (docs/models.md sec. 3)."""
        return {"column_iterations": self.iterations, "columns": self.columns,
                "column_pricings": self.pricings, "column_converged": self.converged,
                "column_master": self.master, "column_nodes": self.nodes,
                "column_open": self.open, "column_proven": self.proven}


class Plans:
    """U, kappa and the floor of the nodes closed within the gap, as the search learns them."""

    def __init__(self, data: TreeData, needs: Needs, most: int, cheapest: float,
                 found: Found | None, known: Known | None, gap: float,
                 due: list[float]) -> None:
        self.data, self.needs, self.most, self.found, self.known = \
            data, needs, most, found, known
        self.gap, self.due = gap, due
        self.lock = threading.RLock()
        self.floor = math.inf  # the least bound of a node closed within the gap
        # no plan costs more than a processor of the dearest class per operator
        self.cap = len(needs.ops) * float(needs.cost.max()) * (1 + 1e-9)
        self.plan_cost = math.inf  # the cheapest valid plan's cost known
        self.lower(cheapest)

    @property
    def cheapest(self) -> float:
        """U: the cheapest valid plan's cost, or the cap where none is known."""
        return min(self.cap, self.plan_cost)

    def lower(self, cost: float) -> None:
        """U is now ``cost`` where that is lower, and kappa the most processors below it."""
        with self.lock:
            if cost < self.cheapest:
                self.most = min(self.most, most_processors(self.data, cost))
            self.plan_cost = min(self.plan_cost, cost)

    def learn(self) -> None:
        """Take the cheapest plan found elsewhere meanwhile."""
        if self.known is not None:
            self.lower(self.known())

    def offer(self, groups: list[np.ndarray]) -> None:
        """Make a partition of the operators a plan, and learn its cost."""
        if self.found is None or not groups:
            return
        cost = self.found([self.needs.names(group) for group in groups])
        if cost is not None:
            self.lower(cost)

    def would_close(self, bound: float) -> bool:
        """Whether a node of this bound holds no plan cheaper than U by more than the gap."""
        return bound >= self.cheapest - self.gap * abs(self.cheapest)

    def closes(self, bound: float) -> bool:
        """:meth:`would_close`, the bound then kept where it is the least so closed."""
        with self.lock:
            if not self.would_close(bound):
                return False
            self.floor = min(self.floor, bound)
            return True

    def partition_due(self) -> bool:
        """Whether a share of the time at which the columns give a plan has passed (once
        for each)."""
        with self.lock:
            now = time.perf_counter()
            if not self.due or now < self.due[0]:
                return False
            self.due = [t for t in self.due if t > now]
            return True
