"""Several applications placed together (``solve APP1 APP2 ... INFRA``).

The joint optimum is checked against brute force over every application's plans at once,
with the union's use of each node summed here by hand; priority order is the baseline the
joint program must never fall below, and an instance shows it leaving an application out.
"""

from __future__ import annotations

import itertools
import random
from collections import defaultdict
from pathlib import Path

import pytest

from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.solve import SolveOptions, SolveStatus, methods
from streamplace.solve.bundle.instance import BundleInstance, evaluate_bundle
from streamplace.solve.bundle.lexicographic import levels_of, solve_lexicographic
from streamplace.solve.bundle.solve import place_in_priority_order, solve_joint

from ..conftest import make_app, make_infra, placements, run, sample


def _odrp():
    return next(m for m in methods() if (m.name, m.model) == ("odrp", "odrp"))


def _app(rng: random.Random, name: str, src: str, sink: str, weight: float) -> Application:
    ops = [{"id": "source", "service_rate": 400, "candidates": [src]},
           {"id": "work", "service_rate": rng.uniform(22, 45), "max_replicas": 2,
            "cost": rng.choice([1, 2])},
           {"id": "sink", "latency": 0.002, "candidates": [sink]}]
    streams = [{"from": a, "to": b, "rate": rng.uniform(20, 40),
                "tuple_size": rng.choice([10, 100])}
               for a, b in itertools.pairwise(["source", "work", "sink"])]
    return make_app({"name": name, "operators": ops, "streams": streams, "weight": weight})


def joint_instance(seed: int) -> BundleInstance:
    """Two or three applications of 3 operators (the middle one replicable) on 3 nodes of
    3-4 units: they compete for room, and each node differs in speed and availability."""
    rng = random.Random(500 + seed)
    nodes = [{"id": f"n{u}", "resources": rng.choice([3, 4]),
              "speedup": rng.choice([1.0, 1.5, 2.0]),
              "availability": rng.choice([0.97, 0.99, 1.0])} for u in range(3)]
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": rng.uniform(0.002, 0.03),
              "cost": rng.choice([0.0, 0.002])} for u in range(3) for v in range(u + 1, 3)]
    count = 2 + seed % 2
    apps = tuple(_app(rng, f"app{k}", f"n{rng.randrange(3)}", f"n{rng.randrange(3)}",
                      rng.choice([1.0, 2.0, 3.0])) for k in range(count))
    from streamplace.model.objective import Objective

    weights = [{"response_time": 1.0}, {"response_time": 1.0, "cost": 1.0},
               {"response_time": 0.5, "availability": 0.5, "network": 1.0}][seed % 3]
    return BundleInstance(apps, make_infra({"name": "three-nodes", "nodes": nodes, "links": links}),
                         Objective.model_validate({"weights": weights}))


def _uses(joint: BundleInstance, plans) -> dict[tuple[str, str], float]:
    use: dict[tuple[str, str], float] = defaultdict(float)
    for app in joint.apps:
        for op in app.operators:
            for u, count in plans[app.name].replicas(op.id).items():
                for dim, amount in op.resources.items():
                    use[(u, dim)] += amount * count
    return use


def _fits(joint: BundleInstance, plans) -> bool:
    return all(used <= (joint.infra.node(u).resources or {}).get(dim, float("inf")) + 1e-9
               for (u, dim), used in _uses(joint, plans).items())


