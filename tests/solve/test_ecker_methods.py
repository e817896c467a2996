"""Ecker et al. heuristics: feasible, never better than brute force on s(x), seeded, cyclic."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from streamplace.cli.app import app as cli
from streamplace.model.evaluate import evaluate
from streamplace.model.graph import build_graph
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method
from streamplace.solve.placement import replica_count

from ..conftest import best_feasible, heuristic_plans, make_app, make_infra
from ..support.instances import random_instance

METHODS = ("hill-climbing", "ant-system", "hybrid")


def best_score(instance: Instance) -> float | None:
    """Brute force over every placement with the methods' replica counts."""
    rates = build_graph(instance.app).input_rates
    return best_feasible(instance, lambda op: [replica_count(op, rates[op.id])],
                         lambda ev: ev.ecker.score, model="ecker")


@pytest.mark.parametrize("seed", range(6))
def test_feasible_and_never_better_than_brute_force(seed):
    instance = random_instance(seed)
    optimum = best_score(instance)
    options = SolveOptions(seed=seed, params={"work": 3000})
    for name, result, ev in heuristic_plans(METHODS, instance, options):
        assert ev.ecker.score == pytest.approx(result.solver["score"])  # one scoring
        assert optimum is not None and ev.ecker.score >= optimum - 1e-12, name


def test_same_seed_and_work_same_plan_and_a_clock_cut_says_so():
    """A work limit ends the search at the same point on any machine, however busy; a run
    the clock ended says so and names the way to make it reproducible."""
    instance = random_instance(3)
    for name in METHODS:
        options = SolveOptions(seed=5, params={"work": 4000})
        first = get_method(name).solve(instance, options)
        second = get_method(name).solve(instance, options)
        assert first.plan.placement == second.plan.placement, name
        assert first.solver["work"] == second.solver["work"] <= 4000 + 50, name
        assert "clock" not in first.message, name
    large = _ecker_instance()
    for name in METHODS:
        # a limit that has always passed: every phase ends by the clock, on any machine
        cut = get_method(name).solve(large, SolveOptions(seed=5, time_limit=1e-9))
        assert cut.status == SolveStatus.FEASIBLE, cut.message
        assert "the clock ended the search" in cut.message and "work=N" in cut.message


def _ecker_instance() -> Instance:
    """200 operations (about 300 instances) on 40 workers: seconds of climbing."""
    from streamplace.model.topologies import ecker_topology, ecker_workers

    return Instance(make_app(ecker_topology(1, operations=200, parallelism=(1, 2),
                                            duplicate=False,
                                            demand={"cpu": 0.05, "memory": 64.0})),
                    make_infra(ecker_workers(40)))


def test_cyclic_topology_is_placed_and_evaluated(tmp_path):
    app_ = make_app({"name": "loop", "operators": [
        {"id": "src", "candidates": ["a"]}, {"id": "x"}, {"id": "y"},
        {"id": "out", "candidates": ["b"]}],
        "streams": [{"from": "src", "to": "x", "rate": 10}, {"from": "x", "to": "y", "rate": 10},
                    {"from": "y", "to": "x", "rate": 2}, {"from": "y", "to": "out", "rate": 8}]})
    infra = make_infra({"name": "i", "nodes": [{"id": u, "resources": 10} for u in "abc"],
                        "links": [{"from": "a", "to": "b", "delay": 0.01}]})
    for name in METHODS:
        result = get_method(name).solve(Instance(app_, infra), SolveOptions(time_limit=1))
        assert result.status == SolveStatus.FEASIBLE, result.message
        ev = evaluate(app_, infra, result.plan)
        assert any("feedback arcs y -> x" in w for w in ev.warnings)
    odrp = CliRunner()
    (tmp_path / "a.yaml").write_text(
        "name: loop\noperators: [{id: p}, {id: q}]\n"
        "streams: [{from: p, to: q, rate: 1}, {from: q, to: p, rate: 1}]\n")
    (tmp_path / "i.yaml").write_text("name: i\nnodes: [{id: a}]\n")
    bad = odrp.invoke(cli, ["solve", str(tmp_path / "a.yaml"), str(tmp_path / "i.yaml")])
    assert bad.exit_code == 2 and "cycle" in bad.stderr
    ok = odrp.invoke(cli, ["solve", str(tmp_path / "a.yaml"), str(tmp_path / "i.yaml"),
                           "--method", "hill-climbing", "--time-limit", "1", "-q"])
    assert ok.exit_code == 0, ok.stderr


def test_ant_system_keeps_the_95_rule_where_hill_climbing_can():
    """200 operations on 40 workers: the ants' best breaks the 95% rule; the method then
    climbs from hill climbing's start instead of failing."""
    instance = _ecker_instance()
    result = get_method("ant-system").solve(instance, SolveOptions(seed=0,
                                                                   params={"work": 5000}))
    assert result.status == SolveStatus.FEASIBLE, result.message
    assert "95% rule" in str(result.solver["fallback"])
    ev = evaluate(instance.app, instance.infra, result.plan, instance.objective)
    assert ev.violations == []


def test_where_no_ant_keeps_the_95_rule_the_colony_yields_its_work_to_climbing():
    """The ants that have not kept the rule by 5% of the work stop, and both methods climb
    from hill climbing's start for the rest: they end within a few percent of hill climbing
    (before, they spent the limit on ants and returned the start barely climbed)."""
    instance = _ecker_instance()
    options = SolveOptions(seed=0, params={"work": 20_000})  # climbs differ by seed: 10%
    climbed = get_method("hill-climbing").solve(instance, options)
    start = climbed.solver["start_score"]
    for name in ("ant-system", "hybrid"):
        result = get_method(name).solve(instance, options)
        assert result.status == SolveStatus.FEASIBLE, result.message
        one_ant = 320  # instances of the instance: an ant costs one unit per instance
        assert result.solver["ants_work"] <= 0.05 * 20_000 + one_ant, name
        assert result.solver["fallback"], name
        assert result.evaluation.ecker.score < 0.8 * start, name  # well climbed
        assert result.evaluation.ecker.score <= 1.1 * climbed.evaluation.ecker.score, name
