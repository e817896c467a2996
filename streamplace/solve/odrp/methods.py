"""Methods ``odrp`` and ``odp``: exact replication and placement (Cardellini et al. 2017).

``odp`` is ODRP with every k_i = 1 (operators with a fixed ``replicas`` keep it). Reported
metrics and F come from the one evaluator on the decoded plan; the solver's objective is
kept in ``solver.model_objective`` and must agree with it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

from streamplace.errors import InfeasibleError, InputError
from streamplace.model.evaluate.constraints import placement_violations
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.conclude import conclude, tightened
from streamplace.solve.method import Method, Param, Setting, acyclic
from streamplace.solve.mip.formulation import Formulation
from streamplace.solve.mip.rounds import solve_in_rounds
from streamplace.solve.mip.solve import solve_mip
from streamplace.solve.odrp.compact import CompactModel, build_compact
from streamplace.solve.odrp.data import OdrpData, prepare
from streamplace.solve.odrp.data import compact_columns as estimate_compact
from streamplace.solve.odrp.delays import LAZY_DELAYS_FROM
from streamplace.solve.odrp.multiset import build_multiset
from streamplace.solve.odrp.multiset import estimated_columns as estimate_multiset
from streamplace.solve.odrp.primal.concurrent import PrimalSearch
from streamplace.solve.odrp.relaxation_bound import relaxation_bound
from streamplace.solve.odrp.root import cut_root, program_options
from streamplace.solve.progress import SolverProgress
from streamplace.solve.result import (
    FormulationName,
    Instance,
    SolveOptions,
    SolveResult,
    SolveStatus,
    relative_gap,
)
from streamplace.solve.solver_report import SolverReport

MAX_ROUNDS = 50  # of lazily added rows; each round adds at least one
MAX_COLUMNS = 2_000_000  # beyond this a model needs gigabytes before HiGHS even starts
START_COLUMNS = 150_000  # beyond this HiGHS gets no start while the primal search runs


def solve_odrp(instance: Instance, options: SolveOptions) -> SolveResult:
    return _solve_odrp(instance, options, "odrp", single_replica=False)


def solve_odp(instance: Instance, options: SolveOptions) -> SolveResult:
    return _solve_odrp(instance, options, "odp", single_replica=True)


def _solve_odrp(instance: Instance, options: SolveOptions, method: str,
                single_replica: bool) -> SolveResult:
    budget = options.budget()
    formulation = FormulationName(options.formulation)
    try:
        data = prepare(instance, single_replica)
    except InfeasibleError as exc:
        return SolveResult.infeasible(method, exc.reasons, budget.elapsed())
    _refuse_huge(data, formulation)
    if instance.limits and formulation != FormulationName.COMPACT:
        raise InputError.single("metric limits are rows of the compact formulation only",
                                "drop --formulation multiset", path="formulation")
    start_plan = options.start or _current_start(instance, data) or \
        _baseline_start(instance, data)
    primal = PrimalSearch.start(data, start_plan, budget, options.seed) \
        if start_plan is not None and _SEARCH.of(options) == "on" else None
    try:
        relaxation = relaxation_bound(data, budget) \
            if formulation == FormulationName.COMPACT else None
        relaxed = relaxation.bound if relaxation is not None else None
        if primal is not None and relaxation is not None and relaxation.start is not None:
            primal.offer(relaxation.start)
        _say_bound(options, budget, primal, relaxed)
        if relaxation is not None and primal is not None and \
                not relaxation.time_for_program(budget):
            took = "took" if relaxation.bound is not None else "did not end in"
            return _bounded(_search_alone(method, instance, budget, primal, start_plan, {
                "formulation": formulation.value}, f"its relaxation alone {took} "
                f"{relaxation.seconds:.1f} s"), relaxed)
        try:
            built = build_compact(data, budget, _DELAY_ROWS.of(options)) \
                if formulation == FormulationName.COMPACT else build_multiset(data, budget)
        except Stopped:
            start_plan, searched = PrimalSearch.finish(primal, start_plan)
            return _bounded(_stopped(method, instance, budget, [start_plan], SolverReport(
                method, build_seconds=round(budget.elapsed(), 3),
                counters={"formulation": formulation.value, **searched})), relaxed)
        root = cut_root(data, built, budget) if isinstance(built, CompactModel) else None
        if root is not None and root.bound is not None:
            _say_bound(options, budget, primal, min(root.bound, relaxed or math.inf))
        if root is not None and primal is not None and not root.time_for_program(budget):
            result = _search_alone(method, instance, budget, primal, start_plan, {
                "formulation": formulation.value, **root.counters()}, (
                f"its root LP took {root.first_seconds:.1f} s" if root.first is not None
                else f"its root LP did not end in {root.first_seconds:.1f} s"))
            return replace(_bounded(tightened(result, root.bound, "share_cut", maximize=True),
                                    relaxed), program=built.model)
        result = _solve_built(instance, program_options(options, root), method, budget,
                              built, start_plan, primal)
        if root is not None:
            result = tightened(replace(result, solver=result.solver.counting(
                **root.counters())), root.bound, "share_cut", maximize=True)
        return replace(_bounded(result, relaxed), program=built.model)
    finally:
        PrimalSearch.stop(primal)  # never left running, whatever ended the solve


def _solve_built(instance: Instance, options: SolveOptions, method: str, budget: Budget,
                 built: Formulation, start_plan: Plan | None,
                 primal: PrimalSearch | None) -> SolveResult:
    build_seconds = budget.elapsed()
    # HiGHS completes a start of the integer columns by an LP over the whole model, which
    # minds neither its time limit nor an interrupt (7 s at 500,000 columns): where the
    # primal search runs beside it, a large model goes without (the start competes anyway)
    large = primal is not None and built.model.num_cols > START_COLUMNS
    start = built.start_from(start_plan) if start_plan is not None and not large else None
    done = solve_in_rounds(built, lambda begin: solve_mip(built.model, options, begin, budget),
                           start, budget, MAX_ROUNDS)
    # the search's plan competes with the solver's below as the start does (it is no
    # worse than the start)
    start_plan, searched = PrimalSearch.finish(primal, start_plan)
    outcome = done.outcome
    undervalued = done.broken > 0  # the plan holds; the model overrated it (delays left out)
    if undervalued:  # its value and gap are the evaluator's; the bound still holds
        outcome = replace(outcome, objective=None, gap=None,
                          status=done.stopped_status(budget))
    info = replace(outcome.report, build_seconds=round(build_seconds, 3)).counting(
        formulation=options.formulation.value, **searched)
    if done.rounds > 1 or done.added:
        info = info.counting(rounds=done.rounds, lazy_rows_added=done.added)
    if outcome.status == SolveStatus.INFEASIBLE:
        what = "capacity, candidate, stability and routing constraints"
        if instance.limits:
            what += " and the metric limits (" + ", ".join(
                f"{label} {bound:g}" for label, bound in instance.limits.items()) + ")"
        return SolveResult.infeasible(method, [f"no plan satisfies the {what} together"],
                                      budget.elapsed(), info)
    if done.plan is None and outcome.status.stopped_early:
        return _stopped(method, instance, budget, [*done.seen, start_plan], info,
                        outcome.bound, outcome.message)
    if done.plan is None:
        status = outcome.status if outcome.status != SolveStatus.OPTIMAL else SolveStatus.ERROR
        return SolveResult(status, method, seconds=budget.elapsed(), solver=info,
                           bound=outcome.bound, message=outcome.message or "the solver failed")
    result = conclude(method, instance, done.plan, outcome.status, model="odrp",
                      started=budget.started,
                      bound=outcome.bound, gap=outcome.gap, info=info,
                      model_objective=outcome.objective)
    if undervalued or result.plan is None or result.status != SolveStatus.OPTIMAL:
        # the last plan is not proven best (its round left rows out, or the solver stopped
        # early), or the evaluator refused it: every earlier round's plan and the start
        # compete on their true value
        kept: SolveStatus = done.stopped_status(budget) if undervalued else \
            result.status if result.plan is not None else SolveStatus.FEASIBLE
        others = [p for p in (*done.seen[:-1], start_plan) if p is not None]
        best = _best_accepted(method, instance, others, kept, budget, info, outcome.bound)
        if best is not None and best.objective is not None and (
                result.objective is None or best.objective > result.objective + 1e-12):
            why = "the solver's plan was refused" if result.plan is None else \
                "an earlier plan scored better than the solver's last"
            result = replace(best, message=f"{why}: {result.message}" if result.message
                             else why)
    if result.plan is not None and (undervalued or result.plan.gap is None):
        # the gap of the plan's true value (a plan that won on it has none of its own)
        result = replace(result, plan=result.plan.model_copy(update={"gap": result.gap}))
    return result


def _search_alone(method: str, instance: Instance, budget: Budget, primal: PrimalSearch,
                  start_plan: Plan | None, counters: dict[str, object],
                  why: str) -> SolveResult:
    """The primal search's plan, HiGHS never started: ``why`` says that the program's root
    would outlast the time left, so HiGHS would end with neither a bound nor a plan, left
    behind on the core the search's second worker has instead."""
    start_plan, searched = PrimalSearch.finish(primal, start_plan, alone=True)
    result = _stopped(method, instance, budget, [start_plan], SolverReport(
        method, counters={**counters, **searched,
                          "program": "not solved: its root LP would outlast the time left"}))
    return replace(result, message=f"the whole program was not solved: {why}, and its "
                                   "root would outlast the time left; the primal search "
                                   "had that time")