def feasible_combinations(joint: BundleInstance) -> list[tuple[dict, dict[str, float]]]:
    """(plans, omega_a F_a per application) for every combination of the applications'
    plans that each hold alone, together fit every node and, re-planning, together start
    replicas within the bundle's --max-moves."""
    weights = joint.weights
    alone = []
    for app in joint.apps:
        objective = joint.objective_for(app)
        good = []
        for plan in placements(app, joint.infra, lambda op: range(1, op.replica_cap + 1)):
            ev = evaluate(app, joint.infra, plan, objective, joint.current.get(app.name),
                          joint.limits_for(app))
            if not ev.violations:
                good.append((plan, weights[app.name] * ev.utility.value))
        alone.append(good)
    out = []
    for combo in itertools.product(*alone):
        plans = {app.name: plan for app, (plan, _f) in zip(joint.apps, combo, strict=True)}
        if _fits(joint, plans) and (joint.max_moves is None or
                                    joint.moves(plans) <= joint.max_moves + 1e-9):
            out.append((plans, {app.name: f
                                for app, (_plan, f) in zip(joint.apps, combo, strict=True)}))
    return out


def brute_force(joint: BundleInstance) -> float | None:
    """The best sum_a omega_a F_a over every feasible combination."""
    return max((sum(c.values()) for _plans, c in feasible_combinations(joint)), default=None)


def brute_force_by_levels(joint: BundleInstance) -> list[float] | None:
    """Each priority level's best sum of omega_a F_a, among the combinations that keep
    every higher level at its best."""
    combos = [values for _plans, values in feasible_combinations(joint)]
    if not combos:
        return None
    values = []
    for _priority, names in levels_of(joint):
        best = max(sum(c[n] for n in names) for c in combos)
        combos = [c for c in combos if sum(c[n] for n in names) >= best - 1e-9]
        values.append(best)
    return values


def _proven(result, expected) -> bool:
    """Proven infeasible where brute force found nothing (False), else proven optimal."""
    if expected is None:
        assert result.status == SolveStatus.INFEASIBLE, result
        return False
    assert result.status == SolveStatus.OPTIMAL, result.message
    return True


@pytest.mark.parametrize("seed", range(8))
def test_the_joint_optimum_is_brute_force_over_every_application_at_once(seed):
    joint = joint_instance(seed)
    expected = brute_force(joint)
    result = solve_joint(joint, _odrp(), SolveOptions(gap=0.0))
    if not _proven(result, expected):
        return
    assert result.objective == pytest.approx(expected, abs=1e-7)
    assert _fits(joint, result.plans)
    assert result.evaluation.feasible
    in_order = place_in_priority_order(joint, _odrp(), SolveOptions(gap=0.0))
    if in_order.objective is not None:  # the joint program never does worse than the order
        assert result.objective >= in_order.objective - 1e-9
        assert _fits(joint, in_order.plans)


@pytest.mark.parametrize("seed, which", [(0, 1), (3, 0), (4, 0), (5, 2), (6, 1), (8, 0)])
def test_a_limit_on_one_application_bounds_it_alone(seed, which):
    """--max-response-time APP=T: one application held below the response time it has in
    the unbounded optimum (at the next of its own plans' times), the others free; brute
    force applies the same limits."""
    from streamplace.model.metrics import Metric, MetricLimits

    joint = joint_instance(seed)
    first = joint.apps[which]
    free = solve_joint(joint, _odrp(), SolveOptions(gap=0.0))
    was = free.evaluation.evaluations[first.name].odrp.response_time
    times = [ev.odrp.response_time for plan in
             placements(first, joint.infra, lambda op: range(1, op.replica_cap + 1))
             if not (ev := evaluate(first, joint.infra, plan)).violations]
    limit = max(t for t in times if t < was - 1e-9)
    bounded = BundleInstance(joint.apps, joint.infra, joint.objective, None,
                            {first.name: MetricLimits({Metric.RESPONSE_TIME: limit})})
    expected = brute_force(bounded)
    result = solve_joint(bounded, _odrp(), SolveOptions(gap=0.0))
    if not _proven(result, expected):
        return
    assert result.objective == pytest.approx(expected, abs=1e-7)
    assert result.evaluation.evaluations[first.name].odrp.response_time <= limit + 1e-9
    assert expected < free.objective  # the limit binds


