"""``odrp``'s root tightened before HiGHS branches: rounds of the program's LP relaxation,
each adding the share cuts (share_cuts.py) that its optimum breaks.

HiGHS's own cuts do not reach the network term's weakness (the products' rows give little
while replica shares are fractional, the landmark rows only the metric closure's distance);
these rows do, and every round's LP optimum is a bound on F that holds whatever HiGHS
reaches after. On bench/odrp.py's 30 x 20 seed 2 instance (``--root``) 13 rounds take its
LP from 0.9485 to 0.9432 in 28 s (the best plan known is 0.9388). Where the rounds no
longer move the bound (seed 1 there, and 50 x 40), they stop after four: the first LP and
three that did not move it.

The first LP is solved by the interior-point method, and so is HiGHS's own root LP
(:func:`program_options`): odrp judges from the one's time whether the other fits in what
is left. Where eq. 4's rows are all in the program (below delays.LAZY_DELAYS_FROM) the LP
starts without them and takes back those its solutions break (docs/models.md sec. 2): on
bench/families.py's 30 x 20 instances the first LP took 1.3-3.5 s where it took 3.2-7.4 s
with every row, to the same bound.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, replace

from streamplace.solve.budget import Budget
from streamplace.solve.mip.persistent import Ended, PersistentModel
from streamplace.solve.odrp.compact import CompactModel
from streamplace.solve.odrp.data import OdrpData
from streamplace.solve.odrp.delays import HeldRows
from streamplace.solve.odrp.share_cuts import ShareCut, ShareCuts
from streamplace.solve.result import MipSolver, SolveOptions

CUT_SHARE = 0.3   # of the time left, at most, for the rounds after the first LP
FIRST_SHARE = 0.6  # of the time left, at most, for the first LP: the bound itself
# HiGHS's first LP: by the interior-point method, where dual simplex took 78 s against 35 s
# on routed Uninett2010, 22 s against 14 s on VtlWavenet2011 (bench/first_lp.py)
PROGRAM_OPTIONS = {"mip_lp_solver": "ipm"}
# HiGHS's own root (presolve, the LP again, its cuts) against the first LP. Where HiGHS had
# less, at 50 x 40 it was abandoned with neither bound nor plan, and the search beside it
# reached F 0.835-0.892 where two searches alone reached 0.940 (docs/models.md sec. 2)
ROOT_FACTOR = 2.0
MAX_ROUNDS = 60
STALL_ROUNDS = 3  # rounds in a row that move the bound by less than STALL end the rounds
STALL = 1e-7      # relative
# solves of one LP that hand back held delay rows; after them every row left goes in at once
MAX_PASSES = 30


@dataclass(frozen=True)
class RootCuts:
    first: float | None  # the LP optimum before any cut
    bound: float | None  # the last LP optimum, cuts and all; None if none was proven
    rounds: int
    cuts: int
    seconds: float
    first_seconds: float  # the first LP's, or as long as it ran unsolved
    first_stopped: bool  # the first LP ran out of its share of the time
    delay_rows_left_out: int = 0  # eq. 4's rows no LP solution broke: never in the LP

    def counters(self) -> dict[str, object]:
        return {"share_cut_rounds": self.rounds, "share_cuts": self.cuts,
                "share_cut_seconds": round(self.seconds, 3),
                "root_lp_seconds": round(self.first_seconds, 3),
                "root_lp_delay_rows_left_out": self.delay_rows_left_out}

    def time_for_program(self, budget: Budget) -> bool:
        """Whether what is left of the time could see HiGHS through its own root, which
        solves this LP again from scratch; where it could not, HiGHS would end with
        neither a bound nor a plan of its own, and the core is the primal search's."""
        left = budget.remaining()
        if left is None:
            return True
        if self.first is None:  # infeasible (so is the program: HiGHS proves it), or no time
            return not self.first_stopped
        return left >= ROOT_FACTOR * self.first_seconds


