"""Path tasks over bi-modal links (seed 003; models.md sec. 6): exact enumeration and the
three heuristics of sec. 4.1, with multi-hop routes in the plan and the relaxed multi-stage
lower bound of sec. 4.2 reported next to every answer."""

from __future__ import annotations

import random
from collections.abc import Callable

from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.conclude import conclude
from streamplace.solve.pathmap.search import Outcome, diffuse, exact
from streamplace.solve.pathmap.task import MAX_NULL, Map, PathTask, lower_bound, path_task
from streamplace.solve.registry import register
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus

NEIGHBOURS = 3


def _plan(task: PathTask, found: Map) -> Plan:
    services = task.services
    return Plan.model_validate({
        "placement": {op: {u: 1} for op, u in zip(services, found.nodes, strict=True)},
        "routes": [{"stream": [services[i], services[i + 1]], "from": r.path[0],
                    "to": r.path[-1], "path": list(r.path)}
                   for i, r in enumerate(found.routes) if r.path]})


def _solve(method: str, instance: Instance, options: SolveOptions,
           search: Callable[[PathTask, Budget, random.Random], Outcome]) -> SolveResult:
    budget = options.budget()
    extra = options.extra.get("solver_options", {})
    task = path_task(instance, int(extra.get("max_null", MAX_NULL)))
    bound = lower_bound(task)
    outcome = search(task, budget, random.Random(options.seed))
    info: dict[str, object] = {"seed": options.seed, "max_null": task.max_null,
                               "maps_explored": outcome.explored, "lower_bound": bound,
                               "complete": outcome.complete}
    seconds = budget.elapsed()
    exact_method = method == "path-exact"
    stopped = SolveStatus.INTERRUPTED if budget.interrupted else SolveStatus.TIME_LIMIT
    if outcome.best is None:
        if exact_method and outcome.complete:
            return SolveResult.infeasible(method, [
                "no map gives every service a node with room and every hop a route within "
                "the bandwidths (try a larger max_null)"], seconds, info)
        if exact_method or budget.interrupted:
            return SolveResult(stopped, method, seconds=seconds, solver=info,
                               message=f"{method}: stopped before any feasible map")
        return SolveResult(SolveStatus.ERROR, method, seconds=seconds, solver=info,
                           message=f"{method} failed: no feasible map among "
                                   f"{outcome.explored} explored")
    if exact_method:
        status = SolveStatus.OPTIMAL if outcome.complete else stopped
        proven = outcome.best.cost if outcome.complete else bound
    else:
        status = SolveStatus.INTERRUPTED if budget.interrupted else SolveStatus.FEASIBLE
        proven = bound
    return conclude(method, instance, _plan(task, outcome.best), status,
                    started=budget.started,
                    objective_metric="path_cost", bound=proven, info=info,
                    model_objective=outcome.best.cost)


def _method(name: str, search: Callable[[PathTask, Budget, random.Random, dict[str, object]],
                                        Outcome]) -> Callable[[Instance, SolveOptions],
                                                              SolveResult]:
    def solve(instance: Instance, options: SolveOptions) -> SolveResult:
        extra = dict(options.extra.get("solver_options", {}))
        return _solve(name, instance, options,
                      lambda task, budget, rng: search(task, budget, rng, extra))

    return solve


_METHODS = {
    "path-exact": (lambda t, d, r, e: exact(t, d), True,
                   "every feasible map, pruned by the relaxed bound (Alg. 1, no pruning "
                   "heuristic)", ("time_limit", "max_null")),
    "least-cost-map": (lambda t, d, r, e: diffuse(t, d, r, prune="least-cost"), False,
                       "LeastCostMap (sec. 4.1.1): forward only maps cheaper than any seen "
                       "at a node for their prefix", ("time_limit", "max_null")),
    "annealed-least-cost-map": (
        lambda t, d, r, e: diffuse(t, d, r, prune="annealed",
                                   anneal=(float(e.get("anneal_start", 0.5)),
                                           float(e.get("anneal_decay", 0.5)))), False,
        "AnnealedLeastCostMap (sec. 4.1.2): costlier maps forwarded with a probability "
        "shrinking with the prefix", ("seed", "time_limit", "max_null", "anneal_start",
                                      "anneal_decay")),
    "random-neighbor": (
        lambda t, d, r, e: diffuse(t, d, r, prune="none",
                                   neighbours=int(e.get("neighbors", NEIGHBOURS))), False,
        "RandomNeighbor (sec. 4.1.3): maps forwarded to k random neighbours (k = 3)",
        ("seed", "time_limit", "max_null", "neighbors")),
}

for _name, (_search, _exact, _summary, _options) in _METHODS.items():
    register(_name, model="path", exact=_exact, seed_paper="003", options=_options,
             summary=_summary)(_method(_name, _search))
