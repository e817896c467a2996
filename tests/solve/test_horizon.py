"""The horizon program against brute force: on small instances every sequence of counts is
tried, and the program's proven optimum is the cheapest feasible one; the rescale budget
kept before the cost, and gone over only by the fewest rescales that carry the load."""

from __future__ import annotations

import itertools
import random

import pytest

from streamplace.solve.horizon.instance import Budget, HorizonInstance, HorizonVertex
from streamplace.solve.horizon.program import over_cost, solve_horizon
from streamplace.solve.result import SolveStatus


def _instance(seed: int, budget: bool) -> HorizonInstance:
    rng = random.Random(seed)
    windows = 3
    vertices = []
    for k, op in enumerate(("a", "b")):
        counts = tuple(sorted(rng.sample(range(1, 6), 3)))
        per = rng.uniform(50, 150)
        bend = rng.uniform(0.0, 0.3)  # sublinear: each subtask brings less
        capacity = tuple(per * c / (1 + bend * (c - 1)) for c in counts)
        floor = tuple(rng.uniform(0.3, 1.0) * capacity[-1] for _ in range(windows))
        restarted = tuple(f * rng.uniform(1.0, 1.2) for f in floor)
        vertices.append(HorizonVertex(op, counts, capacity, rng.choice(counts),
                                      "g" if k == 0 or rng.random() < 0.5 else "h",
                                      floor, restarted))
    return HorizonInstance(60.0, tuple(vertices), rng.randint(5, 9), rng.uniform(0, 200),
                           (Budget(rng.randint(0, 1), 2, (rng.randint(0, 1),)),) if budget
                           else ())


def _brute(instance: HorizonInstance) -> float | None:
    best = None
    options = [list(itertools.product(range(len(v.counts)), repeat=instance.windows))
               for v in instance.vertices]
    for choice in itertools.product(*options):
        counts = [{v.op: v.counts[choice[i][t]] for i, v in enumerate(instance.vertices)}
                  for t in range(instance.windows)]
        before = {v.op: v.running for v in instance.vertices}
        cost, rescales, ok = 0.0, [], True
        for t, now in enumerate(counts):
            rescaled = now != before
            rescales.append(rescaled)
            groups: dict[str, int] = {}
            for i, v in enumerate(instance.vertices):
                groups[v.group] = max(groups.get(v.group, 0), now[v.op])
                need = v.restarted[t] if rescaled else v.floor[t]
                if v.capacity[choice[i][t]] < need - 1e-9:
                    ok = False
            slots = sum(groups.values())
            ok = ok and slots <= instance.slots
            cost += instance.step * slots + instance.rescale_cost * rescaled
            before = now
        for b in instance.budgets:  # each window's rescales over it, at its price
            for t in range(instance.windows):
                spent = b.spent[t] if t < len(b.spent) else 0
                over = sum(rescales[max(0, t - b.period + 1):t + 1]) - (b.most - spent)
                cost += over_cost(instance) * max(0, over)
        if ok and (best is None or cost < best):
            best = cost
    return best


@pytest.mark.parametrize("budget", [False, True])
@pytest.mark.parametrize("seed", range(12))
def test_the_horizon_program_proves_the_brute_forced_optimum(seed, budget):
    instance = _instance(seed, budget)
    plan = solve_horizon(instance, time_limit=60)
    best = _brute(instance)
    if best is None:
        assert plan.status == SolveStatus.INFEASIBLE
        return
    assert plan.status == SolveStatus.OPTIMAL
    assert plan.objective == pytest.approx(best, rel=1e-6, abs=1e-6)
    assert plan.counts is not None and len(plan.counts) == instance.windows
