"""Solving a LinearModel with HiGHS in-process (highspy), passed as one model.

HiGHS statuses map to ours here and nowhere else: ``optimal`` only for kOptimal (proven
within the requested gap); a time stop is ``time_limit`` and a stop request ``interrupted``,
each with the incumbent, if any, and its gap.

HiGHS runs in a worker thread while this one waits in short slices, so that a signal
handler (which Python runs in the main thread only) is never held up by the solver; a stop
request reaches HiGHS through its interrupt callbacks, and HiGHS returns its incumbent.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from streamplace.errors import InputError, SolverError
from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs.arrays import pass_model
from streamplace.solve.mip.highs.thread import own_locks, solve_in_thread
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.mip.outcome import MipOutcome, StatusMeaning
from streamplace.solve.progress import ProgressFn, SolverProgress
from streamplace.solve.result import HighsValue, SolveOptions, SolveStatus, relative_gap
from streamplace.solve.solver_report import SolverReport

PROGRESS_EVERY = 0.25  # seconds between live updates
DEFAULTS = {"mip_heuristic_run_rins": False, "mip_heuristic_run_rens": False}
"""HiGHS options streamplace sets unless given (``--solver-option``): on ODRP models the two
sub-MIP heuristics spend most of the root node re-finding the start plan's neighbourhood.
Measured by hand: DEBS sample 0.75 s of HiGHS with them, 0.49 s without; edge + cloud
clusters of bench/odrp.py (20 x 15 and 30 x 20 at 30-40 s, 50 x 40 at 60 s) end at the same
plan and gap either way."""


# HiGHS options streamplace sets from its own settings (Setting values): given through
# options they would be silently overridden, so they are refused
SET_BY_SETTINGS = {"time_limit": "time_limit", "mip_rel_gap": "gap", "random_seed": "seed",
                   "threads": "threads"}


def highspy_ok() -> Any:
    import highspy

    return highspy.HighsStatus.kOk


def read_highs_option(name: str, raw: str) -> HighsValue:
    """``raw`` as the type HiGHS declares for option ``name``; InputError (with "did you
    mean") for an unknown name, a value of the wrong type or out of HiGHS's range."""
    import highspy

    if name in SET_BY_SETTINGS:
        raise InputError.single(f"{name} is set from the {SET_BY_SETTINGS[name]} setting",
                                f"give {SET_BY_SETTINGS[name]} instead", path=name)
    h = highspy.Highs()
    h.silent()
    status, kind = h.getOptionType(name)
    if status != highspy.HighsStatus.kOk:
        import difflib

        close = difflib.get_close_matches(name, _option_names(h), n=1)
        raise InputError.single(f"HiGHS has no option {name!r}",
                                f"did you mean {close[0]!r}?" if close else
                                "see the option list in the HiGHS documentation", path=name)
    text = raw.strip()
    value: HighsValue
    try:
        if kind == highspy.HighsOptionType.kBool:
            if text.lower() not in ("true", "false", "on", "off", "1", "0"):
                raise ValueError(text)
            value = text.lower() in ("true", "on", "1")
        elif kind == highspy.HighsOptionType.kInt:
            value = int(text)
        elif kind == highspy.HighsOptionType.kDouble:
            value = float(text)
        else:
            value = text
    except ValueError:
        noun = {highspy.HighsOptionType.kBool: "true or false",
                highspy.HighsOptionType.kInt: "a whole number"}.get(kind, "a number")
        raise InputError.single(f"HiGHS option {name} takes {noun}, got {text!r}",
                                f"write {name}=<{noun}>", path=name) from None
    if h.setOptionValue(name, value) != highspy.HighsStatus.kOk:
        raise InputError.single(f"HiGHS rejects {name}={text}", "use a value within the "
                                "option's range (HiGHS documentation)", path=name)
    return value


def _option_names(h: Any) -> list[str]:
    """The options HiGHS lists (its documented, non-advanced ones)."""
    import tempfile

    with tempfile.NamedTemporaryFile("r", suffix=".txt") as listing:
        h.writeOptions(listing.name)
        return [line.split(" = ")[0] for line in listing.read().splitlines()
                if " = " in line and not line.startswith("#")]


def solve_highs(model: LinearModel, options: SolveOptions,
                start: Sequence[float | None] | None = None,
                budget: Budget | None = None) -> MipOutcome:
    """Solve ``model`` within ``budget`` (default: the options' time limit from now)."""
    import highspy

    budget = budget or options.budget()
    started = time.perf_counter()
    if budget.expired():  # loading a large model takes seconds: not when nothing is left
        return _unsolved(budget, started, 0.0, "not loaded",
                         "the time ran out before HiGHS started")
    h = highspy.Highs()
    own_locks(h)
    h.silent()
    pass_model(h, highspy, model)
    build_seconds = time.perf_counter() - started
    _set_options(h, options, budget)
    if start is not None:
        _set_start(h, start)
    seen = _Seen(model.num_cols)
    _subscribe(h, options.progress, seen)
    if not solve_in_thread(h, budget):
        return _abandoned(budget, started, build_seconds, seen)
    return _outcome(h, highspy, model, time.perf_counter() - started, build_seconds, options,
                    budget, given_start=start is not None)


def _unsolved(budget: Budget, started: float, build_seconds: float, model_status: str,
              message: str) -> MipOutcome:
    status = budget.stop_status()
    seconds = time.perf_counter() - started
    return MipOutcome(status, None, None, None, None, seconds, SolverReport(
        "highs", seconds=round(seconds, 3), build_seconds=round(build_seconds, 3),
        model_status=model_status), message=message)


@dataclass
class _Seen:
    """What HiGHS's callbacks said while it ran: all that is known of a solve left behind
    unread (its dual bound is valid whenever it is reported; its incumbents are in the
    original model's columns)."""

    num_cols: int
    bound: float | None = None
    objective: float | None = None
    values: list[float] | None = None

    def saw(self, data: Any, improving: bool) -> None:
        bound = _finite(data.mip_dual_bound)
        if bound is not None:
            self.bound = bound
        if improving and len(data.mip_solution) == self.num_cols:
            self.values = [float(v) for v in data.mip_solution]
            self.objective = _finite(data.mip_primal_bound)


def _abandoned(budget: Budget, started: float, build_seconds: float,
               seen: _Seen) -> MipOutcome:
    """A solve left behind: its last bound and incumbent as its callbacks reported them."""
    unsolved = _unsolved(budget, started, build_seconds, "abandoned", "HiGHS did not stop "
                         "at the limit: left unread, its last reported bound and incumbent "
                         "kept")
    return replace(unsolved, values=seen.values, objective=seen.objective, bound=seen.bound,
                   gap=relative_gap(seen.objective, seen.bound))


def _set_options(h: Any, options: SolveOptions, budget: Budget) -> None:
    h.setOptionValue("random_seed", int(options.seed))
    h.setOptionValue("mip_rel_gap", float(options.proven_gap))
    h.setOptionValue("mip_abs_gap", 1e-9)
    remaining = budget.remaining()
    if remaining is not None:
        h.setOptionValue("time_limit", float(remaining))
    if options.threads is not None:
        h.setOptionValue("threads", int(options.threads))
    for default, setting in DEFAULTS.items():
        h.setOptionValue(default, setting)
    for name, value in options.highs.items():
        if h.setOptionValue(name, value) != highspy_ok():
            raise InputError.single(f"HiGHS rejected option {name}={value!r}",
                                    "check the option name and type in the HiGHS docs",
                                    path=name)


def _set_start(h: Any, start: Sequence[float | None]) -> None:
    import highspy

    index = [k for k, v in enumerate(start) if v is not None]
    value = [float(start[k]) for k in index]  # type: ignore[arg-type]
    status = h.setSolution(len(index), index, value)
    if status == highspy.HighsStatus.kError:
        raise SolverError("HiGHS rejected the start solution")


def _subscribe(h: Any, progress: ProgressFn, seen: _Seen) -> None:
    last = [0.0]

    def report(event: Any, force: bool = False) -> None:
        data = event.data_out
        seen.saw(data, improving=force)
        now = data.running_time
        if not force and now - last[0] < PROGRESS_EVERY:
            return
        last[0] = now
        incumbent = _finite(data.mip_primal_bound)
        bound = _finite(data.mip_dual_bound)
        gap = _finite(data.mip_gap) if incumbent is not None else None
        progress(SolverProgress(now, incumbent, bound, gap, int(data.mip_node_count)))

    h.cbMipInterrupt.subscribe(report)
    h.cbMipImprovingSolution.subscribe(lambda e: report(e, force=True))


def _finite(x: float) -> float | None:
    return x if math.isfinite(x) and abs(x) < 1e30 else None


_S = SolveStatus
_FAILED = "HiGHS failed"
HIGHS_STATUSES: dict[str, StatusMeaning] = {
    "kNotset": StatusMeaning(_S.ERROR, _S.ERROR, "HiGHS did not run"),
    "kLoadError": StatusMeaning(_S.ERROR, _S.ERROR, f"{_FAILED} to load the model"),
    "kModelError": StatusMeaning(_S.ERROR, _S.ERROR, f"{_FAILED}: the model is invalid"),
    "kPresolveError": StatusMeaning(_S.ERROR, _S.ERROR, f"{_FAILED} in presolve"),
    "kSolveError": StatusMeaning(_S.ERROR, _S.ERROR, f"{_FAILED} while solving"),
    "kPostsolveError": StatusMeaning(_S.ERROR, _S.ERROR, f"{_FAILED} in postsolve"),
    "kModelEmpty": StatusMeaning(_S.OPTIMAL, _S.ERROR, "the model has nothing to decide"),
    "kOptimal": StatusMeaning(_S.OPTIMAL, _S.ERROR, "proven optimal within the gap"),
    "kInfeasible": StatusMeaning(_S.INFEASIBLE, _S.INFEASIBLE, "proven infeasible"),
    "kUnboundedOrInfeasible": StatusMeaning(
        _S.ERROR, _S.ERROR, "HiGHS could not tell infeasible from unbounded (in presolve); "
        "try the HiGHS option presolve=off"),
    "kUnbounded": StatusMeaning(_S.ERROR, _S.ERROR, "the model is unbounded, which no "
                                "placement model should be: please report it"),
    "kObjectiveBound": StatusMeaning(_S.LIMIT, _S.LIMIT, "HiGHS reached its objective bound "
                                     "(option objective_bound)"),
    "kObjectiveTarget": StatusMeaning(_S.LIMIT, _S.LIMIT, "HiGHS reached its objective "
                                      "target (option objective_target)"),
    "kTimeLimit": StatusMeaning(_S.TIME_LIMIT, _S.TIME_LIMIT, "the time limit passed"),
    "kIterationLimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "HiGHS reached an iteration or node "
                                     "limit"),
    "kUnknown": StatusMeaning(_S.LIMIT, _S.ERROR, "HiGHS stopped without saying why"),
    "kSolutionLimit": StatusMeaning(_S.LIMIT, _S.LIMIT, "HiGHS reached its solution limit "
                                    "(option mip_max_improving_sols or similar)"),
    "kInterrupt": StatusMeaning(_S.INTERRUPTED, _S.INTERRUPTED, "interrupted"),
    "kMemoryLimit": StatusMeaning(_S.LIMIT, _S.ERROR, "HiGHS ran out of its memory limit"),
    "kHighsInterrupt": StatusMeaning(_S.LIMIT, _S.LIMIT, "HiGHS interrupted itself"),
}


