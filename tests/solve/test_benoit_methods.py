"""Benoit ILP against brute force on tiny trees; heuristics feasible and never below it."""

from __future__ import annotations

import random

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.generate import benoit_instance
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method, methods

from ..conftest import heuristic_plans, make_app, make_infra, make_plan
from ..support.instances import cheapest_platform, tiny_tree, two_operator_tree

HEURISTICS = [m.name for m in methods() if m.model == "benoit" and not m.exact]


@pytest.mark.parametrize("constr", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_ilp_matches_brute_force(seed, constr):
    instance = tiny_tree(seed, constr)
    expected = cheapest_platform(instance)
    result = get_method("benoit").solve(instance, SolveOptions(gap=0.0))
    if expected is None:
        assert result.status == SolveStatus.INFEASIBLE, result.message
        return
    assert result.status == SolveStatus.OPTIMAL, result.message
    assert result.objective == pytest.approx(expected)
    assert evaluate(instance.app, instance.infra, result.plan).violations == []


@pytest.mark.parametrize("seed", range(8))
def test_heuristics_are_feasible_and_never_beat_the_optimum(seed):
    instance = tiny_tree(seed, constr=True)
    optimum = get_method("benoit").solve(instance, SolveOptions(gap=0.0))
    for name, result, _ in heuristic_plans(HEURISTICS, instance, SolveOptions(seed=seed)):
        assert optimum.status == SolveStatus.OPTIMAL
        assert result.objective >= optimum.objective - 1e-9, name


def test_heuristics_are_reproducible():
    app, infra = benoit_instance(25, alpha=1.7, seed=4)
    instance = Instance(make_app(app), make_infra(infra))
    for name in HEURISTICS:
        first = get_method(name).solve(instance, SolveOptions(seed=7))
        second = get_method(name).solve(instance, SolveOptions(seed=7))
        assert (first.plan.placement if first.plan else first.message) == \
            (second.plan.placement if second.plan else second.message)


def test_thirty_operator_tree_is_proven_optimal():
    """The paper's CPLEX could not load its ILP for 30 operators."""
    app, infra = benoit_instance(30, alpha=0.9, seed=3)
    instance = Instance(make_app(app), make_infra(infra))
    result = get_method("benoit").solve(instance, SolveOptions(time_limit=120))
    assert result.status == SolveStatus.OPTIMAL
    assert evaluate(instance.app, instance.infra, result.plan).violations == []
    for name in HEURISTICS:
        other = get_method(name).solve(instance, SolveOptions())
        assert other.objective is None or other.objective >= result.objective


def test_heuristics_need_a_catalog():
    from streamplace.errors import InputError

    instance = tiny_tree(0, constr=False)
    with pytest.raises(InputError, match="has no catalog"):
        get_method("comp-greedy").solve(instance, SolveOptions())


def test_an_operator_too_big_alone_can_still_fit_with_its_neighbours():
    """Its edges need more card than any class has, unless both ends share a processor."""
    instance = two_operator_tree(1e9, leaf_output=5e8, card=1e8)
    result = get_method("benoit").solve(instance, SolveOptions())
    assert result.status == SolveStatus.OPTIMAL and result.objective == 1
    assert get_method("comp-greedy").solve(instance, SolveOptions()).objective == 1
    failed = get_method("subtree-bottom-up").solve(instance, SolveOptions())
    assert failed.plan is None and "fits no processor" in failed.message


def test_a_tree_edge_a_billion_times_thinner_than_the_card_is_solved():
    """Normalised, its card coefficient is below what HiGHS keeps (1e-9): HiGHS drops it
    with a warning, which is no rejection of the model."""
    instance = two_operator_tree(6e9, leaf_output=1, card=1e9)
    result = get_method("benoit").solve(instance, SolveOptions())
    assert result.status == SolveStatus.OPTIMAL, result.message
    assert result.objective == 2  # each operator needs 60% of the one class


def test_cli_tree_methods(tmp_path):
    import yaml
    from typer.testing import CliRunner

    from streamplace.cli.app import app as cli

    from ..conftest import sample

    runner = CliRunner()
    files = [sample("benoit-tree", "application.yaml"),
             sample("benoit-tree", "infrastructure.yaml")]
    out = tmp_path / "plan.yaml"
    result = runner.invoke(cli, ["solve", *files, "--method", "benoit", "-o", str(out)])
    assert result.exit_code == 0, result.stderr
    assert "bought platform" in result.stderr and "processor card (2)" in result.stderr
    plan = yaml.safe_load(out.read_text())
    assert plan["status"] == "optimal" and plan["purchased"] and plan["downloads"]
    assert runner.invoke(cli, ["validate", *files, str(out)]).exit_code == 0
    # a heuristic that cannot build a plan says where, and exits 3 without a plan
    app_file = tmp_path / "big.yaml"
    app_file.write_text("name: big\nthroughput: 1\noperators:\n"
                        "  - {id: a, work: 1e12}\n")
    result = runner.invoke(cli, ["solve", str(app_file), files[1], "--method", "comp-greedy"])
    assert result.exit_code == 3
    assert "comp-greedy failed: operator a cannot run at the required throughput" in \
        result.stderr
    result = runner.invoke(cli, ["solve", str(app_file), files[1], "--method", "benoit"])
    assert result.exit_code == 1 and "operator a needs 1e+12 operations/s" in result.stderr


def test_processor_names_with_separators_work_with_lazy_link_rows():
    """Two cheap racks could hold the chain between them, but their link is too thin for the
    cut edge: the first solution overloads it, a link row is added (read from the
    violation's ids, never from its text, so " - " in a name is harmless), and the proven
    optimum is the big node alone."""
    infra = make_infra({
        "name": "racks",
        "nodes": [{"id": "rack - 1", "speed": 12, "cost": 1},
                  {"id": "rack - 2", "speed": 12, "cost": 1},
                  {"id": "big", "speed": 100, "cost": 5}],
        "links": [{"from": "rack - 1", "to": "rack - 2", "bandwidth": 5}]})
    app = make_app({"name": "chain", "throughput": 1, "operators": [
        {"id": "a", "work": 6, "output_size": 10}, {"id": "b", "work": 6, "output_size": 10},
        {"id": "c", "work": 6, "output_size": 10}],
        "streams": [{"from": "a", "to": "b"}, {"from": "b", "to": "c"}]})
    instance = Instance(app, infra)
    result = get_method("benoit").solve(instance, SolveOptions(gap=0.0))
    assert result.status == SolveStatus.OPTIMAL, result.message
    assert result.objective == 5 and result.solver["rounds"] >= 2
    assert result.plan.placement == {"a": {"big": 1}, "b": {"big": 1}, "c": {"big": 1}}
    split = make_plan({"placement": {"a": ["rack - 1"], "b": ["rack - 1"], "c": ["rack - 2"]}},
                      app, infra)
    [violation] = evaluate(app, infra, split).violations
    assert violation.key == ("benoit.processor_link", "rack - 1", "rack - 2")


def split_tree(seed: int, link_limit: bool) -> Instance:
    """Given processors none of which can run the whole tree (each has 45-75% of the work's
    speed), joined by links that, with ``link_limit``, carry only the smaller half of the
    operators' outputs: the optimum needs two or more processors, and where the links bind
    it differs from the optimum without them."""
    rng = random.Random(500 + seed)
    app, infra = benoit_instance(4, alpha=1.7, n_types=3, n_servers=2, seed=seed)
    total = sum(o["work"] for o in app["operators"])
    del infra["catalog"]
    infra["nodes"] += [{"id": f"q{j}", "speed": total * rng.uniform(0.45, 0.75),
                        "bandwidth": 1e10, "cost": rng.choice([3, 4, 5])} for j in range(4)]
    if link_limit:
        sizes = sorted(o["output_size"] for o in app["operators"])
        infra["defaults"]["link"]["bandwidth"] = sizes[len(sizes) // 2] * 1.01
    return Instance(make_app(app), make_infra(infra))


def test_split_trees_and_binding_links_match_brute_force():
    binding = 0
    for seed in range(10):
        costs = []
        for link_limit in (True, False):
            instance = split_tree(seed, link_limit)
            expected = cheapest_platform(instance)
            result = get_method("benoit").solve(instance, SolveOptions(gap=0.0))
            if expected is None:
                assert result.status == SolveStatus.INFEASIBLE, (seed, result.message)
                costs.append(None)
                continue
            assert result.status == SolveStatus.OPTIMAL, (seed, result.message)
            assert result.objective == pytest.approx(expected), (seed, link_limit)
            hosts = {u for reps in result.plan.placement.values() for u in reps}
            assert len(hosts) >= 2, "no processor runs the whole tree"
            assert evaluate(instance.app, instance.infra, result.plan).violations == []
            costs.append(expected)
        if costs[0] is None or (costs[1] is not None and costs[0] > costs[1]):
            binding += 1  # the link rows change the answer
    assert binding >= 3


def test_stopped_at_once_it_answers_with_the_cheapest_heuristic_plan_that_holds():
    """On this tree the cheapest heuristic plans (comp-greedy, object-greedy) overload a
    processor link (5); stopped before HiGHS starts, benoit still has the cheapest valid one."""
    app, infra = benoit_instance(60, alpha=1.5, seed=1)
    instance = Instance(make_app(app), make_infra(infra))
    valid = [r.objective for r in (get_method(h).solve(instance, SolveOptions(seed=0))
                                   for h in HEURISTICS) if r.objective is not None]
    options = SolveOptions(time_limit=60)
    options.stop.set()
    result = get_method("benoit").solve(instance, options)
    assert result.status == SolveStatus.INTERRUPTED
    assert result.plan is not None
    assert evaluate(instance.app, instance.infra, result.plan).violations == []
    assert result.objective == min(valid)
