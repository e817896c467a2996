"""A lower bound on Benoit et al.'s Constr program by column generation and branching on
it (branch and price): the Dantzig-Wolfe reformulation over what one bought processor runs
(Gilmore and Gomory's bound, the catalog classes for stock lengths).

A *column* is a group of operators with a class that meets its compute (1) and card (2)
needs; the master LP covers every operator exactly once at least cost
(:mod:`~streamplace.solve.tree_master`). Its optimum is far above the compact program's LP
(docs/models.md sec. 3): the compact LP buys fractions of processors and, with both ends of
a tree edge split alike over the slots, cuts no edge at all, where a column pays for each
edge it cuts. Where that LP still lies below the cheapest plan, the search branches on it
(:mod:`~streamplace.solve.tree_branching`): on how many processors, of which speeds, cards
and classes, then on which operators share one.

The bound kept is Lagrangian and valid at every iteration, not only at convergence
(:func:`~streamplace.solve.tree_branching.lagrangian`): for operator prices ``pi``, the
count rows' prices and an upper bound on the best reduced cost (the pricing MIP's dual
bound), every plan in a node costs at least what the prices say, counting at most kappa
processors. A plan cheaper than the best valid plan known (cost U) has no more processors
than the most that can reach the total work's speed for less than U: that is kappa
(:func:`~streamplace.solve.tree_needs.most_processors`). A node whose bound reaches U holds
no cheaper plan and is closed, and so is one whose bound is within the gap of U; the bound
returned is the least over the nodes left open, those closed within the gap and U. Where no
node is left open and U is a plan's, that plan is optimal within the gap. The pricing leaves
out the server rows (3)-(4) and the processor links (5): a relaxation, so the bound stays
below the optimum.

Dual prices are smoothed (Wentges): each exact pricing is done at a point between the
master's duals and the node's best-bound duals so far, which damps the master's jumping
duals; a column found there that does not price out at the master's duals moves the point
back. Most columns come from a cheap pricing first (greedy growth of a group from each
operator, vectorised); the MIP only runs when it finds none, and every improving solution
it finds on its way is offered as a column, not only the best: most price out too, so fewer
of the costly MIPs are needed. A node branches once its bound is within ``NODE_GAP`` of its
LP (the last pricings add little to its bound and take most of its time, where its
children's bounds rise by far more), unless only its own LP optimum can close or bound it.
"""

from __future__ import annotations

import heapq
import itertools
import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from streamplace.solve.budget import Budget, StopRequest
from streamplace.solve.tree_branching import Node, children, lagrangian
from streamplace.solve.tree_data import TreeData
from streamplace.solve.tree_master import Master, Solved
from streamplace.solve.tree_needs import Needs, most_processors
from streamplace.solve.tree_pricing import TOLERANCE, Pricing, cheap_columns

SMOOTHING = 0.8       # weight of the best-bound duals in the exact pricing's point
CHEAP_COLUMNS = 10    # columns the cheap pricing adds per round, at most
SAFETY = 1e-6         # relative: taken off the bound for the solvers' tolerances
NODE_GAP = 1e-3       # relative distance of a node's bound and its LP at which it branches
PARTITION_AT = (0.4, 0.75)  # shares of the time at which the columns give plans
PARTITION_SHARE = 0.1       # of the time left, at most, for one such plan

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


def column_bound(data: TreeData, budget: Budget, most_processors: int,
                 starts: Iterable[Iterable[str]] = (), found: Found | None = None,
                 cheapest: float = math.inf, known: Known | None = None,
                 gap: float = 0.0) -> ColumnBound:
    """Generate columns and branch until every node is closed or the budget ends; a node
    is closed once its bound is within the relative ``gap`` of U.

    ``most_processors`` is kappa and ``cheapest`` U (see the module's docstring), both
    lowered as cheaper plans become known: from ``known``, asked at every iteration (a plan
    found elsewhere meanwhile), and from ``found`` below; ``starts`` are groups to begin
    with (a heuristic plan's processors). With ``found``, the cheapest partition of the
    operators into the columns so far (:meth:`Master.partition`) is passed to it at shares
    ``PARTITION_AT`` of the time and when the root ends, and so is each whole LP solution;
    it answers with the cheapest valid plan's cost."""
    return _Search(data, budget, most_processors, found, cheapest, known, gap).run(starts)


