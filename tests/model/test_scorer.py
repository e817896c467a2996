"""The incremental scorer gives the evaluator's numbers, change after change."""

from __future__ import annotations

import random

import pytest

from streamplace.io.readers import read_instance, read_objective, read_plan_for
from streamplace.model.evaluate import evaluate, resolve_bounds
from streamplace.model.evaluate.scorer import PlacementScorer
from streamplace.model.evaluate.utility import candidates
from streamplace.model.graph import build_graph
from streamplace.model.metrics import MetricLimits
from streamplace.model.network import Network
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current

from ..conftest import sample

METRICS = ("response_time", "cost", "availability", "traffic", "network_usage",
           "elastic_energy")


@pytest.mark.parametrize(("name", "objective", "seed"), [
    ("debs2015", "objective-balanced.yaml", 1), ("debs2015", "objective-response-time.yaml", 2),
    ("edge-cloud", None, 3), ("video-chain", None, 4)])
def test_the_scorer_agrees_with_the_evaluator_after_every_change(
        name: str, objective: str | None, seed: int) -> None:
    app, infra = read_instance(sample(name, "application.yaml"),
                               sample(name, "infrastructure.yaml"))
    goal = read_objective(sample(name, objective)) if objective else Objective.model_validate(
        {"weights": {"response_time": 1, "availability": 1, "cost": 1, "network": 1},
         "network_metric": "network_usage"})
    plan = read_plan_for(sample(name, "plan.yaml"), app, infra)
    graph, network = build_graph(app), Network.of(infra)
    current = Current(plan.placement) if seed % 2 else None
    limits = MetricLimits({"response_time": 1e9, "availability": 0.5})
    bounds, _ = resolve_bounds(graph, network, goal, None, current is not None)
    scorer = PlacementScorer(graph, network, goal, bounds,
                             {op: dict(plan.replicas(op)) for op in app.operator_ids},
                             limits, current)
    rng = random.Random(seed)
    feasible_seen = infeasible_seen = 0
    for _ in range(120):
        op = rng.choice(app.operators)
        nodes = candidates(op, network)
        multiset: dict[str, int] = {}
        for _ in range(op.replicas or rng.randint(1, min(op.replica_cap, 6))):
            u = rng.choice(nodes)
            multiset[u] = multiset.get(u, 0) + 1
        scorer.change(op.id, multiset)
        trial = Plan.model_validate({"placement": scorer.placement})
        ev = evaluate(app, infra, trial, goal, current, limits)
        assert ev.utility is not None and ev.odrp is not None
        assert scorer.value() == pytest.approx(ev.utility.value, abs=1e-9)
        got = scorer.metrics()
        for metric in METRICS:
            assert got[metric] == pytest.approx(ev.odrp.metric(metric), rel=1e-9, abs=1e-12)
        assert scorer.feasible() == (not ev.violations), [v.message for v in ev.violations]
        feasible_seen += scorer.feasible()
        infeasible_seen += not scorer.feasible()
    assert infeasible_seen  # the changes break constraints too, so both answers are tested
    if name != "debs2015":  # DEBS's capacities leave random plans little room
        assert feasible_seen
