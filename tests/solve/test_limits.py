"""Metric limits (docs/models.md sec. 2): the compact ODRP program with a hard bound on any
one metric equals brute force over the plans the evaluator finds within it. Each limit is
strictly tighter than what every unlimited optimum reaches, so each case fails if the
limit's rows are missing: the unlimited answer would come back."""

from __future__ import annotations

import dataclasses
import functools
import itertools

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.metrics import Metric, MetricLimits, meets
from streamplace.solve import SolveOptions, SolveStatus, get_method

from ..conftest import assert_exact, placements
from ..support.instances import random_instance

SEEDS = range(8)
TIE = 1e-9


@functools.cache
def feasible(seed: int) -> tuple[tuple[float, dict[Metric, float]], ...]:
    """F and every metric of each feasible plan of the seed's instance (no limits)."""
    instance = random_instance(seed)
    out = []
    for plan in placements(instance.app, instance.infra,
                           lambda op: range(op.min_replicas, op.replica_cap + 1)):
        ev = evaluate(instance.app, instance.infra, plan, instance.objective)
        if not ev.violations:
            out.append((ev.utility.value, {m: ev.odrp.metric(m) for m in Metric}))
    return tuple(out)


def binding_limit(seed: int, metric: Metric) -> float | None:
    """The loosest limit on ``metric`` that some plan meets and no unlimited optimum does
    (None where the optima already have the best value)."""
    plans = feasible(seed)
    free = max(f for f, _ in plans)
    optima = [values[metric] for f, values in plans if f >= free - TIE]
    if metric.higher_is_better:
        better = [v[metric] for _, v in plans if v[metric] > max(optima) * (1 + 1e-6)]
        return min(better, default=None)
    better = [v[metric] for _, v in plans if v[metric] < min(optima) * (1 - 1e-6)]
    return max(better, default=None)


@pytest.mark.parametrize(("seed", "metric"), list(itertools.product(SEEDS, Metric)))
def test_a_binding_limit_moves_the_answer_to_brute_forces(seed, metric):
    bound = binding_limit(seed, metric)
    if bound is None:
        pytest.skip(f"every optimum of seed {seed} has the best {metric} already")
    plans = feasible(seed)
    free = max(f for f, _ in plans)
    expected = max(f for f, values in plans if meets(metric, values[metric], bound))
    assert expected < free - TIE  # the limit excludes every unlimited optimum
    limits = MetricLimits({metric: bound})
    instance = dataclasses.replace(random_instance(seed), limits=limits)
    result = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
    assert_exact(result, expected, (seed, metric))
    ev = evaluate(instance.app, instance.infra, result.plan, instance.objective, limits=limits)
    assert ev.violations == []
    assert meets(metric, ev.odrp.metric(metric), bound)


def test_every_metric_has_binding_cases():
    """The cases above are not all skipped: each metric's limit binds on several seeds."""
    for metric in Metric:
        binding = [seed for seed in SEEDS if binding_limit(seed, metric) is not None]
        assert len(binding) >= 2, (metric, binding)


def test_an_unreachable_limit_is_proven_infeasible():
    lowest = min(values[Metric.RESPONSE_TIME] for _, values in feasible(1))
    result = get_method("odrp").solve(
        dataclasses.replace(random_instance(1),
                            limits=MetricLimits({Metric.RESPONSE_TIME: lowest * 0.99})),
        SolveOptions(gap=0.0))
    assert result.status == SolveStatus.INFEASIBLE


def test_limits_need_the_compact_formulation():
    from streamplace.errors import InputError
    from streamplace.solve import FormulationName

    instance = dataclasses.replace(random_instance(0),
                                   limits=MetricLimits({Metric.COST: 10.0}))
    with pytest.raises(InputError, match="compact"):
        get_method("odrp").solve(instance,
                                 SolveOptions(formulation=FormulationName.MULTISET))


def test_limit_names_and_flags_come_from_the_metric():
    assert [name for name, _ in MetricLimits({"availability": 0.9, "cost": 2.0}).items()] == \
        ["max_cost", "min_availability"]
    with pytest.raises(ValueError, match="limits apply to"):
        MetricLimits({"utility": 1.0})
    with pytest.raises(ValueError, match="not in"):
        MetricLimits({"availability": 1.5})


