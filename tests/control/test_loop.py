"""The autoscale loop in-process, against a job run in memory on a clock of its own
(tests/support/memory_engine.py): every trigger, safeguard, fallback and error the loop
knows, in milliseconds. The HTTP-level tests (test_autoscale*.py, test_hostile_loop.py) are
the Flink engine's contract; these are the loop's."""

from __future__ import annotations

import json

import pytest

from streamplace.control.autoscale.decide import FALLBACK
from streamplace.control.running.memory import MemoryPressure
from streamplace.errors import EngineError, InputError, Unreachable

from ..support.loops import FakeClock, MemoryJob, Op, decisions, pipeline, said
from ..support.memory_engine import steps


def test_a_vertex_at_its_capacity_is_scaled_up_at_once_and_its_lag_worked_off():
    """150 records/s offered to a work vertex of 100/s: the source is held back and its lag
    grows. One rescale sizes work from the lag (what got through plus how fast the lag
    grew); then the lag drains and nothing more changes."""
    clock = FakeClock()
    job = pipeline(clock, rate=150.0)
    said_ = decisions(job, clock, 5)
    first, rest = said_[0], said_[1:]
    assert first.decision == "rescale" and first.to["work"] == 3, first.why
    assert said(first, "source is back-pressured") and "pendingRecords" in (first.offered or "")
    assert [d.decision for d in rest] == ["no change"] * 4
    assert job.pending["source"] == 0.0 and len(job.rescales) == 1


def test_a_scale_down_waits_the_interval_then_takes_the_largest_recommended():
    """The load falls from 150/s to 50/s: work, on 3 subtasks, idles below utilization.min.
    Its scale-down (to 2: scale-down.max-factor keeps 40% of what runs) waits
    scale-down.interval, said each step, then is made once."""
    clock = FakeClock()
    job = pipeline(clock, rate=steps((0.0, 150.0), (100.0, 50.0)), running={"work": 3})
    said_ = decisions(job, clock, 8, scale_down_interval=240.0)
    waits = [d for d in said_ if said(d, "work: a scale-down to 2 waits")]
    downs = [d for d in said_ if d.decision == "rescale"]
    assert waits and len(downs) == 1 and downs[0].to["work"] == 2
    first_seen = min(d.seconds for d in waits) - 60  # the window the wait began with
    assert downs[0].seconds - first_seen >= 240
    assert said_.index(downs[0]) > said_.index(waits[-1])


@pytest.mark.parametrize(("limit", "to", "why"), [
    ({}, 8, None),
    ({"scale_up_max_factor": 1.0}, 4, "scale-up.max-factor"),
    ({"vertex_max_parallelism": 3}, 3, "vertex.max-parallelism"),
    ({"vertex_exclude_ids": ("work",)}, 2, "vertex.exclude.ids")])
def test_the_flink_autoscalers_limits_hold_each_rescale(limit, to, why):
    """1,100 records/s offered: DS2 asks 16 subtasks of work, as many as the cluster's 8
    slots allow; each limit says what it changed."""
    clock = FakeClock()
    job = pipeline(clock, rate=1100.0, running={"work": 2})
    first = decisions(job, clock, 1, catch_up_duration=0.0, dry_run=True, **limit)[0]
    assert first.to["work"] == to, first.why
    assert why is None or said(first, why), first.why


def test_a_scale_up_that_did_not_raise_the_capacity_holds_the_next():
    """work's capacity is 100/s however many subtasks it runs (a bottleneck elsewhere): the
    scale-up gains nothing, and with detection on the next one is held, said."""
    clock = FakeClock()
    job = pipeline(clock, rate=300.0)
    job.ops[1].capacity = lambda k: 100.0
    job.taskmanagers = 4
    first, second = decisions(job, clock, 2, catch_up_duration=0.0,
                              scaling_effectiveness_detection_enabled=True)
    assert first.decision == "rescale" and first.to["work"] > 1
    assert second.decision == "no change" and second.to == second.from_
    assert said(second, "scaling.effectiveness.threshold") and said(second, ": held")


def test_no_scale_down_while_a_source_lags():
    """60,000 records pending and 100/s offered: sink, idle on 3 subtasks, would be scaled
    down, but not while the lag is above the threshold."""
    clock = FakeClock()
    job = pipeline(clock, rate=100.0, running={"work": 3, "sink": 3})
    job.pending["source"] = 60000.0
    first = decisions(job, clock, 1, backlog_processing_lag_threshold=10.0, dry_run=True,
                      stabilization_interval=0.0)[0]
    assert first.to["sink"] == 3 and said(first, "no scale-down while a source lags")


def test_memory_pressure_vetoes_a_rescale_and_says_why():
    clock = FakeClock()
    job = pipeline(clock, rate=150.0, memory=MemoryPressure(gc=0.4))
    first = decisions(job, clock, 1, memory_gc_pressure_threshold=0.3)[0]
    assert first.decision == "no change" and not job.rescales
    assert said(first, "GC pressure 0.40 is above memory.gc-pressure.threshold 0.3")


