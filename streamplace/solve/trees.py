"""Methods for in-network operator trees (Benoit et al. 2008): the ``benoit`` ILP and seven
heuristics.

Costs reported are the evaluator's (docs/models.md), computed on the decoded plan.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, replace

from streamplace.model.evaluate import Evaluation, evaluate
from streamplace.model.network import Network
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.conclude import conclude, tightened
from streamplace.solve.heuristics.tree_anneal import anneal
from streamplace.solve.heuristics.tree_placement import (
    PLACEMENTS,
    HeuristicFailure,
    Processor,
    TreeMapping,
    downgrade,
)
from streamplace.solve.heuristics.tree_servers import (
    select_servers_intelligent,
    select_servers_random,
)
from streamplace.solve.ilp.tree_platform import BenoitModel, build_benoit
from streamplace.solve.method import Method, Setting, SolveFn, bought_tree, tree
from streamplace.solve.report import SolverReport
from streamplace.solve.result import (
    Instance,
    SolveOptions,
    SolveResult,
    SolveStatus,
    relative_gap,
)
from streamplace.solve.rounds import solve_in_rounds
from streamplace.solve.tree_columns import BoundBeside
from streamplace.solve.tree_data import TreeData, tree_data
from streamplace.solve.tree_needs import most_processors

MAX_ROUNDS = 50
ANNEAL_SHARE = 0.25  # of the time left, at most, before the MIP


def solve_benoit(instance: Instance, options: SolveOptions) -> SolveResult:
    budget = options.budget()
    data = tree_data(instance, need_catalog=False)
    network = Network(instance.infra)
    reasons = _precheck(data, network)
    if reasons:
        return SolveResult.infeasible("benoit", reasons, budget.elapsed())
    built = build_benoit(data, network)
    start, groups = _heuristic_start(built, data, options.seed)
    if start is not None:
        start = _annealed(data, start, budget, options.seed)
    valid = start if start is not None and start.valid else None
    known = valid.cost if valid is not None else math.inf
    most = most_processors(data, known) if valid is not None else len(data.ops)  # kappa
    cheapest = _Cheapest(data, valid, options.seed)
    beside = BoundBeside(data, budget, most, groups, cheapest.offer, known) \
        if built.constr else None
    try:
        result = _solve_rounds(instance, options, budget, built,
                               start.plan if start is not None else None, valid)
    finally:
        columns = beside.finish() if beside is not None else None
    if cheapest.offered is not None:
        result = _cheaper(instance, result, cheapest.offered, budget)
    if columns is not None:
        result = tightened(result, columns.bound, "column", maximize=False)
        result = replace(result, solver=result.solver.counting(**columns.counters()))
    return replace(result, program=built.model)


@dataclass(frozen=True)
class _PricedPlan:
    """A plan with its evaluation: its cost as the evaluator prices it, and whether the
    evaluator finds no violation in it."""

    plan: Plan
    evaluation: Evaluation

    @property
    def cost(self) -> float:
        assert self.evaluation.benoit is not None  # a tree with a catalog: it is priced
        return self.evaluation.benoit.cost

    @property
    def valid(self) -> bool:
        return not self.evaluation.violations


class _Cheapest:
    """The cheapest valid plan the column bound's partitions gave (:attr:`offered`) where it
    beats the valid start (if any); :meth:`offer` runs in the column bound's thread."""

    def __init__(self, data: TreeData, valid_start: _PricedPlan | None, seed: int) -> None:
        self.data, self.seed, self.start = data, seed, valid_start
        self.offered: _PricedPlan | None = None

    def offer(self, groups: list[set[str]]) -> float | None:  # the cheapest valid plan's cost
        plan = _partition_plan(self.data, groups, self.seed)
        beaten = self.offered or self.start
        if plan is not None and plan.valid and (beaten is None or plan.cost < beaten.cost):
            self.offered = beaten = plan
        return beaten.cost if beaten is not None else None


def _cheaper(instance: Instance, result: SolveResult, offered: _PricedPlan,
             budget: Budget) -> SolveResult:
    """``result`` with the columns' plan in place of its own where that is cheaper (or it
    has none); the status says how the solve ended, never more than it proved."""
    if result.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE) or (
            result.objective is not None and result.objective <= offered.cost):
        return result
    status = result.status if result.status.stopped_early else SolveStatus.FEASIBLE
    return conclude("benoit", instance, offered.plan, status, model="benoit",
                    started=budget.started, objective_metric="benoit_cost",
                    bound=result.bound, gap=relative_gap(offered.cost, result.bound),
                    info=result.solver.counting(plan_from="columns"),
                    evaluation=offered.evaluation)


def _partition_plan(data: TreeData, groups: list[set[str]], seed: int) -> _PricedPlan | None:
    """A processor per group, downgraded to the cheapest class and given servers as the
    heuristics do it, priced by the evaluator; None where no server selection holds."""
    mapping = TreeMapping([Processor(g, data.classes[0]) for g in groups])
    try:
        downgrade(data, mapping)
        select_servers_intelligent(data, mapping, random.Random(seed))
    except HeuristicFailure:
        return None
    return _priced(data, _plan(mapping))


