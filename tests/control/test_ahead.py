"""Planning ahead (``--horizon``), in-process against jobs run in memory: a periodic load
carried with fewer slots than holding its peak and no window held back, what the team knows
met before it comes, a load the forecast missed met as the reactive loop meets it, a vertex
that contends never scaled past where its capacity stops growing, and each bad input said."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from typing import Any

import pytest

from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.errors import InputError
from streamplace.model.forecast import ForecastFile

from ..support.loops import FakeClock, MemoryJob, autoscaler, decisions, pipeline
from ..support.memory_engine import sine, steps

FIRST, END = 3000.0, 6000.0  # the loop learns the season in the first five periods


def _sine_run(**given: object) -> tuple[MemoryJob, list]:  # type: ignore[type-arg]
    clock = FakeClock()
    job = pipeline(clock, rate=sine(60.0, 240.0, 600.0))
    return job, decisions(job, clock, 1000, until=END, catch_up_duration=300.0, **given)


def _pressed(job_said: list, since: float) -> int:  # type: ignore[type-arg]
    return sum(1 for d in job_said if d.seconds >= since and d.seen
               and d.seen["source"].backpressured >= 0.1)


def test_a_periodic_load_is_carried_ahead_with_fewer_slots_and_no_window_held_back():
    """A sine of 10 windows a period, x1 to x4. The Flink rule with its defaults holds the
    peak's slots; with a short scale-down interval it chases the load and is held back at
    each rise. Planned ahead within a budget, the job gives the trough's slots back and is
    ready before each rise."""
    hold, _ = _sine_run(method="flink", scale_down_interval=3600.0)
    _chase, chase_said = _sine_run(method="flink", scale_down_interval=60.0)
    # under the plan, the reactive rule keeps Flink's hour before a scale-down, as a user
    # runs it: its rescales would spend the budget the plan has
    ahead, ahead_said = _sine_run(method="odrp", horizon=12, max_rescales="12/h",
                                  scale_down_interval=3600.0)
    held = hold.slot_seconds(FIRST, END)
    assert ahead.slot_seconds(FIRST, END) <= 0.9 * held
    assert _pressed(ahead_said, FIRST) == 0 < _pressed(chase_said, FIRST)
    planned = [d for d in ahead_said if d.seconds >= FIRST and d.ahead and d.ahead.trusted]
    assert planned and all(d.ahead.forecast and "season found" in d.ahead.forecast[0]
                           for d in planned[-3:])
    budget = [t for t, _ in ahead.rescales if t >= END - 3600]
    assert len(budget) <= 12 + 1  # within the hour's budget (a rescale over it is said)


def test_what_the_team_knows_is_met_before_it_comes():
    """100 records/s, and the forecast file's sale: x3 for ten minutes from 40 minutes in.
    The job is scaled up before the sale begins, and no window of it is held back."""
    clock = FakeClock()
    start = clock.wall() + 2400.0
    sale = datetime.datetime.fromtimestamp(start, datetime.UTC).isoformat()
    known = ForecastFile.model_validate({"events": [
        {"name": "the sale", "at": sale, "duration": "10 min", "factor": 3}]})
    job = pipeline(clock, rate=steps((0.0, 100.0), (2400.0, 300.0), (3000.0, 100.0)))
    loop = autoscaler(job, clock, until=3300.0, max_steps=1000, method="odrp", horizon=10)
    loop.known = known
    said_: list = []  # type: ignore[type-arg]
    loop.run(said_.append)
    ups = [t for t, counts in job.rescales if counts["work"] >= 5]
    assert ups and ups[0] < 2400.0, job.rescales
    during = [d for d in said_ if 2400.0 + 60 <= d.seconds <= 3000.0]
    assert during and not any(d.seen["source"].backpressured >= 0.1 for d in during if d.seen)
    assert any("the sale x3" in f for d in said_ if d.ahead for f in d.ahead.forecast)


def test_a_load_the_forecast_missed_is_met_as_the_reactive_loop_meets_it():
    """A flat load that triples, unannounced: the plan did not see it coming; the job is
    held back for no more windows than the reactive loop."""
    def run(**given: object) -> int:
        clock = FakeClock()
        job = pipeline(clock, rate=steps((0.0, 100.0), (2400.0, 300.0)))
        got = decisions(job, clock, 1000, until=3600.0, **given)
        return _pressed(got, 2400.0)

    assert run(method="odrp", horizon=12) <= run(method="odrp")


def _contended(method: str, **given: object) -> tuple[MemoryJob, list]:  # type: ignore[type-arg]
    clock = FakeClock()
    job = pipeline(clock, rate=250.0, taskmanagers=4)
    job.ops[1].capacity = lambda k: 100.0 * k / (1 + 0.1 * (k - 1) + 0.02 * k * (k - 1))
    return job, decisions(job, clock, 30, method=method, **given)


def test_a_contended_vertex_is_not_scaled_past_where_its_capacity_stops_growing():
    """work holds a lock for part of each record: its capacity at k subtasks is
    100 k / (1 + 0.1 (k-1) + 0.02 k (k-1)), 286/s at 6 and less beyond. DS2's linear rule
    reads each subtask slower and keeps adding them, and the job falls further behind;
    planned ahead, the fitted curve stops it where the capacity stops growing, in two
    rescales, and the decision says what was fitted, from how many readings."""
    linear, _ = _contended("ds2")
    job, got = _contended("odrp", horizon=6)
    assert max(c["work"] for _t, c in linear.rescales) > 8
    assert len(job.rescales) <= 2 and max(c["work"] for _t, c in job.rescales) <= 6
    last = got[-1]
    assert last.seen["source"].backpressured < 0.1 and job.pending["source"] == 0.0
    fitted = [c for c in last.ahead.capacity if c.startswith("work")] if last.ahead else []
    assert fitted and "stops growing past" in fitted[0] and "readings at" in fitted[0]


def test_the_budget_that_cannot_carry_the_load_is_gone_over_and_said():
    """One rescale a day, and a load that doubles twice: capacity first, the budget
    second."""
    clock = FakeClock()
    job = pipeline(clock, rate=steps((0.0, 60.0), (1200.0, 130.0), (2400.0, 260.0)))
    got = decisions(job, clock, 1000, until=3600.0, method="odrp", horizon=6,
                    max_rescales="1/day")
    assert any(d.ahead and any("over it (capacity first" in s for s in d.ahead.said)
               for d in got)
    assert job.pending["source"] < 1000


@pytest.mark.parametrize(("given", "said_"), [
    ({"max_rescales": "0"}, "allows no rescale"),
    ({"max_rescales": "3/fortnight"}, "is not h, day or seconds"),
    ({"season": 30.0}, "shorter than two windows"),
    ({"season": 30 * 86400.0}, "--season"),
    ({"forecast": "f.yaml"}, "--forecast is for planning ahead"),
    ({"horizon": 6, "method": "ds2"}, "--horizon plans ahead with odrp's program"),
])
def test_bad_options_for_planning_ahead_are_said_at_once(given, said_):
    with pytest.raises(InputError, match=said_.replace("(", r"\(").replace(")", r"\)")):
        AutoscaleOptions(**{"metrics_window": 60.0, **given}).checked()


def test_a_forecast_file_for_other_sources_is_bad_input_before_anything_is_sent():
    clock = FakeClock()
    job = pipeline(clock)
    loop = autoscaler(job, clock, max_steps=2, method="odrp", horizon=6)
    loop.known = ForecastFile.model_validate({"rates": {"bids": [
        {"at": "2026-11-28T09:00:00Z", "rate": 10}]}})
    with pytest.raises(InputError, match="'bids', not a source of the job"):
        loop.run(lambda d: None)
    assert job.rescales == []


@pytest.mark.parametrize(("doc", "said_"), [
    ({"rates": {"s": [{"at": "2026-11-28T09:00:00Z", "rate": -1}]}}, "greater than or equal"),
    ({"rates": {"s": [{"at": "2026-11-28T09:00:00Z", "rate": "nan"}]}}, "finite"),
    ({"rates": {"s": [{"at": "2026-11-28T09:00:00Z", "rate": 1e12}]}}, "less than or equal"),
    ({"rates": {"s": [{"at": "2026-11-28T09:00:00", "rate": 1}]}}, "no time zone"),
    ({"events": [{"at": "9am", "duration": "1 h", "factor": 2}]}, "neither a date"),
])
def test_a_forecast_file_with_rates_that_cannot_be_is_refused(doc, said_):
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=said_):
        ForecastFile.model_validate(doc)


def test_a_horizon_that_does_not_fit_the_time_limit_is_bad_input():
    """No plan of the horizon within --replan-time-limit at the first step: said, with
    nothing sent (the loop has no plan of the next windows to stand on)."""
    clock = FakeClock()
    job = pipeline(clock, rate=sine(60.0, 240.0, 600.0))
    loop = autoscaler(job, clock, max_steps=80, method="odrp", horizon=1440,
                      replan_time_limit=1e-9)
    with pytest.raises(InputError, match="found no plan within --replan-time-limit"):
        loop.run(lambda d: None)



def _queued(job: MemoryJob) -> dict:  # type: ignore[type-arg]
    """Markers as a queue before ``work`` makes them: two hops of half a 100 ms timeout, the
    records flushed with the marker and an exponential service's wait at work's busy share
    now (a job whose queue grows as (L3) says, so the bound is held only if planned)."""
    from streamplace.control.running.latency import Measured

    work = job._by["work"]
    rho = min(0.99, job._by["source"].offered(job.clock.now()) / (work.parallelism * 100.0))
    age = 0.1 + rho * 0.05 + rho / (1 - rho) * 0.5 / 100.0
    return {("source", "sink"): Measured(age, age, 2 * age)}


def _the_sale(latency: Callable[[MemoryJob], dict],  # type: ignore[type-arg]
              **options: Any) -> tuple[MemoryJob, list]:  # type: ignore[type-arg]
    """The forecast file's sale (x3 from 2400 s, 10 min) run through the loop planning 10
    windows ahead, with the job's markers made by ``latency``: the job and its decisions."""
    clock = FakeClock()
    start = clock.wall() + 2400.0
    sale = datetime.datetime.fromtimestamp(start, datetime.UTC).isoformat()
    known = ForecastFile.model_validate({"events": [
        {"name": "the sale", "at": sale, "duration": "10 min", "factor": 3}]})
    job = pipeline(clock, rate=steps((0.0, 100.0), (2400.0, 300.0), (3000.0, 100.0)),
                   latency=latency)
    loop = autoscaler(job, clock, until=3300.0, max_steps=1000, method="odrp", horizon=10,
                      **options)
    loop.known = known
    said_: list = []  # type: ignore[type-arg]
    loop.run(said_.append)
    return job, said_


