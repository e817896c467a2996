"""Bounds of ``odrp``: the LP of the compact program (with its landmark and capacity rows)
and the smaller relaxation used at scale are at least the brute-force optimum on every
instance of the exactness batteries (a bound below an optimum would be a bug)."""

from __future__ import annotations

import numpy as np
import pytest

from streamplace.solve import SolveOptions, SolveStatus
from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs.solve import solve_highs
from streamplace.solve.odrp import relaxation_bound
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import prepare

from ..conftest import best_utility, placements
from ..support.instances import (
    one_way_instance,
    random_instance,
    spread_instance,
    two_sinks_instance,
)

BATTERY = [random_instance(seed) for seed in range(14)] + \
    [spread_instance(seed) for seed in range(6)]


def plan_points(instance, data, built):
    """Every plan on the operators' candidates, with the program's integer columns set
    to it (the rest 0, for the caller to fill)."""
    for plan in placements(instance.app, instance.infra,
                           lambda op, counts=data.counts: counts[op.id]):
        if any(u not in data.cands[op] for op, reps in plan.placement.items() for u in reps):
            continue
        yield plan, np.array([0.0 if v is None else v for v in built.start_from(plan)])


def broken_rows(built, rows, csr, x) -> list[int]:
    """The rows among ``rows`` that point ``x`` breaks (``csr``: the model's rows)."""
    start, index, value = csr
    return [row for row in rows
            if value[start[row]:start[row + 1]] @ x[index[start[row]:start[row + 1]]]
            < built.model.row_lo[row] - 1e-9]


def lp_optimum(model) -> float:
    outcome = solve_highs(model, SolveOptions(highs={"solve_relaxation": True}),
                          budget=Budget(time_limit=None))
    assert outcome.status == SolveStatus.OPTIMAL and outcome.objective is not None
    return outcome.objective


@pytest.mark.parametrize("products", [True, False])
def test_every_relaxation_bounds_the_brute_force_optimum(products):
    compared = landmarks = capacity_times_use = through_rows = 0
    for instance in BATTERY:
        expected = best_utility(instance)
        if expected is None:
            continue
        model = build_compact(prepare(instance), None, "all" if products else "lazy",
                              products=products).model
        assert lp_optimum(model) >= expected - 1e-7, instance.app.name
        compared += 1
        landmarks += model.row_family.count("landmark cuts")
        through_rows += model.row_family.count("through rows")
        capacity_times_use += any(
            family == "capacity (eq. 23)" and hi == 0.0
            for family, hi in zip(model.row_family, model.row_hi, strict=True))
    assert compared >= 15
    assert landmarks > 0 and capacity_times_use > 0 and through_rows > 0, \
        "the rows under test were not built"


def test_through_rows_tighten_the_lp_where_sinks_lie_apart_and_keep_it_exact(monkeypatch):
    """The rows on R through an operator's nodes (through_rows.py): with two sinks pinned
    far apart, the LP can no longer keep an operator half near each for half the
    distance; the LP still bounds the brute-force optimum, and the program with the
    rows still reaches it."""
    from streamplace.solve import FormulationName, get_method
    from streamplace.solve.odrp import compact

    from ..conftest import assert_exact

    tighter = 0
    for seed, instance in enumerate([two_sinks_instance(seed) for seed in range(9)]
                                    + [one_way_instance(seed) for seed in range(4)]):
        expected = best_utility(instance)
        assert expected is not None
        model = build_compact(prepare(instance), None, "all").model
        assert "through rows" in model.row_family
        bound = lp_optimum(model)
        assert bound >= expected - 1e-7, seed
        with monkeypatch.context() as patch:
            patch.setattr(compact, "add_through_rows", lambda *args: None)
            loose = lp_optimum(build_compact(prepare(instance), None, "all").model)
        assert bound <= loose + 1e-9, seed
        tighter += bound < loose - 1e-4
        result = get_method("odrp").solve(
            instance, SolveOptions(gap=0.0, formulation=FormulationName.COMPACT))
        assert_exact(result, expected, seed)
    # hop by hop all 13 (with the symmetrised metric closure it was 9)
    assert tighter >= 12, "the rows under test tightened too few LPs"