def _say_bound(options: SolveOptions, budget: Budget, primal: PrimalSearch | None,
               bound: float | None) -> None:
    """A bound known before HiGHS starts, said at once with the primal search's best F so
    far: a long solve shows its gap from its first seconds, not from HiGHS's root."""
    if bound is None:
        return
    incumbent = primal.value if primal is not None and math.isfinite(primal.value) else None
    options.progress(SolverProgress(budget.elapsed(), incumbent, bound,
                                    relative_gap(incumbent, bound), 0))


def _bounded(result: SolveResult, relaxed: float | None) -> SolveResult:
    return tightened(result, relaxed, "relaxation", maximize=True)


def _best_accepted(method: str, instance: Instance, plans: Sequence[Plan],
                   status: SolveStatus, budget: Budget, info: SolverReport,
                   bound: float | None) -> SolveResult | None:
    """The plan of ``plans`` with the best true objective that the evaluator accepts."""
    best: SolveResult | None = None
    for plan in plans:
        result = conclude(method, instance, plan, status, model="odrp", started=budget.started,
                          bound=bound, gap=None, info=info)
        if result.objective is not None and (
                best is None or best.objective is None or result.objective > best.objective):
            best = result
    return best


def _current_start(instance: Instance, data: OdrpData) -> Plan | None:
    """The plan that runs now, when re-planning and it still holds on this instance: it
    costs no reconfiguration, so it is often close to the optimum and always within
    ``--max-moves``."""
    if instance.current is None:
        return None
    placement = {op.id: dict(instance.current.placement.get(op.id, {})) for op in data.ops}
    if any(sum(reps.values()) not in data.counts[op] for op, reps in placement.items()):
        return None
    plan = Plan.model_validate({"placement": placement})
    return None if placement_violations(data.graph, data.network, plan) else plan


