"""Benoit ILP against brute force on tiny trees; heuristics feasible and never below it."""

from __future__ import annotations

import itertools
import random

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.generate import benoit_instance
from streamplace.model.plan import Plan
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method, methods
from streamplace.solve.tree_data import group_needs, handles, tree_data

from .conftest import heuristic_plans, make_app, make_infra, make_plan

HEURISTICS = [m.name for m in methods() if m.model == "benoit" and not m.exact]


def tiny_tree(seed: int, constr: bool) -> Instance:
    rng = random.Random(seed)
    n = rng.choice([3, 4, 5])
    app, infra = benoit_instance(n, alpha=rng.choice([1.5, 1.7, 1.9]), n_types=3,
                                 n_servers=2, seed=seed)
    infra["defaults"]["link"]["bandwidth"] = rng.choice([5e7, 2e8, 1e9])
    for node in infra["nodes"]:
        node["bandwidth"] = rng.choice([4e7, 1e8, 1e10])
    if constr:
        infra["catalog"] = rng.sample(infra["catalog"], 6)
    else:
        del infra["catalog"]
        infra["nodes"] += [{"id": f"q{j}", "speed": rng.choice([8e9, 2e10, 4e10]),
                            "bandwidth": rng.choice([1e8, 3e8]), "cost": rng.choice([3, 5, 8])}
                           for j in range(3)]
    return Instance(make_app(app), make_infra(infra))


def partitions(items: list[str]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for k in range(len(part)):
            yield [*part[:k], [first, *part[k]], *part[k + 1:]]
        yield [[first], *part]


def download_choices(instance: Instance, hosts: dict[str, list[str]]):
    data = tree_data(instance, need_catalog=False)
    needs = [(node, k) for node, ops in hosts.items()
             for k in sorted({k for o in ops for k in data.objects[o]})]
    for servers in itertools.product(*(data.holders[k] for _, k in needs)):
        yield [{"node": n, "object": k, "server": s}
               for (n, k), s in zip(needs, servers, strict=True)]


def brute_force(instance: Instance) -> float | None:
    data = tree_data(instance, need_catalog=False)
    best = None
    if instance.infra.catalog:
        for part in partitions(list(data.ops)):
            classes = []
            for block in part:
                need = group_needs(data, set(block))
                cls = next((c for c in data.classes if handles(c, *need)), None)
                classes.append(cls)
            if None in classes:
                continue
            cost = sum(c.cost for c in classes)
            if best is not None and cost >= best:
                continue
            hosts = {f"b{j}": block for j, block in enumerate(part)}
            for downloads in download_choices(instance, hosts):
                plan = Plan.model_validate({
                    "placement": {o: {f"b{j}": 1} for j, b in enumerate(part) for o in b},
                    "purchased": [{"id": f"b{j}", "class": c.id}
                                  for j, c in enumerate(classes)],
                    "downloads": downloads})
                if not evaluate(instance.app, instance.infra, plan).violations:
                    best = cost
                    break
        return best
    procs = [n.id for n in instance.infra.nodes if n.role == "processor"]
    for combo in itertools.product(procs, repeat=len(data.ops)):
        hosts: dict[str, list[str]] = {}
        for op, p in zip(data.ops, combo, strict=True):
            hosts.setdefault(p, []).append(op)
        cost = sum(instance.infra.node(p).cost for p in hosts)
        if best is not None and cost >= best:
            continue
        for downloads in download_choices(instance, hosts):
            plan = Plan.model_validate({"placement": {o: {p: 1} for o, p in
                                                      zip(data.ops, combo, strict=True)},
                                        "downloads": downloads})
            if not evaluate(instance.app, instance.infra, plan).violations:
                best = cost
                break
    return best


@pytest.mark.parametrize("constr", [True, False])
@pytest.mark.parametrize("seed", range(8))
def test_ilp_matches_brute_force(seed, constr):
    instance = tiny_tree(seed, constr)
    expected = brute_force(instance)
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


def two_operator_tree(work: float, leaf_output: float, card: float) -> Instance:
    """A leaf feeding the root, one server, one catalog class of cost 1 and speed 1e10."""
    app = make_app({"name": "t", "throughput": 1, "operators": [
        {"id": "root", "work": work, "output_size": 1},
        {"id": "leaf", "work": work, "output_size": leaf_output}],
        "streams": [{"from": "leaf", "to": "root"}]})
    infra = make_infra({"name": "i", "nodes": [{"id": "s", "role": "server"}],
                        "catalog": [{"id": "only", "cost": 1, "speed": 1e10,
                                     "bandwidth": card}]})
    return Instance(app, infra)


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

    from .conftest import sample

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
            expected = brute_force(instance)
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
