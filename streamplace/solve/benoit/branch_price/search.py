"""A lower bound on Benoit et al.'s Constr program by column generation and branching on
it (branch and price): the Dantzig-Wolfe reformulation over what one bought processor runs
(Gilmore and Gomory's bound, the catalog classes for stock lengths).

A *column* is a group of operators with a class that meets its compute (1) and card (2)
needs; the master LP covers every operator exactly once at least cost
(:mod:`.master`). Its optimum is far above the compact program's LP
(docs/models.md sec. 3): the compact LP buys fractions of processors and, with both ends of
a tree edge split alike over the slots, cuts no edge at all, where a column pays for each
edge it cuts. Where that LP still lies below the cheapest plan, the search branches on it
(:mod:`.branching`): on how many processors, of which speeds, cards
and classes, then on which operators share one; once the root splits, on several threads.

The bound kept is Lagrangian and valid at every iteration, not only at convergence
(:func:`.branching.lagrangian`): for operator prices ``pi``, the
count rows' prices and an upper bound on the best reduced cost (the pricing MIP's dual
bound), every plan in a node costs at least what the prices say, counting at most kappa
processors. A plan cheaper than the best valid plan known (cost U) has no more processors
than the most that can reach the total work's speed for less than U: that is kappa
(:func:`~streamplace.solve.benoit.group_costs.most_processors`). A node whose bound reaches U holds
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
from collections.abc import Iterable

import numpy as np

from streamplace.solve.benoit.branch_price.branching import Node, children, lagrangian
from streamplace.solve.benoit.branch_price.incumbent import ColumnBound, Found, Known, Plans
from streamplace.solve.benoit.branch_price.master import Master, Solved
from streamplace.solve.benoit.branch_price.pricing import TOLERANCE, Column, Pricing, cheap_columns
from streamplace.solve.benoit.data import TreeData
from streamplace.solve.benoit.group_costs import Needs
from streamplace.solve.budget import Budget, StopRequest

SMOOTHING = 0.8       # weight of the best-bound duals in the exact pricing's point
CHEAP_COLUMNS = 10    # columns the cheap pricing adds per round, at most
SAFETY = 1e-6         # relative: taken off the bound for the solvers' tolerances
NODE_GAP = 1e-2       # relative distance of a node's bound and its LP at which it branches
PARTITION_AT = (0.4, 0.75)  # shares of the time at which the columns give plans
PARTITION_SHARE = 0.1       # of the time left, at most, for one such plan
POLL = 0.05                 # seconds a worker waits for a node to split, between looks


def column_bound(data: TreeData, budget: Budget, most_processors: int,
                 starts: Iterable[Iterable[str]] = (), found: Found | None = None,
                 cheapest: float = math.inf, known: Known | None = None,
                 gap: float = 0.0, workers: int = 1,
                 branched: StopRequest | None = None) -> ColumnBound:
    """Generate columns and branch until every node is closed or the budget ends; a node
    is closed once its bound is within the relative ``gap`` of U.

    ``most_processors`` is kappa and ``cheapest`` U (see the module's docstring), both
    lowered as cheaper plans become known: from ``known``, asked at every iteration (a plan
    found elsewhere meanwhile), and from ``found`` below; ``starts`` are groups to begin
    with (a heuristic plan's processors). With ``found``, the cheapest partition of the
    operators into the columns so far (:meth:`Master.partition`) is passed to it at shares
    ``PARTITION_AT`` of the time and when the root ends, and so is each whole LP solution;
    it answers with the cheapest valid plan's cost. Once the root splits, ``branched`` is
    set and ``workers`` threads price the nodes, the best-bound ones first, each with a
    master and a pricing of its own; every column one finds is offered to the others'."""
    return _Search(data, budget, most_processors, found, cheapest, known, gap,
                   max(1, workers), branched).run(starts)


class _Worker:
    """A master and a pricing (HiGHS models, one thread each), and how many of the search's
    columns its master has."""

    def __init__(self, data: TreeData, needs: Needs, fewest: int) -> None:
        self.master, self.pricing = Master(needs, fewest), Pricing(data, needs)
        self.synced = 0


class _Search:
    def __init__(self, data: TreeData, budget: Budget, most: int, found: Found | None,
                 cheapest: float, known: Known | None, gap: float, workers: int,
                 branched: StopRequest | None) -> None:
        self.failure = StopRequest()  # a worker failed: the others stop too
        self.data, self.workers, self.branched = data, workers, branched
        self.budget = budget.or_when(self.failure)
        now, left = time.perf_counter(), budget.remaining()
        due = [] if found is None or left is None else \
            [now + share * left for share in PARTITION_AT]
        self.needs = needs = Needs(data)
        self.n = len(needs.ops)
        self.fewest = max(1, math.ceil(needs.work.sum() / needs.speed.max() - 1e-9))
        self.plans = Plans(data, needs, most, cheapest, found, known,
                           max(gap, 0.1 * SAFETY), due)
        self.lock = threading.Condition(self.plans.lock)  # all below, across workers
        self.iterations = self.pricings = self.nodes = self.busy = 0
        self.root: float | None = None  # the first LP's optimum, once solved
        self.columns: list[Column] = []  # every column any worker's master has, once
        self.heap: list[tuple[float, int, int, Node]] = []
        self.order = itertools.count(1)  # ties: the deeper, then the older first
        self.leaves: list[float] = []
        self.helpers: list[threading.Thread] = []
        self.error: BaseException | None = None  # the first a worker raised

    def run(self, starts: Iterable[Iterable[str]]) -> ColumnBound:
        needs = self.needs
        first = _Worker(self.data, needs, self.fewest)
        groups = [*np.eye(self.n, dtype=bool), *(needs.mask(g) for g in starts)]
        best, classes = needs.best_classes(
            np.array([needs.work[g].sum() for g in groups]),
            np.array([needs.card_need(g) for g in groups]), -needs.cost)
        self._add(first, ((g, int(c)) for g, b, c in zip(groups, best, classes, strict=True)
                          if np.isfinite(b)))
        counts = len(first.master.sets)
        root = Node(np.array([float(self.fewest)] + [0.0] * (counts - 1)),
                    np.full(counts, math.inf))
        self.heap.append((root.bound, 0, 0, root))
        try:
            self._work(first)
        except BaseException as exc:
            self._failed(exc)
        for helper in self.helpers:
            helper.join()
        if self.error is not None:
            raise self.error
        # a plan found after a node was left open may close it
        left = [b for b in [*self.leaves, *(entry[3].bound for entry in self.heap)]
                if not self.plans.closes(b)]
        bound = min([self.plans.cheapest, self.plans.floor, *left])
        final = bound - SAFETY * abs(bound) if math.isfinite(bound) else None
        return ColumnBound(final, self.root is not None, self.iterations, len(self.columns),
                           self.pricings, self.root, self.nodes, len(left),
                           self.plans.plan_cost)

    def _work(self, worker: _Worker) -> None:
        """Take the open node of least bound and price it, until none is left (nor being
        priced, which could split) or the budget ends; a node the budget ended in is put
        back, open."""
        while True:
            with self.lock:
                while not self.heap and self.busy and not self.budget.expired():
                    self.lock.wait(POLL)
                if not self.heap or self.budget.expired():
                    self.lock.notify_all()
                    return
                node = heapq.heappop(self.heap)[3]
                self.busy += 1
            left: list[Node] = [node]
            try:
                left = self._node(node, worker)
            finally:
                with self.lock:
                    for kid in left:
                        heapq.heappush(self.heap, (kid.bound, -kid.depth, next(self.order), kid))
                    self.busy -= 1
                    self.lock.notify_all()

    def _node(self, node: Node, worker: _Worker) -> list[Node]:
        """The nodes the node leaves open: none where it closes or is whole, its children
        where it splits, itself where the budget ended in it."""
        self.plans.learn()
        if self.plans.closes(node.bound):
            return []
        priced = self._price(node, worker)
        if priced is None:
            return [node]
        solved, kids = priced
        with self.lock:
            self.nodes += 1
            first = self.nodes == 1
        if first:
            self.root = solved.value
            self._partition(worker.master)
        if self.plans.closes(node.bound):  # the root's partition may have lowered U
            return []
        if not kids:  # a whole LP solution: no branch splits it; its plan may close it
            whole = np.flatnonzero(solved.used > 0.5)
            self.plans.offer([worker.master.columns[j][0] for j in whole])
            if not self.plans.closes(node.bound):
                with self.lock:
                    self.leaves.append(node.bound)
        elif first:
            self._spread()
        return kids

    def _spread(self) -> None:
        """The root split: say so, and let the other workers price beside this one."""
        if self.branched is not None:
            self.branched.set()
        for number in range(1, self.workers):
            helper = threading.Thread(target=self._help, name=f"streamplace-columns-{number}",
                                      daemon=True)
            self.helpers.append(helper)
            helper.start()

    def _help(self) -> None:
        try:
            self._work(_Worker(self.data, self.needs, self.fewest))
        except BaseException as exc:
            self._failed(exc)

    def _failed(self, exc: BaseException) -> None:
        """Every worker stops; run() raises the error in the search's thread."""
        with self.lock:
            self.error = self.error or exc
            self.failure.set()
            self.lock.notify_all()

    def _add(self, worker: _Worker, columns: Iterable[Column]) -> int:
        """Add columns to the worker's master, and those new to the search to the others'
        (its master has every column the others found first, so what it adds is new)."""
        with self.lock:
            self._sync(worker)
            master = worker.master
            before = len(master.columns)
            added = master.add(columns)
            self.columns += master.columns[before:]
            worker.synced = len(self.columns)
        return added

    def _sync(self, worker: _Worker) -> None:
        """Add to the worker's master the columns the others found since it last looked."""
        with self.lock:
            worker.master.add(self.columns[worker.synced:])
            worker.synced = len(self.columns)

    def _price(self, node: Node, worker: _Worker) -> tuple[Solved, list[Node]] | None:
        """Column generation in the node, raising ``node.bound``, until the bound reaches
        the cheapest plan's cost (no children), or comes within NODE_GAP of an LP below it
        whose solution splits, or no column prices out; the LP solution and the node's
        children are returned, None where the budget ended. A node whose LP reaches that
        cost, or whose solution is whole, is priced on: only its LP optimum closes or
        bounds it."""
        master, pricing, needs, n = worker.master, worker.pricing, self.needs, self.n
        self._sync(worker)
        master.restrict(node.lower, node.upper, node.pairs)
        pricing.follow(node.pairs)
        centre = None
        while not self.budget.expired():
            with self.lock:
                self.iterations += 1
            self.plans.learn()
            self._sync(worker)
            solved = master.solve(self.budget)
            if solved is None:
                return None
            if self.plans.partition_due():
                self._partition(master)
            prices, values = solved.prices[:n], master.class_values(solved.prices)
            if self._add(worker, cheap_columns(needs, prices, values, CHEAP_COLUMNS,
                                               node.pairs)):
                continue
            weight, done = (SMOOTHING if centre is not None else 0.0), False
            while True:
                point = solved.prices if centre is None else \
                    weight * centre + (1 - weight) * solved.prices
                priced = pricing.best(point[:n], master.class_values(point), self.budget)
                if priced is None:
                    return None
                with self.lock:
                    self.pricings += 1
                columns, best = priced
                bound = lagrangian(node, point, n, self.plans.most, best)
                if bound > node.bound:
                    node.bound, centre = bound, point
                tolerance = TOLERANCE * max(1.0, abs(solved.value))
                added = self._add(worker, [c for c in columns
                                           if prices[c[0]].sum() + values[c[1]] > tolerance])
                self._add(worker, columns)  # the others too: they serve the covers
                if added:
                    break
                if weight == 0.0:  # nothing prices out at the master's own duals
                    done = True
                    break
                weight = 0.0 if weight < 0.1 else weight / 2  # mispriced: towards them
            if self.plans.closes(node.bound):
                return solved, []
            near = solved.value - node.bound <= NODE_GAP * abs(solved.value)
            if done or (near and not self.plans.would_close(solved.value)):
                kids = children(node, master, solved)
                if done or kids:
                    return solved, kids
        return None

    def _partition(self, master: Master) -> None:
        if self.plans.found is None:
            return
        left = self.budget.remaining()
        phase = self.budget if left is None else self.budget.until(
            time.perf_counter() + PARTITION_SHARE * left)
        chosen = master.partition(phase)
        if chosen is not None:
            self.plans.offer(chosen)
