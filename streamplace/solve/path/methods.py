"""Path tasks over bi-modal links (Asaduzzaman and Maheswaran; docs/models.md): exact
enumeration and the three heuristics of sec. 4.1, with multi-hop routes in the plan and the
relaxed multi-stage lower bound of sec. 4.2 reported next to every answer."""

from __future__ import annotations

import random
from collections.abc import Callable

from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.conclude import conclude
from streamplace.solve.method import Method, Param, Setting, SolveFn, chain
from streamplace.solve.path.search import Outcome, diffuse, exact
from streamplace.solve.path.task import MAX_NULL, Map, PathTask, lower_bound, path_task
from streamplace.solve.placement import stopped_before_a_plan
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus
from streamplace.solve.solver_report import SolverReport

NEIGHBOURS = 3


def _plan(task: PathTask, found: Map) -> Plan:
    services = task.services
    return Plan.model_validate({
        "placement": {op: {u: 1} for op, u in zip(services, found.nodes, strict=True)},
        "routes": [{"stream": [services[i], services[i + 1]], "from": r.path[0],
                    "to": r.path[-1], "path": list(r.path)}
                   for i, r in enumerate(found.routes) if r.path]})


def _map_path(method: str, instance: Instance, options: SolveOptions,
           search: Callable[[PathTask, Budget, random.Random], Outcome]) -> SolveResult:
    budget = options.budget()
    if budget.expired():  # a search polls the budget every so many maps: none is started
        return stopped_before_a_plan(method, budget)
    task = path_task(instance, MAX_NULL_PARAM.of(options))
    bound = lower_bound(task)
    outcome = search(task, budget, random.Random(options.seed))
    info = SolverReport(method, seed=options.seed, counters={
        "max_null": task.max_null, "maps_explored": outcome.explored, "lower_bound": bound,
        "complete": outcome.complete})
    seconds = budget.elapsed()
    exact_method = method == "path-exact"
    stopped = budget.stop_status()
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
    return conclude(method, instance, _plan(task, outcome.best), status, model="path",
                    started=budget.started,
                    objective_metric="path_cost", bound=proven, info=info,
                    model_objective=outcome.best.cost)


def _bound(name: str, search: Search) -> SolveFn:
    def solve(instance: Instance, options: SolveOptions) -> SolveResult:
        return _map_path(name, instance, options,
                      lambda task, budget, rng: search(task, budget, rng, options))

    return solve


Search = Callable[[PathTask, Budget, random.Random, SolveOptions], Outcome]
MAX_NULL_PARAM = Param("max_null", int, MAX_NULL, "forwarding-only nodes a dedicated route "
                       "may cross", low=0)
_ANNEAL_START = Param("anneal_start", float, 0.5, "probability of forwarding a costlier map "
                      "at the first service", low=0.0, high=1.0)
_ANNEAL_DECAY = Param("anneal_decay", float, 0.5, "how fast that probability shrinks with "
                      "the prefix, e^(-decay j)", low=0.0)
_NEIGHBOURS = Param("neighbors", int, NEIGHBOURS, "random neighbours each map is forwarded to",
                    low=1)
_PAPER = "Asaduzzaman and Maheswaran"
_SEEDED = frozenset({Setting.TIME_LIMIT, Setting.SEED})


def _annealed(t: PathTask, b: Budget, r: random.Random, o: SolveOptions) -> Outcome:
    return diffuse(t, b, r, prune="annealed",
                   anneal=(_ANNEAL_START.of(o), _ANNEAL_DECAY.of(o)))


def _random_neighbour(t: PathTask, b: Budget, r: random.Random, o: SolveOptions) -> Outcome:
    return diffuse(t, b, r, prune="none", neighbours=_NEIGHBOURS.of(o))


METHODS = (
    Method("path-exact", "path", exact=True, accepts=chain, paper=_PAPER,
           run=_bound("path-exact", lambda t, b, r, o: exact(t, b)),
           params=(MAX_NULL_PARAM,),
           summary="every feasible map, pruned by the relaxed bound (Alg. 1, no pruning "
                   "heuristic)"),
    Method("least-cost-map", "path", exact=False, accepts=chain, paper=_PAPER,
           run=_bound("least-cost-map",
                        lambda t, b, r, o: diffuse(t, b, r, prune="least-cost")),
           params=(MAX_NULL_PARAM,),
           summary="LeastCostMap (sec. 4.1.1): forward only maps cheaper than any seen at a "
                   "node for their prefix"),
    Method("annealed-least-cost-map", "path", exact=False, accepts=chain, paper=_PAPER,
           run=_bound("annealed-least-cost-map", _annealed), settings=_SEEDED,
           params=(MAX_NULL_PARAM, _ANNEAL_START, _ANNEAL_DECAY),
           summary="AnnealedLeastCostMap (sec. 4.1.2): costlier maps forwarded with a "
                   "probability shrinking with the prefix"),
    Method("random-neighbor", "path", exact=False, accepts=chain, paper=_PAPER,
           run=_bound("random-neighbor", _random_neighbour), settings=_SEEDED,
           params=(MAX_NULL_PARAM, _NEIGHBOURS),
           summary="RandomNeighbor (sec. 4.1.3): maps forwarded to k random neighbours "
                   "(k = 3)"),
)