def _baseline_start(instance: Instance, data: OdrpData) -> Plan | None:
    """A plan from a framework baseline (milliseconds), so that a time limit or an interrupt
    always leaves a plan when one is that easy to find; HiGHS takes it as its first
    incumbent. None when neither baseline places everything."""
    from streamplace.solve.baseline.frameworks import first_fit_decreasing, resource_aware
    from streamplace.solve.placement import PlacementFailure, PlacementState

    for place in (resource_aware, first_fit_decreasing):
        state = PlacementState.empty(instance)
        state.counts = {op.id: data.counts[op.id][0] for op in data.ops}
        state.cands = {op.id: list(data.cands[op.id]) for op in data.ops}
        try:
            place(state)
        except PlacementFailure:
            continue
        plan = Plan.model_validate({"placement": state.nodes})
        if not placement_violations(data.graph, data.network, plan):
            return plan
    return None


def _refuse_huge(data: OdrpData, formulation: FormulationName) -> None:
    """A model that cannot fit in memory is bad input, said before any of it is built."""
    compact = formulation == FormulationName.COMPACT
    estimate = (estimate_compact if compact else estimate_multiset)(data)
    if estimate <= MAX_COLUMNS:
        return
    index, widest = max(enumerate(data.ops), key=lambda item: len(data.counts[item[1].id]))
    counts = data.counts[widest.id]
    fix = ("use the compact formulation" if not compact else
           f"set max_replicas of {widest.id} to the most replicas you would run, or give its "
           "candidates finite resources so that capacity bounds it")
    message = (f"the {formulation.value} model would need about {estimate:,} variables (limit "
               f"{MAX_COLUMNS:,}); {widest.id} alone may run {counts[0]:,} to {counts[-1]:,} "
               "replicas")
    if not compact:
        raise InputError.single(message, fix, path="formulation")
    raise InputError([data.instance.app.problem(f"operators[{index}].max_replicas", message,
                                                fix)])