@pytest.mark.parametrize("seed, budget", [(0, 0), (0, 1), (0, 2), (3, 0), (4, 0), (5, 0),
                                          (8, 0), (2, 1)])
def test_replanning_the_bundle_under_one_move_budget_is_brute_force(seed, budget):
    """Every application but the last runs a plan drawn from the instance's feasible ones
    (the last arrives now); --max-moves bounds what all of them start together. The budget
    binds on all but (0, 2) and (2, 1): there the best plans move little anyway."""
    from streamplace.model.reconfiguration import Current

    whole = joint_instance(seed)
    running = random.Random(seed).choice(feasible_combinations(whole))[0]
    current = {app.name: Current({op.id: running[app.name].replicas(op.id)
                                  for op in app.operators})
               for app in whole.apps[:-1]}
    joint = BundleInstance(whole.apps, whole.infra, whole.objective, None, {}, current, budget)
    expected = brute_force(joint)
    result = solve_joint(joint, _odrp(), SolveOptions(gap=0.0))
    if not _proven(result, expected):
        return
    assert result.objective == pytest.approx(expected, abs=1e-7)
    assert joint.moves(result.plans) <= budget + 1e-9
    assert result.evaluation.feasible
    in_order = place_in_priority_order(joint, _odrp(), SolveOptions(gap=0.0))
    if in_order.plans is not None:
        assert joint.moves(in_order.plans) <= budget + 1e-9
        assert result.objective >= in_order.objective - 1e-9


def _prioritised(joint: BundleInstance, seed: int) -> BundleInstance:
    """The same applications given priorities: two levels, or one per application."""
    ranks = [[1, 0, 0], [0, 1, 2], [2, 1, 1]][seed % 3]
    apps = tuple(app.model_copy(update={"priority": ranks[k]})
                 for k, app in enumerate(joint.apps))
    return BundleInstance(apps, joint.infra, joint.objective, joint.limits)


@pytest.mark.parametrize("seed", range(8))
def test_lexicographic_is_brute_force_level_by_level(seed):
    joint = _prioritised(joint_instance(seed), seed)
    expected = brute_force_by_levels(joint)
    result = solve_lexicographic(joint, _odrp(), SolveOptions(gap=0.0))
    if not _proven(result, expected):
        return
    assert [lv.value for lv in result.levels] == pytest.approx(expected, abs=1e-6)
    assert _fits(joint, result.plans)
    weights = result.evaluation.weights
    for level, (_p, names) in zip(result.levels, levels_of(joint), strict=True):
        reached = sum(weights[n] * result.evaluation.evaluations[n].utility.value
                      for n in names)
        assert reached == pytest.approx(level.value, abs=1e-6)
    # the highest level is at its best alone among the bundle's plans: no weighted-sum
    # optimum beats it there
    weighted = solve_joint(joint, _odrp(), SolveOptions(gap=0.0))
    top = levels_of(joint)[0][1]
    assert sum(weights[n] * weighted.evaluation.evaluations[n].utility.value
               for n in top) <= result.levels[0].value + 1e-6
    assert weighted.objective >= result.objective - 1e-9


def test_several_instances_compete_for_room():
    """The battery above means something only if the applications' best plans alone do not
    all fit together on some of its instances."""
    clashes = 0
    for seed in range(8):
        joint = joint_instance(seed)
        alone = {app.name: _odrp().solve(joint.alone(app), SolveOptions(gap=0.0)).plan
                 for app in joint.apps}
        if all(alone.values()) and not _fits(joint, alone):
            clashes += 1
    assert clashes >= 2, clashes


