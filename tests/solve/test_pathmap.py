"""Path mapping over bi-modal links (Asaduzzaman and Maheswaran): path-exact is the brute-force
optimum under the sec. 4.3 comparison, heuristics are feasible and between the bound and the
optimum, and the evaluator checks routes, bandwidths and uplinks."""

from __future__ import annotations

import itertools
import json

import pytest
from typer.testing import CliRunner

from streamplace.cli.app import app
from streamplace.model.evaluate import evaluate
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method

from ..conftest import heuristic_plans, make_app, make_infra, make_plan, sample
from ..support.instances import bimodal_instance, every_path_plan, rank

HEURISTICS = ("least-cost-map", "annealed-least-cost-map", "random-neighbor")
runner = CliRunner()


@pytest.mark.parametrize(("seed", "free_links"), [(s, False) for s in range(8)]
                         + [(s, True) for s in range(4)])
def test_path_exact_is_the_brute_force_optimum(seed, free_links):
    instance = bimodal_instance(seed, free_links=free_links)
    every = every_path_plan(instance)
    result = get_method("path-exact").solve(instance, SolveOptions())
    if not every:
        assert result.status == SolveStatus.INFEASIBLE
        return
    assert result.status == SolveStatus.OPTIMAL
    ev = result.evaluation
    mine = (ev.paths.cost, ev.paths.load_balance, ev.paths.dedicated_hops,
            ev.paths.public_hops)
    assert mine[0] == pytest.approx(min(f[0] for f in every), rel=1e-9, abs=1e-12)
    assert rank(*mine) == min(rank(*f[:4]) for f in every)  # the tie-breaks too
    assert result.solver["lower_bound"] <= mine[0] + 1e-12


@pytest.mark.parametrize("seed", range(8))
def test_heuristics_are_feasible_bounded_and_never_beat_the_optimum(seed):
    instance = bimodal_instance(seed, nodes=12, services=5)
    best = get_method("path-exact").solve(instance, SolveOptions())
    for name, result, ev in heuristic_plans(HEURISTICS, instance, SolveOptions(seed=seed),
                                            required=best.status != SolveStatus.INFEASIBLE):
        assert best.status == SolveStatus.OPTIMAL
        assert ev.paths.cost >= best.objective - 1e-12
        assert result.bound <= ev.paths.cost + 1e-12  # the relaxed multi-stage bound
        again = get_method(name).solve(instance, SolveOptions(seed=seed))
        assert again.plan.placement == result.plan.placement
        assert again.plan.routes == result.plan.routes


def test_least_cost_map_routes_over_dedicated_links_through_a_forwarding_router():
    instance = Instance(make_app({"name": "v", "operators": [
        {"id": "s", "candidates": ["a"]}, {"id": "f", "candidates": ["c"]},
        {"id": "d", "candidates": ["c"]}], "streams": [
        {"from": "s", "to": "f", "rate": 10, "tuple_size": 100},
        {"from": "f", "to": "d", "rate": 10, "tuple_size": 50}]}),
        make_infra({"name": "line", "routing": "mesh",
                    "defaults": {"link": {"delay": 0.1, "cost": 1.0}},
                    "nodes": [{"id": "a"}, {"id": "r", "role": "router"}, {"id": "c"}],
                    "links": [{"from": "a", "to": "r", "cost": 0.01, "delay": 0.01},
                              {"from": "r", "to": "c", "cost": 0.01, "delay": 0.01}]}))
    for name in ("path-exact", *HEURISTICS):
        result = get_method(name).solve(instance, SolveOptions())
        assert result.status.has_plan, result.message
        assert [r.path for r in result.plan.routes] == [["a", "r", "c"]]
        assert result.objective == pytest.approx(1000 * 0.02)
        # the route's delay, not the public default's, is what the ODRP metrics see
        assert result.evaluation.odrp.streams[0].delay == pytest.approx(0.02)


