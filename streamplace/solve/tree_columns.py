"""A lower bound on Benoit et al.'s Constr program by column generation: the Dantzig-Wolfe
reformulation over what one bought processor runs (Gilmore and Gomory's bound, the catalog
classes for stock lengths).

A *column* is a group of operators with the cheapest class that meets its compute (1) and
card (2) needs; the master LP covers every operator exactly once at least cost. Its optimum
is far above the compact program's LP (docs/models.md sec. 3): the compact LP buys
fractions of processors and, with both ends of a tree edge split alike over the slots, cuts
no edge at all, where a column pays for each edge it cuts.

The bound kept is Lagrangian and valid at every iteration, not only at convergence: for
operator duals ``pi``, the dual ``mu >= 0`` of the master's row "at least ``p0``
processors" (``p0`` = total work over the fastest class's speed, rounded up: valid for
every plan, and the master LP often buys fewer) and ``v >= max_S pi(S) + mu - cost(S)``
over all groups S (the pricing MIP's dual bound), every plan with ``p0 <= p <= kappa``
processors costs at least ``sum(pi) + p0 * mu - kappa * max(0, v)``, since its groups are
columns. A plan cheaper than the best valid plan known (cost U) has no more processors than
the most that can reach the total work's speed for less than U: that is ``kappa``
(:func:`~streamplace.solve.tree_needs.most_processors`).
The pricing leaves out the server rows (3)-(4) and the processor links (5): a relaxation,
so the bound stays below the optimum.

Dual prices are smoothed (Wentges): each exact pricing is done at a point between the
master's duals and the best-bound duals so far, which damps the master's jumping duals; a
column found there that does not price out at the master's duals moves the point back.
Most columns come from a cheap pricing first (greedy growth of a group from each operator,
vectorised); the MIP only runs when it finds none, and every improving solution it finds on
its way is offered as a column, not only the best: most price out too, so fewer of the
costly MIPs are needed.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import numpy as np

from streamplace.solve.budget import Budget, StopRequest
from streamplace.solve.highs_thread import own_locks, solve_in_thread
from streamplace.solve.tree_data import TreeData
from streamplace.solve.tree_master import Master
from streamplace.solve.tree_needs import Needs

SMOOTHING = 0.8       # weight of the best-bound duals in the exact pricing's point
CHEAP_COLUMNS = 10    # columns the cheap pricing adds per round, at most
SCALE = 1e9           # operations/s and bytes/s in the pricing rows, in giga-units
TOLERANCE = 1e-6      # relative: a reduced cost below this is none
SAFETY = 1e-6         # relative: taken off the bound for the solvers' tolerances
CONVERGED = 1e-4      # relative distance of bound and master at which to stop
PARTITION_AT = (0.4, 0.75)  # shares of the time at which the columns give plans
PARTITION_SHARE = 0.1       # of the time left, at most, for one such plan

Groups = list[set[str]]


@dataclass(frozen=True)
class ColumnBound:
    bound: float | None   # a lower bound on every plan's cost (None: none found in time)
    converged: bool       # the master's LP optimum was reached: no column prices out
    iterations: int
    columns: int
    pricings: int         # exact pricing MIPs solved
    master: float | None  # the last master LP's optimum: at or above the whole LP's

    def counters(self) -> dict[str, float | int | bool | None]:
        """What the solver report says of it (docs/models.md sec. 3)."""
        return {"column_iterations": self.iterations, "columns": self.columns,
                "column_pricings": self.pricings, "column_converged": self.converged,
                "column_master": self.master}


def cheap_columns(needs: Needs, prices: np.ndarray, most: int) -> list[np.ndarray]:
    """Groups with a positive reduced cost, found by growing one from each operator, each
    step adding the operator whose addition leaves the best reduced cost. ``prices`` are
    the operators' duals and, last, the processor count's."""
    found: dict[bytes, tuple[float, np.ndarray]] = {}
    n = len(needs.ops)
    duals, count = prices[:n], prices[n]
    for first in range(n):
        group = np.zeros(n, dtype=bool)
        group[first] = True
        work, held, cut = needs.work[first], needs.objects[first].copy(), needs.incident[first]
        value = duals[first] + count - needs.price(group)
        while True:
            if value > TOLERANCE * max(1.0, abs(value)):
                found.setdefault(group.tobytes(), (value, group.copy()))
            works = work + needs.work
            cards = (needs.objects | held) @ needs.rate + cut + needs.incident \
                - 2 * (needs.volume @ group)
            values = np.where(group, -np.inf, duals.sum(where=group) + duals + count
                              - needs.prices(works, cards))
            best = int(np.argmax(values))
            if not np.isfinite(values[best]):
                break
            cut = cut + needs.incident[best] - 2 * (needs.volume[best] @ group)
            group[best] = True
            work, held, value = works[best], held | needs.objects[best], values[best]
    ranked = sorted(found.values(), key=lambda vg: -vg[0])
    return [g for _, g in ranked[:most]]


class Pricing:
    """max pi(S) - cost(class) over a group S and a class that handles it (a MIP, HiGHS)."""

    def __init__(self, data: TreeData, needs: Needs) -> None:
        import highspy

        self.highspy = highspy
        n, k = len(needs.ops), len(needs.cost)
        z, e = len(needs.rate), len(data.edges)
        self.n, self.k, self.extra = n, k, z + e
        cols = n + k + z + e
        h = self.h = highspy.Highs()
        own_locks(h)
        h.silent()
        h.setOptionValue("threads", 1)
        h.setOptionValue("mip_rel_gap", 1e-4)
        h.setOptionValue("mip_improving_solution_save", True)  # each a column to offer
        h.addVars(cols, np.zeros(cols), np.ones(cols))
        integer = highspy.HighsVarType.kInteger
        h.changeColsIntegrality(n + k, np.arange(n + k, dtype=np.int32),
                                np.array([integer] * (n + k)))
        index = needs.index
        rows: list[tuple[float, float, list[int], list[float]]] = [
            (1.0, 1.0, list(range(n, n + k)), [1.0] * k),            # one class
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
        starts = np.cumsum([0] + [len(r[2]) for r in rows[:-1]])
        h.addRows(len(rows), np.array([r[0] for r in rows]), np.array([r[1] for r in rows]),
                  sum(len(r[2]) for r in rows), starts.astype(np.int32),
                  np.concatenate([np.array(r[2], dtype=np.int32) for r in rows]),
                  np.concatenate([np.array(r[3], dtype=float) for r in rows]))
        h.changeObjectiveSense(highspy.ObjSense.kMaximize)
        self.cost = needs.cost

    def best(self, duals: np.ndarray, budget: Budget) -> tuple[list[np.ndarray], float] | None:
        """The groups of every improving solution HiGHS found, the best last (none if it
        found none), and an upper bound on the best reduced cost; None when the budget ended
        before the bound was known."""
        h = self.h
        costs = np.concatenate([duals[:self.n], -self.cost, np.zeros(self.extra)])
        h.changeColsCost(len(costs), np.arange(len(costs), dtype=np.int32), costs)
        left = budget.remaining()
        if left is not None:
            h.setOptionValue("time_limit", max(left, 0.01))
        if not solve_in_thread(h, budget) or budget.expired():
            return None
        info = h.getInfo()
        upper = info.mip_dual_bound + duals[self.n]  # the count's dual: every column's
        if not math.isfinite(upper):
            return None
        groups = [np.array(found.col_value[:self.n]) > 0.5
                  for found in h.getSavedMipSolutions()] if info.primal_solution_status == 2 \
            else []
        return groups, upper


def column_bound(data: TreeData, budget: Budget, most_processors: int,
                 starts: Iterable[Iterable[str]] = (),
                 found: Callable[[Groups], None] | None = None) -> ColumnBound:
    """Generate columns until the bound meets the master's optimum or the budget ends.

    ``most_processors`` is kappa (see the module's docstring); ``starts`` are groups to
    begin with (a heuristic plan's processors). With ``found``, the cheapest partition of
    the operators into the columns so far (:meth:`Master.partition`) is passed to it at
    shares ``PARTITION_AT`` of the time and at convergence."""
    now, left = time.perf_counter(), budget.remaining()
    due = [] if found is None or left is None else \
        [now + share * left for share in PARTITION_AT]
    needs = Needs(data)
    n = len(needs.ops)
    fewest = max(1, math.ceil(needs.work.sum() / needs.speed.max() - 1e-9))
    master, pricing = Master(needs, fewest), Pricing(data, needs)
    master.add([*np.eye(n, dtype=bool), *(needs.mask(group) for group in starts)])
    bound, centre, value = -math.inf, None, None
    iterations = pricings = 0
    converged = False
    while not converged and not budget.expired():
        iterations += 1
        solved = master.solve(budget)
        if solved is None:
            break
        value, duals = solved
        if due and time.perf_counter() >= due[0]:
            due = [t for t in due if t > time.perf_counter()]
            _partition(master, budget, found)
        if master.add(cheap_columns(needs, duals, CHEAP_COLUMNS)):
            continue
        weight = SMOOTHING if centre is not None else 0.0
        while True:
            point = duals if centre is None else weight * centre + (1 - weight) * duals
            priced = pricing.best(point, budget)
            if priced is None:
                break
            pricings += 1
            groups, upper = priced
            count = point[n]
            lagrangian = point[:n].sum() + min(fewest * count, most_processors * count) \
                - most_processors * max(0.0, upper)
            if lagrangian > bound:
                bound, centre = lagrangian, point
            out = [duals[:n][group].sum() + duals[n] - needs.price(group)
                   > TOLERANCE * max(1.0, abs(value)) for group in groups]
            added = master.add(g for g, o in zip(groups, out, strict=True) if o)
            master.add(groups)  # the others too: they serve the covers
            if added:
                break
            if weight == 0.0:  # nothing prices out at the master's own duals
                converged = True
                break
            weight = 0.0 if weight < 0.1 else weight / 2  # mispriced: towards the master's
        if priced is None:
            break
        converged = converged or value - bound <= CONVERGED * abs(value)
    if converged and found is not None:
        _partition(master, budget, found)
    final = bound - SAFETY * abs(bound) if math.isfinite(bound) else None
    return ColumnBound(None if final is None else float(final), bool(converged), iterations,
                       len(master.seen), pricings, value)


def _partition(master: Master, budget: Budget, found: Callable[[Groups], None] | None) -> None:
    left = budget.remaining()
    phase = budget if left is None else budget.until(time.perf_counter()
                                                     + PARTITION_SHARE * left)
    chosen = master.partition(phase)
    if chosen is not None and found is not None:
        found([master.needs.names(group) for group in chosen])


class BoundBeside:
    """:func:`column_bound` in a thread of its own while the compact program is solved (HiGHS
    runs each in a thread of its own, so the two share the cores), its partitions passed to
    ``found`` in that thread; :meth:`finish` ends it.
    Its budget is the solve's deadline; the user's stop request ends the solve, which ends
    this."""

    def __init__(self, data: TreeData, budget: Budget, most_processors: int,
                 starts: Iterable[Iterable[str]],
                 found: Callable[[Groups], None] | None = None) -> None:
        self._stop = StopRequest()
        phase = Budget(budget.time_limit, self._stop, budget.started)
        self._answer: ColumnBound | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(data, phase, most_processors, [set(g) for g in starts],
                                    found),
            name="streamplace-column-bound", daemon=True)
        self._thread.start()

    def _run(self, data: TreeData, budget: Budget, most: int, starts: Groups,
             found: Callable[[Groups], None] | None) -> None:
        try:
            self._answer = column_bound(data, budget, most, starts, found)
        except BaseException as exc:  # raised again in the solving thread, by finish()
            self._error = exc

    def finish(self) -> ColumnBound | None:
        self._stop.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._answer