def first_comes_first_served() -> BundleInstance:
    """``fast`` (priority 1) alone would take the fast node n0; ``pinned`` must run there
    and needs all of it. Placed in priority order, pinned finds no room; together, fast
    goes to the slower n1 and both run."""
    infra = make_infra({"name": "pair", "nodes": [
        {"id": "n0", "resources": 2, "speedup": 2.0}, {"id": "n1", "resources": 2}],
        "links": [{"from": "n0", "to": "n1", "delay": 0.001}]})
    fast = make_app({"name": "fast", "priority": 1, "operators": [
        {"id": "source", "latency": 0.01}]})
    pinned = make_app({"name": "pinned", "operators": [
        {"id": "source", "latency": 0.01, "resources": 2, "candidates": ["n0"]}]})
    from streamplace.model.objective import Objective

    return BundleInstance((pinned, fast), infra,
                         Objective.model_validate({"weights": {"response_time": 1}}))


def test_priority_order_can_leave_an_application_out_where_the_joint_program_places_all():
    joint = first_comes_first_served()
    in_order = place_in_priority_order(joint, _odrp(), SolveOptions())
    assert in_order.status == SolveStatus.INFEASIBLE
    assert in_order.plans is None
    assert "pinned cannot be placed beside fast" in in_order.message
    together = solve_joint(joint, _odrp(), SolveOptions())
    assert together.status == SolveStatus.OPTIMAL
    assert together.plans["fast"].replicas("source") == {"n1": 1}
    assert together.plans["pinned"].replicas("source") == {"n0": 1}


def test_the_joint_evaluation_names_a_node_the_union_overfills():
    joint = first_comes_first_served()
    from streamplace.model.plan import Plan

    plans = {"fast": Plan.model_validate({"placement": {"source": {"n0": 1}}}),
             "pinned": Plan.model_validate({"placement": {"source": {"n0": 1}}})}
    verdict = evaluate_bundle(joint, plans)
    assert not verdict.feasible
    said = [str(v) for ev in verdict.evaluations.values() for v in ev.violations]
    assert any("n0 uses 2 units, has 1 beside the occupied load" in s and "fast 1" in s
               for s in said), said


# ------------------------------------------------------------------ the command line

EDGE_APP = sample("edge-cloud", "application.yaml")
ALERTS = sample("edge-cloud", "fraud-alerts.yaml")
EDGE_INFRA = sample("edge-cloud", "infrastructure.yaml")


def test_solve_places_several_applications_into_one_bundle_plan(tmp_path):
    import json

    import jsonschema
    import yaml

    from streamplace.io.readers import read_application, read_document, read_infrastructure
    from streamplace.io.schema import json_schema
    from streamplace.model.bundle import BundlePlan

    out = tmp_path / "bundle.yaml"
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "-o", str(out), "--json")
    assert r.exit_code == 0, r.output
    said = json.loads(r.stdout)
    assert said["bundle"] == "joint" and said["status"] == "optimal"
    raw = yaml.safe_load(out.read_text())
    jsonschema.validate(raw, json_schema("bundle"))
    bundle = read_document(BundlePlan, str(out))
    assert [p.application for p in bundle.plans] == ["edge-analytics", "fraud-alerts"]
    assert bundle.weights == pytest.approx({"edge-analytics": 1 / 3, "fraud-alerts": 2 / 3})
    assert bundle.objective == pytest.approx(
        sum(bundle.weights[p.application] * p.objective for p in bundle.plans))
    assert said["applications"]["fraud-alerts"]["utility"] == pytest.approx(
        bundle.plans[1].objective)
    apps = (read_application(EDGE_APP), read_application(ALERTS))
    joint = BundleInstance(apps, read_infrastructure(EDGE_INFRA))
    assert _fits(joint, {p.application: p for p in bundle.plans})
    # the same bundle, one application after another: never better than together
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "--bundle", "priority", "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["objective"] <= bundle.objective + 1e-9


