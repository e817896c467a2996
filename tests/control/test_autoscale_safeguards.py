"""The Flink autoscaler's safeguards in autoscale, against the scripted JobManager
(tests/support/fake_jobmanager.py): alignment to key groups and partitions, the memory veto,
and a job.autoscaler.* configuration handed over."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import fields

import pytest

from streamplace.control.autoscale.handover import bounded, flink_configuration, handed_over
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.errors import EngineError, InputError

from ..support.fake_jobmanager import fake_jobmanager
from ..support.loops import flink_decided, flink_decisions

HANG_GUARD = 120
STEP = ("--yes", "--stabilization-interval", "0", "--metrics-window", "5", "--max-steps",
        "1", "--dry-run", "-q")
SOURCE = "Source: numbers -> pace"
LAGGING = ("--catch-up-duration", "0")


def autoscale(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "streamplace", "autoscale", url, *args,
                           *STEP], capture_output=True, text=True, timeout=HANG_GUARD)


def decided(url: str, *args: str) -> dict:  # type: ignore[type-arg]
    done = autoscale(url, *args)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[0])  # type: ignore[no-any-return]


def test_the_flink_rule_aligns_a_keyed_vertex_to_its_key_groups():
    """200 records/s offered (100 sent, the lag growing by 100 a second): DS2 asks
    ceil(200 / (0.7 x 100)) = 3 subtasks of counter, which is keyed on 128 key groups. The
    Flink rule searches upwards from 3 for a count that divides 128 (or, BALANCED, lowers
    the key groups a subtask holds below 128 // 3): 4. With alignment OFF it keeps 3."""
    with fake_jobmanager() as jm:
        jm.pending[SOURCE], jm.growth[SOURCE] = 0.0, 100.0
        ds2 = flink_decided(jm.job_url, "--method", "ds2", *LAGGING)
        flink = flink_decided(jm.job_url, "--method", "flink", *LAGGING)
        off = flink_decided(jm.job_url, "--method", "flink", *LAGGING,
                      "--scaling-parallelism-alignment-mode", "OFF")
    assert (ds2["to"]["counter"], flink["to"]["counter"], off["to"]["counter"]) == (3, 4, 3)


def test_odrp_runs_only_the_counts_the_alignment_mode_accepts():
    """The same load re-planned: EVENLY_SPREAD leaves odrp the divisors of 128 (and the
    count that runs), so counter goes to 4, not 3; BALANCED accepts 3 (128 // 3 = 42 key
    groups a subtask, fewer than 64 on 2)."""
    with fake_jobmanager() as jm:
        jm.pending[SOURCE], jm.growth[SOURCE] = 0.0, 100.0
        even = flink_decided(jm.job_url, *LAGGING, "--scaling-parallelism-alignment-mode",
                       "EVENLY_SPREAD")
        balanced = flink_decided(jm.job_url, *LAGGING)
    assert even["to"]["counter"] == 4, even
    assert balanced["to"]["counter"] == 3, balanced


def test_a_source_is_capped_at_the_partitions_it_reads():
    """A source whose metrics name two Kafka partitions may run at most 2 subtasks, as the
    Flink autoscaler caps it; the observed application says so."""
    with fake_jobmanager() as jm:
        jm.partitions[SOURCE] = 2
        done = subprocess.run([sys.executable, "-m", "streamplace", "observe", jm.job_url,
                               "--json", "-q"], capture_output=True, text=True,
                              timeout=HANG_GUARD)
    assert done.returncode == 0, done.stderr
    ops = {op["id"]: op for op in json.loads(done.stdout)["application"]["operators"]}
    assert ops["numbers-pace"]["max_replicas"] == 2
    assert ops["counter"]["max_replicas"] > 2


def test_memory_pressure_vetoes_a_rescale_and_says_why():
    """counter's busiest subtask is at its capacity, so the job would be scaled up; but a
    TaskManager spends 40% of its time in GC, above the threshold 0.3: no rescale."""
    with fake_jobmanager(busy={"counter": [0.99, 0.3]}) as jm:
        jm.memory["Status.JVM.GarbageCollector.All.TimeMsPerSecond"] = 400.0
        free = flink_decided(jm.job_url, "--method", "ds2")
        vetoed = flink_decided(jm.job_url, "--method", "ds2", "--memory-gc-pressure-threshold",
                         "0.3")
        jm.memory.pop("Status.JVM.GarbageCollector.All.TimeMsPerSecond")
        jm.memory.update({"Status.JVM.Memory.Heap.Used": 95.0,
                          "Status.JVM.Memory.Heap.Max": 100.0})
        full = flink_decided(jm.job_url, "--method", "ds2", "--memory-heap-usage-threshold", "0.9")
    assert free["decision"] == "dry run", free["why"]
    assert vetoed["decision"] == "no change" and vetoed["to"] == vetoed["from"]
    assert any("GC pressure 0.40 is above memory.gc-pressure.threshold 0.3" in w
               for w in vetoed["why"]), vetoed["why"]
    assert full["decision"] == "no change"
    assert any("heap usage 0.95" in w for w in full["why"]), full["why"]


def test_a_flink_autoscaler_configuration_is_handed_over(tmp_path):
    """A config.yaml (2.x, nested) with the aggregator set to AVG: the skewed vertex is left
    alone as with --metrics-busy-time-aggregator avg; the flag given on the command line
    wins over the file; the same keys read from the JobManager do the same; a key with no
    option here is named once."""
    config = tmp_path / "config.yaml"
    config.write_text("job:\n  autoscaler:\n    enabled: true\n    metrics:\n"
                      "      busy-time:\n        aggregator: AVG\n"
                      "    stabilization.interval: 1 min\n    memory.tuning.enabled: true\n")
    with fake_jobmanager(busy={"counter": [0.99, 0.3]}) as jm:
        from_file = autoscale(jm.job_url, "--method", "ds2", "--flink-config", str(config))
        flag_wins = decided(jm.job_url, "--method", "ds2", "--flink-config", str(config),
                            "--metrics-busy-time-aggregator", "max")
        jm.config = [{"key": "job.autoscaler.metrics.busy-time.aggregator", "value": "AVG"}]
        from_cluster = decided(jm.job_url, "--method", "ds2", "--flink-config", "cluster")
    assert from_file.returncode == 0, from_file.stderr
    assert json.loads(from_file.stdout.splitlines()[0])["decision"] == "no change"
    assert "job.autoscaler.memory.tuning.enabled is not an autoscale option here" in \
        from_file.stderr
    assert "job.autoscaler.enabled " not in from_file.stderr  # whether Flink's runs
    assert flag_wins["decision"] == "dry run"
    assert from_cluster["decision"] == "no change"
    # what the file sets, read as Flink reads it: a duration, its enum in Flink's spelling
    handed, _ = handed_over(flink_configuration(str(config), dict), str(config))
    assert handed == {"metrics_busy_time_aggregator": "AVG", "stabilization_interval": 60.0}
    assert AutoscaleOptions(**handed).metrics_busy_time_aggregator == "avg"


def test_the_deprecated_boundary_sets_the_min_and_max_around_the_target():
    """Around the target finally chosen: the configuration's, or the command line's where
    it gives one (a min and max computed around the default would refuse a target the user
    gave)."""
    handed, left = handed_over({"job.autoscaler.target.utilization": "0.6",
                                "job.autoscaler.target.utilization.boundary": "0.2",
                                "job.autoscaler.vertex.exclude.ids": "a;b",
                                "pipeline.name": "x"}, "conf")
    assert handed == {"utilization_target": 0.6, "utilization_boundary": pytest.approx(0.2),
                      "vertex_exclude_ids": ("a", "b")}
    assert left == []
    chosen = {f.name: f.default for f in fields(AutoscaleOptions)}
    assert bounded({**chosen, **handed})["utilization_min"] == pytest.approx(0.4)
    assert bounded({**chosen, **handed})["utilization_max"] == pytest.approx(0.8)
    given = bounded({**chosen, "utilization_boundary": 0.1, "utilization_target": 0.5})
    assert (given["utilization_min"], given["utilization_max"]) == pytest.approx((0.4, 0.6))
    assert AutoscaleOptions(**given).checked().utilization_target == 0.5


def test_a_configuration_value_flink_would_not_read_is_refused(tmp_path):
    config = tmp_path / "flink-conf.yaml"
    config.write_text("job.autoscaler.metrics.window: ten minutes\n"
                      "job.autoscaler.utilization.target: high\n")
    with fake_jobmanager() as jm:
        done = autoscale(jm.job_url, "--flink-config", str(config))
        assert jm.puts == []
    assert done.returncode == 2, done.stderr
    assert "job.autoscaler.metrics.window" in done.stderr
    assert "job.autoscaler.utilization.target" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_job_replaced_by_a_new_job_id_ends_the_loop_naming_the_new_one():
    """After a first reading, the job's id answers 404 and the cluster lists a job of the
    same name under a new id (a redeployment): the loop stops (exit 3) and says which
    address follows the new job, rather than reading nothing for ever."""
    heir = "f" * 32
    with fake_jobmanager() as jm:
        name = jm.snapshot["job"]["name"]

        def redeployed() -> None:
            jm.fault(f"={'/jobs/' + jm.jid}", *["404"] * 50)
            jm.listed = [{"jid": heir, "name": name, "state": "RUNNING"}]
            jm.on_load = None

        jm.on_load = redeployed
        with pytest.raises(EngineError) as ended:
            flink_decisions(jm.job_url, "--dry-run", steps=3)
    said = str(ended.value)
    assert f"is no longer on the cluster; a job of the same name, {name!r}, runs as {heir}" \
        in said and f"{jm.url}/jobs/{heir}" in said, said

def test_counters_that_go_back_are_no_reading():
    """A vertex whose records counter falls over the window (a restart the JobManager has
    not reported yet) gives no decision, and says why."""
    with fake_jobmanager(busy={"counter": [0.99, 0.3]}) as jm:
        jm.records["counter"] = -100.0
        line = flink_decided(jm.job_url, "--method", "ds2")
    assert line["decision"] == "no change" and line["to"] == line["from"] == {}, line
    assert "went back during the window" in line["why"][0], line["why"]


def test_odrp_plans_a_backlog_for_the_larger_need_the_flink_rule_for_their_sum():
    """3,000 records pending at 100/s, a 60 s catch-up and a 30 s restart: 100 records/s of
    backlog to work off. The Flink rule asks 100 / 0.7 + 100 = 243 records/s of capacity,
    3 subtasks of counter, aligned to 4 of its 128 key groups; odrp asks the larger of
    100 / 0.7 and 100 + 100 = 200, which 2 subtasks give: the backlog is worked off within
    the catch-up at full capacity, and the job then runs at the target without a
    scale-down. (Judged at what each plans for, the 2 running are busy 0.85 by the Flink
    rule, above the max 0.8, and 0.7 by odrp's.)"""
    backlog = ("--catch-up-duration", "60", "--restart-time", "30", "--utilization-max", "0.8")
    with fake_jobmanager() as jm:
        jm.pending[SOURCE] = 3000.0
        flink = flink_decided(jm.job_url, "--method", "flink", *backlog)
        odrp = flink_decided(jm.job_url, *backlog)
    assert "170/s" in flink["offered"] and flink["to"]["counter"] == 4, flink
    assert "140/s" in odrp["offered"] and odrp["to"]["counter"] == 2, odrp


def test_a_stalled_source_with_a_growing_lag_is_sized_from_the_meters():
    """Nothing flows over the window (the source is paused) while its lag grows by 150 a
    second: the streams are taken at the 60 s meters' rates and the vertices at their
    life's service rate, so the offered load is applied and each vertex judged at it, and
    the warning says so."""
    with fake_jobmanager(busy={name: 0.0 for name in (SOURCE, "counter", "evens",
                                                        "sink: Writer")}) as jm:
        for name in (SOURCE, "counter", "evens", "sink: Writer"):
            jm.records[name] = 0.0
        jm.pending[SOURCE], jm.growth[SOURCE] = 0.0, 150.0
        line = flink_decided(jm.job_url, "--method", "ds2", "--catch-up-duration", "0")
    assert "pendingRecords" in line["offered"], (line["offered"], line["warnings"])
    assert any("sent nothing over the window" in w for w in line["warnings"]), line
    assert all(line["predicted"][op] for op in ("counter", "evens")), line["predicted"]


def test_flinks_switches_mean_what_they_mean_in_flink():
    """scaling.enabled: false is Flink's "collect and recommend, never rescale": a dry run,
    said; enabled: false turns the autoscaler off, refused before anything is read."""
    handed, left = handed_over({"job.autoscaler.scaling.enabled": "false"}, "conf")
    assert handed == {"dry_run": True} and "recommend, never rescale" in left[0]
    with pytest.raises(InputError, match="turns the autoscaler off"):
        handed_over({"job.autoscaler.enabled": "false"}, "conf")
    assert handed_over({"job.autoscaler.enabled": "true"}, "conf") == ({}, [])


def test_a_deprecated_key_beside_the_key_that_replaced_it_loses_and_is_said():
    handed, left = handed_over({"job.autoscaler.target.utilization": "0.5",
                                "job.autoscaler.utilization.target": "0.8"}, "conf")
    assert handed == {"utilization_target": 0.8}
    assert left == ["job.autoscaler.target.utilization (deprecated) says 0.5 and "
                    "job.autoscaler.utilization.target 0.8: job.autoscaler.utilization.target "
                    "wins"]
    agree, said = handed_over({"job.autoscaler.target.utilization": "0.6",
                               "job.autoscaler.utilization.target": "0.6"}, "conf")
    assert agree == {"utilization_target": 0.6} and said == []


def test_flinks_micro_and_nanosecond_units_are_read_and_a_bad_value_named_once():
    handed, _ = handed_over({"job.autoscaler.metrics.window": "30000000 µs",
                             "job.autoscaler.restart.time": "5000000000 ns"}, "conf")
    assert handed == {"metrics_window": pytest.approx(30.0), "restart_time": pytest.approx(5.0)}
    with pytest.raises(InputError) as bad:
        handed_over({"job.autoscaler.metrics.window": "10 parsecs"}, "conf")
    assert str(bad.value).count("job.autoscaler.metrics.window") == 1
