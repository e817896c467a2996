"""Solving a LinearModel with COIN-OR CBC through PuLP (the reference second solver).

PuLP's ``prob.status == 1`` also means "stopped at the time limit with an incumbent", so the
status is read from ``prob.sol_status``.
"""
from __future__ import annotations

import contextlib
import math
import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from streamplace.errors import SolverError
from streamplace.solve.budget import Budget
from streamplace.solve.linear import LinearModel
from streamplace.solve.mip import MipOutcome
from streamplace.solve.result import SolveOptions, SolveStatus

POLL = 0.05  # seconds between looks at the stop request while CBC runs


def to_pulp(model: LinearModel) -> tuple[Any, list[Any]]:
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
              budget: Budget | None = None) -> MipOutcome:
    import pulp

    budget = budget or options.budget()
    started = time.perf_counter()
    prob, cols = to_pulp(model)
    build = time.perf_counter() - started
    solver = pulp.PULP_CBC_CMD(msg=False, timeLimit=budget.remaining(),
                               gapRel=options.gap if options.gap is not None else 1e-6,
                               threads=options.threads,
                               options=[f"randomSeed {options.seed + 1}"])
    failure = _run(prob, solver, budget)
    if failure is not None and not budget.interrupted:
        raise SolverError(f"CBC failed: {failure}")
    seconds = time.perf_counter() - started
    sol = prob.sol_status if failure is None else pulp.LpSolutionNoSolutionFound
    if sol == pulp.LpSolutionOptimal and not budget.interrupted:
        status = SolveStatus.OPTIMAL
    elif budget.interrupted:
        status = SolveStatus.INTERRUPTED
    elif sol == pulp.LpSolutionIntegerFeasible:
        status = SolveStatus.TIME_LIMIT
    elif sol == pulp.LpSolutionInfeasible:
        status = SolveStatus.INFEASIBLE
    elif sol == pulp.LpSolutionNoSolutionFound:
        status = SolveStatus.TIME_LIMIT if options.time_limit else SolveStatus.ERROR
    else:
        status = SolveStatus.ERROR
    values = None
    if failure is None and status.has_plan and sol in (pulp.LpSolutionOptimal,
                                                        pulp.LpSolutionIntegerFeasible):
        values = [float(v.value() or 0.0) for v in cols]
    objective = model.objective_value(values) if values is not None else None
    return MipOutcome(
        status=status, values=values, objective=objective,
        bound=objective if status == SolveStatus.OPTIMAL else None,
        gap=0.0 if status == SolveStatus.OPTIMAL else None, seconds=seconds,
        solver={"name": "cbc", "version": str(pulp.__version__), "seconds": round(seconds, 3),
                "load_seconds": round(build, 3), "seed": options.seed, **model.stats()},
    )


def _run(prob: Any, solver: Any, budget: Budget) -> str | None:
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
    while worker.is_alive():
        worker.join(POLL)
        if budget.interrupted:
            for pid in _children():
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGINT)
    return failure[0] if failure else None


def _children() -> list[int]:
    """This process's child processes (Linux /proc; elsewhere none are found)."""
    pids: list[int] = []
    for listing in Path("/proc/self/task").glob("*/children"):
        with contextlib.suppress(OSError):
            pids += [int(p) for p in listing.read_text().split()]
    return pids
