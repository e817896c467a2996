"""HiGHS in its own thread: each model with locks of its own, a stop request or the
budget running out passed on as HiGHS's interrupt, and a solve that minds neither left
behind (docs/cli.md, "What bounds time and memory")."""

from __future__ import annotations

import atexit
import threading
import time
from typing import Any

from streamplace.solve.budget import Budget

POLL = 0.05  # seconds between looks at the stop request while HiGHS runs
GRACE = 1.0  # seconds HiGHS gets to stop after its interrupt before it is left behind
_ABANDONED: list[Any] = []


def own_locks(h: Any) -> None:
    """highspy keeps the locks of its solver thread on the class (highspy 1.15), so two
    models solved at once in one process (odrp's sub-programs beside the whole one) would
    refuse each other ("Solver is already running"): each model gets locks of its own."""
    h._Highs__solver_stopped = threading.RLock()
    h._Highs__solver_started = threading.Lock()


def solve_in_thread(h: Any, budget: Budget) -> bool:
    """Solve in HiGHS's worker thread; pass a stop request, or the budget running out, on
    as a HiGHS interrupt: HiGHS's own time_limit is not looked at in every phase (completing
    a partial start solution by an LP, parts of presolve), its interrupt callbacks are in
    most. Where neither is (a root LP of millions of nonzeros), HiGHS is left to finish in
    its thread GRACE seconds after the interrupt, unread: False then."""
    if budget.expired():
        return True  # nothing left: the caller sees "not solved" and keeps what it has
    h.HandleUserInterrupt = True  # HiGHS's callbacks then honour cancelSolve()
    h.startSolve()
    cancelled_at = None
    while not h.wait(POLL)[0]:
        if cancelled_at is None and budget.expired():
            h.cancelSolve()
            cancelled_at = time.perf_counter()
        elif cancelled_at is not None and time.perf_counter() - cancelled_at > GRACE:
            # kept alive while its thread runs (a long sweep lets go of those done)
            _ABANDONED[:] = [other for other in _ABANDONED if other.is_solver_running()]
            if not _ABANDONED:
                atexit.register(wait_for_abandoned)  # once per batch; it skips finished ones
            _ABANDONED.append(h)
            return False
    return True


def abandoned_running() -> bool:
    """Whether a solve left behind is still running."""
    return any(h.is_solver_running() for h in _ABANDONED)


def wait_for_abandoned() -> None:
    """Wait for the solves left behind, which stop at their next interrupt check: a process
    that ended under one would abort, its callbacks calling into a finalising Python. The
    command line does not wait; it leaves by ``os._exit`` (cli/entry.py)."""
    for h in _ABANDONED:
        while h.is_solver_running():
            h.wait(POLL)
