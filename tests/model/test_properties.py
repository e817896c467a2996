"""Invariants of the evaluator on random DAGs, infrastructures and plans (hypothesis)."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from streamplace.model.evaluate import evaluate
from streamplace.model.evaluate.utility import candidates
from streamplace.model.graph import build_graph
from streamplace.model.network import Network
from streamplace.model.objective import Objective
from streamplace.model.replicas import replica_ranges

from ..conftest import make_app, make_infra, make_plan

SETTINGS = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw: Any) -> tuple[dict, dict, dict]:
    n_nodes = draw(st.integers(1, 4))
    nodes = [{"id": f"n{u}", "speedup": draw(st.sampled_from([0.5, 1.0, 2.0])),
              "availability": draw(st.sampled_from([0.9, 0.99, 1.0]))} for u in range(n_nodes)]
    links = [{"from": f"n{u}", "to": f"n{v}",
              "delay": draw(st.floats(0.001, 0.05)),
              "availability": draw(st.sampled_from([0.95, 1.0])),
              "cost": draw(st.sampled_from([0.0, 0.001]))}
             for u in range(n_nodes) for v in range(u + 1, n_nodes)]
    n_ops = draw(st.integers(2, 6))
    edges = sorted({(i, j) for i in range(n_ops) for j in range(i + 1, n_ops)
                    if draw(st.booleans())} | {(i, i + 1) for i in range(n_ops - 1)
                                                if draw(st.booleans())})
    ops, placement = [], {}
    for i in range(n_ops):
        k = draw(st.integers(1, 3))
        op: dict[str, Any] = {"id": f"o{i}", "max_replicas": k,
                              "service_rate": draw(st.floats(50, 500))}
        ops.append(op)
        count = draw(st.integers(1, k))
        placement[f"o{i}"] = [f"n{draw(st.integers(0, n_nodes - 1))}" for _ in range(count)]
    streams = [{"from": f"o{i}", "to": f"o{j}", "rate": draw(st.floats(1, 40)),
                "tuple_size": draw(st.sampled_from([1, 100, 1000]))} for i, j in edges]
    return ({"name": "r", "operators": ops, "streams": streams},
            {"name": "i", "nodes": nodes, "links": links}, {"placement": placement})


def _evaluate(data: tuple[dict, dict, dict], objective: Objective | None = None):
    app, infra = make_app(data[0]), make_infra(data[1])
    return app, infra, evaluate(app, infra, make_plan(data[2], app, infra), objective)


@SETTINGS
@given(instances())
def test_traffic_never_exceeds_what_streams_carry(data):
    app, _, ev = _evaluate(data)
    total = sum(s.bytes_per_s for s in build_graph(app).streams)
    o = ev.odrp
    assert 0 <= o.traffic <= total * (1 + 1e-9)
    assert o.network_usage <= o.traffic * 0.05 * (1 + 1e-9)
    assert o.elastic_energy <= o.network_usage * 0.05 * (1 + 1e-9)
    assert 0 < o.availability <= 1
    assert o.cost >= sum(op.count for op in o.operators)


@SETTINGS
@given(instances())
def test_response_time_bounds_every_stream_hop(data):
    _, _, ev = _evaluate(data)
    o = ev.odrp
    latency = {op.id: op.latency for op in o.operators}
    assert o.response_time >= max(latency.values())
    for s in o.streams:
        assert o.response_time >= latency[s.source] + s.delay + latency[s.target] - 1e-12
    assert math.isclose(sum(step.seconds for step in o.critical_steps), o.response_time) \
        or math.isinf(o.response_time)


@SETTINGS
@given(instances())
def test_evaluation_does_not_depend_on_listing_order(data):
    app_data, infra_data, plan_data = data
    shuffled = {"placement": {op: list(reversed(nodes))
                              for op, nodes in reversed(list(plan_data["placement"].items()))}}
    infra_rev = infra_data | {"nodes": list(reversed(infra_data["nodes"]))}
    first = _evaluate(data)[2]
    second = _evaluate((app_data, infra_rev, shuffled))[2]
    assert first.metrics() == pytest.approx(second.metrics())
    assert sorted(v.constraint for v in first.violations) == \
        sorted(v.constraint for v in second.violations)


@SETTINGS
@given(instances())
def test_one_node_plan_has_no_network_terms(data):
    app_data, infra_data, plan_data = data
    single = {"placement": {op: ["n0"] * len(nodes)
                            for op, nodes in plan_data["placement"].items()}}
    _, infra, ev = _evaluate((app_data, infra_data, single))
    o = ev.odrp
    assert o.traffic == o.network_usage == o.elastic_energy == o.network_cost == 0
    assert o.availability == pytest.approx(infra.nodes[0].availability)


@SETTINGS
@given(instances())
def test_derived_bounds_hold_for_every_feasible_plan(data):
    ev = _evaluate(data)[2]
    if ev.violations:
        return
    for term in ev.utility.terms:
        worst_ok = term.value >= term.lo * (1 - 1e-9) if term.term == "availability" \
            else term.value <= term.hi * (1 + 1e-9) + 1e-12
        best_ok = term.value <= term.hi * (1 + 1e-9) if term.term == "availability" \
            else term.value >= term.lo * (1 - 1e-9) - 1e-12
        assert worst_ok and best_ok, term
        assert -1e-9 <= term.normalised <= 1 + 1e-9
    assert -1e-9 <= ev.utility.value <= 1 + 1e-9


@SETTINGS
@given(instances())
def test_stability_violations_match_latencies(data):
    app, infra, ev = _evaluate(data)
    unstable = {v.subject.ids[0] for v in ev.violations if v.constraint == "stability"}
    assert unstable == {op.id for op in ev.odrp.operators if not op.stable}
    graph, network = build_graph(app), Network(infra)
    cands = {op.id: candidates(op, network) for op in app.operators}
    ranges = replica_ranges(app.operators, graph.input_rates, cands, network)
    for op in app.operators:
        rate, counts = graph.input_rates[op.id], ranges[op.id]
        assert all(rate / m < op.service_rate for m in counts)
        if counts and counts[0] > op.min_replicas:  # the range starts at the fewest stable
            assert rate / (counts[0] - 1) >= op.service_rate
        assert cands[op.id] == network.processors


@SETTINGS
@given(instances(), st.sampled_from([2.0, 0.5]))
def test_scaling_delays_scales_network_metrics(data, factor):
    app_data, infra_data, plan_data = data
    scaled = infra_data | {"links": [link | {"delay": link["delay"] * factor}
                                     for link in infra_data["links"]]}
    base = _evaluate(data)[2].odrp
    other = _evaluate((app_data, scaled, plan_data))[2].odrp
    assert other.traffic == pytest.approx(base.traffic)
    assert other.network_usage == pytest.approx(base.network_usage * factor)
    assert other.elastic_energy == pytest.approx(base.elastic_energy * factor**2)
