"""The load already there (``--occupied``): plans use only what other applications leave.

Exactness is checked against brute force on an infrastructure whose capacities the test
lowers by hand, so a mistake in taking the load out cannot hide in both sides; every
method's plan is checked against the *whole* capacity, with the held load added back.
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from streamplace.model.occupied import HeldBy, beside
from streamplace.solve import Instance, SolveOptions, methods

from ..conftest import assert_exact, best_utility, make_infra, run, sample
from ..support.battery import BATTERY
from ..support.instances import bimodal_instance, random_instance, spread_instance

EDGE = [sample("edge-cloud", "application.yaml"), sample("edge-cloud", "infrastructure.yaml")]


def _holds(instance: Instance, seed: int) -> dict[str, float]:
    """1-2 units on some processors, never more than a node has."""
    rng = random.Random(seed)
    held = {}
    for node in instance.infra.processors:
        whole = (node.resources or {}).get("units")
        if whole is not None and whole >= 2 and rng.random() < 0.7:
            held[node.id] = float(rng.choice([1, 2]) if whole >= 3 else 1)
    return held


def _lowered_by_hand(instance: Instance, held: dict[str, float]) -> Instance:
    data = instance.infra.model_dump(by_alias=True, exclude_none=True)
    for node in data["nodes"]:
        if node["id"] in held:
            node["resources"]["units"] -= held[node["id"]]
    return dataclasses.replace(instance, infra=make_infra(data))


def _beside(instance: Instance, held: dict[str, float], name: str = "etl") -> Instance:
    holder = HeldBy(name=name, nodes={u: {"units": a} for u, a in held.items()})
    return dataclasses.replace(instance, infra=beside(instance.infra, [holder]))


def _fits_the_whole(instance: Instance, plan, held: dict[str, dict[str, float]]) -> None:
    """The plan's resources plus the held ones, per node and dimension, within the node's
    resources as the infrastructure file gives them."""
    use: dict[tuple[str, str], float] = defaultdict(float)
    for op in instance.app.operators:
        for u, count in plan.replicas(op.id).items():
            for dim, amount in op.resources.items():
                use[(u, dim)] += amount * count
    for u, dims in held.items():
        for dim, amount in dims.items():
            use[(u, dim)] += amount
    for (u, dim), used in use.items():
        whole = (instance.infra.node(u).resources or {}).get(dim, float("inf"))
        assert used <= whole + 1e-9, (u, dim, used, whole)


@pytest.mark.parametrize("make, seed", [(spread_instance, s) for s in range(4)] +
                         [(random_instance, s) for s in (0, 2, 5, 7)])
def test_odrp_beside_an_occupied_load_is_brute_force_on_what_is_left(make, seed):
    whole = make(seed)
    held = _holds(whole, seed)
    assert held, "the instance holds something"
    expected = best_utility(_lowered_by_hand(whole, held))
    result = methods_named("odrp").solve(_beside(whole, held), SolveOptions(gap=0.0))
    if assert_exact(result, expected, (make.__name__, seed)):
        _fits_the_whole(whole, result.plan, {u: {"units": a} for u, a in held.items()})


def methods_named(name: str):
    return next(m for m in methods() if m.name == name and m.model == "odrp")


CASES = {"odrp-0": lambda: random_instance(0), "odrp-4": lambda: random_instance(4),
         "spread-1": lambda: spread_instance(1), "path-0": lambda: bimodal_instance(0)}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name, family", sorted(BATTERY))
def test_every_method_leaves_the_occupied_load_its_room(name, family, case):
    whole = CASES[case]()
    held = _holds(whole, 11)
    inst = _beside(whole, held)
    method = next(m for m in methods() if (m.name, m.model) == (name, family))
    if method.accepts(inst) is not None:
        pytest.skip(f"{name} does not apply to {case}")
    result = method.solve(inst, SolveOptions(seed=3, params=BATTERY[(name, family)]))
    if result.plan is None:
        assert not result.status.has_plan, result
        return
    assert inst.evaluate(result.plan).violations == [], (name, result.status)
    _fits_the_whole(whole, result.plan, {u: {"units": a} for u, a in held.items()})


def test_a_bidirectional_link_keeps_the_other_direction_whole():
    infra = make_infra({"name": "i", "nodes": [{"id": "a"}, {"id": "b"}],
                        "links": [{"from": "a", "to": "b", "bandwidth": 1000}]})
    holder = HeldBy.model_validate({"name": "etl", "links": [
        {"from": "b", "to": "a", "bandwidth": 300}]})
    free = beside(infra, [holder])
    ways = {(link.source, link.target): link.bandwidth for link in free.links}
    assert ways == {("a", "b"): 1000, ("b", "a"): 700}
    assert "etl 300" in free.holds.on_link("b", "a") and free.holds.on_link("a", "b") == ""


# ------------------------------------------------------------------ the command line

def _yaml(path: str):
    return yaml.safe_load(Path(path).read_text())


def _write(path, data) -> str:
    path.write_text(yaml.safe_dump(data))
    return str(path)


def _other(tmp_path) -> str:
    """The edge-cloud sample's application under another name: its plan holds 8 of
    cloud-1's 16 cpu, and the fog's 4."""
    data = _yaml(EDGE[0])
    data["name"] = "other-analytics"
    return _write(tmp_path / "other.yaml", data) + ":" + sample("edge-cloud", "plan.yaml")


def test_solve_beside_a_running_application_fits_both(tmp_path):
    plan = tmp_path / "plan.yaml"
    r = run("solve", *EDGE, "--occupied", _other(tmp_path), "-o", str(plan), "--json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["occupied"] == ["other-analytics"]
    placed = yaml.safe_load(plan.read_text())["placement"]
    app = _yaml(EDGE[0])
    other = _yaml(sample("edge-cloud", "plan.yaml"))["placement"]
    infra = _yaml(EDGE[1])
    cpu = {op["id"]: op["resources"]["cpu"] for op in app["operators"]}
    used: dict[str, float] = defaultdict(float)
    for placement in (placed, other):
        for op, nodes in placement.items():
            for u, count in nodes.items():
                used[u] += cpu[op] * count
    for node in infra["nodes"]:
        if "resources" in node:
            assert used[node["id"]] <= node["resources"]["cpu"], node["id"]


def test_validate_says_a_plan_does_not_fit_beside_what_runs(tmp_path):
    alone = run("validate", *EDGE, sample("edge-cloud", "plan.yaml"), "--json")
    assert alone.exit_code == 0, alone.output
    r = run("validate", *EDGE, sample("edge-cloud", "plan.yaml"), "--occupied",
            _other(tmp_path), "--json")
    assert r.exit_code == 1, r.output
    assert "held: other-analytics" in r.stdout


@pytest.mark.parametrize("command", ["evaluate", "explain", "render", "diff", "report",
                                     "compare"])
def test_every_command_that_scores_a_plan_sees_the_occupied_load(tmp_path, command):
    """Each names the occupied load it scored beside; a plan solved beside it is feasible
    where the sample plan, made for the empty infrastructure, is not."""
    other = _other(tmp_path)
    fits = tmp_path / "fits.yaml"
    solved = run("solve", *EDGE, "--occupied", other, "-o", str(fits), "-q")
    assert solved.exit_code == 0, solved.output
    crowded = sample("edge-cloud", "plan.yaml")
    out = tmp_path / ("r.html" if command == "report" else "r.svg")
    args = {"evaluate": [crowded], "explain": [crowded], "render": [crowded, "-o", str(out)],
            "diff": [crowded, str(fits)], "report": [crowded, str(fits), "-o", str(out)],
            "compare": ["--methods", "odrp,resource-aware", "--time-limit", "60"]}[command]
    r = run(command, *EDGE, *args, "--occupied", other)
    assert r.exit_code in (0, 1), r.output
    shown = out.read_text() if command in ("render", "report") else r.output
    assert "other-analytics" in shown, shown[-3000:]
    if command in ("evaluate", "explain"):
        assert "held: other-analytics" in r.output, r.output


def test_a_load_that_already_overfills_a_node_names_it_and_its_holders(tmp_path):
    held = _write(tmp_path / "held.yaml", {"schema": "streamplace/occupied/v1", "applications": [
        {"name": "etl", "nodes": {"fog": {"cpu": 3}}},
        {"name": "ingest", "nodes": {"fog": {"cpu": 2}, "cloud-1": 4}}]})
    r = run("solve", *EDGE, "--occupied", held)
    assert r.exit_code == 1, r.output
    assert "node fog" in r.output and "etl 3, ingest 2" in r.output and "it has 4" in r.output


@pytest.mark.parametrize("document, words", [
    ({"applications": [{"name": "etl", "nodes": {"nowhere": 1}}]}, ["held.yaml:", "nowhere"]),
    ({"applications": [{"name": "etl", "nodes": {"fog": {"cpu": "lots"}}}]},
     ["held.yaml:", "cpu"]),
    ({"applications": [{"name": "etl", "links": [{"from": "fog", "to": "cloud-2",
                                                  "bandwidth": 5}]}]},
     ["held.yaml:", "no link fog -> cloud-2"]),
    ({"applications": [{"name": "etl"}, {"name": "etl", "nodes": {"fog": 1}}]},
     ["given twice"]),
    ({"applications": [{"name": "edge-analytics", "nodes": {"fog": 1}}]},
     ["one being placed"]),
    ({"applications": [{"nodes": {"fog": 1}}]}, ["held.yaml:", "name"]),
    ({"applications": [{"name": "etl", "nodes": {"fog": 1}, "slots": 2}]},
     ["held.yaml:", "slots"]),
])
def test_bad_occupied_loads_are_input_errors(tmp_path, document, words):
    r = run("solve", *EDGE, "--occupied", _write(tmp_path / "held.yaml", document))
    assert r.exit_code == 2, r.output
    for word in words:
        assert word in r.output, (word, r.output)
    assert "Traceback" not in r.output


def test_an_occupied_value_that_names_no_file_says_what_to_give(tmp_path):
    for value in ["missing.yaml", f"{EDGE[0]}:missing-plan.yaml"]:
        r = run("solve", *EDGE, "--occupied", value)
        assert r.exit_code == 2 and "--occupied" in r.output and "APP:PLAN" in r.output, \
            r.output


def test_an_output_never_overwrites_an_occupied_input(tmp_path):
    held = _write(tmp_path / "held.yaml", {"applications": [{"name": "etl",
                                                             "nodes": {"fog": 1}}]})
    before = Path(held).read_text()
    r = run("solve", *EDGE, "--occupied", held, "-o", held)
    assert r.exit_code == 2 and "also an input" in r.output, r.output
    assert Path(held).read_text() == before


def test_re_planning_one_application_while_the_others_stay(tmp_path):
    """--current with --occupied: the running application is re-planned within its budget
    of moves, the other one keeps its nodes and the two fit together."""
    other = _other(tmp_path)
    now, again = tmp_path / "now.yaml", tmp_path / "again.yaml"
    first = run("solve", *EDGE, "--occupied", other, "--weights", "r=1", "-o", str(now), "-q")
    assert first.exit_code == 0, first.output
    r = run("solve", *EDGE, "--occupied", other, "--current", str(now), "--max-moves", "0",
            "-o", str(again), "--json")
    assert r.exit_code == 0, r.output
    before = _yaml(str(now))["placement"]
    after = _yaml(str(again))["placement"]
    for op, nodes in after.items():
        for u, count in nodes.items():
            assert count <= before[op].get(u, 0), (op, u)  # no replica started
    check = run("validate", *EDGE, str(again), "--occupied", other)
    assert check.exit_code == 0, check.output


def test_an_occupied_plan_that_places_not_every_operator_is_bad_input(tmp_path):
    plan = _yaml(sample("edge-cloud", "plan.yaml"))
    del plan["placement"]["dashboard"]
    partial = _write(tmp_path / "partial.yaml", plan)
    other = _other(tmp_path).rpartition(":")[0]
    r = run("solve", *EDGE, "--occupied", f"{other}:{partial}")
    assert r.exit_code == 2 and "partial.yaml" in r.output and "not every operator" in r.output, \
        r.output