def test_through_rows_hold_at_every_plan_where_links_differ_by_direction():
    """Every plan's point of the program (its replica cells, its latencies, arrival times
    and R as the evaluator computes them) meets every through row, on networks whose links
    are slower one way and where two hops beat one (tests/support/instances.py, one_way_instance).
    Taken the wrong way on either side, the hops cut off two thirds of these plans
    (1,050 and 1,064 of 1,568, when tried)."""
    from streamplace.model.evaluate import evaluate

    checked = 0
    for seed in range(8):
        instance = one_way_instance(seed)
        data = prepare(instance)
        built = build_compact(data, None, "all")
        rows = [k for k, family in enumerate(built.model.row_family) if family == "through rows"]
        assert rows, seed
        csr = built.model.to_csr()
        column = {name: k for k, name in enumerate(built.model.names)}
        for plan, x in plan_points(instance, data, built):
            odrp = evaluate(instance.app, instance.infra, plan, instance.objective).odrp
            latency = {op.id: op.latency for op in odrp.operators}
            delay = {(s.source, s.target): s.delay for s in odrp.streams}
            arrival: dict[str, float] = {}
            for op in data.graph.topological_order():  # eqs. 8-9
                arrival[op] = latency[op] + max(
                    (arrival[p] + delay[(p, op)] for p in data.graph.preds[op]), default=0.0)
                x[column[f"T[{op}]"]], x[column[f"lat[{op}]"]] = arrival[op], latency[op]
            x[column["r"]] = odrp.response_time
            assert not broken_rows(built, rows, csr, x), (seed, plan.placement)
            checked += 1
    assert checked > 1000, "too few plans checked"


def test_share_cuts_hold_at_every_plan_and_keep_the_bound():
    """The transport cuts on the network shares (share_cuts.py) hold at every plan of
    the model, with each share at its exact value, and the LP they tighten still bounds
    the brute-force optimum (a cut through a plan would be a bug)."""
    from streamplace.solve.odrp.network import stream_weights
    from streamplace.solve.odrp.root import cut_root

    checked = 0
    for instance in [*BATTERY, random_instance(14)]:
        data = prepare(instance)
        built = build_compact(data, None, "all")
        root = cut_root(data, built, Budget(time_limit=None))
        rows = [k for k, family in enumerate(built.model.row_family) if family == "share cuts"]
        if root is None or not rows:
            continue
        expected = best_utility(instance)
        assert expected is None or root.bound >= expected - 1e-7, instance.app.name
        csr = built.model.to_csr()
        streams = {s.index: s for s in data.streams}

        def shares(plan, op, cands=data.cands):
            reps = plan.replicas(op)
            return np.array([reps.get(u, 0) for u in cands[op]]) / sum(reps.values())

        for plan, x in plan_points(instance, data, built):
            for k, share in built.shares.items():
                s = streams[k]
                x[share.column] = shares(plan, s.source) @ stream_weights(data, s) @ \
                    shares(plan, s.target)
            assert not broken_rows(built, rows, csr, x), (instance.app.name, plan.placement)
            checked += 1
    assert checked > 500, "too few plans met a share cut"


@pytest.mark.parametrize(("rows", "passes"), [("all", None), ("all", 1), ("lazy", None)])
def test_the_root_lp_holds_delay_rows_back_yet_solves_the_whole_lp(monkeypatch, rows, passes):
    """The root LP starts without eq. 4's rows and takes those its solutions break: its
    first optimum is the LP's with every row, while rows no solution breaks stay out. With
    one pass allowed, every held row goes in after the first solve: the same optimum.
    Where the rows start out of the program, nothing is held: the first LP, by the
    interior-point method as every first LP, is the program's LP as simplex solves it."""
    from streamplace.solve.odrp import root as root_lp
    from streamplace.solve.odrp.root import cut_root

    if passes is not None:
        monkeypatch.setattr(root_lp, "MAX_PASSES", passes)
    left_out = compared = 0
    for instance in [*BATTERY, *(two_sinks_instance(seed) for seed in range(4)),
                     *(one_way_instance(seed) for seed in range(4))]:
        data = prepare(instance)
        built = build_compact(data, None, rows)
        whole = lp_optimum(built.model)
        root = cut_root(data, built, Budget(time_limit=None))
        if root is None:
            continue
        assert root.first == pytest.approx(whole, rel=1e-7, abs=1e-9), instance.app.name
        compared += 1
        left_out += root.delay_rows_left_out
    assert compared >= 15 and (left_out > 0) == (rows == "all" and passes is None)


