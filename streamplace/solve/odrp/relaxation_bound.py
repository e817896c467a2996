"""A bound for ``odrp`` where the whole program's root LP would outlast the time limit.

The relaxation is the compact formulation without the traffic products and without the
stream-delay pair rows (eq. 4): each stream's share of the network term is bounded by the
landmark rows alone, each delay by the landmark and transport rows. Leaving rows out of a
maximisation can only raise its optimum, so the LP optimum of what is left bounds F from
above for every plan. At 100 nodes x 60 operators it has 57,000 columns against the whole
program's 137,000 and HiGHS's interior point method solves it in about 11 s, where the whole
root LP takes 211 s (measured with bench/odrp.py's instances). Where even the relaxation
took more than a tenth of what is left, the whole program is not handed to HiGHS at all
and the primal search has the time.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import OdrpData, compact_columns
from streamplace.solve.result import SolveOptions, SolveStatus

BOUND_FIRST_FROM = 60_000  # estimated columns (50 x 40: 34,000; 100 x 60: 100,000)
BOUND_SHARE = 0.5  # of what is left of a time limit, at most
PROGRAM_FACTOR = 10  # the whole root LP took 10-17 times the relaxation's (100 x 60)


@dataclass(frozen=True)
class Relaxation:
    bound: float
    seconds: float

    def time_for_program(self, budget: Budget) -> bool:
        """Whether what is left of the time could see the whole program's root LP end;
        where it could not, HiGHS would only burn a core past the limit, left behind."""
        left = budget.remaining()
        return left is None or left >= PROGRAM_FACTOR * self.seconds


def relaxation_bound(data: OdrpData, budget: Budget) -> Relaxation | None:
    """The relaxation's LP optimum, or None where the model is small enough for the whole
    program's own bound, or the LP did not finish within its share of the time."""
    from streamplace.solve.mip.solve import solve_mip

    if compact_columns(data) < BOUND_FIRST_FROM:
        return None
    started = time.perf_counter()
    left = budget.remaining()
    phase = Budget(None if left is None else BOUND_SHARE * left, budget.stop)
    try:
        model = build_compact(data, phase, "lazy", products=False).model
    except Stopped:
        return None
    outcome = solve_mip(model, SolveOptions(
        time_limit=phase.time_limit, threads=1,
        highs={"solve_relaxation": True, "solver": "ipm"}), None, phase)
    if outcome.status != SolveStatus.OPTIMAL or outcome.objective is None:
        return None
    return Relaxation(outcome.objective, time.perf_counter() - started)
