"""HiGHS in its own thread: each model with locks of its own, a stop request or the
budget running out passed on as HiGHS's interrupt, and a solve that minds neither left
behind (docs/cli.md, "What bounds time and memory").

HiGHS asks Python whether to stop at every simplex iteration (its interrupt callback), and
each time it must take the interpreter lock. Beside a busy Python thread (``odrp``'s primal
search, ``benoit``'s annealing) it waits for the lock up to the interpreter's switch
interval (5 ms) each time: a root LP of 13,000 iterations took 9 s alone and 78 s beside a
Python loop. While a solve runs the switch interval is 0.1 ms: 12.6 s then, and the loop
keeps 94% of its speed, against 98% at 5 ms (bench/highs_lock.py).
"""

from __future__ import annotations

import atexit
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from streamplace.solve.budget import Budget

POLL = 0.05  # seconds between looks at the stop request while HiGHS runs
GRACE = 1.0  # seconds HiGHS gets to stop after its interrupt before it is left behind
SWITCH_INTERVAL = 1e-4  # seconds, while a solve runs
_ABANDONED: list[Any] = []
_switching = threading.Lock()
_running = [0, 0.0]  # solves running now, and the switch interval they found


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
    with _responsive_interrupts():
        return _solve(h, budget)


def _solve(h: Any, budget: Budget) -> bool:
    h.HandleUserInterrupt = True  # HiGHS's callbacks then honour cancelSolve()
    h.startSolve()
    cancelled_at = None
    try:
        while not h.wait(POLL)[0]:
            if cancelled_at is None and budget.expired():
                h.cancelSolve()
                cancelled_at = time.perf_counter()
            elif cancelled_at is not None and time.perf_counter() - cancelled_at > GRACE:
                _abandon(h)
                return False
    except BaseException:
        # a signal that ends the command at once (Interrupted) while HiGHS runs: a solve
        # left running would call back into a finalising interpreter, and the process
        # would abort ("terminate called without an active exception")
        h.cancelSolve()
        _abandon(h)
        raise
    return True


def _abandon(h: Any) -> None:
    """Keep ``h`` alive while its thread runs, for wait_for_abandoned at exit (a long sweep
    lets go of those done)."""
    _ABANDONED[:] = [other for other in _ABANDONED if other.is_solver_running()]
    if not _ABANDONED:
        atexit.register(wait_for_abandoned)  # once per batch; it skips finished ones
    _ABANDONED.append(h)


@contextmanager
def _responsive_interrupts() -> Iterator[None]:
    """The short switch interval while any solve runs (solves overlap across threads)."""
    with _switching:
        if _running[0] == 0:
            _running[1] = sys.getswitchinterval()
            sys.setswitchinterval(min(SWITCH_INTERVAL, _running[1]))
        _running[0] += 1
    try:
        yield
    finally:
        with _switching:
            _running[0] -= 1
            if _running[0] == 0:
                sys.setswitchinterval(_running[1])


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
