"""Benoit constraints (1)-(5) and cost (Benoit et al. 2008, sec. 2.3) worked out by hand on the
sample."""

from __future__ import annotations

import pytest

from streamplace.io.readers import read_instance, read_plan_for
from streamplace.model.evaluate import evaluate

from ..conftest import make_app, make_infra, make_plan, sample

MB = 1e6


@pytest.fixture
def tree():
    return read_instance(sample("benoit-tree", "application.yaml"),
                         sample("benoit-tree", "infrastructure.yaml"))


def _plan(tree, **changes):
    app, infra = tree
    plan = read_plan_for(sample("benoit-tree", "plan.yaml"), app, infra)
    data = plan.model_dump(by_alias=True, exclude_none=True) | changes
    return make_plan(data, app, infra)


def test_sample_platform_by_hand(tree):
    app, infra = tree
    ev = evaluate(app, infra, _plan(tree))
    b = ev.benoit
    assert ev.violations == []
    assert b.mode == "constr"
    assert b.cost == (7548 + 1550) + 7548                       # Table 1 prices
    compute = {u.subject.ids[0]: u.used for u in b.compute}
    assert compute == pytest.approx({"p1": (5 + 6 + 8) * 1e9 / 19.2e9, "p2": 9e9 / 11.72e9})
    cards = {u.subject.ids[0]: u.used for u in b.processor_cards}
    # (2) downloads at f = 0.5/s plus rho * delta_n3 = 25 MB/s for the cut edge n3 -> n1
    assert cards["p1"] == pytest.approx((20 + 12 + 5) * 0.5 * MB + 25 * MB)
    assert cards["p2"] == pytest.approx((20 + 30) * 0.5 * MB + 25 * MB)
    servers = {u.subject.ids[0]: u.used for u in b.server_cards}
    assert servers == pytest.approx({"s1": 16 * MB, "s2": 2.5 * MB, "s3": 25 * MB})
    links = {u.subject.ids: (u.used, u.capacity) for u in b.processor_links}
    assert links == {("p1", "p2"): (25 * MB, 1e9)}
    # ODRP view of the same plan: the cut edge carries the child's output_size
    assert ev.odrp.traffic == pytest.approx(25 * MB)


def test_too_slow_processor_breaks_constraint_1(tree):
    ev = evaluate(*tree, _plan(tree, purchased=[{"id": "p1", "class": "r900-11.72ghz-1gbps"},
                                                {"id": "p2", "class": "r900-11.72ghz-1gbps"}]))
    [v] = ev.violations
    assert v.key == ("benoit.compute", "p1") and str(v.subject) == "node p1"
    assert v.excess == pytest.approx(19 / 11.72 - 1)


def test_downloads_must_exist_and_come_from_a_holder(tree):
    plan = _plan(tree, downloads=[
        {"node": "p1", "object": "o1", "server": "s2"},       # s2 does not hold o1
        {"node": "p1", "object": "o2", "server": "s1"},
        {"node": "p1", "object": "o3", "server": "s2"},
        {"node": "p2", "object": "o1", "server": "s3"}])      # p2 needs o4 too
    names = sorted(v.constraint for v in evaluate(*tree, plan).violations)
    assert names == ["benoit.download_missing", "benoit.download_server"]


def test_cards_and_links_non_constructive():
    infra = make_infra({
        "name": "lan",
        "nodes": [{"id": "a", "speed": 10, "bandwidth": 30, "cost": 5},
                  {"id": "b", "speed": 10, "bandwidth": 100, "cost": 7},
                  {"id": "c", "speed": 10, "cost": 11},
                  {"id": "srv", "role": "server", "bandwidth": 12, "objects": ["o"]}],
        "links": [{"from": "a", "to": "b", "bandwidth": 15},
                  {"from": "srv", "to": "a", "bandwidth": 8, "bidirectional": False}]})
    app = make_app({"name": "t", "throughput": 2, "operators": [
        {"id": "root", "work": 4, "output_size": 1},
        {"id": "leaf", "work": 3, "output_size": 10, "objects": ["o"]}],
        "streams": [{"from": "leaf", "to": "root"}],
        "objects": [{"id": "o", "size": 5, "frequency": 2}]})
    plan = make_plan({"placement": {"root": ["b"], "leaf": ["a"]},
                      "downloads": [{"node": "a", "object": "o", "server": "srv"}]}, app, infra)
    ev = evaluate(app, infra, plan)
    # (1) a: 2*3/10; (2) a: 10 (object) + 2*10 (edge) = 30 <= 30; (4) srv->a 10 > 8;
    # (5) a-b: 20 > 15; (3) srv: 10 <= 12
    assert {v.key for v in ev.violations} == {
        ("benoit.server_link", "srv", "a"), ("benoit.processor_link", "a", "b")}
    assert ev.benoit.mode == "non-constr" and ev.benoit.cost == 5 + 7


def test_replicated_operator_is_not_a_tree_mapping():
    infra = make_infra({"name": "n", "nodes": [{"id": "a"}, {"id": "b"}]})
    app = make_app({"name": "t", "throughput": 1,
                    "operators": [{"id": "x", "max_replicas": 2}]})
    ev = evaluate(app, infra, make_plan({"placement": {"x": {"a": 1, "b": 1}}}, app, infra))
    assert [v.constraint for v in ev.violations] == ["benoit.single_processor"]