def test_priority_order_that_leaves_an_application_out_exits_1_and_writes_nothing(tmp_path):
    import yaml

    joint = first_comes_first_served()
    files = []
    for app in joint.apps:
        path = tmp_path / f"{app.name}.yaml"
        path.write_text(yaml.safe_dump(app.model_dump(by_alias=True, exclude_none=True)))
        files.append(str(path))
    infra = tmp_path / "infra.yaml"
    infra.write_text(yaml.safe_dump(joint.infra.model_dump(by_alias=True, exclude_none=True)))
    out = tmp_path / "bundle.yaml"
    r = run("solve", *files, str(infra), "--bundle", "priority", "-o", str(out),
            "--weights", "r=1")
    assert r.exit_code == 1, r.output
    assert "pinned cannot be placed beside fast" in r.output
    assert not out.exists()
    r = run("solve", *files, str(infra), "-o", str(out), "--weights", "r=1")
    assert r.exit_code == 0, r.output
    assert "fast" in out.read_text()


@pytest.mark.parametrize("edit, args, said", [
    (("name: fraud-alerts", "name: edge-analytics"), (),
     ["second.yaml:5: name", "also", "its own name"]),
    (("weight: 2", "weight: heavy"), (), ["second.yaml:6: weight", "number"]),
    (("weight: 2", "weight: 0"), (), ["second.yaml:6: weight"]),
    (None, ("--start", "plan.yaml"), ["--start does not apply to several applications"]),
    (None, ("--method", "resource-aware"), ["resource-aware has no program over a bundle",
                                             "--bundle priority"]),
    (None, ("--occupied", f"{EDGE_APP}:plan.yaml"), ["one being placed"]),
])
def test_bad_bundles_exit_2_naming_file_line_and_field(tmp_path, edit, args, said):
    text = Path(ALERTS).read_text()
    if edit is not None:
        assert edit[0] in text
        text = text.replace(edit[0], edit[1])
    second = tmp_path / "second.yaml"
    second.write_text(text)
    (tmp_path / "plan.yaml").write_text(Path(sample("edge-cloud", "plan.yaml")).read_text())
    import os

    here = os.getcwd()
    os.chdir(tmp_path)
    try:
        r = run("solve", EDGE_APP, str(second), EDGE_INFRA, *args)
    finally:
        os.chdir(here)
    assert r.exit_code == 2, r.output
    for text in said:
        assert text in r.output, r.output
    assert "Traceback" not in r.output


def test_limits_name_the_applications_they_bound():
    import json

    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "--json", "-q",
            "--max-response-time", "fraud-alerts=60 ms,edge-analytics=65 ms")
    assert r.exit_code == 0, r.output
    times = {name: app["metrics"]["response_time"]
             for name, app in json.loads(r.stdout)["applications"].items()}
    assert times["fraud-alerts"] <= 0.060 and times["edge-analytics"] <= 0.065
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "--max-response-time", "fraud-alerts=10 ms")
    assert r.exit_code == 1 and "within the metric limits" in r.output, r.output
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "--max-response-time", "fraud=60 ms")
    assert r.exit_code == 2, r.output
    assert "names 'fraud', not an application of the bundle" in r.output
    assert "edge-analytics, fraud-alerts" in r.output


def test_a_second_application_arrives_beside_one_that_may_not_move(tmp_path):
    """--current with one application's plan (its application field names it) and
    --max-moves 0: that application keeps every replica where it runs, the other arrives."""
    import json

    import yaml

    now = tmp_path / "edge-now.yaml"
    assert run("solve", EDGE_APP, EDGE_INFRA, "-q", "-o", str(now)).exit_code == 0
    out = tmp_path / "bundle.yaml"
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "--current", str(now), "--max-moves", "0",
            "-o", str(out), "--json", "-q")
    assert r.exit_code == 0, r.output
    said = json.loads(r.stdout)
    assert said["reconfiguration"] == 0 and said["status"] == "optimal"
    running = yaml.safe_load(now.read_text())["placement"]
    placed = {p["application"]: p["placement"] for p in yaml.safe_load(out.read_text())["plans"]}
    assert all(count <= running[op].get(node, 0)  # nothing started anywhere
               for op, reps in placed["edge-analytics"].items() for node, count in reps.items())
    # the whole bundle re-planned under one budget: what all applications start, together
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "--current", str(out), "--max-moves", "1",
            "--weights", "r=1", "--json", "-q")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["reconfiguration"] <= 1


