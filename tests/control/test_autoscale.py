"""What autoscale decides, against the scripted JobManager (tests/support/fake_jobmanager.py):
the Flink engine's contract. The loop runs in-process over HTTP on a clock of its own
(tests/support/loops.py, ``flink_decided``), or, where the command itself is the contract
(its state file, on-call's forced roll-back), as the user's command."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from streamplace.control.autoscale.handover import handed_over

from ..conftest import run
from ..support.fake_jobmanager import fake_jobmanager
from ..support.loops import flink_decided, flink_decisions
from ..support.snapshots import observed_files

HANG_GUARD = 120
STEP = ("--yes", "--stabilization-interval", "0", "--metrics-window", "5", "--max-steps",
        "1", "--dry-run", "-q")


def decided(url: str, *args: str) -> dict:  # type: ignore[type-arg]
    done = subprocess.run([sys.executable, "-m", "streamplace", "autoscale", url, *args,
                           *STEP], capture_output=True, text=True, timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[0])  # type: ignore[no-any-return]


def test_a_skewed_vertex_is_judged_and_sized_by_its_busiest_subtask():
    """One subtask of counter busy 0.99, the other 0.3: the mean (0.645) is within bounds,
    the busiest is at its capacity. By max (the Flink autoscaler's default since its
    PR #505), the vertex is scaled up; by avg it is left alone."""
    with fake_jobmanager(busy={"counter": [0.99, 0.3]}) as jm:
        by_max = flink_decided(jm.job_url, "--method", "ds2")
        by_avg = flink_decided(jm.job_url, "--method", "ds2", "--metrics-busy-time-aggregator",
                               "avg")
    assert by_max["decision"] == "dry run", by_max["why"]
    assert by_max["to"]["counter"] > by_max["from"]["counter"]
    assert by_max["seen"]["counter"]["busy_max"] == 0.99
    assert by_avg["decision"] == "no change", by_avg["why"]


def test_apply_force_sends_a_plan_that_breaks_a_constraint_and_says_so(tmp_path):
    """On-call rolls back to what ran a minute before, though it breaks stability as the
    job is measured now: refused (exit 1) unless --force, which sends it with a warning."""
    doc, files = observed_files(tmp_path)
    plan = doc["plan"]
    node = next(iter(plan["placement"]["counter"]))
    plan["placement"]["counter"] = {node: 1}  # half the replicas: the job breaks stability
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    with fake_jobmanager() as jm:
        refused = run("apply", *files, jm.job_url, "--yes")
        forced = run("apply", *files, jm.job_url, "--yes", "--force")
    assert refused.exit_code == 1 and "not applied" in refused.output
    assert forced.exit_code == 0, forced.output
    assert "forced: the plan breaks" in forced.output and len(jm.puts) == 1


SOURCE = "Source: numbers -> pace"


def test_the_offered_load_is_read_from_the_sources_lag():
    """The source sends 100 records/s while its pendingRecords grow by 150 a second: 250
    are offered. Sized from what the job let through (100/s), counter stays at 2; from the
    lag, DS2 asks ceil(250 / (0.7 x 100)) = 4."""
    with fake_jobmanager() as jm:
        jm.pending[SOURCE], jm.growth[SOURCE] = 0.0, 150.0
        line = flink_decided(jm.job_url, "--method", "ds2", "--catch-up-duration", "0")
    assert "pendingRecords" in line["offered"], line["offered"]
    assert line["lag"]["numbers-pace"] > 0
    assert line["to"]["counter"] == 4, line
    # judged at the offered load, 250 / (2 x 100): a utilisation, where a busy share stops at 1
    assert any("counter would run at 1.25 of its capacity at the offered load" in w
               for w in line["why"]), line["why"]


def test_a_backlog_is_sized_to_be_worked_off_and_holds_every_scale_down():
    """6,000 records pending, none growing: over a 60 s catch-up with a 30 s restart the
    Flink autoscaler asks a capacity of 100 / 0.7 + 6000/60 + 100 x 30/60 = 292.9 records/s
    (the backlog and the restart's queue at full capacity, the rate at the target): planned
    for as 100 + 0.7 x 150 = 205/s at the target, 3 subtasks of counter. evens, idle, would
    be scaled down, but not while the lag is above the threshold."""
    with fake_jobmanager(busy={"evens": 0.05}) as jm:
        jm.pending[SOURCE] = 6000.0
        line = flink_decided(jm.job_url, "--method", "ds2", "--catch-up-duration", "60",
                       "--restart-time", "30", "--backlog-processing-lag-threshold", "10",
                       "--scale-down-interval", "0")
    assert "205/s" in line["offered"], line["offered"]
    assert line["to"]["counter"] == 3 and line["to"]["evens"] >= line["from"]["evens"], line
    assert any("no scale-down while a source lags" in why for why in line["why"]), line


def test_a_restarted_autoscale_resumes_its_delayed_scale_downs_from_the_state(tmp_path):
    """evens idles: its scale-down waits the interval. A second run, as after a container
    restart, remembers when it was first recommended instead of starting the wait again."""
    state = tmp_path / "state.json"
    with fake_jobmanager(busy={"evens": 0.05}) as jm:
        first = decided(jm.job_url, "--method", "ds2", "--state", str(state))
        kept = json.loads(state.read_text())
        second = decided(jm.job_url, "--method", "ds2", "--state", str(state))
        again = json.loads(state.read_text())
    assert any("evens: a scale-down" in why for why in first["why"]), first
    # the same first sighting
    assert kept["memory"]["pending"]["evens"] == again["memory"]["pending"]["evens"]
    # a resumed loop numbers its steps on from the last
    assert [d["step"] for d in again["decisions"]] == [1, 2] and second["to"]["evens"] == 2


def test_a_state_that_cannot_be_written_or_read_is_refused_before_anything_is_read(tmp_path):
    damaged = tmp_path / "damaged.json"
    damaged.write_text("{not json")
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"schema": "streamplace/autoscale-state/v2", "job": "x"}))
    with fake_jobmanager() as jm:
        for path, said in ((tmp_path / "no-such-folder" / "s.json", "cannot write"),
                           (damaged, "cannot resume"), (other, "not of")):
            done = run("autoscale", jm.job_url, "--state", str(path), *STEP)
            assert done.exit_code == 2 and said in done.output, done.output
        assert jm.requests == [] and damaged.read_text() == "{not json"




