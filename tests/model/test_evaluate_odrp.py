"""ODRP metrics against values worked out by hand from Cardellini et al. 2017's formulas
(eqs. 1-21)."""

from __future__ import annotations

import math

import pytest

from streamplace.io.readers import read_instance, read_objective, read_plan_for
from streamplace.model.evaluate import evaluate
from streamplace.model.evaluate.utility import normalised
from streamplace.model.metrics import Term
from streamplace.model.objective import Objective

from ..conftest import make_app, make_infra, make_plan, sample

# plan: a on u; b twice on u and once on v (a multiset with a repeated node); c on v
PLAN = {"placement": {"a": {"u": 1}, "b": {"u": 2, "v": 1}, "c": {"v": 1}}}


def test_multiset_with_repeated_nodes(chain, two_nodes):
    ev = evaluate(chain, two_nodes, make_plan(PLAN, chain, two_nodes))
    o = ev.odrp
    assert ev.violations == []
    # eq. 1: a sees 60/s alone: 1/(100-60); b: 60/3 = 20/s per replica, slowest node u
    # (S=1): 1/(50-20); c: fixed 2 ms on v (S=2): 1 ms
    lat = {op.id: op.latency for op in o.operators}
    assert lat == pytest.approx({"a": 1 / 40, "b": 1 / 30, "c": 0.001})
    # eq. 4: d(U,V) = max over pairs; both streams cross u-v somewhere: 10 ms each
    assert [s.delay for s in o.streams] == pytest.approx([0.01, 0.01])
    assert o.response_time == pytest.approx(1 / 40 + 0.01 + 1 / 30 + 0.01 + 0.001)
    assert o.critical_path == ["a", "b", "c"]
    # eq. 7: a->b: 60 * 1*1/(1*3) = 20 tuples/s u->v, 10 B each; b->c: 30 * 2/3 = 20 u->v, 20 B
    assert o.traffic == pytest.approx(20 * 10 + 20 * 20)
    assert o.network_usage == pytest.approx(600 * 0.01)
    assert o.elastic_energy == pytest.approx(600 * 0.01**2)
    # eq. 2 + eq. 5: 5 replicas at C_i Res_i = 1, plus 600 B/s at 0.001 per byte
    assert o.compute_cost == 5
    assert o.cost == pytest.approx(5 + 0.6)
    # eq. 15: nodes u, v and the one used link direction u->v
    assert o.availability == pytest.approx(0.9 * 0.8 * 0.95)
    assert o.used_links == [("u", "v")]
    assert o.node_usage == {"u": {"units": (3.0, 4.0)}, "v": {"units": (2.0, 4.0)}}


def test_utility_by_hand(chain, two_nodes):
    objective = Objective.model_validate({
        "weights": {"response_time": 1, "availability": 1, "cost": 1, "network": 1},
        "bounds": {"response_time": [0.05, 0.1], "availability": [0.5, 1.0],
                   "cost": [5, 10], "network": [0, 1000]}})
    ev = evaluate(chain, two_nodes, make_plan(PLAN, chain, two_nodes), objective)
    r = 1 / 40 + 0.02 + 1 / 30 + 0.001
    a = 0.9 * 0.8 * 0.95
    expected = 0.25 * ((0.1 - r) / 0.05 + (math.log(a) - math.log(0.5)) / -math.log(0.5)
                       + (10 - 5.6) / 5 + (1000 - 600) / 1000)
    assert ev.utility is not None
    assert ev.utility.value == pytest.approx(expected)
    assert [t.derived_bound for t in ev.utility.terms] == [False] * 4


def test_network_metric_selects_z(chain, two_nodes):
    plan = make_plan(PLAN, chain, two_nodes)
    for metric, value in (("traffic", 600), ("network_usage", 6), ("elastic_energy", 0.06)):
        objective = Objective.model_validate({"weights": {"network": 1},
                                              "network_metric": metric,
                                              "bounds": {"network": [0, 2 * value]}})
        ev = evaluate(chain, two_nodes, plan, objective)
        assert ev.utility is not None
        assert ev.utility.value == pytest.approx(0.5)


def test_unstable_replica_is_a_violation_and_infinite_latency(chain, two_nodes):
    plan = make_plan({"placement": {"a": ["u"], "b": ["u"], "c": ["v"]}}, chain, two_nodes)
    ev = evaluate(chain, two_nodes, plan)
    assert [v.constraint for v in ev.violations] == ["stability"]
    assert ev.violations[0].excess == pytest.approx(10)  # 60/s against mu = 50
    assert math.isinf(ev.odrp.response_time)
    assert ev.odrp.critical_path == ["a", "b", "c"]


def test_pinned_and_capacity_and_replica_cap(chain, two_nodes):
    plan = make_plan({"placement": {"a": {"v": 1}, "b": {"u": 4}, "c": {"v": 1}}},
                     chain, two_nodes)
    names = sorted(v.constraint for v in evaluate(chain, two_nodes, plan).violations)
    assert names == ["candidates", "replicas.max"]
    plan = make_plan({"placement": {"a": {"u": 1}, "b": {"u": 3}, "c": {"v": 1}}},
                     chain, two_nodes)
    capped = make_infra({"name": "small", "nodes": [{"id": "u", "resources": 3},
                                                    {"id": "v", "resources": 4}]})
    ev = evaluate(chain, capped, plan)
    assert [(v.key, str(v.subject), v.excess) for v in ev.violations] == [
        (("capacity", "u"), "node u", 1.0)]


