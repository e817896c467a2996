"""Large-neighbourhood search for ``odrp``: small exact programs over a few operators at a
time, the rest of the plan held where it is (Shaw's LNS; sub-MIPs as in Danna, Rothberg and
Le Pape's RINS, with the neighbourhood chosen by the DAG instead of the LP).

Each round frees a neighbourhood (an operator with its upstream and downstream
operators, or every operator on one node, or the operators of the critical path) and
holds every other operator on the nodes it uses now with its count fixed. The compact
program of that restricted instance is small (the held operators have one count and a
node or two each), is built with the whole instance's normalisation bounds so that its F
is the whole plan's F, and is solved by HiGHS within NODES branch-and-bound nodes and
ROUND_SECONDS, without a start (HiGHS would complete one by an LP that minds no limit).
Its plan replaces the current one when the incremental scorer says it is better, so the
result is never worse than the start.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from streamplace.errors import InfeasibleError
from streamplace.model.evaluate.scorer import PlacementScorer
from streamplace.model.objective import Bounds, Objective
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import OdrpData, prepare
from streamplace.solve.result import Instance, SolveOptions

ROUND_SECONDS = 3.0  # the most one sub-program may take
FREE_AT_MOST = 8  # operators freed in one round
NODES = 500  # branch-and-bound nodes per sub-program: rounds end by work, not the clock
EXTRA_NODES = 6  # candidates offered to a freed operator besides the nodes near it


@dataclass(frozen=True)
class LnsResult:
    plan: Plan
    value: float
    rounds: int
    improved: int


def lns(data: OdrpData, start: Plan, budget: Budget, seed: int = 0,
        max_rounds: int | None = None) -> LnsResult:
    """Rounds until the budget or ``max_rounds`` ends them; the best plan seen."""
    from streamplace.solve.mip.solve import solve_mip

    instance = data.instance
    scorer = data.scorer(start)
    value = scorer.score()
    rng = random.Random(seed)
    movable = data.movable
    pairs: dict[str, Any] = {t: pair for t, pair in data.bounds.items() if pair[0] < pair[1]}
    fixed_bounds = Bounds.model_construct(None, **pairs)  # the whole instance's bounds
    objective = instance.objective.model_copy(update={"bounds": fixed_bounds})
    rounds = improved = 0
    while movable and not budget.expired() and (max_rounds is None or rounds < max_rounds):
        rounds += 1
        free = _neighbourhood(data, scorer, movable, rng)
        sub = _restricted(data, objective, scorer.placement, free, rng)
        left = budget.remaining()
        limit = ROUND_SECONDS if left is None else min(ROUND_SECONDS, left)
        if limit <= 0.05:
            break
        phase = Budget(limit, budget.stop)
        try:
            sub_data = prepare(sub)
            built = build_compact(sub_data, phase, "all")
        except (InfeasibleError, Stopped):
            continue
        outcome = solve_mip(built.model, SolveOptions(time_limit=limit, threads=1,
                                                        highs={"mip_max_nodes": NODES}),
                              None, phase)
        if outcome.values is None:
            continue
        found = built.decode(outcome.values)
        before = scorer.snapshot()
        for op_id in free:
            scorer.change(op_id, dict(found.replicas(op_id)))
        new = scorer.score()
        if new > value + 1e-12:
            value, improved = new, improved + 1
        else:
            scorer.restore(before)
    plan = Plan.model_validate({"placement": scorer.snapshot(),
                                "bounds_used": data.bounds_used()})
    return LnsResult(plan, value, rounds, improved)


def _neighbourhood(data: OdrpData, scorer: PlacementScorer, movable: list[str],
                   rng: random.Random) -> list[str]:
    """Operators to free: one and its DAG neighbours (widened along the DAG up to
    FREE_AT_MOST), or the operators on one node, by turns at random."""
    graph = data.graph
    if rng.random() < 0.3:
        node = rng.choice(sorted({u for op in movable for u in scorer.placement[op]}))
        on_node = [op for op in movable if node in scorer.placement[op]]
        rng.shuffle(on_node)
        if len(on_node) > 1:
            return on_node[:FREE_AT_MOST]
    chosen = [rng.choice(movable)]
    frontier = list(chosen)
    allowed = set(movable)
    while frontier and len(chosen) < FREE_AT_MOST:
        op = frontier.pop(0)
        around = [n for n in (*graph.preds[op], *graph.succs[op])
                  if n in allowed and n not in chosen]
        rng.shuffle(around)
        for n in around[:FREE_AT_MOST - len(chosen)]:
            chosen.append(n)
            frontier.append(n)
    return chosen


def _restricted(data: OdrpData, objective: Objective, placement: dict[str, dict[str, int]],
                free: list[str], rng: random.Random) -> Instance:
    """The instance with every operator outside ``free`` held (its candidates the nodes it
    uses, its count fixed), and each freed one offered the nodes it and its DAG neighbours
    use plus EXTRA_NODES others at random, so the program stays small at any size."""
    instance = data.instance
    freed = set(free)
    ops = []
    for op in instance.app.operators:
        if op.id in freed:
            near = set(placement[op.id])
            for other in (*data.graph.preds[op.id], *data.graph.succs[op.id]):
                near |= set(placement[other])
            near &= set(data.cands[op.id])
            rest = sorted(set(data.cands[op.id]) - near)
            near |= set(rng.sample(rest, min(EXTRA_NODES, len(rest))))
            ops.append(op.model_copy(update={"candidates": sorted(near)}))
            continue
        reps = placement[op.id]
        ops.append(op.model_copy(update={"candidates": sorted(reps), "max_replicas": None,
                                         "replicas": sum(reps.values())}))
    app = instance.app.model_copy(update={"operators": ops})
    return Instance(app, instance.infra, objective,
                    instance.current, instance.limits)