def _annealed(data: TreeData, start: _PricedPlan, budget: Budget, seed: int) -> _PricedPlan:
    """The annealed partition of ``start`` (:func:`anneal`, within a share of the time),
    downgraded and given servers as the heuristics do it, where the evaluator accepts it and
    it is the cheaper; else ``start``."""
    hosts: dict[str, set[str]] = {}
    for op, reps in start.plan.placement.items():
        for node in reps:
            hosts.setdefault(node, set()).add(op)
    left = budget.remaining()
    phase = budget if left is None else budget.until(time.perf_counter()
                                                     + ANNEAL_SHARE * left)
    annealed = _partition_plan(data, anneal(data, list(hosts.values()), phase, seed), seed)
    if annealed is None or not annealed.valid or (start.valid and annealed.cost >= start.cost):
        return start
    return annealed


def _priced(data: TreeData, plan: Plan) -> _PricedPlan:
    return _PricedPlan(plan, _evaluated(data.instance, plan))


def _solve_rounds(instance: Instance, options: SolveOptions, budget: Budget,
                  built: BenoitModel, start_plan: Plan | None,
                  fallback: _PricedPlan | None) -> SolveResult:
    """Solve, add the processor-link rows the solution overloads, solve again
    (:func:`solve_in_rounds`). The heuristics' plan is the MIP start; it is the answer when
    the solver stops early only if it holds (the heuristics do not check links (5))."""
    from streamplace.solve.highs import solve_highs

    start = built.start_from(start_plan) if start_plan is not None else None
    done = solve_in_rounds(
        built, lambda begin: solve_highs(built.model, options, start=begin, budget=budget),
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
        reason = outcome.message or ("interrupted" if budget.interrupted
                                     else "the time limit passed")
        return SolveResult(status, "benoit", solver=info, seconds=budget.elapsed(),
                           bound=outcome.bound, message=f"{reason} before any feasible plan")
    return SolveResult(SolveStatus.ERROR, "benoit", solver=info, seconds=budget.elapsed(),
                       message=outcome.message or "the solver failed")


def _evaluated(instance: Instance, plan: Plan) -> Evaluation:
    return evaluate(instance.app, instance.infra, plan, instance.objective, instance.current,
                    instance.limits)


def _heuristic_start(built: BenoitModel, data: TreeData,
                     seed: int) -> tuple[_PricedPlan | None, list[set[str]]]:
    """The cheapest plan among the (millisecond) heuristics that holds every constraint, else
    the cheapest of all (which overloads a processor link (5): the heuristics do not check
    them), and whether it holds. It is the MIP start, and the answer should the solver stop
    before it has a valid plan of its own (Constr only). Every heuristic's processors come
    with it: the column bound's first columns."""
    if not built.constr:
        return None, []
    ranked: list[_PricedPlan] = []
    groups: list[set[str]] = []
    for name in PLACEMENTS:
        try:
            mapping = run_tree_heuristic(name, data, seed)
        except HeuristicFailure:
            continue
        groups += [proc.group for proc in mapping.processors]
        ranked.append(_priced(data, _plan(mapping)))
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
        data = tree_data(instance, need_catalog=True)
        try:
            mapping = run_tree_heuristic(name, data, options.seed)
        except HeuristicFailure as exc:
            return SolveResult(SolveStatus.ERROR, name, seconds=budget.elapsed(),
                               message=f"{name} failed: {exc}")
        return conclude(name, instance, _plan(mapping), SolveStatus.FEASIBLE, model="benoit",
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


def _plan(mapping: TreeMapping) -> Plan:
    ids = [f"p{j + 1}" for j in range(len(mapping.processors))]
    return Plan.model_validate({
        "placement": {op: {ids[j]: 1} for j, proc in enumerate(mapping.processors)
                      for op in sorted(proc.group)},
        "purchased": [{"id": ids[j], "class": proc.cls.id}
                      for j, proc in enumerate(mapping.processors)],
        "downloads": [{"node": ids[p], "object": obj, "server": srv}
                      for p, obj, srv in mapping.downloads]})


METHODS = (
    Method("benoit", "benoit", exact=True, trees=True, highs=True, solve=solve_benoit,
           settings=frozenset({Setting.TIME_LIMIT, Setting.GAP, Setting.SEED,
                               Setting.THREADS}),
           accepts=tree, paper="Benoit et al. 2008",
           summary="Cheapest platform for an operator tree (ILP, HiGHS): Constr with a "
                   "catalog (an annealed start, a column-generation bound beside), "
                   "Non-Constr on the given processors"),
    *(Method(name, "benoit", exact=False, trees=True, solve=tree_heuristic(name),
             settings=frozenset({Setting.TIME_LIMIT, Setting.SEED}), accepts=bought_tree,
             paper="Benoit et al. 2008",
             summary=summary + ("; then downgrade" if name == "random" else
                                "; then server selection and downgrade"))
      for name, (_fn, summary) in PLACEMENTS.items()),
)