def _stopped(method: str, instance: Instance, budget: Budget, plans: Sequence[Plan | None],
             info: SolverReport, bound: float | None = None,
             why: str = "") -> SolveResult:
    """Stopped before the solver had a plan of its own: the best of ``plans`` (earlier
    rounds', the start, the primal search's) is the best known; without any, no plan."""
    status = budget.stop_status()
    if why and not budget.expired():  # another solver limit (nodes, memory, ...)
        status = SolveStatus.LIMIT
    best = _best_accepted(method, instance, [p for p in plans if p is not None], status,
                          budget, info, bound)
    if best is not None:
        return best
    reason = why or budget.stop_reason()
    return SolveResult(status, method, seconds=budget.elapsed(), solver=info, bound=bound,
                       message=f"{reason} before any feasible plan was found")


_DELAY_ROWS = Param("delay_rows", str, "auto", "stream-delay rows (eq. 4) of the compact "
                    "formulation: all in the model, lazy (added when a solution breaks "
                    f"them), or auto (lazy beyond {LAZY_DELAYS_FROM:,} rows)",
                    ("auto", "all", "lazy"))
_SEARCH = Param("search", str, "on", "a primal search beside the solver (a local search on "
                "F, then small sub-programs), whose plan competes with the solver's (on), "
                "or the solver alone from the framework baseline (off)", ("on", "off"))
_SETTINGS = frozenset({Setting.TIME_LIMIT, Setting.GAP, Setting.SEED, Setting.THREADS,
                       Setting.FORMULATION, Setting.SOLVER, Setting.START,
                       Setting.CURRENT, Setting.LIMITS})

METHODS = (
    Method("odrp", "odrp", exact=True, replication=True, mip=True, settings=_SETTINGS,
           params=(_DELAY_ROWS, _SEARCH),
           run=solve_odrp, accepts=acyclic, paper="Cardellini et al. 2017",
           summary="Optimal replication and placement (ILP, HiGHS); compact or the paper's "
                   "multiset formulation"),
    Method("odp", "odrp", exact=True, mip=True, settings=_SETTINGS, run=solve_odp,
           params=(_DELAY_ROWS, _SEARCH),
           accepts=acyclic, paper="Cardellini et al. 2017",
           summary="Optimal placement with one replica per operator (ODRP with k_i = 1)"),
)