def test_a_scale_up_for_latency_leads_the_rise_as_one_for_capacity_does():
    """The sale of the test above, and --max-response-time 130 ms: what no count shortens
    is the buffers' 100 ms, so work's queue must stay within 30 ms, which asks 6 subtasks
    at the sale's 300/s where the load alone asks 5. The plan has them before it begins."""
    job, said_ = _the_sale(_queued, max_response_time=0.13)
    ups = [t for t, counts in job.rescales if counts["work"] >= 6]
    assert ups and ups[0] < 2400.0, job.rescales
    during = [d for d in said_ if 2400.0 + 120 <= d.seconds <= 3000.0 and d.latency]
    assert during and all(v <= 0.13 for d in during for v in d.latency.values()), \
        [d.latency for d in during]
    assert any("--max-response-time held in every window planned" in s
               for d in said_ if d.ahead for s in d.ahead.said)


def _queued_tail(job: MemoryJob) -> dict:  # type: ignore[type-arg]
    """_queued's markers with a p99 that lies above their mean by 10 ms of flush phase and
    three times the queue's wait: the tail grows with the queue."""
    from streamplace.control.running.latency import Measured

    (age, _, _), = ((m.mean, m.median, m.p99) for m in _queued(job).values())
    work = job._by["work"]
    rho = min(0.99, job._by["source"].offered(job.clock.now()) / (work.parallelism * 100.0))
    return {("source", "sink"): Measured(age, age, age + 0.01 + 3 * rho / (1 - rho) * 0.005)}


