"""ODRP / ODP optimality: both formulations against brute-force enumeration on tiny instances.

Brute force enumerates every multiset of candidate nodes per operator (Cardellini et al. 2017,
sec. 3.3), keeps the plans the evaluator finds feasible and takes the best utility F, so the
solver is checked against the model itself, not against itself.
"""

from __future__ import annotations

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.objective import Objective
from streamplace.solve import (
    FormulationName,
    Instance,
    MipSolver,
    SolveOptions,
    SolveStatus,
    get_method,
)

from ..conftest import assert_exact, best_utility
from ..support.instances import random_instance, spread_instance


@pytest.mark.parametrize("seed", range(14))
def test_compact_and_multiset_match_brute_force(seed):
    instance = random_instance(seed)
    expected = best_utility(instance)
    for formulation in ("compact", "multiset"):
        result = get_method("odrp").solve(
            instance, SolveOptions(gap=0.0, formulation=FormulationName(formulation)))
        if not assert_exact(result, expected, formulation):
            continue
        # the plan is the one the evaluator scores, and it is feasible
        ev = evaluate(instance.app, instance.infra, result.plan, instance.objective)
        assert ev.violations == [] and ev.utility.value == pytest.approx(result.objective)
        assert "objective_mismatch" not in result.solver


@pytest.mark.parametrize("seed", [0, 3, 5, 8])
def test_odp_is_odrp_with_single_replicas(seed):
    instance = random_instance(seed)
    expected = best_utility(instance, single_replica=True)
    result = get_method("odp").solve(instance, SolveOptions(gap=0.0))
    if not assert_exact(result, expected):
        return
    assert all(sum(r.values()) == 1 for r in result.plan.placement.values())


def test_cbc_agrees_with_highs():
    instance = random_instance(2)
    highs = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
    cbc = get_method("odrp").solve(instance, SolveOptions(gap=0.0, solver=MipSolver.CBC))
    assert cbc.status == highs.status == SolveStatus.OPTIMAL
    assert cbc.objective == pytest.approx(highs.objective, abs=1e-7)


def test_forced_spreads_and_three_replicas_match_brute_force():
    spread_seen = three_seen = False
    for seed in range(6):
        instance = spread_instance(seed)
        expected = best_utility(instance)
        for formulation in ("compact", "multiset"):
            result = get_method("odrp").solve(
                instance, SolveOptions(gap=0.0, formulation=FormulationName(formulation)))
            if not assert_exact(result, expected, (seed, formulation)):
                continue
            placement = result.plan.placement
            spread_seen |= any(len([u for u, c in r.items() if c]) > 1
                               for r in placement.values())
            three_seen |= any(sum(r.values()) == 3 for r in placement.values())
    assert spread_seen and three_seen, "the battery must force spreads and k = 3"


@pytest.mark.parametrize(("seed", "k"), [(0, 3), (1, 2), (2, 2)])
def test_compact_equals_multiset_on_mid_size_instances(seed, k):
    """6 nodes x 6 operators: too many plans for brute force, both proven by HiGHS."""
    import sys

    from ..conftest import ROOT

    sys.path.insert(0, str(ROOT / "bench"))
    from scenarios import instance as scenario

    app, infra = scenario(6, 6, k, seed)
    instance = Instance(app, infra, Objective())
    results = [get_method("odrp").solve(instance, SolveOptions(
        gap=0.0, formulation=FormulationName(f), time_limit=120))
        for f in ("compact", "multiset")]
    assert [r.status for r in results] == [SolveStatus.OPTIMAL] * 2
    assert results[0].objective == pytest.approx(results[1].objective, abs=1e-7)


LAZY = {"delay_rows": "lazy"}


def test_lazy_delay_rows_match_brute_force():
    """Stream-delay rows added only when a solution breaks them: the same proven optimum on
    the random battery and the forced spreads, with rows added (so rounds really ran)."""
    added = 0
    for instance in [random_instance(seed) for seed in range(14)] + \
            [spread_instance(seed) for seed in range(6)]:
        expected = best_utility(instance)
        result = get_method("odrp").solve(instance, SolveOptions(gap=0.0, params=LAZY))
        if not assert_exact(result, expected):
            continue
        assert "objective_mismatch" not in result.solver
        added += result.solver.get("lazy_rows_added", 0)
    assert added > 0, "no instance needed a delay row: the battery tests nothing"


@pytest.mark.parametrize("seed", [1, 2])
def test_lazy_delay_rows_equal_all_rows_on_mid_size_instances(seed):
    import sys

    from ..conftest import ROOT

    sys.path.insert(0, str(ROOT / "bench"))
    from scenarios import instance as scenario

    app, infra = scenario(6, 6, 2, seed)
    instance = Instance(app, infra, Objective.model_validate(
        {"weights": {"response_time": 1.0, "network": 0.5}}))
    results = [get_method("odrp").solve(instance, SolveOptions(
        gap=0.0, time_limit=120, params={"delay_rows": rows})) for rows in ("all", "lazy")]
    assert [r.status for r in results] == [SolveStatus.OPTIMAL] * 2
    assert results[0].objective == pytest.approx(results[1].objective, abs=1e-7)


def test_a_stopped_lazy_round_keeps_its_plan_but_never_claims_its_model_value():
    """Stopped after a round whose plan broke left-out rows: the plan holds, its value and
    gap are the evaluator's, the bound stays valid, and the status is not optimal."""
    for seed in range(14):
        instance = random_instance(seed)
        full = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
        if full.status != SolveStatus.OPTIMAL:
            continue
        first = get_method("odrp").solve(instance, SolveOptions(
            gap=0.0, params=LAZY, highs={"mip_max_improving_sols": 1}))
        if first.solver.get("lazy_rows_added", 0) == 0 or first.plan is None:
            continue
        assert first.status != SolveStatus.OPTIMAL
        assert first.objective <= full.objective + 1e-9
        assert first.bound is None or first.bound >= full.objective - 1e-7
        assert first.plan.gap == pytest.approx(first.gap)
        return
    pytest.fail("no seed stopped on a plan that broke a left-out row")
