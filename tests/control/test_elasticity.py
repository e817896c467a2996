"""Outputs that do not grow in proportion to inputs (windows, joins): the output-growth
exponent fitted from readings, and the streams downstream of an offered load scaled by it."""

from __future__ import annotations

import json

import pytest

from streamplace.control.autoscale.output_growth import fitted
from streamplace.control.flink.observe import observe
from streamplace.control.running.offered import offer

from ..support.snapshots import SNAPSHOT


def observed():
    with open(SNAPSHOT) as handle:
        return observe(json.load(handle), SNAPSHOT)


def rates(obs) -> dict[tuple[str, str], float]:
    return {(s.source, s.target): s.rate for s in obs.streams}


def test_a_vertex_with_an_elasticity_sends_its_input_factor_to_that_power():
    """The source offered twice what it sent: counter takes twice as much; with e = 2 (a
    join's matches) it sends four times as much, and so does every stream after it; e = 1
    keeps the selectivity, as without."""
    before = rates(observed())
    source = next(v.op for v in observed().vertices if v.source)
    sent = sum(r for (a, _), r in before.items() if a == source)
    linear, bent = observed(), observed()
    offer(linear, {source: 2 * sent})
    offer(bent, {source: 2 * sent}, elasticity={"counter": 2.0})
    for (a, b), rate in before.items():
        assert rates(linear)[(a, b)] == pytest.approx(2 * rate)
        assert rates(bent)[(a, b)] == pytest.approx((4 if a != source else 2) * rate)


def test_the_elasticity_is_fitted_only_from_readings_far_enough_apart():
    readings = ({"join": [(100.0, 130.0), (105.0, 140.0), (110.0, 160.0)],  # 10% apart
                    "window": [(100.0, 50.0), (200.0, 50.0), (400.0, 50.0)],  # saturated
                    "map": [(100.0, 100.0), (200.0, 199.0), (300.0, 301.0)],  # linear
                    "fired": [(100.0, 130.0), (200.0, 20.0), (150.0, 400.0)],  # scattered
                    "two": [(100.0, 130.0), (200.0, 520.0)]})  # two readings: not yet
    assert fitted(readings) == {"window": pytest.approx(0.0, abs=1e-9)}
