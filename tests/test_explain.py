"""explain: every what-if of an optimal plan is no better; hand-made plans show gains."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from streamplace.cli.app import app
from streamplace.io.readers import read_instance, read_objective, read_plan_for
from streamplace.model.explain import explain
from streamplace.solve import Instance, SolveOptions, get_method

from .conftest import sample

runner = CliRunner()
DEBS = [sample("debs2015", "application.yaml"), sample("debs2015", "infrastructure.yaml")]


def test_optimal_plan_has_no_improving_single_change():
    app_, infra = read_instance(*DEBS)
    objective = read_objective(sample("debs2015", "objective-balanced.yaml"))
    result = get_method("odrp").solve(Instance(app_, infra, objective), SolveOptions(gap=0.0))
    ex = explain(app_, infra, result.plan, objective)
    assert ex.what_if, "some operator can be changed"
    assert all(w.delta <= 1e-9 for w in ex.what_if)
    kinds = {(b.kind, b.subject) for b in ex.binding}
    assert ("node full", "n1") in kinds and ("pinned", "source") in kinds
    assert [o.id for o in ex.operators if o.on_critical_path] == \
        ex.evaluation.odrp.critical_path


def test_hand_plan_shows_an_improving_move():
    app_, infra = read_instance(sample("edge-cloud", "application.yaml"),
                                sample("edge-cloud", "infrastructure.yaml"))
    plan = read_plan_for(sample("edge-cloud", "plan.yaml"), app_, infra)
    ex = explain(app_, infra, plan)
    best = ex.what_if[0]
    assert best.delta > 0
    assert best.utility == ex.evaluation.utility.value + best.delta


def test_explain_cli_json():
    result = runner.invoke(app, ["explain", *DEBS, sample("debs2015", "plan.yaml"), "--json",
                                 "--objective", sample("debs2015", "objective-balanced.yaml")])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["critical_path"][0] == "source" and doc["what_if"]
    assert doc["metrics"]["utility"] > 0.93
