"""Latency-aware placement heuristics of Ecker et al.: hill climbing, ant system, hybrid.

They minimise s(x) = w1 s_lat + w2 s_sup + w3 s_co + w4 s_event (eq. 1, docs/models.md sec. 4)
under the 95% headroom rule, over instances (replicas); the score and hill climbing are in
search.py, the ant system and the methods here.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import replace

from streamplace.model.evaluate.ecker import HEADROOM
from streamplace.model.metrics import Term
from streamplace.model.reconfiguration import Current
from streamplace.solve.budget import Budget
from streamplace.solve.ecker.search import Score, hill_climb
from streamplace.solve.method import Method, Param, Setting, SolveFn
from streamplace.solve.placement import PlacementState, finish
from streamplace.solve.progress import SolverProgress
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus


def ant_system(state: PlacementState, rng: random.Random, budget: Budget, ants: int = 10,
               alpha: float = 1.0, beta: float = 2.0, rho: float = 0.8, q: float = 1.0,
               p_init: float = 1.0, p_min: float = 0.01, patience: int = 15,
               give_up: Budget | None = None) -> dict[str, dict[str, int]] | None:
    """Sec. 4.3.2: ants build placements with p ~ tau^alpha eta^beta (eq. 2, eta of eq. 3);
    pheromone evaporates to rho tau + sum Q / S_k with a floor p_min (eqs. 4-5).

    When ``give_up`` expires and no ant has kept the 95% rule yet, the colony stops early:
    on large instances a few ants are all the time allows, and the caller does better
    climbing from a packing that keeps the rule for the time left. An ant costs one unit of
    work per instance it places (:meth:`Budget.spend`; a move tried by hill climbing costs
    one). None when the budget had no room for a single ant."""
    instances = [(op, k) for op, count in state.counts.items() for k in range(count)]
    tau: dict[tuple[str, int, str], float] = defaultdict(lambda: p_init)
    neighbours = {op: set(state.graph.digraph.predecessors(op))
                  | set(state.graph.digraph.successors(op)) for op in state.counts}
    best: tuple[float, dict[str, dict[str, int]]] | None = None
    kept_rule = False
    stale = 0

    def hopeless() -> bool:
        return give_up is not None and give_up.expired() and not kept_rule

    while not budget.expired() and stale < patience:
        trails: list[tuple[float, list[tuple[str, int, str]], dict[str, dict[str, int]]]] = []
        for _ in range(ants):
            if trails and (budget.expired() or hopeless()):
                break  # a large instance may have time for a few ants only
            trial = PlacementState(state.graph, state.network, state.counts, state.cands,
                              {op: {} for op in state.counts})
            order = instances[:]
            rng.shuffle(order)  # the operator order is randomised for every ant
            path = []
            used: set[str] = set()
            for op, k in order:
                weights = []
                for u in state.cands[op]:
                    eta = 1.0
                    if any(trial.nodes[n].get(u) for n in neighbours[op]):
                        eta *= 2
                    if u in used:
                        eta *= 2
                    if not trial.fits(op, u, HEADROOM):
                        eta /= 2 ** len(trial.op(op).resources)
                    weights.append(tau[(op, k, u)] ** alpha * eta ** beta)
                u = rng.choices(state.cands[op], weights=weights)[0]
                trial.place(op, u)
                used.add(u)
                path.append((op, k, u))
            budget.spend(len(instances))
            score = Score(trial)
            kept_rule = kept_rule or not score.violations
            trails.append((score.penalised(), path, trial.nodes))
        for key in list(tau):
            tau[key] = rho * tau[key]
        for s, path, _ in trails:
            for key in path:
                tau[key] += q / max(s, 1e-9)
        for key in list(tau):
            tau[key] = max(tau[key], p_min)
        s, _, nodes = min(trails, key=lambda t: t[0])
        if best is None or s < best[0] - 1e-12:
            best = (s, {op: dict(r) for op, r in nodes.items()})
            stale = 0
        else:
            stale += 1
        if hopeless():
            break
    return best[1] if best is not None else None


def adopt(state: PlacementState, placement: dict[str, dict[str, int]]) -> None:
    """Replace ``state``'s placement by ``placement`` (resources recounted)."""
    for op in list(state.nodes):
        for u, c in list(state.nodes[op].items()):
            for _ in range(c):
                state.remove(op, u)
    for op, reps in placement.items():
        for u, c in reps.items():
            for _ in range(c):
                state.place(op, u)


