"""The Ecker score s(x) (Ecker et al., eq. 1) by hand, on the instance-level topology."""

from __future__ import annotations

import pytest

from streamplace.model.evaluate import evaluate

from ..conftest import make_infra, make_plan


def test_score_parts_by_hand(chain, two_nodes):
    plan = make_plan({"placement": {"a": {"u": 1}, "b": {"u": 2, "v": 1}, "c": {"v": 1}}},
                     chain, two_nodes)
    e = evaluate(chain, two_nodes, plan).ecker
    # s_lat: a@u -> b@v (10 ms) -> c@v (0), or a@u -> b@u -> c@v (10 ms): 10 ms
    assert e.s_lat == pytest.approx(0.01)
    assert e.s_sup == 1.0
    # instance edges: a->b 1x3 (1 remote), b->c 3x1 (2 remote)
    assert e.s_co == pytest.approx(3 / 6)
    # events: a->b 60 (20 remote), b->c 30 (20 remote)
    assert e.s_event == pytest.approx(40 / 90)
    assert e.score == pytest.approx(1e-6 * 0.01 + 1 + 0.5 + 40 / 90)


def test_headroom_counts_only_for_ecker_methods(chain):
    infra = make_infra({"name": "tight", "nodes": [{"id": "u", "resources": 4},
                                                   {"id": "v", "resources": 10}]})
    placement = {"a": {"u": 1}, "b": {"u": 3}, "c": {"v": 1}}  # u full: 4 of 4 > 95%
    plain = evaluate(chain, infra, make_plan({"placement": placement}, chain, infra))
    assert plain.violations == [] and plain.warnings == []
    assert plain.ecker.violations == 1
    ecker = evaluate(chain, infra, make_plan({"placement": placement, "model": "ecker"},
                                             chain, infra))
    assert [v.constraint for v in ecker.violations] == ["ecker.headroom"]
    assert ecker.ecker.violations == 1
