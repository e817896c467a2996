"""The utilisation target (docs/models.md sec. 2): a replica runs at most at rho x its
service rate, for exact methods, heuristics and the evaluator alike; and DS2's rule."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest
import yaml

from streamplace.model.graph import build_graph
from streamplace.model.objective import Objective
from streamplace.solve import FormulationName, SolveOptions, SolveStatus, get_method

from ..conftest import assert_exact, best_utility, run, sample
from ..support.instances import random_instance

RHO = 0.7


def held(instance, rho=RHO, weights=None):
    objective = Objective.model_validate({"weights": weights}) if weights else \
        instance.objective
    return dataclasses.replace(instance, app=instance.app.with_target_utilization(rho),
                               objective=objective)


@pytest.mark.parametrize("seed", range(8))
def test_fewest_replicas_are_ceil_rate_over_rho_mu(seed):
    """With cost alone (one cost unit per replica), the optimum runs the fewest replicas
    the target allows: ceil(lambda / (rho mu)) wherever that is within k."""
    instance = held(random_instance(seed), weights={"cost": 1})
    result = get_method("odrp").solve(instance, SolveOptions(gap=0.0))
    rates = build_graph(instance.app).input_rates
    wanted = {op.id: max(op.min_replicas, math.ceil(rates[op.id] / (RHO * op.service_rate)))
              if op.service_rate and op.replicas is None else op.min_replicas
              for op in instance.app.operators}
    if any(wanted[op.id] > op.replica_cap for op in instance.app.operators):
        assert result.status == SolveStatus.INFEASIBLE
        return
    if result.status == SolveStatus.INFEASIBLE:  # capacity, not stability, rules it out
        assert best_utility(instance) is None
        return
    assert result.status == SolveStatus.OPTIMAL
    counts = {op: sum(r.values()) for op, r in result.plan.placement.items()}
    assert counts == wanted


@pytest.mark.parametrize("seed", range(8))
def test_both_formulations_equal_brute_force_under_the_target(seed):
    instance = held(random_instance(seed))
    expected = best_utility(instance)
    for formulation in ("compact", "multiset"):
        result = get_method("odrp").solve(
            instance, SolveOptions(gap=0.0, formulation=FormulationName(formulation)))
        assert_exact(result, expected, formulation)


@pytest.mark.parametrize("method", ["hill-climbing", "resource-aware", "ds2"])
def test_heuristics_honour_the_target(method):
    instance = held(random_instance(9))
    rates = build_graph(instance.app).input_rates
    # the target binds: op1 needs 3 replicas under it where 2 are stable, op2 2 where 1 is
    assert [(math.ceil(rates[op] / mu), math.ceil(rates[op] / (RHO * mu))) for op, mu in (
        (op.id, op.service_rate) for op in instance.app.operators if op.id in ("op1", "op2"))
    ] == [(2, 3), (1, 2)]
    result = get_method(method).solve(instance, SolveOptions(seed=1, time_limit=3))
    if result.plan is None:
        assert result.status == SolveStatus.ERROR and result.message
        return
    rates = build_graph(instance.app).input_rates
    for op in instance.app.operators:
        count = sum(result.plan.replicas(op.id).values())
        if op.service_rate:
            assert rates[op.id] / count <= RHO * op.service_rate * (1 + 1e-9)


@pytest.mark.parametrize("rho", [None, "0.7"])
def test_ds2_equals_the_rule_by_hand_on_debs(rho):
    app = yaml.safe_load(Path(sample("debs2015", "application.yaml")).read_text())
    args = ["solve", sample("debs2015", "application.yaml"),
            sample("debs2015", "infrastructure.yaml"), "-m", "ds2", "--json", "-q"]
    if rho:
        args += ["--target-utilization", rho]
    result = run(*args)
    assert result.exit_code == 0, result.output
    placement = json.loads(result.stdout)["plan"]["placement"]
    incoming = {}
    for s in app["streams"]:
        incoming[s["to"]] = incoming.get(s["to"], 0.0) + float(s["rate"])
    target = float(rho or 1)
    for op in app["operators"]:
        rate = op.get("input_rate") or incoming.get(op["id"]) or max(
            float(s["rate"]) for s in app["streams"] if s["from"] == op["id"])
        want = math.ceil(rate / (target * op["service_rate"])) if "service_rate" in op else 1
        assert sum(placement[op["id"]].values()) == want, op["id"]


def test_validate_flags_a_replica_over_the_target():
    ok = run("validate", sample("debs2015", "application.yaml"),
             sample("debs2015", "infrastructure.yaml"), sample("debs2015", "plan.yaml"))
    assert ok.exit_code == 0
    tight = run("validate", sample("debs2015", "application.yaml"),
                sample("debs2015", "infrastructure.yaml"), sample("debs2015", "plan.yaml"),
                "--target-utilization", "0.5", "--json", "-q")
    assert tight.exit_code == 1
    messages = [v["message"] for v in json.loads(tight.stdout)["violations"]]
    assert any("target utilisation" in m and "partialRank" in m for m in messages)
    bad = run("solve", sample("debs2015", "application.yaml"),
              sample("debs2015", "infrastructure.yaml"), "--target-utilization", "1.5")
    assert bad.exit_code == 2 and "(0, 1]" in bad.output
