"""Analyses that are more than a grid (docs/models.md sec. 10): the largest feasible rate of
a scenario, by bisection; the Pareto front of two metrics, by the epsilon-constraint
method. Every probe is a solve of the scenario's method, with hard metric limits where the
analysis needs them (rows of the compact ODRP program; checked plans for other methods)."""

from __future__ import annotations

import time
from typing import Any

from streamplace.errors import InfeasibleError, InputError
from streamplace.model.metrics import NETWORK_METRICS, Metric, MetricLimits
from streamplace.solve.result import SolveResult, SolveStatus
from streamplace.sweep.rows import Outcome, Settings, outcome, solve
from streamplace.sweep.scenarios import Inputs, Scenario, instance_of

_FOUND = (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE, SolveStatus.TIME_LIMIT,
          SolveStatus.LIMIT)


def max_rate(inputs: Inputs, settings: Settings, scenario: Scenario) -> Outcome:
    """The largest rate scale in [low, high] at which the method finds a plan within the
    thresholds, to ``tolerance`` (relative); the plan at that scale. Feasibility only
    shrinks as rates grow (every load, hence every latency, grows with them), so the
    bisection is exact for exact methods: ``max_rate_proven`` says every probe above the
    answer was proven infeasible."""
    assert settings.max_rate is not None
    spec = settings.max_rate
    limits = spec.limits()
    started = time.perf_counter()
    probes = 0
    proven = True

    def probe(scale: float) -> SolveResult:
        nonlocal probes
        probes += 1
        try:
            return solve(instance_of(inputs, scenario, rate_scale=scale), scenario,
                         settings.time_limit, limits)
        except InfeasibleError as exc:
            return SolveResult.infeasible(scenario.method, exc.reasons, 0.0)
        except InputError as exc:  # an input problem at this scale: no plan there
            return SolveResult(SolveStatus.ERROR, scenario.method, message=str(exc))
        # anything else is a bug: it fails the scenario's row with its cause (sweep/run.py)
        # instead of reading as "no plan at this scale" and steering the bisection down

    lo, hi = spec.low, spec.high
    best = probe(lo)
    if best.status not in _FOUND or best.plan is None:
        return _max_rate_row(scenario, settings, best, None, lo, False, probes, started,
                             f"no plan even at rate scale {lo:g}: {best.message}")
    top = probe(hi)
    if top.status in _FOUND and top.plan is not None:
        return _max_rate_row(scenario, settings, top, hi, None, True, probes, started)
    proven = top.status == SolveStatus.INFEASIBLE
    while hi - lo > spec.tolerance * lo:
        mid = (lo + hi) / 2
        result = probe(mid)
        if result.status in _FOUND and result.plan is not None:
            lo, best = mid, result
        elif result.status in (SolveStatus.INFEASIBLE, SolveStatus.ERROR):
            proven = proven and result.status == SolveStatus.INFEASIBLE
            hi = mid
        else:  # stopped without a plan and without a proof: the bracket stays open
            return _max_rate_row(scenario, settings, best, lo, hi, False, probes, started,
                                 f"probe at {mid:g} ended {result.status.value} without a "
                                 "plan; the answer lies in [max_rate_scale, max_rate_upper]")
    return _max_rate_row(scenario, settings, best, lo, hi, proven, probes, started)


def _max_rate_row(scenario: Scenario, settings: Settings, result: SolveResult,
                  scale: float | None, upper: float | None, proven: bool, probes: int,
                  started: float, error: str = "") -> Outcome:
    out = outcome(scenario, result, settings, {
        "max_rate_scale": scale, "max_rate_upper": upper, "max_rate_proven": proven,
        "probes": probes})
    out.row["seconds"] = round(time.perf_counter() - started, 4)
    if error:
        out.row["error"] = error
    return out


