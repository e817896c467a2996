"""Methods for in-network operator trees (Benoit et al. 2008): the ``benoit`` ILP and seven
heuristics.

Costs reported are the evaluator's (docs/models.md), computed on the decoded plan.
"""

from __future__ import annotations

import random
from dataclasses import replace

from streamplace.model.network import Network
from streamplace.model.plan import Plan
from streamplace.solve.benoit.branch_price.concurrent import BoundBeside, cores
from streamplace.solve.benoit.data import TreeData, tree_data
from streamplace.solve.benoit.heuristics.placement import (
    PLACEMENTS,
    TreeMapping,
    downgrade,
)
from streamplace.solve.benoit.heuristics.servers import (
    select_servers_intelligent,
    select_servers_random,
)
from streamplace.solve.benoit.ilp import BenoitModel, build_benoit
from streamplace.solve.benoit.plans import (
    Cheapest,
    PricedPlan,
    annealed,
    cheaper,
    ended_by_branching,
    mapping_plan,
    priced,
    proven_by,
)
from streamplace.solve.budget import Budget
from streamplace.solve.conclude import conclude, tightened
from streamplace.solve.method import Method, Setting, SolveFn, bought_tree, tree
from streamplace.solve.mip.rounds import solve_in_rounds
from streamplace.solve.placement import PlacementFailure, stopped_before_a_plan
from streamplace.solve.result import (
    Instance,
    SolveOptions,
    SolveResult,
    SolveStatus,
)
from streamplace.solve.solver_report import SolverReport

MAX_ROUNDS = 50


def solve_benoit(instance: Instance, options: SolveOptions) -> SolveResult:
    budget = options.budget()
    data = tree_data(instance, need_catalog=False)
    network = Network(instance.infra)
    reasons = _precheck(data, network)
    if reasons:
        return SolveResult.infeasible("benoit", reasons, budget.elapsed())
    built = build_benoit(data, network)
    start, groups = _heuristic_start(built, data, options.seed)
    cheapest = Cheapest(data, start, options.seed)
    # kappa: at most a processor per operator, less as the search learns cheaper plans
    beside = BoundBeside(data, budget, len(data.ops), groups, cheapest.offer, cheapest.cost,
                         options.proven_gap, options.threads or cores()) \
        if built.constr else None
    solving = budget.or_when(beside.proved) if beside is not None else budget
    compact = solving.or_when(beside.took_over) if beside is not None else budget
    try:
        if start is not None:  # the annealing's plans serve the branching: it runs on
            start = annealed(data, start, solving, options.seed, cheapest)
            cheapest.consider(start)
        valid = start if start is not None and start.valid else None
        result = _solve_rounds(instance, options, compact, built,
                               start.plan if start is not None else None, valid)
    except BaseException:
        if beside is not None:
            beside.finish()
        raise
    # the search stopped HiGHS to branch on every core: it ends by itself (unless HiGHS
    # proved its own answer meanwhile)
    handed = beside is not None and bool(beside.took_over) and \
        result.status not in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE)
    columns = beside.finish(wait=handed) if beside is not None else None
    if cheapest.best is not None:  # the solver stopped before it had this plan, or better
        result = cheaper(instance, result, cheapest.best, budget, cheapest.source)
    if handed:
        result = ended_by_branching(result, budget)
    if columns is not None:
        result = tightened(result, columns.bound, "column", maximize=False)
        report = result.solver.counting(**columns.counters(), column_took_over=handed)
        result = proven_by(replace(result, solver=report), columns)
    return replace(result, program=built.model)


def _solve_rounds(instance: Instance, options: SolveOptions, budget: Budget,
                  built: BenoitModel, start_plan: Plan | None,
                  fallback: PricedPlan | None) -> SolveResult:
    """Solve, add the processor-link rows the solution overloads, solve again
    (:func:`solve_in_rounds`). The heuristics' plan is the MIP start; it is the answer when
    the solver stops early only if it holds (the heuristics do not check links (5))."""
    from streamplace.solve.mip.solve import solve_mip

    start = built.start_from(start_plan) if start_plan is not None else None
    done = solve_in_rounds(
        built, lambda begin: solve_mip(built.model, options, start=begin, budget=budget),
        start, budget, MAX_ROUNDS)
    outcome = done.outcome
    info = outcome.report.counting(rounds=done.rounds, link_rows=len(built.linked))
    if outcome.status == SolveStatus.INFEASIBLE:
        return SolveResult.infeasible(
            "benoit", ["no platform satisfies constraints (1)-(5) together"],
            budget.elapsed(), info)
    if done.plan is not None and not done.broken:
        return conclude("benoit", instance, done.plan, outcome.status, model="benoit",
                        started=budget.started, objective_metric="benoit_cost",
                        bound=outcome.bound, gap=outcome.gap, info=info,
                        model_objective=outcome.objective)
    status = done.stopped_status(budget) if done.broken else outcome.status
    if status == SolveStatus.LIMIT and done.broken and outcome.status == SolveStatus.OPTIMAL:
        return SolveResult(SolveStatus.ERROR, "benoit", solver=info, seconds=budget.elapsed(),
                           message=f"processor links still overloaded after {MAX_ROUNDS} "
                                   "rounds")
    if status.stopped_early:
        # the solver's incumbent is missing or overloads a link it had no row for yet
        if fallback is not None:
            return conclude("benoit", instance, fallback.plan, status, model="benoit",
                            started=budget.started, objective_metric="benoit_cost",
                            bound=outcome.bound, info=info, evaluation=fallback.evaluation)
        reason = outcome.message or budget.stop_reason()
        return SolveResult(status, "benoit", solver=info, seconds=budget.elapsed(),
                           bound=outcome.bound, message=f"{reason} before any feasible plan")
    return SolveResult(SolveStatus.ERROR, "benoit", solver=info, seconds=budget.elapsed(),
                       message=outcome.message or "the solver failed")


