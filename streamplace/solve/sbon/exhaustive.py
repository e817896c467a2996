"""SBON's OPTIMAL (Pietzuch et al. 2006, sec. 4): the least network usage over every placement
of the unpinned operators, by depth-first enumeration with a bound (docs/models.md sec. 5).

Instances of one operator are interchangeable, so an operator with r replicas tries every
multiset of r candidates once. Streams are costed as soon as both ends are placed; since
network usage is never negative, a partial placement already as costly as the best complete
one is dropped without losing the optimum. Capacities are respected throughout. Delays come
from one search per pinned node, so a single unpinned operator among thousands of nodes
costs a few searches, not one per candidate.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

from streamplace.errors import InputError
from streamplace.model.evaluate.odrp import pair_traffic
from streamplace.model.metrics import Metric
from streamplace.model.network import Network
from streamplace.model.plan import Plan
from streamplace.solve.conclude import conclude
from streamplace.solve.method import Method, Param, acyclic
from streamplace.solve.placement import PlacementState, stopped_before_a_plan
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus
from streamplace.solve.solver_report import SolverReport

MAX_PLACEMENTS = 2_000_000


class _Delays:
    """Delays with one search per fixed node (pinned operators' hosts)."""

    def __init__(self, network: Network, fixed: set[str]) -> None:
        self.network, self.fixed = network, fixed

    def __call__(self, u: str, v: str) -> float:
        if u == v:
            return 0.0
        if u in self.fixed or v not in self.fixed:
            return self.network.delays_from(u).get(v, math.inf)
        return self.network.delays_to(v).get(u, math.inf)


def exhaustive(instance: Instance, options: SolveOptions) -> SolveResult:
    budget = options.budget()
    if budget.expired():  # the search polls the budget every 4,096 placements: none starts
        return stopped_before_a_plan("exhaustive", budget)
    limit = _MAX_PLACEMENTS.of(options)
    state = PlacementState.empty(instance)
    order = state.graph.topological_order()
    choices = {op: [Counter(c) for c in itertools.combinations_with_replacement(
        sorted(state.cands[op]), state.counts[op])] for op in order}
    total = math.prod(len(c) for c in choices.values())
    if total > limit:
        raise InputError.single(
            f"exhaustive would try {total:.3g} placements, more than {limit:,}",
            "use relaxation, or raise the limit with the parameter max_placements",
            path="max_placements")
    fixed = {u for op in order if len(choices[op]) == 1 for u in choices[op][0]}
    delay = _Delays(state.network, fixed)
    # costed at the later end of each stream, so a partial sum only ever grows
    position = {op: k for k, op in enumerate(order)}
    closing: dict[str, list[tuple[str, str, float, float]]] = {op: [] for op in order}
    for s in state.graph.streams:
        later = max(s.source, s.target, key=position.__getitem__)
        closing[later].append((s.source, s.target, s.rate, s.tuple_size))
    best: list[tuple[float, dict[str, dict[str, int]]]] = []
    visited = 0
    timed_out = False

    def cost_of(op: str, chosen: dict[str, dict[str, int]]) -> float:
        total_cost = 0.0
        for a, b, rate, size in closing[op]:
            for (u, v), tuples in pair_traffic(rate, chosen[a], chosen[b]).items():
                if u != v:
                    total_cost += tuples * size * delay(u, v)
        return total_cost

    def search(k: int, partial: float, chosen: dict[str, dict[str, int]]) -> None:
        nonlocal visited, timed_out
        if timed_out or (best and partial >= best[0][0]):
            return
        if k == len(order):
            best[:] = [(partial, {op: dict(r) for op, r in chosen.items()})]
            return
        op = order[k]
        for multiset in choices[op]:
            visited += 1
            if visited % 4096 == 0 and budget.expired():
                timed_out = True
                return
            placed: list[str] = []
            fits = True
            for u, c in multiset.items():
                for _ in range(c):
                    if not state.fits(op, u):
                        fits = False
                        break
                    state.place(op, u)
                    placed.append(u)
            if fits:
                chosen[op] = dict(multiset)
                step = cost_of(op, chosen)
                if math.isfinite(step):
                    search(k + 1, partial + step, chosen)
                del chosen[op]
            for u in placed:
                state.remove(op, u)

    search(0, 0.0, {})
    info = SolverReport("exhaustive", counters={"placements": total, "visited": visited})
    if not best:
        if timed_out:
            return stopped_before_a_plan("exhaustive", budget)
        return SolveResult.infeasible("exhaustive", [
            "no placement of the operators on their candidates respects every capacity"],
            budget.elapsed(), info)
    value, placement = best[0]
    status = SolveStatus.OPTIMAL
    if timed_out:
        status = budget.stop_status()
    return conclude("exhaustive", instance, Plan.model_validate({"placement": placement}),
                    status, model="sbon", started=budget.started,
                    objective_metric=Metric.NETWORK_USAGE,
                    bound=value if not timed_out else None, info=info, model_objective=value)


_MAX_PLACEMENTS = Param("max_placements", int, MAX_PLACEMENTS, "refuse instances with more "
                        "placements than this", low=1)
METHODS = (
    Method("exhaustive", "sbon", exact=True, run=exhaustive, accepts=acyclic,
           paper="Pietzuch et al. 2006",
           params=(_MAX_PLACEMENTS,),
           summary="SBON's OPTIMAL: every placement of the unpinned operators, least network "
                   "usage (tiny instances)"),
)