def cut_root(data: OdrpData, built: CompactModel, budget: Budget) -> RootCuts | None:
    """Add the share cuts to ``built``'s model round by round; None where it has no
    share to cut."""
    separator = ShareCuts(data, built.shares, built.cells)
    if not separator:
        return None
    started = time.perf_counter()
    left = budget.remaining()
    phase = budget if left is None else budget.until(started + FIRST_SHARE * left)
    lp = PersistentModel(threads=1, relaxation=True)
    lp.load(built.model)
    held = _hold_delay_rows(lp, built)
    first: float | None = None
    bound: float | None = None
    rounds = cuts = stalled = 0
    first_seconds = 0.0
    first_stopped = False
    while rounds < MAX_ROUNDS:
        solved = _solve_whole(lp, phase, held, interior=rounds == 0)
        if rounds == 0:
            first_seconds = time.perf_counter() - started
            # an LP interrupted at its share's end may report neither (50 x 40
            # spread-out pins: 27 s, then HiGHS was started with 10 s left and
            # abandoned with nothing); any other end leaves HiGHS to say
            first_stopped = solved in (Ended.STOPPED, Ended.TIME_LIMIT) or (
                solved is Ended.OTHER and phase.expired())
            # the rounds after the first LP share a smaller part of the time: they only
            # tighten a bound the first one already gave
            if left is not None:
                phase = budget.until(started + max(CUT_SHARE * left, first_seconds))
        if solved is not Ended.OPTIMAL:
            break
        rounds += 1
        value = lp.objective
        stalled = stalled + 1 if bound is not None and bound - value <= STALL * abs(bound) \
            else 0
        first = value if first is None else first
        bound = value if bound is None else min(bound, value)
        found = [] if stalled >= STALL_ROUNDS else \
            separator.separate(lp.values(), phase)
        if not found:
            break
        _add(lp, built, found)
        cuts += len(found)
    return RootCuts(first, bound, rounds, cuts, time.perf_counter() - started, first_seconds,
                    first_stopped, len(held) if held is not None else 0)


def program_options(options: SolveOptions, root: RootCuts | None) -> SolveOptions:
    """``options`` for HiGHS on the program whose root :func:`cut_root` timed (``root``):
    its first LP by the method that LP was first solved by, unless the options name
    another. Without a timed root, ``options`` as they are."""
    if root is None or options.solver != MipSolver.HIGHS:
        return options
    return replace(options, highs={**PROGRAM_OPTIONS, **options.highs})


def _hold_delay_rows(lp: PersistentModel, built: CompactModel) -> HeldRows | None:
    """Take eq. 4's rows out of ``lp`` (delays.py): held, not lost. Only where they are
    all in the model: where they start out of it, the few a plan broke are kept."""
    if built.delays is None or built.delays.lazy or not built.delays.rows:
        return None
    held = HeldRows(built.delays.rows)
    lp.delete_rows(held.model_rows)
    return held


def _solve_whole(lp: PersistentModel, phase: Budget, held: HeldRows | None,
                 interior: bool = False) -> Ended:
    """Solve ``lp``, handing back the held rows each solution breaks, until one breaks
    none: then it is the LP with every row. Each solve before is a relaxation of it.
    ``interior``: the first solve is by the interior-point method, the rest from its basis."""
    for passes in range(1, MAX_PASSES + 1):
        if interior and passes == 1:
            lp.set_option("solver", "ipm")
            solved = lp.solve(phase)
            lp.set_option("solver", "choose")
            if solved is Ended.OTHER and not phase.expired():  # it gave up: simplex may not
                solved = lp.solve(phase)
        else:
            solved = lp.solve(phase)
        if solved is not Ended.OPTIMAL or held is None or not len(held):
            return solved
        back = held.broken(lp.values()) if passes < MAX_PASSES else held.rest()
        if not back:
            return solved
        lp.add_rows(back)
    return lp.solve(phase)


def _add(lp: PersistentModel, built: CompactModel, found: list[ShareCut]) -> None:
    for cut in found:
        built.model.row(cut.cols, cut.vals, lo=cut.lo, family="share cuts")
    lp.add_rows([(cut.lo, math.inf, cut.cols, cut.vals) for cut in found])
