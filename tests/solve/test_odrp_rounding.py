"""The relaxation's LP optimum rounded to a plan (primal/rounding.py), and the primal search
climbing from it: the plan is one the evaluator accepts, never above the brute-forced
optimum, and the search goes on from the better of its own plan and the offered one."""

from __future__ import annotations

import math

from streamplace.model.evaluate import evaluate
from streamplace.model.evaluate.constraints import placement_violations
from streamplace.solve.budget import Budget
from streamplace.solve.odrp import relaxation_bound
from streamplace.solve.odrp.data import prepare
from streamplace.solve.odrp.methods import _baseline_start

from ..conftest import best_utility
from ..support.instances import random_instance, spread_instance

BATTERY = [random_instance(seed) for seed in range(14)] + \
    [spread_instance(seed) for seed in range(6)]


def rounded(instance):
    relaxation = relaxation_bound.relaxation_bound(prepare(instance), Budget(time_limit=None))
    assert relaxation is not None
    return relaxation.start


def test_the_rounded_relaxation_is_a_plan_and_never_beats_the_optimum(monkeypatch):
    monkeypatch.setattr(relaxation_bound, "BOUND_FIRST_FROM", 0)
    plans = 0
    for instance in BATTERY:
        expected = best_utility(instance)
        start = rounded(instance)
        if expected is None:
            assert start is None, instance.app.name  # no plan exists, none is made up
            continue
        if start is None:
            continue
        data = prepare(instance)
        assert not placement_violations(data.graph, data.network, start)
        for op in data.ops:
            assert sum(start.replicas(op.id).values()) in data.counts[op.id]
            assert set(start.replicas(op.id)) <= set(data.cands[op.id])
        scored = evaluate(instance.app, instance.infra, start, instance.objective)
        assert not scored.violations, (instance.app.name, scored.violations)
        assert scored.utility.value <= expected + 1e-7, instance.app.name
        plans += 1
    assert plans >= 12, "the rounding gave too few plans to check"


def test_the_search_climbs_an_offered_plan_and_goes_on_from_the_better(monkeypatch):
    """No time limit: the local search ends by its work budget and the large-neighbourhood
    search by its rounds, so what is climbed does not depend on the machine's speed."""
    from streamplace.solve.odrp.primal import concurrent

    monkeypatch.setattr(relaxation_bound, "BOUND_FIRST_FROM", 0)
    monkeypatch.setattr(concurrent, "LNS_ROUNDS", 10)  # what follows the climb is not tested
    climbed = 0
    for instance in BATTERY[:8]:
        data = prepare(instance)
        given, offered = _baseline_start(instance, data), rounded(instance)
        if given is None or offered is None:
            continue
        search = concurrent.PrimalSearch(data, given, Budget(time_limit=None), seed=0)
        search.offer(offered)
        search._run()
        assert search.failure is None
        assert search.offered is None, "the offered plan was never taken"
        scored = evaluate(instance.app, instance.infra, offered, instance.objective)
        assert math.isclose(search.counters["offered_F"], scored.utility.value,
                            abs_tol=1e-9)
        assert search.counters["offered_search_F"] >= search.counters["offered_F"] - 1e-12
        assert search.value >= max(search.counters["search_F"],
                                   search.counters["offered_search_F"]) - 1e-12
        final = evaluate(instance.app, instance.infra, search.plan, instance.objective)
        assert not final.violations
        assert math.isclose(final.utility.value, search.value, abs_tol=1e-9)
        climbed += 1
    assert climbed >= 4