def test_evaluator_flags_bandwidth_uplink_and_mixed_routes():
    app_ = make_app({"name": "v", "operators": [
        {"id": "s", "candidates": ["a"]}, {"id": "d", "candidates": ["c"]}],
        "streams": [{"from": "s", "to": "d", "rate": 10, "tuple_size": 100}]})
    infra = make_infra({"name": "x", "routing": "mesh", "nodes": [
        {"id": "a", "bandwidth": 500}, {"id": "b"}, {"id": "c"}], "links": [
        {"from": "a", "to": "b", "bandwidth": 800},
        {"from": "b", "to": "c", "kind": "opportunistic"}]})

    def violations(path):
        plan = make_plan({"placement": {"s": {"a": 1}, "d": {"c": 1}}, "routes": [
            {"stream": ["s", "d"], "from": "a", "to": "c", "path": path}]}, app_, infra)
        return {v.constraint for v in evaluate(app_, infra, plan).violations}

    assert violations(["a", "b", "c"]) == {"route.mixed"}
    assert "uplink" in violations(["a", "c"])  # public hop: 1000 B/s over a 500 B/s uplink
    infra_ok = make_infra({"name": "y", "routing": "mesh", "nodes": [
        {"id": "a"}, {"id": "b"}, {"id": "c"}], "links": [
        {"from": "a", "to": "b", "bandwidth": 800}, {"from": "b", "to": "c"}]})
    plan = make_plan({"placement": {"s": {"a": 1}, "d": {"c": 1}}, "routes": [
        {"stream": ["s", "d"], "from": "a", "to": "c", "path": ["a", "b", "c"]}]},
        app_, infra_ok)
    found = evaluate(app_, infra_ok, plan)
    assert [v.constraint for v in found.violations] == ["bandwidth"]
    assert found.paths.forwarding_hops == 1 and found.paths.dedicated_hops == 1


def test_a_dag_is_not_a_path_task(tmp_path):
    out = runner.invoke(app, ["solve", sample("edge-cloud", "application.yaml"),
                              sample("edge-cloud", "infrastructure.yaml"),
                              "--method", "least-cost-map"])
    assert out.exit_code == 2
    assert "chain" in out.output


def test_max_null_limits_forwarding_only_nodes():
    instance = Instance(make_app({"name": "v", "operators": [
        {"id": "s", "candidates": ["a"]}, {"id": "d", "candidates": ["c"]}],
        "streams": [{"from": "s", "to": "d", "rate": 1}]}),
        make_infra({"name": "line", "routing": "shortest-path", "nodes": [
            {"id": "a"}, {"id": "r1", "role": "router"}, {"id": "r2", "role": "router"},
            {"id": "r3", "role": "router"}, {"id": "c"}], "links": [
            {"from": x, "to": y, "delay": 0.01}
            for x, y in itertools.pairwise(["a", "r1", "r2", "r3", "c"])]}))
    short = SolveOptions(params={"max_null": 2})
    assert get_method("path-exact").solve(instance, short).status == SolveStatus.INFEASIBLE
    assert get_method("least-cost-map").solve(instance, short).status == SolveStatus.ERROR
    long = SolveOptions(params={"max_null": 3})
    for name in ("path-exact", *HEURISTICS):
        result = get_method(name).solve(instance, long)
        assert result.status.has_plan, name
        assert [r.path for r in result.plan.routes] == [["a", "r1", "r2", "r3", "c"]]
        assert result.evaluation.paths.forwarding_hops == 3


def test_validate_lists_the_route_constraints_of_a_path_plan(tmp_path):
    import yaml

    app_doc = {"name": "v", "operators": [{"id": "s", "candidates": ["a"]},
                                          {"id": "d", "candidates": ["c"]}],
               "streams": [{"from": "s", "to": "d", "rate": 10, "tuple_size": 100}]}
    infra_doc = {"name": "x", "routing": "mesh", "nodes": [{"id": "a"}, {"id": "b"},
                                                           {"id": "c"}],
                 "links": [{"from": "a", "to": "b", "bandwidth": 800},
                           {"from": "b", "to": "c"}]}
    plan_doc = {"placement": {"s": {"a": 1}, "d": {"c": 1}}, "routes": [
        {"stream": ["s", "d"], "from": "a", "to": "c", "path": ["a", "b", "c"]}]}
    files = []
    for name, doc in (("app", app_doc), ("infra", infra_doc), ("plan", plan_doc)):
        files.append(str(tmp_path / f"{name}.yaml"))
        (tmp_path / f"{name}.yaml").write_text(yaml.safe_dump(doc))
    out = runner.invoke(app, ["validate", *files, "--json"])
    assert out.exit_code == 1
    checks = {c["name"]: c["passed"] for c in json.loads(out.stdout)["checks"]}
    assert checks["bandwidth"] is False
    assert checks["uplink"] is True and checks["route.mixed"] is True
