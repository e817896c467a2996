"""Framework baselines: feasible or failing out loud, never better than the exact optimum."""

from __future__ import annotations

import csv
import json

import pytest
from typer.testing import CliRunner

from streamplace.cli.app import app
from streamplace.solve import SolveOptions, SolveStatus, get_method

from ..conftest import heuristic_plans, make_app, make_infra, sample
from ..support.instances import random_instance

BASELINES = ("round-robin", "resource-aware", "first-fit-decreasing")
runner = CliRunner()


@pytest.mark.parametrize("seed", range(10))
def test_baselines_are_feasible_and_never_beat_odrp(seed):
    instance = random_instance(seed)
    best = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
    for name, result, _ in heuristic_plans(BASELINES, instance, SolveOptions(seed=seed)):
        assert result.objective <= best.objective + 1e-9, name


def test_fixed_replicas_candidates_and_capacity_are_respected():
    app_ = make_app({"name": "a", "operators": [
        {"id": "s", "candidates": ["n2"], "replicas": 2, "resources": {"cpu": 2}},
        {"id": "m", "service_rate": 10, "max_replicas": 4, "resources": {"cpu": 1}},
        {"id": "t", "candidates": ["n0", "n1"], "resources": {"cpu": 1}}],
        "streams": [{"from": "s", "to": "m", "rate": 25}, {"from": "m", "to": "t"}]})
    infra = make_infra({"name": "i", "nodes": [{"id": f"n{u}", "resources": {"cpu": 4}}
                                              for u in range(3)]})
    from streamplace.solve import Instance

    for name in BASELINES:
        result = get_method(name).solve(Instance(app_, infra), SolveOptions())
        if name == "round-robin" and result.status == SolveStatus.ERROR:
            assert "would violate n2 uses 5 cpu, has 4" in result.message  # ignores resources
            continue
        assert result.status == SolveStatus.FEASIBLE, (name, result.message)
        placement = result.plan.placement
        assert placement["s"] == {"n2": 2}
        assert sum(placement["m"].values()) == 3  # the fewest stable replicas: 25/3 < 10
        assert set(placement["t"]) <= {"n0", "n1"}


def test_round_robin_reports_the_overflow_it_would_cause():
    from streamplace.solve import Instance

    result = get_method("round-robin").solve(Instance(*_edge_cloud()), SolveOptions())
    assert result.status == SolveStatus.ERROR and result.plan is None
    assert "round-robin failed: its plan would violate edge-a uses 3 cpu, has 2" in \
        result.message


def _edge_cloud():
    from streamplace.io.readers import read_instance

    return read_instance(sample("edge-cloud", "application.yaml"),
                         sample("edge-cloud", "infrastructure.yaml"))


def test_compare_cli(tmp_path):
    out = tmp_path / "cmp.csv"
    files = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]
    result = runner.invoke(app, ["compare", *files, "--methods",
                                 "odrp,odp,first-fit-decreasing,benoit", "--csv", str(out),
                                 "--json", "--objective",
                                 sample("debs2015", "objective-balanced.yaml")])
    assert result.exit_code == 0, result.stderr
    rows = {r["method"]: r for r in json.loads(result.stdout)}
    assert rows["odrp"]["gap_to_bound"] == pytest.approx(0.0, abs=1e-9)
    assert rows["first-fit-decreasing"]["gap_to_bound"] > 0
    assert rows["odp"]["status"] == "infeasible"
    assert rows["benoit"]["message"].startswith("does not apply")
    with out.open() as handle:
        assert [r["method"] for r in csv.DictReader(handle)] == list(rows)
    bad = runner.invoke(app, ["compare", *files, "--methods", "odrp,nope"])
    assert bad.exit_code == 2 and "unknown method 'nope'" in bad.stderr