def _heuristic_start(built: BenoitModel, data: TreeData,
                     seed: int) -> tuple[PricedPlan | None, list[set[str]]]:
    """The cheapest plan among the (millisecond) heuristics that holds every constraint, else
    the cheapest of all (which overloads a processor link (5): the heuristics do not check
    them), and whether it holds. It is the MIP start, and the answer should the solver stop
    before it has a valid plan of its own (Constr only). Every heuristic's processors come
    with it: the column bound's first columns."""
    if not built.constr:
        return None, []
    ranked: list[PricedPlan] = []
    groups: list[set[str]] = []
    for name in PLACEMENTS:
        try:
            mapping = run_tree_heuristic(name, data, seed)
        except PlacementFailure:
            continue
        groups += [proc.group for proc in mapping.processors]
        ranked.append(priced(data, mapping_plan(mapping)))
    best = min(ranked, key=lambda r: (not r.valid, r.cost), default=None)
    return best, groups


def _precheck(data: TreeData, network: Network) -> list[str]:
    reasons = []
    if data.instance.infra.catalog:
        platforms = [(c.id, c.speed, c.bandwidth) for c in data.classes]
    else:
        platforms = [(p, network.nodes[p].speed, network.nodes[p].bandwidth)
                     for p in network.processors]
    for op in data.ops:
        # only what no grouping can avoid: its own work and its own downloads (its tree
        # edges vanish when its neighbours share its processor)
        compute = data.work[op]
        card = sum(data.rate[k] for k in data.objects[op])
        if not any(compute <= s and card <= b for _, s, b in platforms):
            reasons.append(f"operator {op} needs {compute:.4g} operations/s and downloads "
                           f"{card:.4g} bytes/s whatever shares its processor; no processor "
                           "offers both")
    for obj, holders in data.holders.items():
        if not holders and any(obj in data.objects[o] for o in data.ops):
            reasons.append(f"no server holds object {obj}")
    return reasons


def tree_heuristic(name: str) -> SolveFn:
    """Benoit's placement heuristic ``name`` (sec. 6.1), then server selection and the
    downgrade step; a failure is the method's, never a violating plan."""

    def solve(instance: Instance, options: SolveOptions) -> SolveResult:
        budget = options.budget()
        if budget.expired():  # the heuristics run to their end once started
            return stopped_before_a_plan(name, budget)
        data = tree_data(instance, need_catalog=True)
        try:
            mapping = run_tree_heuristic(name, data, options.seed)
        except PlacementFailure as exc:
            return SolveResult(SolveStatus.ERROR, name, seconds=budget.elapsed(),
                               message=f"{name} failed: {exc}")
        return conclude(name, instance, mapping_plan(mapping), SolveStatus.FEASIBLE,
                        model="benoit",
                        started=budget.started, objective_metric="benoit_cost",
                        info=SolverReport(name, seed=options.seed,
                                          counters={"processors": len(mapping.processors)}))

    return solve


def run_tree_heuristic(name: str, data: TreeData, seed: int) -> TreeMapping:
    rng = random.Random(seed)
    placement, _ = PLACEMENTS[name]
    mapping = placement(data, rng)
    if name == "random":
        select_servers_random(data, mapping, rng)
    else:
        select_servers_intelligent(data, mapping, rng)
    downgrade(data, mapping)
    return mapping


METHODS = (
    Method("benoit", "benoit", exact=True, trees=True, mip=True, run=solve_benoit,
           settings=frozenset({Setting.TIME_LIMIT, Setting.GAP, Setting.SEED,
                               Setting.THREADS, Setting.SOLVER}),
           accepts=tree, paper="Benoit et al. 2008",
           summary="Cheapest platform for an operator tree (ILP, HiGHS): Constr with a "
                   "catalog (an annealed start, a column-generation bound beside), "
                   "Non-Constr on the given processors"),
    *(Method(name, "benoit", exact=False, trees=True, run=tree_heuristic(name),
             settings=frozenset({Setting.TIME_LIMIT, Setting.SEED}), accepts=bought_tree,
             paper="Benoit et al. 2008",
             summary=summary + ("; then downgrade" if name == "random" else
                                "; then server selection and downgrade"))
      for name, (_fn, summary) in PLACEMENTS.items()),
)
