"""Metric limits (docs/models.md sec. 2): the compact ODRP program with hard bounds on
response time, cost, a network metric and availability equals brute force over the plans
the evaluator finds within them."""

from __future__ import annotations

import dataclasses
import itertools

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.limits import MetricLimits
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method

from .conftest import assert_exact, best_utility, placements
from .test_odrp_exact import random_instance


def metric_values(instance: Instance, metric: str) -> list[float]:
    """The metric over every feasible plan of the instance, sorted."""
    out = []
    for plan in placements(instance.app, instance.infra,
                           lambda op: range(op.min_replicas, op.replica_cap + 1)):
        ev = evaluate(instance.app, instance.infra, plan, instance.objective)
        if not ev.violations:
            out.append(ev.odrp.metric(metric))
    return sorted(out)


@pytest.mark.parametrize(("seed", "metric"), list(itertools.product(
    range(6), ["response_time", "cost", "traffic", "network_usage", "availability"])))
def test_limits_match_brute_force(seed, metric):
    base = random_instance(seed)
    values = metric_values(base, metric)
    if not values:
        pytest.skip("no feasible plan")
    median = values[len(values) // 2]
    limits = MetricLimits(min_availability=median) if metric == "availability" else \
        MetricLimits({metric: median})
    instance = dataclasses.replace(base, limits=limits)
    expected = best_utility(instance)
    result = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
    assert expected is not None  # the median plan is within the limit
    assert_exact(result, expected)
    assert evaluate(instance.app, instance.infra, result.plan, instance.objective,
                    limits=limits).violations == []


def test_an_unreachable_limit_is_proven_infeasible():
    base = random_instance(1)
    lowest = metric_values(base, "response_time")[0]
    result = get_method("odrp").solve(
        dataclasses.replace(base, limits=MetricLimits({"response_time": lowest * 0.99})),
        SolveOptions(gap=0.0))
    assert result.status == SolveStatus.INFEASIBLE


def test_limits_need_the_compact_formulation():
    from streamplace.errors import InputError
    from streamplace.solve import FormulationName

    instance = dataclasses.replace(random_instance(0),
                                   limits=MetricLimits({"cost": 10.0}))
    with pytest.raises(InputError, match="compact"):
        get_method("odrp").solve(instance,
                                 SolveOptions(formulation=FormulationName.MULTISET))