@pytest.mark.parametrize("args, said", [
    (("--max-moves", "1"), "--max-moves needs the plans that run now"),
    (("--current", "{nameless}"), "does not say which application runs it"),
    (("--current", "{stranger}"), "runs application 'stranger', not one of the bundle"),
    (("--current", "{nameless}", "--max-moves", "-1"), "is not a budget >= 0"),
])
def test_bad_replanning_of_a_bundle_exits_2(tmp_path, args, said):
    import yaml

    plan = yaml.safe_load(Path(sample("edge-cloud", "plan.yaml")).read_text())
    plan.pop("application", None)
    (tmp_path / "nameless.yaml").write_text(yaml.safe_dump(plan))
    (tmp_path / "stranger.yaml").write_text(yaml.safe_dump({**plan, "application": "stranger"}))
    files = {"nameless": str(tmp_path / "nameless.yaml"),
             "stranger": str(tmp_path / "stranger.yaml")}
    r = run("solve", EDGE_APP, ALERTS, EDGE_INFRA, *(a.format(**files) for a in args))
    assert r.exit_code == 2, r.output
    assert said in r.output, r.output


def test_bundle_flag_needs_several_applications():
    r = run("solve", EDGE_APP, EDGE_INFRA, "--bundle", "joint")
    assert r.exit_code == 2 and "--bundle applies to several applications" in r.output


def test_every_command_reading_a_plan_takes_each_application_from_a_bundle(tmp_path):
    import yaml

    out = tmp_path / "bundle.yaml"
    assert run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "-o", str(out), "-q").exit_code == 0
    # each application's plan, checked beside the other's: what CI runs on a bundle
    for app, other in ((EDGE_APP, ALERTS), (ALERTS, EDGE_APP)):
        r = run("validate", app, EDGE_INFRA, str(out), "--occupied", f"{other}:{out}")
        assert r.exit_code == 0, r.output
        assert "beside" in r.output
    r = run("export", ALERTS, EDGE_INFRA, str(out), "--to", "storm", "-o",
            str(tmp_path / "flux.yaml"))
    assert r.exit_code == 0, r.output
    # an application the bundle does not place: the line of its plans, and which it has
    stranger = tmp_path / "stranger.yaml"
    stranger.write_text(Path(ALERTS).read_text().replace("name: fraud-alerts",
                                                         "name: stranger"))
    r = run("validate", str(stranger), EDGE_INFRA, str(out))
    assert r.exit_code == 2, r.output
    assert "bundle.yaml:" in r.output and "no plan for application 'stranger'" in r.output
    assert "'edge-analytics', 'fraud-alerts'" in r.output
    # a bundle whose plans do not fit together: the second fails beside the first
    raw = yaml.safe_load(out.read_text())
    alerts = raw["plans"][1]
    alerts["placement"]["detect"] = {"cloud-1": 4}
    raw["plans"][0]["placement"]["score"] = {"cloud-1": 4}
    out.write_text(yaml.safe_dump(raw, sort_keys=False))
    r = run("validate", ALERTS, EDGE_INFRA, str(out), "--occupied", f"{EDGE_APP}:{out}")
    assert r.exit_code == 1, r.output
    assert "cloud-1 uses" in r.output and "held: edge-analytics" in r.output
    # a problem inside an entry points at the bundle file's own line
    raw["plans"][1]["placement"]["detect"] = {"cloud-9": 1}
    out.write_text(yaml.safe_dump(raw, sort_keys=False))
    r = run("validate", ALERTS, EDGE_INFRA, str(out))
    assert r.exit_code == 2, r.output
    line = next(i for i, text in enumerate(out.read_text().splitlines(), 1)
                if "cloud-9" in text)
    assert f"bundle.yaml:{line}:" in r.output, r.output


