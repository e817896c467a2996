"""Allowed replica counts (``replica_counts``: e.g. the divisors of a keyed Flink vertex's key
groups) are a constraint of the program: both formulations equal brute force over the plans
that keep to them, a plan that breaks them is a violation, and every heuristic either keeps to
them or says it failed."""

from __future__ import annotations

import dataclasses

import pytest

from streamplace.model.application import Operator
from streamplace.model.evaluate import evaluate
from streamplace.model.replicas import fewest_stable
from streamplace.solve import FormulationName, SolveOptions, get_method
from streamplace.solve.registry import methods

from ..conftest import assert_exact, feasible_or_failed, placements
from ..support.instances import random_instance

SEEDS = range(6)


def with_counts(seed: int):
    """The seed's instance with op1 on up to 4 replicas, of which only 1, 2 and 4 allowed."""
    instance = random_instance(seed)
    ops = [op.model_copy(update={"max_replicas": None, "replica_counts": [1, 2, 4]})
           if op.id == "op1" else op for op in instance.app.operators]
    return dataclasses.replace(instance, app=instance.app.model_copy(update={"operators": ops}))


def best(instance) -> float | None:
    values = []
    for plan in placements(instance.app, instance.infra, lambda op: [
            k for k in range(op.min_replicas, op.replica_cap + 1) if op.allows(k)]):
        ev = evaluate(instance.app, instance.infra, plan, instance.objective)
        if not ev.violations:
            values.append(ev.utility.value)
    return max(values, default=None)


@pytest.mark.parametrize("seed", SEEDS)
def test_both_formulations_equal_brute_force_under_replica_counts(seed):
    instance = with_counts(seed)
    expected = best(instance)
    for formulation in FormulationName:
        result = get_method("odrp").solve(instance, SolveOptions(
            gap=0.0, formulation=formulation))
        if assert_exact(result, expected, (seed, formulation)):
            count = sum(result.plan.replicas("op1").values())
            assert count in (1, 2, 4), (seed, formulation, count)


def test_a_count_outside_them_is_a_violation():
    instance = with_counts(0)
    three = next(placements(instance.app, instance.infra, lambda op: [
        3 if op.id == "op1" else op.min_replicas]))
    ev = evaluate(instance.app, instance.infra, three, instance.objective)
    assert [v.message for v in ev.violations if v.constraint == "replicas.counts"] == [
        "op1 has 3 replicas, not one of its replica_counts 1, 2, 4"]


def test_the_fewest_stable_count_is_rounded_up_to_an_allowed_one():
    op = Operator(id="k", service_rate=10, replica_counts=[1, 2, 4, 8])
    assert fewest_stable(op, 25.0) == 4  # 3 are stable, 3 is not allowed
    assert fewest_stable(op, 95.0) > op.replica_cap  # none allowed is stable: refused


@pytest.mark.parametrize("seed", SEEDS)
def test_every_heuristic_keeps_to_them_or_says_it_failed(seed):
    instance = with_counts(seed)
    options = SolveOptions(time_limit=5.0, seed=seed)
    for method in methods():
        if method.exact or method.accepts(instance) is not None:
            continue
        ev = feasible_or_failed(method.name, method.solve(instance, options), instance)
        assert ev is None or not ev.violations