def pareto_front(inputs: Inputs, settings: Settings, scenario: Scenario) -> list[Outcome]:
    """The front of (first, second), both in their better direction (lower, or higher for
    availability): optimise the first with the second bounded by epsilon, then the second
    with the first held at its optimum (so the point is not dominated), then tighten epsilon
    just past the point; until no plan meets the bound. With an exact method every point is
    proven (status optimal) or carries its gap; a heuristic's points are what it found."""
    assert settings.pareto is not None
    first, second = settings.pareto.metrics
    step = settings.pareto.step
    started = time.perf_counter()
    points: list[Outcome] = []
    epsilon: float | None = None
    while len(points) < settings.pareto.max_points:
        bound = _limit(second, epsilon)
        a = _optimise(inputs, settings, scenario, first, bound)
        if a.status == SolveStatus.INFEASIBLE and points:
            break  # the front is complete
        if a.plan is None or a.evaluation is None or a.evaluation.odrp is None:
            if not points:
                points.append(outcome(scenario, a, settings, _pareto_extra(
                    len(points), first, second, None, epsilon)))
            else:
                points[-1].row["error"] = (f"the front stops early: the next probe ended "
                                           f"{a.status.value} ({a.message})")
            break
        f1 = a.evaluation.odrp.metric(first)
        held = _merge(bound, _limit(first, _loosened(first, f1)))
        b = _optimise(inputs, settings, scenario, second, held)
        chosen = b if b.plan is not None and b.evaluation is not None else a
        assert chosen.evaluation is not None and chosen.evaluation.odrp is not None
        f2 = chosen.evaluation.odrp.metric(second)
        point = outcome(scenario, chosen, settings,
                        _pareto_extra(len(points), first, second, f1, epsilon),
                        suffix=f"-{len(points)}")
        point.row.update(status=_worst(a.status, chosen.status).value,
                         gap=max((r.gap for r in (a, chosen) if r.gap is not None),
                                 default=None), objective=None, bound=None)
        points.append(point)
        epsilon = _tightened(second, f2, step)
    else:
        points[-1].row["error"] = f"max_points {len(points)} reached: the front may go on"
    total = round(time.perf_counter() - started, 4)
    for point in points:
        point.row["seconds"] = total
    return points


def _optimise(inputs: Inputs, settings: Settings, scenario: Scenario, metric: Metric,
              limits: MetricLimits) -> SolveResult:
    try:
        instance = instance_of(inputs, scenario, weights={metric.term: 1.0})
        if metric in NETWORK_METRICS:
            instance = type(instance)(instance.app, instance.infra,
                                      instance.objective.model_copy(
                                          update={"network_metric": metric.value}))
        return solve(instance, scenario, settings.time_limit, limits)
    except InfeasibleError as exc:
        return SolveResult.infeasible(scenario.method, exc.reasons, 0.0)
    except InputError as exc:  # a limit no plan of this instance can be given (a bug is
        # not caught: it fails the row with its cause, sweep/run.py)
        return SolveResult(SolveStatus.ERROR, scenario.method, message=str(exc))


def _limit(metric: Metric, value: float | None) -> MetricLimits:
    if value is None:
        return MetricLimits()
    if metric.higher_is_better:  # availability: a probability
        value = min(max(value, 0.0), 1.0)
    return MetricLimits({metric: value})


def _merge(a: MetricLimits, b: MetricLimits) -> MetricLimits:
    return MetricLimits({**a.bounds, **b.bounds})


def _loosened(metric: Metric, value: float) -> float:
    """The first metric held at its optimum, allowing for rounding."""
    slack = 1e-9 * max(1.0, abs(value))
    return value - slack if metric.higher_is_better else value + slack


def _tightened(metric: Metric, value: float, step: float) -> float:
    delta = step * max(abs(value), 1e-12)
    return value + delta if metric.higher_is_better else value - delta


def _worst(a: SolveStatus, b: SolveStatus) -> SolveStatus:
    return a if a != SolveStatus.OPTIMAL else b


def _pareto_extra(index: int, first: Metric, second: Metric, first_limit: float | None,
                  second_limit: float | None) -> dict[str, Any]:
    return {"point": index, "pareto_first": first.value, "pareto_second": second.value,
            "pareto_first_limit": first_limit, "pareto_second_limit": second_limit}