def test_a_first_lp_method_given_for_highs_wins_and_odrp_stays_exact():
    """HiGHS's first LP is by the interior-point method unless the options name another;
    either way odrp proves the brute-forced optimum."""
    from streamplace.solve import get_method
    from streamplace.solve.odrp.root import PROGRAM_OPTIONS, RootCuts, program_options

    root = RootCuts(0.9, 0.9, 1, 0, 0.1, 0.1, False)
    given = SolveOptions(highs={"mip_lp_solver": "simplex"})
    assert program_options(given, root).highs["mip_lp_solver"] == "simplex"
    assert program_options(SolveOptions(), root).highs == PROGRAM_OPTIONS
    assert program_options(SolveOptions(), None).highs == {}
    proved = timed = 0
    for instance in BATTERY[:6]:
        expected = best_utility(instance)
        if expected is None:
            continue
        for options in (SolveOptions(), given):
            result = get_method("odrp").solve(instance, options)
            assert result.status == SolveStatus.OPTIMAL, instance.app.name
            assert result.objective == pytest.approx(expected, abs=1e-6), instance.app.name
        proved += 1
        # a root LP was timed, so HiGHS had the option set (program_options)
        timed += "root_lp_seconds" in result.solver.counters
    assert proved >= 4 and timed >= 3


def test_the_relaxation_bound_holds_where_odrp_uses_it(monkeypatch):
    monkeypatch.setattr(relaxation_bound, "BOUND_FIRST_FROM", 0)
    for instance in BATTERY[:8]:
        expected = best_utility(instance)
        relaxation = relaxation_bound.relaxation_bound(prepare(instance), Budget(time_limit=None))
        assert relaxation is not None
        assert relaxation.time_for_program(Budget(time_limit=None))  # no limit: it runs
        if expected is not None:
            assert relaxation.bound >= expected - 1e-7, instance.app.name


def test_without_time_for_the_program_the_search_has_it_and_the_bound_holds(monkeypatch):
    """Where the whole program's root LP could not end in the time left, HiGHS never gets
    it (it would only burn a core past the limit): the primal search's plan, never worse
    than the start, with the relaxation's bound, and a status that is not optimal."""
    from streamplace.model.evaluate import evaluate
    from streamplace.solve import get_method
    from streamplace.solve.odrp.methods import _baseline_start

    monkeypatch.setattr(relaxation_bound, "BOUND_FIRST_FROM", 0)
    monkeypatch.setattr(relaxation_bound, "PROGRAM_FROM", 0)
    monkeypatch.setattr(relaxation_bound, "PROGRAM_FACTOR", 1e9)
    seen = 0
    for instance in BATTERY[:6]:
        expected = best_utility(instance)
        if expected is None:
            continue
        start = _baseline_start(instance, prepare(instance))
        result = get_method("odrp").solve(instance, SolveOptions(time_limit=2))
        assert result.status == SolveStatus.TIME_LIMIT, result.message
        assert "not solved" in result.solver["program"]
        assert result.solver["bound_from"] == "relaxation"
        assert expected - 1e-7 <= result.bound
        assert result.objective <= expected + 1e-7
        if start is not None:
            begun = evaluate(instance.app, instance.infra, start, instance.objective)
            assert result.objective >= begun.utility.value - 1e-9
        assert result.plan.gap == pytest.approx(result.gap)
        seen += 1
    assert seen >= 3