def test_a_state_is_resumed_however_the_jobs_address_is_written(tmp_path):
    """Kept under the job's REST address: written with a trailing slash, resumed from its
    page in the web UI."""
    state = tmp_path / "state.json"
    with fake_jobmanager() as jm:
        first = run("autoscale", jm.job_url + "/", "--state", str(state), "--until", "0",
                    "--yes", "-q")
        page = f"{jm.url}/#/job/running/{jm.jid}/overview"
        again = run("autoscale", page, "--state", str(state), "--until", "0", "--yes", "-q")
    assert first.exit_code == again.exit_code == 0, (first.output, again.output)
    assert json.loads(state.read_text())["job"] == jm.job_url


def test_apply_force_json_says_what_it_forced(tmp_path):
    doc, files = observed_files(tmp_path)
    plan = doc["plan"]
    node = next(iter(plan["placement"]["counter"]))
    plan["placement"]["counter"] = {node: 1}
    (tmp_path / "plan.yaml").write_text(yaml.safe_dump(plan))
    with fake_jobmanager() as jm:
        forced = run("apply", *files, jm.job_url, "--yes", "--force", "--json", "-q")
    assert forced.exit_code == 0, forced.output
    said = json.loads(forced.stdout)
    assert said["applied"] and said["forced"] and "per replica" in said["forced"][0]


def test_a_put_that_went_out_is_recorded_and_the_loop_goes_on():
    """The PUT is answered 200, then the job never comes to run it: the decision says the
    change was sent and what runs (the record holds it), and the next step goes on."""
    with fake_jobmanager(busy={"counter": 0.99}) as jm:
        jm.settle = False
        lines = flink_decisions(jm.job_url, "--method", "ds2", "--wait", "2", steps=2)
    assert lines[0]["decision"] == "rescale" and jm.puts
    assert any(w.startswith("sent, but the job does not run the plan") for w in
               lines[0]["why"]), lines[0]["why"]
    assert lines[1]["step"] == 2


def test_a_configuration_answered_as_a_mapping_is_read_as_one():
    from streamplace.control.autoscale.handover import flink_configuration
    from streamplace.control.flink.engine import FlinkEngine

    from ..support.loops import FakeClock

    with fake_jobmanager() as jm:
        jm.config = {"job.autoscaler.metrics.busy-time.aggregator": "AVG"}  # type: ignore
        engine = FlinkEngine(jm.job_url, FakeClock())
        handed, _ = handed_over(flink_configuration("cluster", engine.configuration), "x")
    assert handed == {"metrics_busy_time_aggregator": "AVG"}