class _Search:
    def __init__(self, data: TreeData, budget: Budget, most: int, found: Found | None,
                 cheapest: float, known: Known | None, gap: float) -> None:
        self.data, self.budget, self.most, self.found, self.known = \
            data, budget, most, found, known
        self.gap = max(gap, 0.1 * SAFETY)
        self.floor = math.inf  # the least bound of a node closed within the gap
        now, left = time.perf_counter(), budget.remaining()
        self.due = [] if found is None or left is None else \
            [now + share * left for share in PARTITION_AT]
        self.needs = needs = Needs(data)
        self.n = len(needs.ops)
        self.fewest = max(1, math.ceil(needs.work.sum() / needs.speed.max() - 1e-9))
        self.master, self.pricing = Master(needs, self.fewest), Pricing(data, needs)
        # no plan costs more than a processor of the dearest class per operator
        self.cap = self.n * float(needs.cost.max()) * (1 + 1e-9)
        self.plan_cost = math.inf  # the cheapest valid plan's cost known
        self._lower(cheapest)
        self.iterations = self.pricings = self.nodes = 0
        self.root: float | None = None  # the first LP's optimum, once solved

    def run(self, starts: Iterable[Iterable[str]]) -> ColumnBound:
        needs, master = self.needs, self.master
        groups = [*np.eye(self.n, dtype=bool), *(needs.mask(g) for g in starts)]
        best, classes = needs.best_classes(
            np.array([needs.work[g].sum() for g in groups]),
            np.array([needs.card_need(g) for g in groups]), -needs.cost)
        master.add((g, int(c)) for g, b, c in zip(groups, best, classes, strict=True)
                   if np.isfinite(b))
        counts = len(master.sets)
        root = Node(np.array([float(self.fewest)] + [0.0] * (counts - 1)),
                    np.full(counts, math.inf))
        order = itertools.count(1)  # ties: the deeper, then the older first
        heap = [(root.bound, 0, 0, root)]
        leaves: list[float] = []
        while heap and not self.budget.expired():
            node = heapq.heappop(heap)[3]
            self._learn()
            if self._closes(node):
                continue
            priced = self._price(node)
            if priced is None:  # the budget ended: the node stays open
                heapq.heappush(heap, (node.bound, -node.depth, next(order), node))
                break
            solved, kids = priced
            self.nodes += 1
            if self.nodes == 1:
                self.root = solved.value
                self._partition()
            if self._closes(node):  # the root's partition may have lowered U
                continue
            if not kids:  # a whole LP solution: no branch splits it
                leaves.append(node.bound)
                self._offer([master.columns[j][0] for j in np.flatnonzero(solved.used > 0.5)])
            for kid in kids:
                heapq.heappush(heap, (kid.bound, -kid.depth, next(order), kid))
        bounds = [self.cheapest, self.floor, *leaves, *(entry[3].bound for entry in heap)]
        bound = min(bounds)
        final = bound - SAFETY * abs(bound) if math.isfinite(bound) else None
        return ColumnBound(final, self.root is not None, self.iterations, len(master.seen),
                           self.pricings, self.root, self.nodes, len(leaves) + len(heap),
                           self.plan_cost)

    def _price(self, node: Node) -> tuple[Solved, list[Node]] | None:
        """Column generation in the node, raising ``node.bound``, until the bound reaches
        the cheapest plan's cost (no children), or comes within NODE_GAP of an LP below it
        whose solution splits, or no column prices out; the LP solution and the node's
        children are returned, None where the budget ended. A node whose LP reaches that
        cost, or whose solution is whole, is priced on: only its LP optimum closes or
        bounds it."""
        master, pricing, needs, n = self.master, self.pricing, self.needs, self.n
        master.restrict(node.lower, node.upper, node.pairs)
        pricing.follow(node.pairs)
        centre = None
        while not self.budget.expired():
            self.iterations += 1
            self._learn()
            solved = master.solve(self.budget)
            if solved is None:
                return None
            if self.due and time.perf_counter() >= self.due[0]:
                self.due = [t for t in self.due if t > time.perf_counter()]
                self._partition()
            prices, values = solved.prices[:n], master.class_values(solved.prices)
            if master.add(cheap_columns(needs, prices, values, CHEAP_COLUMNS, node.pairs)):
                continue
            weight, done = (SMOOTHING if centre is not None else 0.0), False
            while True:
                point = solved.prices if centre is None else \
                    weight * centre + (1 - weight) * solved.prices
                priced = pricing.best(point[:n], master.class_values(point), self.budget)
                if priced is None:
                    return None
                self.pricings += 1
                columns, best = priced
                bound = lagrangian(node, point, n, self.most, best)
                if bound > node.bound:
                    node.bound, centre = bound, point
                tolerance = TOLERANCE * max(1.0, abs(solved.value))
                added = master.add(c for c in columns
                                   if prices[c[0]].sum() + values[c[1]] > tolerance)
                master.add(columns)  # the others too: they serve the covers
                if added:
                    break
                if weight == 0.0:  # nothing prices out at the master's own duals
                    done = True
                    break
                weight = 0.0 if weight < 0.1 else weight / 2  # mispriced: towards them
            if self._closes(node):
                return solved, []
            near = solved.value - node.bound <= NODE_GAP * abs(solved.value)
            if done or (near and not self._would_close(solved.value)):
                kids = children(node, master, solved)
                if done or kids:
                    return solved, kids
        return None

    def _closes(self, node: Node) -> bool:
        """Whether the node holds no plan cheaper than the cheapest known by more than the
        gap (at least a tenth of what is taken off the bound for the solvers' tolerances);
        the least bound of the nodes closed so is kept, as it bounds their plans."""
        if not self._would_close(node.bound):
            return False
        self.floor = min(self.floor, node.bound)
        return True

    def _would_close(self, bound: float) -> bool:
        return bound >= self.cheapest - self.gap * abs(self.cheapest)

    def _partition(self) -> None:
        if self.found is None:
            return
        left = self.budget.remaining()
        phase = self.budget if left is None else self.budget.until(
            time.perf_counter() + PARTITION_SHARE * left)
        chosen = self.master.partition(phase)
        if chosen is not None:
            self._offer(chosen)

    def _offer(self, groups: list[np.ndarray]) -> None:
        if self.found is None or not groups:
            return
        cost = self.found([self.needs.names(group) for group in groups])
        if cost is not None:
            self._lower(cost)

    def _learn(self) -> None:
        if self.known is not None:
            self._lower(self.known())

    def _lower(self, cost: float) -> None:
        """U is now ``cost`` where that is lower, and kappa the most processors below it."""
        if cost < self.cheapest:
            self.most = min(self.most, most_processors(self.data, cost))
        self.plan_cost = min(self.plan_cost, cost)

    @property
    def cheapest(self) -> float:
        """U: the cheapest valid plan's cost, or the cap where none is known."""
        return min(self.cap, self.plan_cost)


