"""The instance families bench/odrp.py reports on (bench/families.py), at sizes brute force
covers: on each family odrp proves the brute-forced optimum under the bench's objective,
so a figure the bench prints for a family rests on a model that is exact there too."""

from __future__ import annotations

import sys

import pytest

from streamplace.model.objective import Objective
from streamplace.solve import Instance, SolveOptions, get_method

from .conftest import ROOT, assert_exact, best_utility

sys.path.insert(0, str(ROOT / "bench"))

BENCH_OBJECTIVE = {"weights": {"response_time": 1, "availability": 1, "cost": 1, "network": 1},
                   "network_metric": "network_usage"}


def tiny(family: str, seed: int):
    import families

    if family == "routed":  # Abilene: 11 PoPs, 3 of them compute, the rest routers
        return families.routed("topozoo/Abilene", 3, 5, 2, seed)
    n_nodes, n_ops = (6, 6) if family == "spread-pins" else (5, 4)
    return families.GENERATED[family](n_nodes, n_ops, 2, seed)


@pytest.mark.parametrize("family", ["uniform", "spread-pins", "heterogeneous", "routed"])
@pytest.mark.parametrize("seed", [1, 2])
def test_odrp_proves_the_brute_forced_optimum_on_every_bench_family(family, seed):
    app, infra = tiny(family, seed)
    instance = Instance(app, infra, Objective.model_validate(BENCH_OBJECTIVE))
    result = get_method("odrp").solve(instance, SolveOptions(gap=0.0, time_limit=300))
    assert assert_exact(result, best_utility(instance), (family, seed))
    routers = {n.id for n in infra.nodes if n.role == "router"}
    assert family != "routed" or routers, "the routed family lost its routers"
    used = {u for reps in result.plan.placement.values() for u in reps}
    assert not used & routers


@pytest.mark.parametrize("family", ["uniform", "spread-pins", "heterogeneous", "routed"])
def test_odrp_objective_coefficients_stay_where_rounding_cannot_swamp_them(family):
    """On the tiny routed instances every candidate node is pinned, so availability is the
    same for every plan; its derived bounds still differed in their last bit, and odrp's
    model got slopes of 1e15 on it: HiGHS then found its optimal LP 'unknown' (an
    objective error of 1e-4 against 1e-7), and F lost its last four digits."""
    from streamplace.solve.budget import Budget
    from streamplace.solve.odrp.compact import build_compact
    from streamplace.solve.odrp.data import prepare

    for seed in (1, 2):
        app, infra = tiny(family, seed)
        data = prepare(Instance(app, infra, Objective.model_validate(BENCH_OBJECTIVE)))
        costs = build_compact(data, Budget(None)).model.cost
        assert max(abs(c) for c in costs) < 1e3, (family, seed)


def test_the_families_differ_where_the_bench_says_they_do():
    """Spread-out pins: two sources and several sinks, each on its own node; heterogeneous:
    tuple sizes, resources and speed-ups vary; routed: shortest-path routes over routers."""
    import families

    app, _ = families.spread_pins(30, 20, 4, 1)
    pinned = {op.id: op.candidates for op in app.operators if op.candidates}
    assert sum(op.startswith("sink") for op in pinned) >= 2
    assert sum(op.startswith("source") for op in pinned) == 2
    assert len({tuple(c) for c in pinned.values()}) == len(pinned)
    app, infra = families.heterogeneous(30, 20, 4, 1)
    assert len({s.tuple_size for s in app.streams}) > 1
    assert {n.speedup for n in infra.nodes} == {1.0, 2.0}
    _, infra = families.routed("topozoo/Geant2012", 15, 20, 4, 1)
    assert infra.routing == "shortest-path"
    assert sum(n.role != "router" for n in infra.nodes) == 15


def test_the_pattern_bound_never_falls_below_the_brute_forced_optimum():
    """bench/pattern_bound.py's LP (what each node holds as columns, capped transport cuts
    on the network shares and the delays) is a bound on F once no column enters, on every
    bench family. A heuristic's plan starts the columns: the optimum's would make the bound
    hold whatever the pricing did, so most starts must lie below the optimum."""
    import pattern_bound

    from streamplace.model.evaluate import evaluate
    from streamplace.solve.odrp.data import prepare

    below = 0
    for family in ("uniform", "spread-pins", "heterogeneous", "routed"):
        for seed in (1, 2):
            app, infra = tiny(family, seed)
            instance = Instance(app, infra, Objective.model_validate(BENCH_OBJECTIVE))
            best = best_utility(instance)
            plan = get_method("resource-aware").solve(instance, SolveOptions()).plan
            assert best is not None and plan is not None
            below += evaluate(app, infra, plan, instance.objective).utility.value < best - 1e-6
            master = pattern_bound.build_master(prepare(instance), delays=True)
            found = pattern_bound.pattern_bound(master, plan.model_dump()["placement"], 500)
            assert found is not None and found.converged, (family, seed)
            assert found.bound >= best - 1e-7, (family, seed, found.bound, best)
    assert below >= 6  # 7 of the 8 measured


def test_the_capacity_lagrangian_never_falls_below_the_brute_forced_optimum():
    """bench/capacity_lagrangian.py's bound, each priced program's proven bound plus the
    prices times the capacities, holds on every bench family, and it converges."""
    import capacity_lagrangian

    for family in ("uniform", "spread-pins", "heterogeneous", "routed"):
        app, infra = tiny(family, 1)
        instance = Instance(app, infra, Objective.model_validate(BENCH_OBJECTIVE))
        best = best_utility(instance)
        dual = capacity_lagrangian.lagrangian_dual(instance, 60.0, 200, lambda _line: None)
        assert best is not None and dual.converged, family
        assert dual.bound >= best - 1e-7, (family, dual.bound, best)
        assert dual.mixed <= dual.bound + 1e-9


def test_highs_bounds_the_optimum_whichever_method_solves_its_first_lp():
    """bench/first_lp.py's HiGHS runs: by either method of the first LP, its first bound
    and its last hold on every bench family, and the last proves the optimum."""
    import first_lp

    from streamplace.solve.odrp.compact import build_compact
    from streamplace.solve.odrp.data import prepare

    for family in ("uniform", "spread-pins", "heterogeneous", "routed"):
        app, infra = tiny(family, 1)
        instance = Instance(app, infra, Objective.model_validate(BENCH_OBJECTIVE))
        best = best_utility(instance)
        assert best is not None, family
        model = build_compact(prepare(instance), None, "all").model
        for method in first_lp.METHODS:
            seconds, first, end = first_lp.first_lp(model, method, 60.0)
            assert seconds is not None and first is not None and end is not None
            assert first >= end - 1e-9 and end >= best - 1e-7, (family, method, end, best)
            assert end == pytest.approx(best, abs=1e-5), (family, method)