def test_a_rescale_sized_from_a_lower_bound_is_closed_from_above_once_the_job_runs_free():
    """A source that reports no lag (a generator, held back): the first rescale is sized
    from what got through (100/s). Once the job runs free, work busy 0.85 lies within the
    bounds but 0.15 above the target: it is re-sized, and says why."""
    clock = FakeClock()
    job = MemoryJob([Op("source", rate=170.0, service=5000.0, lag=False, queues=False),
                     Op("work", ["source"], service=100.0),
                     Op("sink", ["work"], service=5000.0)], clock)
    first, second = decisions(job, clock, 2)
    assert first.decision == "rescale" and first.to["work"] == 2
    assert second.decision == "rescale" and second.to["work"] == 3
    assert said(second, "now runs free")


def test_odrp_without_a_plan_for_the_load_falls_back_to_what_ds2_asks():
    """1,000 records/s and 8 slots: no plan holds work at its target (it needs 15
    subtasks), which the re-plan proves; rather than leave the job back-pressured, each
    vertex gets what DS2 asks within the most it may run."""
    clock = FakeClock()
    job = pipeline(clock, rate=1000.0)
    first = decisions(job, clock, 1, method="odrp", catch_up_duration=0.0)[0]
    assert first.F is not None and first.F.status == "infeasible"
    assert said(first, FALLBACK) and first.to["work"] == 8


def test_a_refused_or_unsettled_change_is_said_and_the_loop_goes_on():
    clock = FakeClock()
    job = pipeline(clock, rate=150.0, change_faults=["refused", "unsettled"])
    refused, unsettled, after = decisions(job, clock, 3)
    assert refused.decision == "no change" and said(refused, "not sent: the change was")
    assert unsettled.decision == "rescale" and said(unsettled, "sent, but")
    assert after.step == 3


def test_what_ends_the_loop():
    """An engine that never answered is a wrong address (nothing sent); one that stops
    answering gets five readings; a job that no longer runs ends the loop, saying so."""
    clock = FakeClock()
    with pytest.raises(Unreachable):
        decisions(pipeline(clock, faults=["unreachable"]), clock, 3)
    began = clock.now()
    with pytest.raises(Unreachable):  # asked before the first stabilisation wait
        decisions(pipeline(clock, faults=["down"]), clock, 3, stabilization_interval=3600.0)
    assert clock.now() == began
    job = pipeline(clock, rate=50.0)
    job.faults = [""] + ["unreachable"] * 5
    with pytest.raises(EngineError, match="did not answer 5 readings in a row"):
        decisions(job, clock, 10)
    job = pipeline(clock, rate=50.0, ends=(clock.now() + 150.0, "CANCELED"))
    with pytest.raises(EngineError, match="is CANCELED; autoscale stops"):
        decisions(job, clock, 5)


def test_bad_input_at_the_first_reading_is_said_at_once():
    clock = FakeClock()
    job = pipeline(clock, rate=150.0)
    with pytest.raises(InputError, match="latency markers"):
        decisions(job, clock, 1, method="odrp", max_response_time=0.5)


def test_a_flapping_load_gets_no_two_opposite_rescales_in_a_row():
    """The load flips every window (250/s, then 30/s, ...). Scale-ups are made at once; a
    scale-down waits scale-down.interval and says so: never up, down, up, ..."""
    clock = FakeClock()
    flips = [(60.0 * k, 250.0 if k % 2 == 0 else 30.0) for k in range(20)]
    job = pipeline(clock, rate=steps(*flips), running={"work": 2})
    said_ = decisions(job, clock, 8, scale_down_interval=3600.0, stabilization_interval=0.0)
    moves = [d.to["work"] - d.from_["work"] for d in said_ if d.decision == "rescale"]
    assert moves and all(m > 0 for m in moves), [(d.decision, d.to) for d in said_]
    assert any(said(d, "waits") for d in said_)


def test_taskmanagers_replaced_under_the_job_are_a_step_without_a_reading():
    """The TaskManagers are replaced after the first step while the job's details still
    name the old ones (the JobManager's cache): that step has no reading, said, and the
    loop goes on to the next, which reads the job again."""
    clock = FakeClock()
    job = pipeline(clock, rate=150.0, faults=["", "moved"])
    _first, moved, after = decisions(job, clock, 3)
    assert moved.decision == "no change" and said(moved, "where the job's subtasks run is "
                                                         "not known")
    assert after.seen and after.step == 3


def test_each_line_says_when_and_of_which_job():
    """Every line carries the step's end in ISO 8601 (UTC, the same instant as ``at``) and
    the job's name and id, as a log pipeline filters them."""
    import datetime

    clock = FakeClock()
    job = pipeline(clock, rate=150.0)
    for d in decisions(job, clock, 3):
        line = json.loads(d.line())
        when = datetime.datetime.fromisoformat(line["time"])
        assert when.utcoffset() == datetime.timedelta(0)
        assert abs(when.timestamp() - line["at"]) < 1e-3
        assert (line["job"], line["job_id"]) == (job.name, job.jid)
