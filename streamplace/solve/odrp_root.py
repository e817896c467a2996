"""``odrp``'s root tightened before HiGHS branches: rounds of the program's LP relaxation,
each adding the share cuts (ilp/odrp_share_cuts.py) that its optimum breaks.

HiGHS's own cuts do not reach the network term's weakness (the products' rows give little
while replica shares are fractional, the landmark rows only the metric closure's distance);
these rows do, and every round's LP optimum is a bound on F that holds whatever HiGHS
reaches after. On bench/odrp.py's 30 x 20 seed 2 instance (``--root``) 13 rounds take its
LP from 0.9485 to 0.9432 in 28 s (the best plan known is 0.9388). Where the rounds no
longer move the bound (seed 1 there, and 50 x 40), they stop after four: the first LP and
three that did not move it.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from streamplace.solve.budget import Budget
from streamplace.solve.highs_model import add_rows, pass_model
from streamplace.solve.highs_thread import own_locks, solve_in_thread
from streamplace.solve.ilp.odrp_compact import CompactModel
from streamplace.solve.ilp.odrp_data import OdrpData
from streamplace.solve.ilp.odrp_share_cuts import ShareCut, ShareCuts

CUT_SHARE = 0.3   # of the time left, at most
MAX_ROUNDS = 60
STALL_ROUNDS = 3  # rounds in a row that move the bound by less than STALL end the rounds
STALL = 1e-7      # relative


@dataclass(frozen=True)
class RootCuts:
    first: float | None  # the LP optimum before any cut
    bound: float | None  # the last LP optimum, cuts and all; None if none was proven
    rounds: int
    cuts: int
    seconds: float

    def counters(self) -> dict[str, object]:
        return {"share_cut_rounds": self.rounds, "share_cuts": self.cuts,
                "share_cut_seconds": round(self.seconds, 3)}


def cut_root(data: OdrpData, built: CompactModel, budget: Budget) -> RootCuts | None:
    """Add the share cuts to ``built``'s model round by round; None where it has no
    share to cut."""
    import highspy

    separator = ShareCuts(data, built.shares, built.cells)
    if not separator:
        return None
    started = time.perf_counter()
    left = budget.remaining()
    phase = budget if left is None else budget.until(started + CUT_SHARE * left)
    h = highspy.Highs()
    own_locks(h)
    h.silent()
    pass_model(h, highspy, built.model)
    h.setOptionValue("solve_relaxation", True)
    h.setOptionValue("threads", 1)
    first: float | None = None
    bound: float | None = None
    rounds = cuts = stalled = 0
    while rounds < MAX_ROUNDS:
        if not _solved(h, highspy, phase):
            break
        rounds += 1
        value = h.getInfo().objective_function_value
        stalled = stalled + 1 if bound is not None and bound - value <= STALL * abs(bound) \
            else 0
        first = value if first is None else first
        bound = value if bound is None else min(bound, value)
        found = [] if stalled >= STALL_ROUNDS else \
            separator.separate(np.asarray(h.getSolution().col_value))
        if not found:
            break
        _add(h, built, found)
        cuts += len(found)
    return RootCuts(first, bound, rounds, cuts, time.perf_counter() - started)


def _solved(h: Any, highspy: Any, phase: Budget) -> bool:
    if phase.expired():  # checked first: HiGHS would keep the last round's status
        return False
    left = phase.remaining()
    if left is not None:  # HiGHS counts its time limit from the object's first run
        h.setOptionValue("time_limit", h.getRunTime() + left)
    return solve_in_thread(h, phase) and \
        h.getModelStatus() == highspy.HighsModelStatus.kOptimal


def _add(h: Any, built: CompactModel, found: list[ShareCut]) -> None:
    for cut in found:
        built.model.row(cut.cols, cut.vals, lo=cut.lo, family="share cuts")
    add_rows(h, [(cut.lo, math.inf, cut.cols, cut.vals) for cut in found])