def _start(state: PlacementState, current: Current | None = None) -> str:
    """The initial placement, inside Ecker's 95% rule where possible: the replicas that run
    now, where they run (when re-planning), then for the rest roomiest-first near
    neighbours; if that strands an instance, tight first-fit packing; if even that fails,
    an even deal whose overloads the penalty then steers away from. Returns which."""
    from streamplace.solve.baseline.frameworks import (
        first_fit_decreasing,
        resource_aware,
        round_robin,
    )
    from streamplace.solve.placement import PlacementFailure

    state.headroom = HEADROOM
    kept = _keep_running(state, current) if current is not None else {}
    counts = dict(state.counts)
    state.counts = {op: counts[op] - sum(kept.get(op, {}).values()) for op in counts}
    try:
        for name, place in (("resource-aware", resource_aware),
                            ("first-fit-decreasing", first_fit_decreasing)):
            try:
                place(state)
                return ("current plan, then " if kept else "") + name
            except PlacementFailure:
                adopt(state, kept)
        round_robin(state)
        return "round-robin"
    finally:
        state.counts = counts


def _keep_running(state: PlacementState, current: Current) -> dict[str, dict[str, int]]:
    """Place the replicas that run now where they run (up to each operator's count, within
    the 95% rule and the candidates; pinned operators first, as they have no choice);
    returns what was kept."""
    order = state.graph.topological_order()
    for op in sorted(order, key=lambda o: (len(state.cands[o]) > 1, order.index(o))):
        for node, count in sorted(current.placement.get(op, {}).items()):
            for _ in range(count):
                if sum(state.nodes[op].values()) >= state.counts[op] or \
                        node not in state.cands[op] or not state.fits(op, node):
                    break
                state.place(op, node)
    return {op: dict(reps) for op, reps in state.nodes.items() if reps}


