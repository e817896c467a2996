"""odrp's local search: never worse than its start, feasible as the evaluator sees it,
the same plan for the same seed and work, and the exact answers unchanged with it on or
off (brute force on tiny instances)."""

from __future__ import annotations

import pytest

from streamplace.io.readers import read_instance, read_objective
from streamplace.model.evaluate import evaluate
from streamplace.solve import Instance, SolveOptions, get_method
from streamplace.solve.budget import Budget
from streamplace.solve.odrp.data import prepare
from streamplace.solve.odrp.methods import _baseline_start
from streamplace.solve.odrp.primal.local_search import improve

from ..conftest import assert_exact, best_utility, sample
from ..support.instances import random_instance, spread_instance


def debs() -> Instance:
    app, infra = read_instance(sample("debs2015", "application.yaml"),
                               sample("debs2015", "infrastructure.yaml"))
    return Instance(app, infra, read_objective(sample("debs2015", "objective-balanced.yaml")))


@pytest.mark.parametrize("make", [debs, *(lambda s=s: random_instance(s) for s in range(6)),
                                  lambda: spread_instance(0)])
def test_the_search_never_returns_a_plan_worse_than_its_start(make) -> None:  # type: ignore[no-untyped-def]
    instance = make()
    data = prepare(instance)
    start = _baseline_start(instance, data)
    assert start is not None
    before = evaluate(instance.app, instance.infra, start, instance.objective)
    found = improve(data, start, Budget(None, work_limit=20_000), seed=1)
    after = evaluate(instance.app, instance.infra, found.plan, instance.objective)
    assert after.violations == []
    assert after.utility.value == pytest.approx(found.value, abs=1e-9)
    assert found.start_value == pytest.approx(before.utility.value, abs=1e-9)
    assert found.value >= found.start_value - 1e-12
    again = improve(data, start, Budget(None, work_limit=20_000), seed=1)
    assert again.plan.placement == found.plan.placement  # same seed, same work: same plan


def test_the_search_moves_the_debs_start_towards_the_optimum() -> None:
    instance = debs()
    data = prepare(instance)
    start = _baseline_start(instance, data)
    found = improve(data, start, Budget(None, work_limit=50_000), seed=0)
    optimum = get_method("odrp").solve(instance, SolveOptions(gap=0.0)).objective
    assert found.start_value < found.value <= optimum + 1e-9


@pytest.mark.parametrize("seed", range(8))
def test_exact_answers_are_the_same_with_the_search_on_or_off(seed: int) -> None:
    instance = random_instance(seed)
    expected = best_utility(instance)
    for search in ("on", "off"):
        result = get_method("odrp").solve(instance, SolveOptions(
            gap=0.0, params={"search": search}))
        assert_exact(result, expected, f"search={search}")
        if search == "on" and result.plan is not None:
            # the search ran beside the solver and said so; how far it got before the
            # solver's proof stopped it depends on the machine, so no count is asserted
            assert result.solver["search_moves"] >= 0


@pytest.mark.parametrize("make", [debs, *(lambda s=s: random_instance(s) for s in (1, 4))])
def test_large_neighbourhoods_never_return_a_plan_worse_than_their_start(make) -> None:  # type: ignore[no-untyped-def]
    from streamplace.solve.odrp.primal.lns import lns

    instance = make()
    data = prepare(instance)
    start = _baseline_start(instance, data)
    before = evaluate(instance.app, instance.infra, start, instance.objective).utility.value
    found = lns(data, start, Budget(None), seed=2, max_rounds=6)
    after = evaluate(instance.app, instance.infra, found.plan, instance.objective)
    assert found.rounds == 6
    assert after.violations == []
    assert after.utility.value == pytest.approx(found.value, abs=1e-9)
    assert found.value >= before - 1e-12
    optimum = get_method("odrp").solve(instance, SolveOptions(gap=0.0)).objective
    assert found.value <= optimum + 1e-9  # a sub-program's plan is a plan of the whole


def test_the_search_beside_the_solver_reports_what_it_did_and_never_claims_a_proof() -> None:
    instance = debs()
    result = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
    assert result.status.value == "optimal"  # the solver's proof, as without the search
    assert result.solver["search_moves"] >= 0 and "search_F" in result.solver
    off = get_method("odrp").solve(instance, SolveOptions(gap=0.0, params={"search": "off"}))
    assert off.objective == pytest.approx(result.objective, abs=1e-9)
    assert "search_moves" not in off.solver


def test_the_search_empties_a_node_no_single_move_would_leave() -> None:
    """Two operators share an unreliable node; a reliable one holds both. Moving either
    alone keeps the unreliable node in use and adds another (availability falls), so only
    emptying the node at once improves F: the climb must find it without a kick."""
    import random

    from streamplace.model.evaluate.scorer import one_replica_changes
    from streamplace.model.objective import Objective
    from streamplace.model.plan import Plan
    from streamplace.solve.odrp.primal.local_search import _Search

    from ..conftest import make_app, make_infra

    nodes = [{"id": "home", "resources": 2}, {"id": "shaky", "resources": 2,
                                              "availability": 0.9},
             {"id": "steady", "resources": 2, "availability": 0.9999}]
    links = [{"from": u, "to": v, "delay": 0.01}
             for u, v in (("home", "shaky"), ("home", "steady"), ("shaky", "steady"))]
    ops = [{"id": "src", "service_rate": 100, "candidates": ["home"]},
           {"id": "a", "service_rate": 50}, {"id": "b", "service_rate": 50},
           {"id": "out", "latency": 0.001, "candidates": ["home"]}]
    streams = [{"from": x, "to": y, "rate": 10, "tuple_size": 100}
               for x, y in (("src", "a"), ("a", "b"), ("b", "out"))]
    instance = Instance(make_app({"name": "shaky", "operators": ops, "streams": streams}),
                        make_infra({"name": "three", "nodes": nodes, "links": links}),
                        Objective.model_validate({"weights": {"availability": 1.0}}))
    data = prepare(instance)
    start = Plan.model_validate({"placement": {"src": {"home": 1}, "a": {"shaky": 1},
                                               "b": {"shaky": 1}, "out": {"home": 1}}})
    scorer = data.scorer(start)
    before = scorer.score()
    for op in ("a", "b"):  # a local optimum of the single moves
        current = scorer.placement[op]
        for _words, multiset in one_replica_changes(current, data.cands[op], add=False,
                                                    remove=False):
            scorer.change(op, multiset)
            assert not (scorer.feasible() and scorer.value() > before + 1e-12)
            scorer.change(op, current)
    search = _Search(data, scorer, Budget(None, work_limit=1_000), random.Random(0))
    assert search.climb() > before + 1e-3
    assert all("shaky" not in scorer.placement[op] for op in ("a", "b"))
    assert scorer.placement["a"] == scorer.placement["b"] == {"steady": 1}