def test_where_highs_could_not_get_through_its_root_the_root_lp_bounds_the_search(
        monkeypatch):
    """The root LP solved before HiGHS (root.py) tells how long HiGHS's own root would take;
    where the time left is shorter, HiGHS never starts: the primal search's plan, with the
    root LP's bound (never below brute force), a status that is not optimal, and the
    reason given."""
    from streamplace.solve import get_method
    from streamplace.solve.odrp import root

    monkeypatch.setattr(root, "ROOT_FACTOR", 1e9)
    seen = 0
    for instance in BATTERY:
        expected = best_utility(instance)
        if expected is None:
            continue
        result = get_method("odrp").solve(instance, SolveOptions(time_limit=2))
        if "root_lp_seconds" not in result.solver:  # no stream share to cut: no root LP
            continue
        assert result.status == SolveStatus.TIME_LIMIT, result.message
        assert "not solved" in result.solver["program"]
        assert "its root LP took" in result.message
        assert result.solver["bound_from"] == "share_cut"
        assert expected - 1e-7 <= result.bound
        assert result.objective <= expected + 1e-7
        seen += 1
        if seen == 3:  # the search runs to the limit each time
            break
    assert seen == 3


def test_an_interrupt_ends_the_search_running_alone(monkeypatch):
    """The workers' own stop request does not see an interrupt: the caller's thread
    watches for it. Without that, a Ctrl-C would wait for the time limit (here an hour)."""
    from streamplace.solve import get_method
    from streamplace.solve.budget import StopRequest
    from streamplace.solve.odrp.primal.concurrent import PrimalSearch

    monkeypatch.setattr(relaxation_bound, "BOUND_FIRST_FROM", 0)
    monkeypatch.setattr(relaxation_bound, "PROGRAM_FROM", 0)
    monkeypatch.setattr(relaxation_bound, "PROGRAM_FACTOR", 1e9)
    stop = StopRequest()
    both = PrimalSearch._both_workers

    def interrupted_then(search):  # the interrupt comes once the workers run alone
        stop.set()
        both(search)

    monkeypatch.setattr(PrimalSearch, "_both_workers", interrupted_then)
    instance = BATTERY[1]
    result = get_method("odrp").solve(instance, SolveOptions(time_limit=3600, stop=stop))
    assert result.status == SolveStatus.INTERRUPTED
    assert result.plan is not None and result.bound is not None


def test_a_program_proven_infeasible_gets_no_bound(monkeypatch):
    """The relaxation leaves the delay rows out, so it can have a plan where the program
    has none (a response-time limit no plan meets): the result is infeasible, unbounded."""
    from dataclasses import replace

    from streamplace.model.metrics import Metric, MetricLimits
    from streamplace.solve import get_method

    monkeypatch.setattr(relaxation_bound, "BOUND_FIRST_FROM", 0)
    from streamplace.model.objective import Objective

    seen = 0
    for instance in BATTERY:
        fastest = get_method("odrp").solve(replace(instance, objective=Objective.model_validate(
            {"weights": {"response_time": 1}})), SolveOptions(gap=0.0))
        too_fast = MetricLimits({Metric.RESPONSE_TIME:
                                 0.999 * fastest.evaluation.odrp.response_time})
        limited = replace(instance, limits=too_fast)
        if relaxation_bound.relaxation_bound(prepare(limited), Budget(time_limit=None)) is None:
            continue  # the relaxation has no plan either: nothing to test on this one
        result = get_method("odrp").solve(limited, SolveOptions())
        assert result.status == SolveStatus.INFEASIBLE
        assert result.bound is None and "relaxation_bound" not in result.solver
        seen += 1
    assert seen > 0


def test_a_root_lp_proven_infeasible_leaves_the_proof_to_highs():
    """A response-time limit below any operator's latency makes the root LP infeasible:
    that is no LP running out of time, so HiGHS still gets the program and proves it has no
    plan, within a time limit too (the primal search alone could only run to the limit)."""
    from dataclasses import replace

    from streamplace.model.metrics import Metric, MetricLimits
    from streamplace.model.objective import Objective
    from streamplace.solve import get_method

    instance = replace(BATTERY[0], objective=Objective.model_validate(
        {"weights": {"response_time": 1, "network": 1}, "network_metric": "network_usage"}),
        limits=MetricLimits({Metric.RESPONSE_TIME: 1e-9}))
    result = get_method("odrp").solve(instance, SolveOptions(time_limit=600))
    assert result.status == SolveStatus.INFEASIBLE, result.message
