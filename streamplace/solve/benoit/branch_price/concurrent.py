"""The column bound (:mod:`.search`) beside ``benoit``'s compact
program: in a thread of its own while HiGHS solves that program in another, until the
column search's root splits; from then on the search alone, on every core it is given.

A root that splits has its LP optimum below the cheapest plan known by more than the gap,
and above the compact program's LP (docs/models.md sec. 3): HiGHS's bound starts from the
lower one and would have to climb past the root's before it bounded anything, so from then
on it can only add plans, which the annealing and the columns' covers give. Its core serves
the branching more, pricing another node.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterable

from streamplace.solve.benoit.branch_price.incumbent import ColumnBound, Found, Groups, Known
from streamplace.solve.benoit.branch_price.search import column_bound
from streamplace.solve.benoit.data import TreeData
from streamplace.solve.budget import Budget, StopRequest


def cores() -> int:
    """The cores this process may run on."""
    affinity = getattr(os, "sched_getaffinity", None)
    return len(affinity(0)) if affinity is not None else os.cpu_count() or 1


class BoundBeside:
    """:func:`column_bound` in a thread of its own, its partitions passed to ``found`` in
    that thread. Its budget is the solve's deadline and the user's stop request.

    Where it closes every node, it sets :attr:`proved`: the solve may end. Where its root
    splits and ``workers`` is more than one, it sets :attr:`took_over`: the compact program
    should end, and ``workers`` threads price the nodes until the budget ends or every node
    is closed; :meth:`finish` then waits for that."""

    def __init__(self, data: TreeData, budget: Budget, most_processors: int,
                 starts: Iterable[Iterable[str]], found: Found | None = None,
                 known: Known | None = None, gap: float = 0.0, workers: int = 1) -> None:
        self._stop, self.proved, self.took_over = StopRequest(), StopRequest(), StopRequest()
        phase = budget.or_when(self._stop)
        self._answer: ColumnBound | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(
            target=self._run, args=(data, phase, most_processors, [set(g) for g in starts],
                                    found, known, gap, workers),
            name="streamplace-column-bound", daemon=True)
        self._thread.start()

    def _run(self, data: TreeData, budget: Budget, most: int, starts: Groups,
             found: Found | None, known: Known | None, gap: float, workers: int) -> None:
        try:
            self._answer = column_bound(
                data, budget, most, starts, found, known=known, gap=gap, workers=workers,
                branched=self.took_over if workers > 1 else None)
            if self._answer.proven:  # every node closed by a plan in hand
                self.proved.set()
        except BaseException as exc:  # raised again in the solving thread, by finish()
            self._error = exc

    def finish(self, wait: bool = False) -> ColumnBound | None:
        """End the search (or, with ``wait``, let it end by itself) and give its bound."""
        if not wait:
            self._stop.set()
        self._thread.join()
        if self._error is not None:
            raise self._error
        return self._answer