def _outcome(h: Any, highspy: Any, model: LinearModel, seconds: float, build: float,
             options: SolveOptions, budget: Budget, given_start: bool) -> MipOutcome:
    status = h.getModelStatus()
    info = h.getInfo()
    has_solution = info.primal_solution_status == 2  # kSolutionStatusFeasible
    name = status.name
    meaning = HIGHS_STATUSES[name]
    if name in ("kNotset", "kInterrupt") and budget.expired() and not budget.interrupted:
        # the budget ran out before HiGHS started, or solve_in_thread cancelled it then
        meaning = StatusMeaning(_S.TIME_LIMIT, _S.TIME_LIMIT, "the time limit passed")
    if budget.interrupted and name in ("kNotset", "kInterrupt", "kTimeLimit"):
        meaning = HIGHS_STATUSES["kInterrupt"]
    ours = meaning.with_plan if has_solution else meaning.without_plan
    values = list(h.getSolution().col_value) if has_solution and ours.has_plan else None
    objective = info.objective_function_value if values is not None else None
    bound = _finite(info.mip_dual_bound)
    gap = _finite(info.mip_gap) if values is not None else None
    report = SolverReport(
        "highs", version=str(h.version()), seconds=round(seconds, 3),
        load_seconds=round(build, 3), model_status=h.modelStatusToString(status),
        mip_start="given" if given_start else None,
        nodes=int(info.mip_node_count), seed=options.seed, size=model.size(),
        options={k: v for k, v in (("time_limit", options.time_limit), ("gap", options.gap),
                                   ("threads", options.threads)) if v is not None})
    return MipOutcome(ours, values, objective, bound, gap, seconds, report,
                      "" if ours in (_S.OPTIMAL, _S.INFEASIBLE) else meaning.explanation)
