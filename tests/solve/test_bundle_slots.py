"""Slots pooled over a session cluster: each application takes its widest operator's
replicas, wherever they run, and the widths add up to at most the cluster's slots. The
joint program, the lexicographic one and priority order against brute force over every
combination of plans."""

from __future__ import annotations

import itertools
import random

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.objective import Objective
from streamplace.solve import SolveOptions, SolveStatus, methods
from streamplace.solve.bundle.instance import BundleInstance, width
from streamplace.solve.bundle.lexicographic import solve_lexicographic
from streamplace.solve.bundle.solve import place_in_priority_order, solve_joint

from ..conftest import make_app, make_infra, placements


def _odrp():
    return next(m for m in methods() if (m.name, m.model) == ("odrp", "odrp"))


def pooled(seed: int) -> BundleInstance:
    """Two applications whose middle operator may run 1-3 replicas on two TaskManagers of
    3 slots each (one dimension per operator, as observe models slot sharing), with 3-5
    slots of the cluster free for both: wider is faster, so the pool binds."""
    rng = random.Random(900 + seed)
    nodes = [{"id": f"tm{u}", "resources": {f"slots.{a}.{op}": 3 for a in ("a", "b")
                                           for op in ("source", "work", "sink")}}
             for u in range(2)]
    links = [{"from": "tm0", "to": "tm1", "delay": 0.001}]
    apps = []
    for k, name in enumerate(("a", "b")):
        ops = [{"id": "source", "service_rate": 500, "max_replicas": 1,
                "resources": {f"slots.{name}.source": 1}},
               {"id": "work", "service_rate": rng.uniform(20, 30), "max_replicas": 3,
                "resources": {f"slots.{name}.work": 1}},
               {"id": "sink", "service_rate": 500, "max_replicas": 1,
                "resources": {f"slots.{name}.sink": 1}}]
        rate = rng.uniform(10, 35)
        streams = [{"from": a, "to": b, "rate": rate}
                   for a, b in itertools.pairwise(["source", "work", "sink"])]
        apps.append(make_app({"name": name, "operators": ops, "streams": streams,
                              "weight": rng.choice([1.0, 2.0, 3.0]), "priority": k}))
    objective = Objective.model_validate({"weights": {"response_time": 1.0, "cost": 0.2}})
    return BundleInstance(tuple(apps), make_infra({"name": "two-tms", "nodes": nodes,
                                                   "links": links}),
                          objective, slots=3 + seed % 3)


def combinations(joint: BundleInstance) -> list[dict[str, float]]:
    """omega_a F_a per application, for every pair of plans that hold alone and whose
    widths fit the pooled slots (the nodes' own dimensions are each application's)."""
    alone = []
    for app in joint.apps:
        good = []
        for plan in placements(app, joint.infra, lambda op: range(1, op.replica_cap + 1)):
            ev = evaluate(app, joint.infra, plan, joint.objective_for(app))
            if not ev.violations:
                good.append((width(app, plan), joint.weights[app.name] * ev.utility.value))
        alone.append(good)
    return [{app.name: f for app, (_w, f) in zip(joint.apps, combo, strict=True)}
            for combo in itertools.product(*alone)
            if sum(w for w, _f in combo) <= joint.slots]


@pytest.mark.parametrize("seed", range(6))
def test_the_joint_program_keeps_the_widths_within_the_pool_as_brute_force(seed):
    joint = pooled(seed)
    combos = combinations(joint)
    result = solve_joint(joint, _odrp(), SolveOptions(gap=0.0))
    if not combos:
        assert result.status == SolveStatus.INFEASIBLE
        return
    assert result.status == SolveStatus.OPTIMAL, result.message
    assert result.objective == pytest.approx(max(sum(c.values()) for c in combos), abs=1e-7)
    assert sum(width(app, result.plans[app.name]) for app in joint.apps) <= joint.slots
    assert result.evaluation.feasible
    # without the pool, each would run wider: the pool is what bound them
    free = solve_joint(BundleInstance(joint.apps, joint.infra, joint.objective),
                       _odrp(), SolveOptions(gap=0.0))
    assert free.objective >= result.objective - 1e-9


@pytest.mark.parametrize("seed", range(3))
def test_lexicographic_gives_the_higher_priority_its_best_width_first(seed):
    joint = pooled(seed)
    combos = combinations(joint)
    result = solve_lexicographic(joint, _odrp(), SolveOptions(gap=0.0))
    assert result.status == SolveStatus.OPTIMAL, result.message
    best_b = max(c["b"] for c in combos)  # b has the higher priority
    then_a = max(c["a"] for c in combos if c["b"] >= best_b - 1e-9)
    levels = [lv.value for lv in result.levels]
    assert levels == pytest.approx([best_b, then_a], abs=1e-7)


def test_priority_order_leaves_the_lower_priority_what_the_higher_did_not_take():
    fits = pooled(1)  # four slots: b takes what it likes best, a the rest
    result = place_in_priority_order(fits, _odrp(), SolveOptions(gap=0.0))
    assert result.status == SolveStatus.FEASIBLE, result.message
    assert sum(width(app, result.plans[app.name]) for app in fits.apps) <= fits.slots
    # three slots: b takes them all, and a is named, not placed on slots that are not there
    short = place_in_priority_order(pooled(0), _odrp(), SolveOptions(gap=0.0))
    assert short.plans is None
    assert "a cannot be placed beside b" in short.message
    assert "no slot is left of the cluster's 3" in short.message
    # where the joint program finds room for both
    assert solve_joint(pooled(0), _odrp(), SolveOptions(gap=0.0)).plans is not None


def test_the_evaluation_names_plans_that_take_more_slots_than_the_cluster_has():
    joint = pooled(0)
    free = solve_joint(BundleInstance(joint.apps, joint.infra, joint.objective),
                       _odrp(), SolveOptions(gap=0.0))
    taken = sum(width(app, free.plans[app.name]) for app in joint.apps)
    tight = BundleInstance(joint.apps, joint.infra, joint.objective, slots=taken - 1)
    said = tight.slots_over(free.plans)
    assert said is not None and f"= {taken} slots, the cluster has {taken - 1}" in said
