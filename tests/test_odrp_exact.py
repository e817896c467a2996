"""ODRP / ODP optimality: both formulations against brute-force enumeration on tiny instances.

Brute force enumerates every multiset of candidate nodes per operator (Cardellini et al. 2017,
sec. 3.3), keeps the plans the evaluator finds feasible and takes the best utility F, so the
solver is checked against the model itself, not against itself.
"""

from __future__ import annotations

import itertools
import random

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

from .conftest import assert_exact, best_utility, make_app, make_infra

METRICS = ("traffic", "network_usage", "elastic_energy")


def random_instance(seed: int) -> Instance:
    """3 nodes, a pinned source and sink, 2-3 replicable operators: 80-800 plans."""
    rng = random.Random(seed)
    n_nodes = 3
    nodes = [{"id": f"n{u}", "resources": rng.choice([3, 4, 5]),
              "speedup": rng.choice([1.0, 1.5, 2.0]),
              "availability": rng.choice([0.97, 0.99, 1.0])} for u in range(n_nodes)]
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": rng.uniform(0.002, 0.03),
              "availability": rng.choice([0.98, 1.0]), "cost": rng.choice([0.0, 0.002])}
             for u in range(n_nodes) for v in range(u + 1, n_nodes)]
    middle = rng.choice([2, 3])
    cap = 3 if middle == 2 else 2
    ops = [{"id": "src", "service_rate": rng.uniform(60, 120), "candidates": ["n0"]}]
    for i in range(1, middle + 1):
        ops.append({"id": f"op{i}", "service_rate": rng.uniform(22, 70),
                    "max_replicas": cap, "cost": rng.choice([1, 2])})
    ops.append({"id": "sink", "latency": 0.004, "candidates": [f"n{n_nodes - 1}"]})
    ids = [o["id"] for o in ops]
    streams = [{"from": a, "to": b, "rate": rng.uniform(20, 50),
                "tuple_size": rng.choice([10, 100])} for a, b in itertools.pairwise(ids)]
    if rng.random() < 0.5:
        streams.append({"from": "src", "to": "op2", "rate": 5, "tuple_size": 50})
    weights = {t: rng.choice([0.0, 0.5, 1.0]) for t in
               ("response_time", "availability", "cost", "network")}
    if not any(weights.values()):
        weights["response_time"] = 1.0
    objective = Objective.model_validate({"weights": weights,
                                          "network_metric": METRICS[seed % 3]})
    return Instance(make_app({"name": f"r{seed}", "operators": ops, "streams": streams}),
                    make_infra({"name": "i", "nodes": nodes, "links": links}), objective)




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


def spread_instance(seed: int) -> Instance:
    """3 nodes of 2 slots, operators needing 2-3 replicas (k = 3): an optimum must spread
    replicas over nodes, which the random battery above rarely forces."""
    rng = random.Random(1000 + seed)
    nodes = [{"id": f"n{u}", "resources": 2, "speedup": rng.choice([1.0, 1.5]),
              "availability": rng.choice([0.98, 0.995, 1.0])} for u in range(3)]
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": rng.uniform(0.002, 0.02),
              "cost": rng.choice([0.0, 0.001])}
             for u in range(3) for v in range(u + 1, 3)]
    ops = [{"id": "src", "service_rate": 500, "candidates": ["n0"]},
           {"id": "heavy", "service_rate": rng.uniform(21, 30), "max_replicas": 3},
           {"id": "light", "service_rate": rng.uniform(45, 70), "max_replicas": 3},
           {"id": "sink", "latency": 0.002, "candidates": ["n2"]}]
    streams = [{"from": a, "to": b, "rate": 50, "tuple_size": 100}
               for a, b in itertools.pairwise([o["id"] for o in ops])]
    weights = [{"response_time": 1.0}, {"response_time": 1.0, "cost": 1.0},
               {"response_time": 0.5, "availability": 0.5, "network": 1.0}][seed % 3]
    return Instance(make_app({"name": f"spread{seed}", "operators": ops,
                              "streams": streams}),
                    make_infra({"name": "three", "nodes": nodes, "links": links}),
                    Objective.model_validate({"weights": weights}))


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

    from .conftest import ROOT

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

    from .conftest import ROOT

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
