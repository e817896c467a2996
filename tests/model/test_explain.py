"""explain: every what-if of an optimal plan is no better; hand-made plans show gains."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from streamplace.cli.app import app
from streamplace.io.readers import read_instance, read_objective, read_plan_for
from streamplace.model.evaluate import evaluate
from streamplace.model.explain import explain
from streamplace.solve import Instance, SolveOptions, get_method

from ..conftest import sample

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
    # carry the change out by hand, from its words, and score it independently
    replicas = dict(plan.replicas(best.operator))
    words = best.move.split()
    if words[0] == "move":  # "move one replica U -> V"
        replicas[words[3]] -= 1
        replicas[words[5]] = replicas.get(words[5], 0) + 1
    elif words[0] == "add":  # "add a replica on V"
        replicas[words[-1]] = replicas.get(words[-1], 0) + 1
    else:  # "remove a replica from U"
        replicas[words[-1]] -= 1
    changed = plan.model_copy(update={"placement": {
        **{op: plan.replicas(op) for op in app_.operator_ids},
        best.operator: {u: c for u, c in replicas.items() if c > 0}}})
    after = evaluate(app_, infra, changed)
    assert after.violations == []
    assert after.utility.value == pytest.approx(best.utility, abs=1e-12)
    assert after.utility.value > evaluate(app_, infra, plan).utility.value


def test_explain_cli_json():
    result = runner.invoke(app, ["explain", *DEBS, sample("debs2015", "plan.yaml"), "--json",
                                 "--objective", sample("debs2015", "objective-balanced.yaml")])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["critical_path"][0] == "source" and doc["what_if"]
    assert doc["metrics"]["utility"] > 0.93


def test_past_its_time_limit_explain_scores_the_plan_and_builds_nothing_more(monkeypatch):
    """report --time-limit bounds the whole command: once the limit has passed, a plan is
    scored and its bindings given, but no what-if evaluator is built for it; and bounds
    the plan records are not derived again (the larger part of scoring a big plan)."""
    import streamplace.model.evaluate as evaluation
    from streamplace.model import explain as explaining
    from streamplace.model.explain import Watch

    app, infra = read_instance(sample("debs2015", "application.yaml"),
                               sample("debs2015", "infrastructure.yaml"))
    solved = get_method("odrp").solve(Instance(app, infra), SolveOptions(time_limit=20))
    assert solved.plan is not None and solved.plan.bounds_used

    def never(*args: object, **kwargs: object) -> None:
        raise AssertionError("called after the time limit, or for bounds the plan records")

    monkeypatch.setattr(explaining, "_trial_function", never)
    monkeypatch.setattr(evaluation, "derive_bounds", never)
    out = explain(app, infra, solved.plan, watch=Watch(stop=lambda: True))
    assert out.what_if == [] and any("not tried" in n for n in out.notes)
    assert out.operators and out.evaluation.utility is not None
