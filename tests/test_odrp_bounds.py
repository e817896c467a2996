"""Bounds of ``odrp``: the LP of the compact program (with its landmark and capacity rows)
and the smaller relaxation used at scale are at least the brute-force optimum on every
instance of the exactness batteries (a bound below an optimum would be a bug)."""

from __future__ import annotations

import pytest

from streamplace.solve import SolveOptions, SolveStatus, odrp_bound
from streamplace.solve.budget import Budget
from streamplace.solve.highs import solve_highs
from streamplace.solve.ilp.odrp_compact import build_compact
from streamplace.solve.ilp.odrp_data import prepare

from .conftest import best_utility
from .test_odrp_exact import random_instance, spread_instance

BATTERY = [random_instance(seed) for seed in range(14)] + \
    [spread_instance(seed) for seed in range(6)]


def lp_optimum(model) -> float:
    outcome = solve_highs(model, SolveOptions(highs={"solve_relaxation": True}),
                          budget=Budget(time_limit=None))
    assert outcome.status == SolveStatus.OPTIMAL and outcome.objective is not None
    return outcome.objective


@pytest.mark.parametrize("products", [True, False])
def test_every_relaxation_bounds_the_brute_force_optimum(products):
    compared = landmarks = capacity_times_use = 0
    for instance in BATTERY:
        expected = best_utility(instance)
        if expected is None:
            continue
        model = build_compact(prepare(instance), None, "all" if products else "lazy",
                              products=products).model
        assert lp_optimum(model) >= expected - 1e-7, instance.app.name
        compared += 1
        landmarks += model.row_family.count("landmark cuts")
        capacity_times_use += any(
            family == "capacity (eq. 23)" and hi == 0.0
            for family, hi in zip(model.row_family, model.row_hi, strict=True))
    assert compared >= 15
    assert landmarks > 0 and capacity_times_use > 0, "the rows under test were not built"


def test_the_relaxation_bound_holds_where_odrp_uses_it(monkeypatch):
    monkeypatch.setattr(odrp_bound, "BOUND_FIRST_FROM", 0)
    for instance in BATTERY[:8]:
        expected = best_utility(instance)
        bound = odrp_bound.relaxation_bound(prepare(instance), Budget(time_limit=None))
        if expected is not None:
            assert bound is not None and bound >= expected - 1e-7, instance.app.name
