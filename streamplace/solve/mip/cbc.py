"""Solving a LinearModel with COIN-OR CBC through PuLP (the reference second solver).

PuLP's ``prob.status == 1`` also means "stopped at the time limit with an incumbent", so the
status is read from ``prob.sol_status``. CBC gets no MIP start, and its report says so
(``mip_start``): through PuLP's warm start, CBC 2.10 ended "optimal" at F = 0.7359 on the
bundled DEBS 2015 sample, whose optimum is 0.9334 (HiGHS, SCIP, and CBC without the start).
A stop request reaches CBC as SIGINT, sent to
CBC's own process only: this process's children running the CBC binary PuLP called.
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from streamplace.errors import SolverError
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.mip.outcome import MipOutcome, StatusMeaning
from streamplace.solve.result import SolveOptions, SolveStatus
from streamplace.solve.solver_report import SolverReport

POLL = 0.05  # seconds between looks at the stop request while CBC runs
GRACE = 2.0  # seconds CBC gets to stop after SIGINT before it is ended (SIGKILL): it minds
# neither SIGINT nor its time limit in some phases (a 50 x 40 edge + cloud model: 186 s of a
# 38 s limit), and its incumbent is then lost


def to_pulp(model: LinearModel, budget: Budget | None = None) -> tuple[Any, list[Any]]:
    """The model as a PuLP problem, built row by row (PuLP has no bulk form): ``budget`` is
    looked at every thousand rows (:class:`Stopped` once it has run out)."""
    import pulp

    sense = pulp.LpMaximize if model.maximize else pulp.LpMinimize
    prob = pulp.LpProblem("streamplace", sense)
    cols = [pulp.LpVariable(f"x{k}", lowBound=None if math.isinf(lo) else lo,
                            upBound=None if math.isinf(hi) else hi,
                            cat=pulp.LpInteger if integer else pulp.LpContinuous)
            for k, (lo, hi, integer) in enumerate(zip(model.lb, model.ub, model.integer,
                                                       strict=True))]
    prob += pulp.LpAffineExpression(
        [(cols[k], c) for k, c in enumerate(model.cost) if c != 0.0], constant=model.offset)
    start, index, value = model.to_csr()
    for r in range(model.num_rows):
        if budget is not None and r % 1000 == 0:
            budget.check()
        terms = pulp.LpAffineExpression(
            [(cols[int(index[k])], float(value[k])) for k in range(start[r], start[r + 1])])
        lo, hi = model.row_lo[r], model.row_hi[r]
        if lo == hi:
            prob += terms == lo
        else:
            if not math.isinf(lo):
                prob += terms >= lo
            if not math.isinf(hi):
                prob += terms <= hi
    return prob, cols


def solve_cbc(model: LinearModel, options: SolveOptions,
              start: Sequence[float | None] | None = None,
              budget: Budget | None = None) -> MipOutcome:
    import pulp

    budget = budget or options.budget()
    started = time.perf_counter()
    try:
        prob, cols = to_pulp(model, budget)
    except Stopped:
        seconds = time.perf_counter() - started
        return MipOutcome(budget.stop_status(), None, None, None, None, seconds,
                          SolverReport("cbc", seconds=round(seconds, 3),
                                       model_status="not started", size=model.size()),
                          f"{budget.stop_reason()} while the model was built for CBC")
    build = time.perf_counter() - started
    solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=budget.remaining(),
                               gapRel=options.proven_gap,
                               threads=options.threads,
                               options=[f"randomSeed {options.seed + 1}"])
    failure = _solve_in_thread(prob, solver, budget, Path(solver.path).resolve())
    if failure is not None and not budget.expired():  # stopped by us: no failure of CBC's
        raise SolverError(f"CBC failed: {failure}")
    seconds = time.perf_counter() - started
    sol = prob.sol_status if failure is None else pulp.LpSolutionNoSolutionFound
    if failure == ENDED:
        return MipOutcome(budget.stop_status(), None, None, None, None, seconds,
                          SolverReport("cbc", version=str(pulp.__version__),
                                       seconds=round(seconds, 3), load_seconds=round(build, 3),
                                       model_status="ended", seed=options.seed,
                                       size=model.size()), ENDED)
    name = pulp.LpSolution[sol]
    meaning = CBC_STATUSES[name]
    if name == "No Solution Found" and options.time_limit is None and not budget.interrupted:
        meaning = StatusMeaning(SolveStatus.ERROR, SolveStatus.ERROR, "CBC found no solution")
    if budget.interrupted and name != "Optimal Solution Found":
        meaning = StatusMeaning(SolveStatus.INTERRUPTED, SolveStatus.INTERRUPTED,
                                "interrupted")
    has_solution = name in ("Optimal Solution Found", "Solution Found")
    status = meaning.with_plan if has_solution else meaning.without_plan
    values = [float(v.value() or 0.0) for v in cols] if has_solution else None
    objective = model.objective_value(values) if values is not None else None
    optimal = status == SolveStatus.OPTIMAL
    return MipOutcome(status, values, objective, objective if optimal else None,
                      0.0 if optimal else None, seconds,
                      SolverReport("cbc", version=str(pulp.__version__),
                                   seconds=round(seconds, 3), load_seconds=round(build, 3),
                                   model_status=name, seed=options.seed, size=model.size(),
                                   mip_start=None if start is None else NO_START),
                      "" if optimal or status == SolveStatus.INFEASIBLE
                      else meaning.explanation)


NO_START = "not passed: CBC's warm start can end 'optimal' at a worse plan"
ENDED = f"CBC did not stop within {GRACE:g} s of the limit and was ended; its incumbent is lost"

# PuLP's solution statuses (prob.sol_status, by name): "Solution Found" also means "stopped by
# the time limit with an incumbent", so it is never called optimal
CBC_STATUSES: dict[str, StatusMeaning] = {
    "Optimal Solution Found": StatusMeaning(SolveStatus.OPTIMAL, SolveStatus.ERROR,
                                            "proven optimal within the gap"),
    "Solution Found": StatusMeaning(SolveStatus.TIME_LIMIT, SolveStatus.TIME_LIMIT,
                                    "the time limit passed"),
    "No Solution Found": StatusMeaning(SolveStatus.TIME_LIMIT, SolveStatus.TIME_LIMIT,
                                       "the time limit passed before any solution"),
    "No Solution Exists": StatusMeaning(SolveStatus.INFEASIBLE, SolveStatus.INFEASIBLE,
                                        "proven infeasible"),
    "Solution is Unbounded": StatusMeaning(SolveStatus.ERROR, SolveStatus.ERROR,
                                           "the model is unbounded, which no placement "
                                           "model should be: please report it"),
}


def _solve_in_thread(prob: Any, solver: Any, budget: Budget, binary: Path) -> str | None:
    """Solve in a worker thread, so this one can pass a stop request on to the CBC process
    (as SIGINT, on which CBC stops its search); returns what went wrong, if anything."""
    import pulp

    failure: list[str] = []

    def work() -> None:
        try:
            prob.solve(solver)
        except pulp.PulpSolverError as exc:
            failure.append(str(exc))

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    asked_at: float | None = None
    while worker.is_alive():
        worker.join(POLL)
        if budget.expired():  # a stop request, or the limit CBC itself may overrun
            asked_at = asked_at if asked_at is not None else time.perf_counter()
            late = time.perf_counter() - asked_at > GRACE
            for pid in _children_running(binary):
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL if late else signal.SIGINT)
            if late and not failure:
                failure.append(ENDED)
    return failure[0] if failure else None


def _children_running(binary: Path) -> list[int]:
    """This process's child processes that run ``binary`` (Linux /proc; elsewhere none are
    found): a library embedded in a larger program leaves its other children alone."""
    pids: list[int] = []
    for listing in Path("/proc/self/task").glob("*/children"):
        with contextlib.suppress(OSError):
            pids += [int(p) for p in listing.read_text().split()]
    return [pid for pid in pids if _runs(pid, binary)]


def _runs(pid: int, binary: Path) -> bool:
    try:
        return Path(f"/proc/{pid}/exe").resolve() == binary
    except OSError:
        return False
