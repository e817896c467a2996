"""The horizon program against brute force: on small instances every sequence of counts is
tried, and the program's proven optimum is the cheapest feasible one; the rescale budget
kept before the cost, and gone over only by the fewest rescales that carry the load."""

from __future__ import annotations

import itertools
import random

import pytest

from streamplace.solve.horizon.instance import (
    Budget,
    HorizonInstance,
    HorizonVertex,
    LatencyPath,
)
from streamplace.solve.horizon.program import LATE_COST, over_cost, solve_horizon
from streamplace.solve.result import SolveStatus


def _path(rng: random.Random, vertices: list[HorizonVertex], windows: int) -> LatencyPath:
    """A path over both vertices: each count's queueing falls as the count grows (a
    queue's wait, rho / (1 - rho), at the window's load), infinite where it does not carry
    it; the room somewhere between the least and the most they may add."""
    adds = {}
    for v in vertices:
        adds[v.op] = tuple(tuple(
            (f / c) / (1 - f / c) * 0.01 if f < c else float("inf")
            for c in v.capacity) for f in v.floor)
    least = [sum(min(adds[v.op][t]) for v in vertices) for t in range(windows)]
    return LatencyPath("a -> b", max(least) * rng.uniform(0.8, 3.0), adds)


def _instance(seed: int, budget: bool, latency: bool = False) -> HorizonInstance:
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
                           else (), paths=(_path(rng, vertices, windows),) if latency else ())


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
        for path in instance.paths:  # each window's seconds over the limit, at their price
            for t in range(instance.windows):
                adds = sum(min(path.adds[v.op][t][choice[i][t]], path.room + 1)
                           for i, v in enumerate(instance.vertices))
                cost += LATE_COST * over_cost(instance) * max(0.0, adds - path.room)
        for b in instance.budgets:  # each window's rescales over it, at its price
            for t in range(instance.windows):
                spent = b.spent[t] if t < len(b.spent) else 0
                over = sum(rescales[max(0, t - b.period + 1):t + 1]) - (b.most - spent)
                cost += over_cost(instance) * max(0, over)
        if ok and (best is None or cost < best):
            best = cost
    return best


@pytest.mark.parametrize(("budget", "latency"), [(False, False), (True, False), (True, True)])
@pytest.mark.parametrize("seed", range(12))
def test_the_horizon_program_proves_the_brute_forced_optimum(seed, budget, latency):
    instance = _instance(seed, budget, latency)
    plan = solve_horizon(instance, time_limit=60)
    best = _brute(instance)
    if best is None:
        assert plan.status == SolveStatus.INFEASIBLE
        return
    assert plan.status == SolveStatus.OPTIMAL
    assert plan.objective == pytest.approx(best, rel=1e-6, abs=1e-6)
    assert plan.counts is not None and len(plan.counts) == instance.windows


@pytest.mark.parametrize(("room", "count", "late"), [(None, 1, None), (0.02, 2, 0.0),
                                                     (0.0001, 4, 0.0029)])
def test_the_latency_bound_asks_more_than_the_load_does_and_is_late_only_where_it_must(
        room, count, late):
    """One vertex carrying 90/s, 100/s a subtask: the load alone asks one subtask; a queue
    of rho / (1 - rho) x 10 ms kept within 20 ms asks two; within 0.1 ms no count holds it,
    and the plan is as little late as it can be, at the most the slots hold."""
    counts, floor = (1, 2, 3, 4), (90.0, 90.0)
    capacity = tuple(100.0 * k for k in counts)
    vertex = HorizonVertex("a", counts, capacity, 1, "g", floor, floor)
    paths = () if room is None else (LatencyPath("a -> a", room, {"a": tuple(tuple(
        (f / c) / (1 - f / c) * 0.01 for c in capacity) for f in floor)}),)
    plan = solve_horizon(HorizonInstance(60.0, (vertex,), 4, 0.0, paths=paths), 60)
    assert plan.status == SolveStatus.OPTIMAL and plan.counts is not None
    assert [c["a"] for c in plan.counts] == [count, count]
    if late is None:
        assert plan.late is None
    else:
        assert plan.late == pytest.approx([late, late], abs=1e-4)
