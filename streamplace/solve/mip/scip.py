"""Solving a LinearModel with SCIP through PySCIPOpt, an optional backend
(``pip install 'streamplace[scip]'``).

The model reaches SCIP as the MPS text HiGHS writes of it (columns c0, c1, ... in the
model's order, so values come back by index): one bulk read instead of a Python call per
row. SCIP solves in a thread without Python's lock (``optimizeNogil``); a stop request or
the budget running out reaches it as SCIP's user interrupt, and its time limit is set to
what the budget leaves. The start plan becomes a partial solution SCIP completes.
"""

from __future__ import annotations

import contextlib
import math
import tempfile
import threading
import time
from collections.abc import Sequence
from typing import Any

from streamplace.errors import InputError, SolverError
from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs.arrays import model_text
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.mip.outcome import MipOutcome, StatusMeaning
from streamplace.solve.result import SolveOptions, SolveStatus, relative_gap
from streamplace.solve.solver_report import SolverReport

POLL = 0.05  # seconds between looks at the stop request while SCIP runs

_S = SolveStatus
SCIP_STATUSES: dict[str, StatusMeaning] = {
    "optimal": StatusMeaning(_S.OPTIMAL, _S.ERROR, "proven optimal within the gap"),
    "infeasible": StatusMeaning(_S.INFEASIBLE, _S.INFEASIBLE, "proven infeasible"),
    "unbounded": StatusMeaning(_S.ERROR, _S.ERROR, "the model is unbounded, which no "
                               "placement model should be: please report it"),
    "inforunbd": StatusMeaning(_S.ERROR, _S.ERROR, "SCIP could not tell infeasible from "
                               "unbounded"),
    "timelimit": StatusMeaning(_S.TIME_LIMIT, _S.TIME_LIMIT, "the time limit passed"),
    "userinterrupt": StatusMeaning(_S.INTERRUPTED, _S.INTERRUPTED, "interrupted"),
    "nodelimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its node limit"),
    "totalnodelimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its total node limit"),
    "stallnodelimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its stall node limit"),
    "gaplimit": StatusMeaning(_S.OPTIMAL, _S.ERROR, "proven optimal within the gap"),
    "sollimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its solution limit"),
    "bestsollimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its improving "
                                  "solution limit"),
    "restartlimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its restart limit"),
    "memlimit": StatusMeaning(_S.LIMIT, _S.ERROR, "SCIP ran out of its memory limit"),
    "primallimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its primal limit"),
    "duallimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "SCIP reached its dual limit"),
    "unknown": StatusMeaning(_S.LIMIT, _S.ERROR, "SCIP stopped without saying why"),
}
"""SCIP's statuses (``Model.getStatus()``). ``gaplimit`` is SCIP's proof within the gap it
was given (``limits/gap``, our ``--gap``), as HiGHS's kOptimal is."""


def solve_scip(model: LinearModel, options: SolveOptions,
               start: Sequence[float | None] | None, budget: Budget) -> MipOutcome:
    try:
        import pyscipopt
    except ImportError:
        raise InputError.single("the SCIP backend needs PySCIPOpt, which is not installed",
                                "pip install 'streamplace[scip]', or use --solver highs",
                                path="--solver") from None
    started = time.perf_counter()
    scip = pyscipopt.Model()
    scip.hideOutput()
    with tempfile.TemporaryDirectory(prefix="streamplace-") as folder:
        path = f"{folder}/model.mps"
        with open(path, "w", encoding="utf-8") as written:
            written.write(model_text(model, "mps", named=False, offset=False))
        scip.readProblem(path)
    columns = {var.name: var for var in scip.getVars()}
    ordered = [columns[f"c{k}"] for k in range(model.num_cols)]
    _set_parameters(scip, options, budget)
    if start is not None:
        _set_start(scip, ordered, start)
    build = time.perf_counter() - started
    if budget.expired():
        return _outcome(scip, model, ordered, options, budget, started, build, solved=False,
                        start=start)
    failure = _solve_in_thread(scip, budget)
    if failure is not None and not budget.interrupted:
        raise SolverError(f"SCIP failed: {failure}")
    return _outcome(scip, model, ordered, options, budget, started, build, solved=True,
                    start=start)


def _set_parameters(scip: Any, options: SolveOptions, budget: Budget) -> None:
    scip.setParam("limits/gap", float(options.proven_gap))
    scip.setParam("limits/absgap", 1e-9)
    scip.setParam("randomization/randomseedshift", int(options.seed))
    left = budget.remaining()
    if left is not None:
        scip.setParam("limits/time", max(left, 0.01))


def _set_start(scip: Any, ordered: list[Any], start: Sequence[float | None]) -> None:
    solution = scip.createPartialSol()
    for var, value in zip(ordered, start, strict=True):
        if value is not None:
            scip.setSolVal(solution, var, float(value))
    scip.addSol(solution)


def _solve_in_thread(scip: Any, budget: Budget) -> str | None:
    failure: list[str] = []

    def work() -> None:
        try:
            scip.optimizeNogil()
        except Exception as exc:  # reported to the caller's thread, which raises it
            failure.append(str(exc))

    worker = threading.Thread(target=work, daemon=True)
    worker.start()
    asked = False
    while worker.is_alive():
        worker.join(POLL)
        if not asked and budget.expired() and worker.is_alive():
            # SCIP takes the interrupt only once it is solving; until then its time limit
            # (set from the same budget) stops it
            with contextlib.suppress(Exception):
                scip.interruptSolve()
                asked = True
    return failure[0] if failure else None


def _outcome(scip: Any, model: LinearModel, ordered: list[Any], options: SolveOptions,
             budget: Budget, started: float, build: float, solved: bool,
             start: Sequence[float | None] | None) -> MipOutcome:
    from importlib.metadata import version

    name = str(scip.getStatus()) if solved else "timelimit"
    meaning = SCIP_STATUSES.get(name, SCIP_STATUSES["unknown"])
    if budget.interrupted and name not in ("optimal", "gaplimit", "infeasible"):
        meaning = SCIP_STATUSES["userinterrupt"]
    elif name == "userinterrupt" and not budget.interrupted:
        meaning = SCIP_STATUSES["timelimit"]  # our interrupt at the budget's end
    has_solution = solved and scip.getNSols() > 0
    status = meaning.with_plan if has_solution else meaning.without_plan
    values = objective = bound = None
    if has_solution and status.has_plan:
        best = scip.getBestSol()
        values = [float(scip.getSolVal(best, var)) for var in ordered]
        objective = model.objective_value(values)
    if solved and name not in ("infeasible", "unbounded", "inforunbd"):
        dual = float(scip.getDualbound())
        bound = dual + model.offset if math.isfinite(dual) and abs(dual) < 1e20 else None
    seconds = time.perf_counter() - started
    report = SolverReport(
        "scip", version=f"{scip.version()} (PySCIPOpt {version('pyscipopt')})",
        seconds=round(seconds, 3), load_seconds=round(build, 3), model_status=name,
        nodes=int(scip.getNNodes()) if solved else 0, seed=options.seed, size=model.size(),
        mip_start=None if start is None else "given",
        options={k: v for k, v in (("time_limit", options.time_limit), ("gap", options.gap))
                 if v is not None})
    return MipOutcome(status, values, objective, bound, relative_gap(objective, bound),
                      seconds, report,
                      "" if status in (_S.OPTIMAL, _S.INFEASIBLE) else meaning.explanation)