def test_validate_checks_each_application_of_a_bundle_beside_the_others(tmp_path):
    import json
    import xml.etree.ElementTree as ET

    import yaml

    out = tmp_path / "bundle.yaml"
    assert run("solve", EDGE_APP, ALERTS, EDGE_INFRA, "-o", str(out), "-q").exit_code == 0
    junit = tmp_path / "checks.xml"
    r = run("validate", EDGE_APP, ALERTS, EDGE_INFRA, str(out), "--junit-xml", str(junit),
            "--json", "--max-response-time", "fraud-alerts=80 ms")
    assert r.exit_code == 0, r.output
    said = json.loads(r.stdout)
    assert said["passed"] and sorted(said["applications"]) == ["edge-analytics",
                                                               "fraud-alerts"]
    groups = {c["group"] for c in said["checks"]}
    assert {"edge-analytics: constraints", "fraud-alerts: thresholds", "bundle"} <= groups
    cases = ET.parse(junit).getroot().iter("testcase")
    assert sum(1 for _ in cases) == len(said["checks"])
    # plans that each fit alone but not together: both applications fail on cloud-1
    raw = yaml.safe_load(out.read_text())
    raw["plans"][1]["placement"]["detect"] = {"cloud-1": 4}
    raw["plans"][0]["placement"]["score"] = {"cloud-1": 4}
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw, sort_keys=False))
    for plan in (raw["plans"][0], raw["plans"][1]):
        alone = tmp_path / "alone.yaml"
        alone.write_text(yaml.safe_dump(plan))
        app = EDGE_APP if plan["application"] == "edge-analytics" else ALERTS
        assert run("validate", app, EDGE_INFRA, str(alone)).exit_code == 0
    r = run("validate", EDGE_APP, ALERTS, EDGE_INFRA, str(bad), "--json")
    assert r.exit_code == 1, r.output
    failed = {(c["group"], c["name"]) for c in json.loads(r.stdout)["checks"]
              if not c["passed"]}
    assert failed == {("edge-analytics: constraints", "capacity"),
                      ("fraud-alerts: constraints", "capacity")}
    r = run("validate", EDGE_APP, ALERTS, EDGE_INFRA, str(out), "--html", "x.html")
    assert r.exit_code == 2 and "--html does not apply to several applications" in r.output


@pytest.mark.parametrize("seed", range(4))
def test_a_level_stopped_unproven_is_held_and_the_levels_below_still_optimised(seed):
    """Each level stopped at its first plan (HiGHS's solution limit, not proven): every
    level is still reached, each held at what it got, and the status says unproven."""
    joint = _prioritised(joint_instance(seed), 1)  # one level per application
    result = solve_lexicographic(joint, _odrp(), SolveOptions(
        highs={"mip_max_improving_sols": 1}))
    if result.plans is None:
        return
    assert len(result.levels) == len(levels_of(joint)), result.message
    if any(lv.status != SolveStatus.OPTIMAL for lv in result.levels):
        assert result.status != SolveStatus.OPTIMAL
    assert _fits(joint, result.plans)


def test_weights_too_large_to_add_up_are_ratios_still():
    """1e308 on two applications: a plain sum overflows to infinity and both weights to 0
    (F = 0 for every plan, called optimal); scaled by the largest first, they are halves."""
    from streamplace.model.objective import Objective
    from streamplace.solve.bundle.instance import BundleInstance

    from ..conftest import make_app, make_infra

    apps = tuple(make_app({"name": name, "weight": 1e308, "operators": [{"id": "s"}]})
                 for name in ("a", "b"))
    infra = make_infra({"name": "i", "nodes": [{"id": "n"}]})
    assert BundleInstance(apps, infra, Objective()).weights == {"a": 0.5, "b": 0.5}