class BoundBeside:
    """:func:`column_bound` in a thread of its own while the compact program is solved (HiGHS
    runs each in a thread of its own, so the two share the cores), its partitions passed to
    ``found`` in that thread; :meth:`finish` ends it.
    Its budget is the solve's deadline; the user's stop request ends the solve, which ends
    this. Where it closes every node, it sets :attr:`proved`: the solve may end."""

    def __init__(self, data: TreeData, budget: Budget, most_processors: int,
                 starts: Iterable[Iterable[str]], found: Found | None = None,
                 known: Known | None = None, gap: float = 0.0) -> None:
        self._stop, self.proved = StopRequest(), StopRequest()
        phase = Budget(budget.time_limit, self._stop, budget.started)
        self._answer: ColumnBound | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(data, phase, most_processors, [set(g) for g in starts],
                                    found, known, gap),
            name="streamplace-column-bound", daemon=True)
        self._thread.start()

    def _run(self, data: TreeData, budget: Budget, most: int, starts: Groups,
             found: Found | None, known: Known | None, gap: float) -> None:
        try:
            self._answer = column_bound(data, budget, most, starts, found, known=known,
                                        gap=gap)
            if self._answer.proven:  # every node closed by a plan in hand
                self.proved.set()
        except BaseException as exc:  # raised again in the solving thread, by finish()
            self._error = exc

    def finish(self) -> ColumnBound | None:
        self._stop.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._answer