def test_fixed_replicas_must_match_exactly(two_nodes):
    app = make_app({"name": "f", "operators": [{"id": "a", "latency": 0.001, "replicas": 2}]})
    ok = make_plan({"placement": {"a": {"u": 1, "v": 1}}}, app, two_nodes)
    assert evaluate(app, two_nodes, ok).violations == []
    bad = make_plan({"placement": {"a": {"u": 1}}}, app, two_nodes)
    assert [v.constraint for v in evaluate(app, two_nodes, bad).violations] == ["replicas.fixed"]


def test_missing_operator_leaves_metrics_undefined(chain, two_nodes):
    plan = make_plan({"placement": {"a": {"u": 1}, "c": {"v": 1}}}, chain, two_nodes)
    ev = evaluate(chain, two_nodes, plan)
    assert not ev.complete and ev.odrp is None and ev.utility is None
    assert [v.constraint for v in ev.violations] == ["placement.missing"]


def test_multi_dimensional_resources():
    infra = make_infra({"name": "i", "nodes": [{"id": "u", "resources": {"cpu": 2, "mem": 100}}]})
    app = make_app({"name": "a", "operators": [
        {"id": "x", "resources": {"cpu": 1, "mem": 60}, "cost": 3},
        {"id": "y", "resources": {"cpu": 1, "mem": 60}}]})
    ev = evaluate(app, infra, make_plan({"placement": {"x": ["u"], "y": ["u"]}}, app, infra))
    assert [(v.constraint, v.message) for v in ev.violations] == [
        ("capacity", "u uses 120 mem, has 100")]
    assert ev.odrp.compute_cost == 3 * 1 + 1 * 1  # billed on the first dimension (cpu)


def test_routed_shortest_path_infrastructure():
    infra = make_infra({
        "name": "routed", "routing": "shortest-path",
        "nodes": [{"id": "x"}, {"id": "y"}, {"id": "r", "role": "router"}, {"id": "z"}],
        "links": [
            {"from": "x", "to": "r", "delay": 0.005, "availability": 0.99, "cost": 0.1,
             "bandwidth": 100},
            {"from": "r", "to": "y", "delay": 0.007, "availability": 0.98, "cost": 0.2,
             "bandwidth": 50},
            {"from": "x", "to": "y", "delay": 0.02, "availability": 0.999, "bandwidth": 1000},
        ]})
    app = make_app({"name": "p", "operators": [{"id": "s", "candidates": ["x"]},
                                                {"id": "t", "candidates": ["y", "z"]}],
                    "streams": [{"from": "s", "to": "t", "rate": 10, "tuple_size": 2}]})
    ev = evaluate(app, infra, make_plan({"placement": {"s": ["x"], "t": ["y"]}}, app, infra))
    o = ev.odrp
    # via r (12 ms) beats the direct 20 ms link: delays and costs add, availabilities multiply
    assert o.response_time == pytest.approx(0.012)
    assert o.cost == pytest.approx(2 + 20 * 0.3)
    assert o.availability == pytest.approx(0.99 * 0.98)
    assert o.network_usage == pytest.approx(20 * 0.012)
    # z has no link at all: placing t there cannot route the stream
    ev = evaluate(app, infra, make_plan({"placement": {"s": ["x"], "t": ["z"]}}, app, infra))
    assert [v.constraint for v in ev.violations] == ["route.unreachable"]


def test_debs_plan_reproduces_the_contract_example():
    """docs/formats.md's example plan metrics and utility (0.93336) on the DEBS 2015 sample."""
    app, infra = read_instance(sample("debs2015", "application.yaml"),
                               sample("debs2015", "infrastructure.yaml"))
    plan = read_plan_for(sample("debs2015", "plan.yaml"), app, infra)
    objective = read_objective(sample("debs2015", "objective-balanced.yaml"))
    ev = evaluate(app, infra, plan, objective)
    assert ev.violations == []
    m = ev.metrics()
    assert m["response_time"] == pytest.approx(0.069, abs=5e-4)
    assert m["cost"] == 9.0 and m["availability"] == 1.0 and m["traffic"] == 76.0
    assert m["network_usage"] == pytest.approx(1.11, abs=5e-3)
    assert m["elastic_energy"] == pytest.approx(0.016, abs=5e-4)
    assert m["utility"] == pytest.approx(0.93336, abs=5e-6)


def test_rates_are_derived_from_inputs_and_throughput():
    app = make_app({"name": "d", "operators": [{"id": "s", "input_rate": 40}, {"id": "m"},
                                                {"id": "t"}],
                    "streams": [{"from": "s", "to": "m"}, {"from": "m", "to": "t", "rate": 5}]})
    from streamplace.model.graph import build_graph

    graph = build_graph(app)
    assert graph.input_rates == {"s": 40, "m": 40, "t": 5}
    assert [s.rate for s in graph.streams] == [40, 5]


def test_bounds_apart_by_rounding_alone_make_a_constant_term():
    """Derived bounds are products and sums taken in some order: where every plan has the
    same availability, lo and hi may still differ in their last bit. Dividing by that
    difference scored the term anywhere between -inf and +inf; such bounds are one value."""
    lo = 0.9979011998999999
    hi = math.nextafter(lo, 1.0)
    for value in (lo, hi, math.nextafter(lo, 0.0)):
        assert normalised(Term.AVAILABILITY, value, lo, hi) == 1.0
        assert normalised(Term.AVAILABILITY, value, hi, lo) == 1.0
    assert normalised(Term.AVAILABILITY, 0.99, lo, hi) == 0.0
    assert normalised(Term.COST, 5.0 + 1e-15, 5.0, 5.0) == 1.0
    assert normalised(Term.COST, 6.0, 5.0, 5.0) == 0.0
    assert normalised(Term.COST, 6.0, 5.0, 7.0) == 0.5  # a real span is untouched