def _search(method: str, instance: Instance, options: SolveOptions) -> SolveResult:
    work = _WORK.of(options) or None
    limit = options.time_limit if options.time_limit is not None else \
        (None if work else DEFAULT_SECONDS)
    span = math.inf if limit is None else limit
    budget = Budget(limit, options.stop, work_limit=work)
    search = budget.until(budget.started + span * SEARCH_SHARE)
    rng = random.Random(options.seed)
    state = PlacementState.empty(instance)
    info: dict[str, object] = {"seed": options.seed, "time_limit": limit}
    if work:
        info["work_limit"] = work
    current = instance.current
    weight = instance.objective.weights.normalised(True)[Term.RECONFIGURATION] if current else 0.0
    cut_by_clock: list[bool] = []  # per phase, read as it ends (later, any deadline passed)

    def score() -> Score:
        return Score(state, current=current, moves_weight=weight)

    def climb(phase: Budget) -> None:
        options.progress(SolverProgress(budget.elapsed(), score().total(), None, None, 0))
        info["moves"] = hill_climb(score(), rng, phase)
        cut_by_clock.append(phase.clock_cut)

    if method == "hill-climbing":
        info["start"] = _start(state, current)
        # the final evaluation costs about what the start did (both instances x candidates):
        # keep that much of the limit for it, so the whole run stays within the limit
        info["start_score"] = score().total()
        climb(search.until(budget.deadline - FINISH_PER_START * budget.elapsed()))
    else:
        # hill climbing's start (within the 95% rule where a packing can be), kept aside:
        # when the ants end over the rule, it is climbed for the time left instead, so a
        # method never fails where hill climbing finds a plan
        info["start"] = _start(state, current)
        fallback = {op: dict(r) for op, r in state.nodes.items() if r}
        reserve = FINISH_PER_START * budget.elapsed()
        share = 1.0 if method == "ant-system" else 0.5
        ants = search.until(budget.started + span * SEARCH_SHARE * share - reserve,
                            _share(work, share))
        colony_started = budget.elapsed()
        colony = ant_system(state, rng, ants, give_up=ants.until(
            budget.started + span * GIVE_UP_SHARE, _share(work, GIVE_UP_SHARE)))
        cut_by_clock.append(ants.clock_cut)
        info["ants_seconds"] = round(budget.elapsed() - colony_started, 3)
        info["ants_work"] = budget.work.spent
        start_score = Score(state).penalised()
        if colony is None:
            info["fallback"] = "no time for a single ant: hill climbing's start"
        else:
            adopt(state, colony)
        if method == "hybrid" and colony is not None and \
                Score(state).penalised() > start_score:
            adopt(state, fallback)  # climb from the better of the two
            info["fallback"] = "hill climbing's start scored better than the ants' best"
        if method == "hybrid":
            climb(search.until(budget.deadline - reserve))
        if Score(state).violations:
            adopt(state, fallback)
            info["fallback"] = "the ants' best broke the 95% rule: hill climbing's start"
            climb(search.until(budget.deadline - reserve))
    final = Score(state)  # the evaluator's s(x): reconfiguration is the utility's term
    info.update(score=final.total(), violations=final.violations, work=budget.work.spent)
    if final.violations:
        return SolveResult(SolveStatus.ERROR, method, seconds=budget.elapsed(),
                           message=f"{method} failed: its best placement still uses more "
                                   f"than 95% of a resource on {final.violations} node(s)")
    result = finish(method, instance, state.nodes, budget, info, model="ecker")
    if any(cut_by_clock):
        result = replace(result, message=(
            f"{method}: the clock ended the search after {budget.work.spent} units of work, so "
            "another run may give another plan; --solver-option work=N (with --seed) "
            "makes it reproducible"))
    return result


def _share(work: int | None, share: float) -> int | None:
    return None if work is None else max(1, math.ceil(work * share))


DEFAULT_SECONDS = 10.0
SEARCH_SHARE = 0.9  # of the time limit; the rest is for evaluating and writing the plan
GIVE_UP_SHARE = 0.05  # of the limit: ants that have not kept the 95% rule by then stop
FINISH_PER_START = 0.75  # measured: evaluating 1,000 instances on 200 nodes, ~0.5 x start
_SUMMARIES = {
    "hill-climbing": "Ecker et al.: first-improvement hill climbing (move, swap, move a node)",
    "ant-system": "Ecker et al.: ant system (eqs. 2-5, min pheromone, violation penalty)",
    "hybrid": "Ecker et al.: ant system, then hill climbing, half the time each",
}


def _bound(name: str) -> SolveFn:
    def solve(instance: Instance, options: SolveOptions) -> SolveResult:
        from streamplace.solve.placement import PlacementFailure

        try:
            return _search(name, instance, options)
        except PlacementFailure as exc:  # not even an even deal: no node may run an operator
            return SolveResult(SolveStatus.ERROR, name, message=f"{name} failed: {exc}")

    return solve


_WORK = Param("work", int, 0, "units of work (instances placed by ants plus moves tried) "
               "after which the "
               "search ends: the same seed and work give the same plan on any machine; 0 "
               "(default) lets the time limit end it", low=0)

METHODS = tuple(
    Method(name, "ecker", exact=False, cycles=True, run=_bound(name), summary=summary,
           params=(_WORK,),
           settings=frozenset({Setting.TIME_LIMIT, Setting.SEED, Setting.CURRENT}),
           paper="Ecker et al.")
    for name, summary in _SUMMARIES.items())