@pytest.mark.parametrize("statistic", ["mean", "p99"])
def test_a_p99_bound_is_planned_ahead_with_the_spread_read_and_the_mean_is_not_enough(
        statistic):
    """--max-response-time 160 ms over the sale of 300/s: held on the mean, 5 work subtasks
    do (137 ms), and their p99 (170 ms) breaks it; held on the p99, the plan has 6 before
    the sale begins (155 ms) and the p99 stays below it through the sale."""
    job, said_ = _the_sale(_queued_tail, max_response_time=0.16,
                           response_time_statistic=statistic)
    during = [d for d in said_ if 2400.0 + 120 <= d.seconds <= 3000.0 and d.latency]
    most = max(counts["work"] for t, counts in job.rescales if t < 3000.0)
    if statistic == "mean":  # the sale forecast once: 5 carry it, their p99 is 170 ms
        assert most == 5, job.rescales
        assert during and all(v <= 0.16 for d in during for v in d.latency.values())
        return
    ups = [t for t, counts in job.rescales if counts["work"] >= 6]
    assert ups and ups[0] < 2400.0, job.rescales
    assert during and all(v <= 0.16 for d in during for v in d.latency.values()), \
        [d.latency for d in during]


def test_an_event_under_way_is_forecast_once_not_in_the_trend_it_lifts_and_again_as_itself():
    """Eight windows at 100/s, then four at 300/s under the file's sale (x3, twenty windows
    long): the windows left of it are forecast near 300/s, the windows after it near 100/s."""
    from streamplace.control.autoscale.forecast import forecast
    from streamplace.model.state import Memory

    step, now = 60.0, 1_000_000.0
    began = now - 4 * step
    sale = datetime.datetime.fromtimestamp(began, datetime.UTC).isoformat()
    known = ForecastFile.model_validate({"events": [
        {"name": "the sale", "at": sale, "duration": f"{20 * step:g} s", "factor": 3}]})
    history = [(now - step * k, 300.0 if k < 4 else 100.0) for k in range(40)][::-1]
    made = forecast(Memory(history={"bids": history}), ["bids"], now, step, 24, None, known)
    assert not isinstance(made, str), made
    mean = made.sources["bids"].mean
    assert all(270 <= m <= 330 for m in mean[:15]), mean
    assert all(90 <= m <= 110 for m in mean[17:]), mean


def test_the_step_says_whether_the_latency_bound_holds_in_the_windows_planned():
    from streamplace.control.autoscale.ahead import _latency_said
    from streamplace.solve.horizon.instance import LatencyPath

    paths = (LatencyPath("bids -> sink", 0.03, {}),)
    assert "held in every window planned on bids -> sink (the queues within 30 ms)" in \
        _latency_said(paths, [0.0, 0.0])[0]
    assert "not held in 1 of the 2 windows planned on bids -> sink (by up to 4 ms)" in \
        _latency_said(paths, [0.0, 0.004])[0]
    assert "(a vertex on it at its capacity)" in _latency_said(paths, [1.02, 0.0])[0]
    assert _latency_said((), None) == []
