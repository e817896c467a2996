"""A bound for ``odrp`` that a time limit leaves it even where the whole program's root LP
would not end in time.

The relaxation is the compact formulation without the traffic products and without the
stream-delay pair rows (eq. 4): each stream's share of the network term is bounded by the
landmark rows alone, each delay by the landmark and transport rows. Leaving rows out of a
maximisation can only raise its optimum, so the LP optimum of what is left bounds F from
above for every plan. It is solved first on every model past a few thousand columns, and
the tighter of its bound and the program's is kept. Measured on bench/odrp.py's families
(2 cores): at 50 nodes x 40 operators it takes 3.6-4.8 s, where the whole program's root
LP takes 20 s (uniform edge + cloud, the same bound to 4 decimals) to more than 120 s
(spread-out pins, whose relaxation bound 0.940 lies 0.3% above the root LP's 0.937); at
100 x 60, 22-28 s, where the whole root LP took 211 s (uniform). Where even the relaxation
took more than a tenth of what is left, or did not end within its share of the time, the
whole program is not handed to HiGHS at all and the primal search has the time.

Its optimum, rounded to a plan (primal/rounding.py), is also a start for the primal search.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import OdrpData, compact_columns
from streamplace.solve.result import SolveOptions, SolveStatus

BOUND_FIRST_FROM = 4_000  # estimated columns (30 x 20: 7,800-9,900; 50 x 40: 30,000-34,000)
PROGRAM_FROM = 60_000  # estimated columns from which its time decides the program's fate
# of what is left of a time limit, at most: the bound, and at scale the primal search's
# best start (100 x 60 spread-out pins: 30 s alone, 37 s beside the search; 0.6 of a
# minute left that instance with neither)
BOUND_SHARE = 0.75
PROGRAM_FACTOR = 10  # the whole root LP took 10-17 times the relaxation's (100 x 60)


@dataclass(frozen=True)
class Relaxation:
    bound: float | None  # None: the relaxation did not end within its share of the time
    seconds: float
    columns: int  # the whole program's, estimated
    start: Plan | None = None  # the LP optimum rounded, when it gave a plan

    def time_for_program(self, budget: Budget) -> bool:
        """Whether what is left of the time could see the whole program's root LP end;
        where it could not, HiGHS would only burn a core past the limit, left behind. A
        relaxation that ran out of its share says it could not, at any size; below
        PROGRAM_FROM columns its time does not decide, the root LP's does (root.py): the
        ratio of the two LPs' times varies from 5 to over 25 between families there."""
        left = budget.remaining()
        if left is None:
            return True
        if self.bound is None:
            return False
        return self.columns < PROGRAM_FROM or left >= PROGRAM_FACTOR * self.seconds


def relaxation_bound(data: OdrpData, budget: Budget) -> Relaxation | None:
    """The relaxation's LP optimum; None where the model is small enough for the whole
    program's own bound, or the LP ended without one (not for lack of time: the whole
    program's solve then says why); a bound of None where its share of the time ran out."""
    from streamplace.solve.mip.solve import solve_mip
    from streamplace.solve.odrp.primal.rounding import round_relaxation

    columns = compact_columns(data)
    if columns < BOUND_FIRST_FROM:
        return None
    started = time.perf_counter()
    left = budget.remaining()
    phase = Budget(None if left is None else BOUND_SHARE * left, budget.stop)
    try:
        built = build_compact(data, phase, "lazy", products=False)
    except Stopped:
        return Relaxation(None, time.perf_counter() - started, columns)
    outcome = solve_mip(built.model, SolveOptions(
        time_limit=phase.time_limit, threads=1,
        highs={"solve_relaxation": True, "solver": "ipm"}), None, phase)
    seconds = time.perf_counter() - started
    if outcome.status == SolveStatus.OPTIMAL and outcome.objective is not None:
        start = None if outcome.values is None else \
            round_relaxation(data, built, outcome.values)
        return Relaxation(outcome.objective, seconds, columns, start)
    return Relaxation(None, seconds, columns) if phase.expired() else None
