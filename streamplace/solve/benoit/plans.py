"""Plans the ``benoit`` method weighs against each other (:mod:`.methods`):
each priced by the evaluator, which alone says what a plan costs and whether it holds; the
cheapest valid one known while the column bound runs beside the solver; the annealed start.
"""

from __future__ import annotations

import math
import random
import threading
import time
from dataclasses import dataclass, replace

from streamplace.model.evaluate import Evaluation
from streamplace.model.plan import Plan
from streamplace.solve.benoit.branch_price.incumbent import ColumnBound
from streamplace.solve.benoit.data import TreeData
from streamplace.solve.benoit.heuristics.anneal import anneal
from streamplace.solve.benoit.heuristics.placement import (
    Processor,
    TreeMapping,
    downgrade,
)
from streamplace.solve.benoit.heuristics.servers import select_servers_intelligent
from streamplace.solve.budget import Budget
from streamplace.solve.conclude import conclude
from streamplace.solve.placement import PlacementFailure
from streamplace.solve.result import Instance, SolveResult, SolveStatus, relative_gap

ANNEAL_SHARE = 0.25  # of the time left, at most, before the MIP


@dataclass(frozen=True)
class PricedPlan:
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


class Cheapest:
    """The cheapest valid plan known (:attr:`best`) and where it came from (:attr:`source`):
    the heuristics' start, then the annealing's plans, in the solving thread, and the plans
    of the column bound's partitions, in its thread (:meth:`offer`)."""

    def __init__(self, data: TreeData, start: PricedPlan | None, seed: int) -> None:
        self.data, self.seed = data, seed
        self.best = start if start is not None and start.valid else None
        self.source = "heuristics"
        self._lock = threading.Lock()

    def cost(self) -> float:
        best = self.best
        return best.cost if best is not None else math.inf

    def consider(self, plan: PricedPlan | None, source: str = "annealing") -> None:
        with self._lock:
            if plan is not None and plan.valid and plan.cost < self.cost():
                self.best, self.source = plan, source

    def offer(self, groups: list[set[str]]) -> float | None:  # the cheapest valid plan's cost
        self.consider(partition_plan(self.data, groups, self.seed), "columns")
        return self.cost() if self.best is not None else None


def cheaper(instance: Instance, result: SolveResult, known: PricedPlan,
            budget: Budget, source: str) -> SolveResult:
    """``result`` with the plan ``known`` (from ``source``) in place of its own where that is
    cheaper (or it has none); the status says how the solve ended, never more than it
    proved."""
    if result.status in (SolveStatus.OPTIMAL, SolveStatus.INFEASIBLE) or (
            result.objective is not None and result.objective <= known.cost):
        return result
    status = result.status if result.status.stopped_early else SolveStatus.FEASIBLE
    return conclude("benoit", instance, known.plan, status, model="benoit",
                    started=budget.started, objective_metric="benoit_cost",
                    bound=result.bound, gap=relative_gap(known.cost, result.bound),
                    info=result.solver.counting(plan_from=source),
                    evaluation=known.evaluation)


def proven_by(result: SolveResult, columns: ColumnBound) -> SolveResult:
    """``result`` proven optimal where the column bound closed every branch by a plan's cost
    and the result's plan costs no more: no plan is cheaper by more than the gap."""
    if not columns.proven or result.plan is None or result.objective is None or \
            result.objective > columns.cheapest * (1 + 1e-9) or \
            result.status == SolveStatus.OPTIMAL:
        return result
    plan = result.plan.model_copy(update={"status": SolveStatus.OPTIMAL})
    return replace(result, status=SolveStatus.OPTIMAL, plan=plan, message="")


def partition_plan(data: TreeData, groups: list[set[str]], seed: int) -> PricedPlan | None:
    """A processor per group, downgraded to the cheapest class and given servers as the
    heuristics do it, priced by the evaluator; None where no server selection holds."""
    mapping = TreeMapping([Processor(g, data.classes[0]) for g in groups])
    try:
        downgrade(data, mapping)
        select_servers_intelligent(data, mapping, random.Random(seed))
    except PlacementFailure:
        return None
    return priced(data, mapping_plan(mapping))


def annealed(data: TreeData, start: PricedPlan, budget: Budget, seed: int,
             known: Cheapest | None = None) -> PricedPlan:
    """The annealed partition of ``start`` (:func:`anneal`, within a share of the time),
    downgraded and given servers as the heuristics do it, where the evaluator accepts it and
    it is the cheaper; else ``start``. Each cooling schedule's better partition, made a plan
    so, is offered to ``known`` as it ends (the column bound closes branches by it)."""
    hosts: dict[str, set[str]] = {}
    for op, reps in start.plan.placement.items():
        for node in reps:
            hosts.setdefault(node, set()).add(op)
    left = budget.remaining()
    phase = budget if left is None else budget.until(time.perf_counter()
                                                     + ANNEAL_SHARE * left)
    plans: list[PricedPlan | None] = []  # each schedule's better partition, made a plan once

    def improved(groups: list[set[str]]) -> None:
        plans.append(partition_plan(data, groups, seed))
        if known is not None:
            known.consider(plans[-1])

    groups = anneal(data, list(hosts.values()), phase, seed, improved=improved)
    annealed = plans[-1] if plans else partition_plan(data, groups, seed)
    if annealed is None or not annealed.valid or (start.valid and annealed.cost >= start.cost):
        return start
    return annealed


def priced(data: TreeData, plan: Plan) -> PricedPlan:
    return PricedPlan(plan, data.instance.evaluate(plan))


def mapping_plan(mapping: TreeMapping) -> Plan:
    ids = [f"p{j + 1}" for j in range(len(mapping.processors))]
    return Plan.model_validate({
        "placement": {op: {ids[j]: 1} for j, proc in enumerate(mapping.processors)
                      for op in sorted(proc.group)},
        "purchased": [{"id": ids[j], "class": proc.cls.id}
                      for j, proc in enumerate(mapping.processors)],
        "downloads": [{"node": ids[p], "object": obj, "server": srv}
                      for p, obj, srv in mapping.downloads]})


def ended_by_branching(result: SolveResult, budget: Budget) -> SolveResult:
    """``result`` where the column search took over from the compact program (and ended
    its solve): the status says how the search ended, the time counts it. Where it closed
    every node, :func:`proven_by` makes the status optimal."""
    if budget.expired():
        status, why = budget.stop_status(), budget.stop_reason()
    else:  # whole LP solutions left open: their groups make no valid plan
        status, why = SolveStatus.LIMIT, "the column search ended with branches open"
    plan = result.plan.model_copy(update={"status": status}) if result.plan else None
    message = "" if plan is not None else f"{why} before any feasible plan"
    return replace(result, status=status, plan=plan, seconds=budget.elapsed(),
                   message=message if result.status.has_plan else result.message)
