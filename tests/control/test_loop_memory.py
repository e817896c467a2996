"""The loop's one memory, saved whole: a loop stopped after any step and resumed from its
state file decides, step for step, what the loop that never stopped decided."""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from streamplace.errors import InputError
from streamplace.io.state import read_state, state_lock, write_state
from streamplace.model.decision import Decision
from streamplace.model.state import PendingScaleDown, StateFile

from ..support.loops import FakeClock, MemoryJob, Op, decisions, pipeline
from ..support.memory_engine import steps

Scenario = tuple[Callable[[FakeClock], MemoryJob], dict[str, object]]


def _falling(clock: FakeClock) -> MemoryJob:
    """The load falls: a scale-down waits out its interval across the restart."""
    return pipeline(clock, rate=steps((0.0, 150.0), (100.0, 40.0)), running={"work": 3})


def _flat(clock: FakeClock) -> MemoryJob:
    """work gains nothing from subtasks: its scale-up is found ineffective, and held."""
    job = pipeline(clock, rate=300.0, taskmanagers=4)
    job.ops[1].capacity = lambda k: 100.0
    return job


def _lower_bound(clock: FakeClock) -> MemoryJob:
    """A rescale sized from what a held-back generator let through, closed from above."""
    return MemoryJob([Op("source", rate=170.0, service=5000.0, lag=False, queues=False),
                      Op("work", ["source"], service=100.0),
                      Op("sink", ["work"], service=5000.0)], clock)


SCENARIOS: dict[str, Scenario] = {
    "delayed scale-down": (_falling, {"scale_down_interval": 180.0}),
    "ineffective scale-up": (_flat, {"scaling_effectiveness_detection_enabled": True,
                                     "catch_up_duration": 0.0}),
    "lower bound": (_lower_bound, {}),
}


def _seen(said: list[Decision]) -> list[tuple[object, ...]]:
    """What a decision says of the job (not the seconds since its own run began)."""
    return [(d.step, d.decision, d.from_, d.to, d.why, d.offered, d.planned) for d in said]


@pytest.mark.parametrize("name", SCENARIOS)
@pytest.mark.parametrize("split", [1, 2, 3])
def test_a_resumed_loop_decides_as_the_one_that_never_stopped(tmp_path, name, split):
    make, given = SCENARIOS[name]
    opts = {"stabilization_interval": 0.0, **given}
    clock = FakeClock()
    job = make(clock)
    whole = decisions(job, clock, 6, StateFile(job=job.address), **opts)
    clock = FakeClock()
    job = make(clock)
    path = str(tmp_path / "state.json")
    state = StateFile(job=job.address)
    before = decisions(job, clock, split, state, **opts)
    write_state(path, state)
    after = decisions(job, clock, 6 - split, read_state(path, job.address), **opts)
    assert _seen(before + after) == _seen(whole)
    assert [d.step for d in read_state(path, job.address).decisions] == list(range(1, split + 1))


def test_the_state_file_is_one_document_with_a_published_schema(tmp_path):
    import jsonschema

    from streamplace.io.schema import json_schema

    clock = FakeClock()
    job = _flat(clock)
    state = StateFile(job=job.address)
    decisions(job, clock, 3, state, scaling_effectiveness_detection_enabled=True,
              catch_up_duration=0.0)
    path = tmp_path / "state.json"
    write_state(str(path), state)
    doc = json.loads(path.read_text())
    jsonschema.validate(doc, json_schema("state"))
    memory = doc["memory"]
    assert memory["steps"] == 3 and memory["restarts"] and memory["scale_ups"]
    assert memory["output_growth"]["work"]


def test_a_first_version_state_is_read_and_written_again_as_the_second(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps({
        "schema": "streamplace/autoscale-state/v1", "job": "memory://job",
        "decisions": [{"step": 4, "decision": "no change", "why": [], "seconds": 1.0}],
        "restarts": [12.5], "pending": {"work": [1_800_000_000.0, 2]}}))
    state = read_state(str(path), "memory://job")
    assert state.memory.steps == 4 and state.memory.restarts == [12.5]
    assert state.memory.pending["work"].most == 2
    write_state(str(path), state)
    assert json.loads(path.read_text())["schema"] == "streamplace/autoscale-state/v2"


def test_two_processes_never_share_one_state(tmp_path):
    """A rolling update whose old and new pods share the volume: the second is refused,
    saying which process holds the file, instead of the two overwriting each other."""
    import subprocess
    import sys

    path = str(tmp_path / "state.json")
    hold = ("import sys, time\nfrom streamplace.io.state import state_lock\n"
            "with state_lock(sys.argv[1]):\n    print('held', flush=True)\n"
            "    sys.stdin.readline()\n")
    holder = subprocess.Popen([sys.executable, "-c", hold, path], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(InputError, match=f"another autoscale \\(pid {holder.pid}\\)"), \
                state_lock(path):
            pass
    finally:
        assert holder.stdin is not None
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=60)
    with state_lock(path):  # released with the process
        pass


def test_the_history_is_kept_two_weeks_at_every_window_and_a_year_hourly(tmp_path):
    """Three weeks of a source read once a minute: the last two weeks kept point by point,
    the week before as hourly means; written and read back whole."""
    from streamplace.control.autoscale.history import remember
    from streamplace.control.running.observation import Observation, ObservedVertex
    from streamplace.model.state import COARSE, FINE_KEPT, Memory

    source = ObservedVertex("a" * 32, "bids", "bids", 1, None, [], None, None, {},
                            {"numRecordsOutPerSecond": (100.0, 100.0)}, {})
    obs = Observation("job", "j", None, "x", None, [source], [], [])
    memory = Memory()
    minutes = 21 * 24 * 60
    for k in range(minutes):
        remember(memory, obs, 1_800_000_000.0 + 60.0 * k, {})
    fine, coarse = memory.history["bids"], memory.coarse["bids"]
    assert fine[-1][0] - fine[0][0] <= FINE_KEPT and len(fine) == FINE_KEPT // 60 + 1
    assert len(coarse) == (minutes - len(fine)) * 60 // COARSE + 1
    assert all(c[1] == 100.0 for c in coarse)
    path = str(tmp_path / "state.json")
    write_state(path, StateFile(job="x", memory=memory))
    assert read_state(path, "x").memory.history["bids"] == fine


def test_a_scale_down_dated_in_the_future_waits_the_interval_at_most(tmp_path):
    """A state file whose scale-down was first recommended in 2100 (a clock put back, a
    hand-edited file) does not hold the scale-down for 73 years: the wait starts now."""
    clock = FakeClock()
    job = pipeline(clock, rate=40.0, running={"work": 3})
    state = StateFile(job=job.address)
    state.memory.pending["work"] = PendingScaleDown(first=4_102_444_800.0, most=2)
    said_ = decisions(job, clock, 6, state, scale_down_interval=120.0)
    assert any(d.decision == "rescale" and d.to["work"] == 2 for d in said_), \
        [(d.decision, d.why) for d in said_]
