"""Autoscale over a whole session cluster, against two scripted jobs on one fake JobManager
(tests/support/fake_cluster.py): the jobs planned together within the cluster's slots,
scale-downs sent before scale-ups, and each fault said in a line with a bounded exit. The
loop runs in-process over HTTP on a clock of its own; the command itself where its exit
code is the contract."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..conftest import run
from ..support.fake_cluster import fake_cluster
from ..support.loops import flink_decisions

HOT = {"counter": 0.95}   # two subtasks near capacity: three are needed at the target
COLD = {"Source: numbers -> pace": 0.1, "counter": 0.1, "evens": 0.1, "sink: Writer": 0.1}
PRESSED = {"Source: numbers -> pace": 0.6}  # held back by counter
STEP = ("--yes", "--stabilization-interval", "0", "--metrics-window", "5", "--max-steps",
        "1", "-q")


def step(url: str, *args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    """The command's exit code, its first decision and what it printed."""
    done = run("autoscale", url, *args, *STEP)
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    return done.exit_code, (json.loads(lines[0]) if lines else {}), done.output


def loop_step(url: str, *args: str) -> tuple[int, dict, str]:  # type: ignore[type-arg]
    """One step of the loop in-process, as :func:`step` answers it."""
    return 0, flink_decisions(url, *args)[0], ""


def test_a_scale_up_gets_the_slots_a_scale_down_frees_sent_first(tmp_path):
    """Four slots, each job on two: the hot one needs three. The cold one gives one up,
    its PUT sent and waited for before the hot one's; no PUT asks for a slot not free."""
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        code, line, output = loop_step(cluster.url, "--scale-down-interval", "0")
        order = [path for method, path in cluster.requests if method == "PUT"]
    assert code == 0, output
    assert line["slots"] == 4 and set(line["jobs"]) == {"hot", "cold"}
    hot, cold = line["jobs"]["hot"], line["jobs"]["cold"]
    assert hot["decision"] == "rescale" and cold["decision"] == "rescale", line
    assert max(hot["to"].values()) == 3 and max(cold["to"].values()) == 1
    assert hot["to"]["counter"] > hot["from"]["counter"]
    assert [cluster.job("cold").jid in p for p in order] == [True, False]
    assert line["decision"] == "rescale"


def test_a_scale_up_is_not_sent_while_the_freed_slots_stay_idle():
    """Flink keeps a scaled-down job's idle slots for slot.idle.timeout: the scale-up
    waits for them up to --wait, and, not given back by then, is not sent (a PUT would ask
    for a slot that is not free), said with what the cluster had."""
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        cluster.hold_freed = True
        code, line, output = loop_step(cluster.url, "--scale-down-interval", "0", "--wait", "1")
        puts = [path for method, path in cluster.requests if method == "PUT"]
    assert code == 0, output
    assert [cluster.job("cold").jid in p for p in puts] == [True]
    hot = line["jobs"]["hot"]
    assert hot["decision"] == "no change" and hot["to"] == hot["from"]
    assert any("waits for slots: it needs 3, the cluster had 2 for it" in why
               for why in hot["why"]), hot["why"]


def test_a_scale_up_waits_named_while_the_delayed_scale_down_holds_the_slots():
    """The same cluster under the default scale-down interval: the cold job keeps its two
    slots for now, so the hot job's scale-up waits, and the line says so; nothing is sent."""
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        code, line, output = loop_step(cluster.url)
        puts = [path for method, path in cluster.requests if method == "PUT"]
    assert code == 0, output
    assert puts == []
    assert line["jobs"]["hot"]["decision"] == "no change"
    assert any("waits for slots" in why for why in line["jobs"]["hot"]["why"])
    assert any("hot cannot get the 3 slots it asks" in why for why in line["why"])


def test_with_no_free_slot_the_higher_priority_is_served_first(tmp_path):
    """Both jobs hot and back-pressured on four slots: no plan keeps both stable. In
    priority order, a (priority 1) gets what DS2 asks, b the slot left: b is scaled down
    first, then a up. b's scale-down is not delayed (scale-down.interval keeps a job from
    flapping, not slots from a job of higher priority that waits for them), and says so."""
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text("schema: streamplace/jobs/v1\njobs:\n  a: {weight: 3, priority: 1}\n"
                    "  b: {weight: 1}\n")
    with fake_cluster("a", "b", busy={"a": HOT, "b": HOT},
                      pressed={"a": PRESSED, "b": PRESSED}, slots=4) as cluster:
        code, line, output = loop_step(cluster.url, "--jobs", str(jobs))
        puts = [path for method, path in cluster.requests if method == "PUT"]
        b = cluster.job("b").jid
    assert code == 0, output
    assert any(why.startswith("no plan for the cluster") for why in line["why"]), line["why"]
    assert max(line["jobs"]["a"]["to"].values()) == 3
    assert max(line["jobs"]["b"]["to"].values()) == 1
    assert [b in path for path in puts] == [True, False]  # b's scale-down, then a's scale-up
    assert "a scale-down not delayed: a (priority 1) waits for the slots" in \
        line["jobs"]["b"]["why"]


def test_a_job_cancelled_between_the_reading_and_its_put_is_said_and_the_loop_goes_on():
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        cluster.cancel_on_put = "hot"  # cold's PUT comes first; hot is gone by its own
        code, line, output = loop_step(cluster.url, "--scale-down-interval", "0")
    assert code == 0, output
    assert line["jobs"]["cold"]["decision"] == "rescale"
    hot = line["jobs"]["hot"]
    assert hot["decision"] == "no change" and hot["to"] == hot["from"]
    assert any("not sent" in why and "CANCELED" in why for why in hot["why"]), hot["why"]


def test_two_running_jobs_of_one_name_are_left_as_they_run_and_said():
    """A blue/green deploy overlapping: two running jobs share a name for a moment. Both are
    left as they run while they do (the jobs file and the decision name jobs by their
    names), said; the loop goes on with the others."""
    with fake_cluster("same", "same", "other") as cluster:
        _code, line, _ = loop_step(cluster.url, "--dry-run")
    assert set(line["jobs"]) == {"other"}
    assert sum("shares its name with 1 other running job" in why for why in line["why"]) == 2


def test_a_reset_listing_a_failover_or_slots_that_do_not_add_up_are_outlived():
    """The cluster as a service meets it: the listing reset once (no reading, the next step
    goes on), a job RESTARTING when listed (kept, not let go: its memory stays), and a
    listing whose slots do not add up (no reading, nothing sent)."""
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        # the address is checked by a listing before the first wait; a step asks
        # /jobs/overview three times: its listing, and each job's reading of what the
        # others hold; the fifth is the second step's listing
        cluster.faults["=/jobs/overview"] = ["", "", "", "", "reset"]
        steps = flink_decisions(cluster.url, "--dry-run", steps=3)
    assert steps[1]["decision"] == "no change" and "could not be listed" in steps[1]["why"][0]
    assert steps[2]["jobs"], steps[2]
    with fake_cluster("hot", "cold", slots=4) as cluster:
        cluster.job("cold").snapshot["job"]["state"] = "RESTARTING"
        _code, line, _ = loop_step(cluster.url, "--dry-run")
    assert set(line["jobs"]) == {"hot"}
    assert any("cold" in why and "is RESTARTING: kept, not read" in why for why in line["why"])
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        cluster.slots_total = 2  # the TaskManagers list 8, the jobs hold 4
        _code, line, _ = loop_step(cluster.url)
        puts = [path for method, path in cluster.requests if method == "PUT"]
    assert puts == [] and line["decision"] == "no change"
    assert "does not add up is no reading" in line["why"][-1]


def test_a_job_the_jobs_file_does_not_name_takes_its_default_said_once(tmp_path):
    jobs = tmp_path / "jobs.yaml"
    jobs.write_text("jobs:\n  known: {weight: 2}\ndefault: {weight: 0.5}\n")
    with fake_cluster("known", "stranger") as cluster:
        code, line, output = loop_step(cluster.url, "--jobs", str(jobs), "--dry-run")
    assert code == 0, output
    said = [why for why in line["why"] if "not in --jobs" in why]
    assert said == ["stranger is not in --jobs: weight 0.5, priority 0 (the file's default)"]


@pytest.mark.parametrize("args, said", [
    (("--source-rate", "x=1"), "--source-rate speaks of one job"),
    (("--state", "JOBSTATE"), "it is the state of 'http://127.0.0.1:9/jobs/"),
    (("--jobs", "JOBS"), "jobs.yaml:3: jobs.a.weight: must be more than 0.0"),
])
def test_bad_cluster_options_exit_2_with_nothing_sent(tmp_path, args, said):
    bad = tmp_path / "jobs.yaml"
    bad.write_text("jobs:\n  a:\n    weight: 0\n")
    job_state = tmp_path / "job-state.json"  # one job's, given for the cluster
    job_state.write_text(json.dumps({"schema": "streamplace/autoscale-state/v2",
                                     "job": "http://127.0.0.1:9/jobs/" + "0" * 32}))
    args = tuple(str(bad) if a == "JOBS" else str(job_state) if a == "JOBSTATE" else a
                 for a in args)
    with fake_cluster("a", "b") as cluster:
        code, _line, output = step(cluster.url, *args)
        puts = [path for method, path in cluster.requests if method == "PUT"]
    assert code == 2 and puts == []
    assert said in " ".join(output.split()), output


def test_jobs_weighs_a_cluster_not_a_job(tmp_path):
    with fake_cluster("a") as cluster:
        code, _line, output = step(cluster.jobs[0].job_url, "--jobs", "x.yaml")
    assert code == 2 and "--jobs weighs the jobs of a session cluster" in output


def test_a_password_holding_a_hash_or_a_question_mark_still_names_the_cluster():
    with fake_cluster("a", "b") as cluster:
        url = cluster.url.replace("http://", "http://ops:p#w?d@")
        _code, line, _ = loop_step(url, "--dry-run")
    assert set(line["jobs"]) == {"a", "b"}


def test_a_restarted_cluster_autoscaler_resumes_from_its_state(tmp_path):
    """``autoscale http://JM --jobs F --state S``, stopped and started again: one file,
    the cluster's steps going on, each job's memory and its part of each step in it."""
    jobs, state = tmp_path / "jobs.yaml", str(tmp_path / "cluster-state.json")
    jobs.write_text("jobs:\n  hot: {priority: 1}\n")
    with fake_cluster("hot", "cold", busy={"hot": HOT, "cold": COLD}, slots=4) as cluster:
        for expected in (1, 2):
            code, line, output = step(cluster.url, "--jobs", str(jobs), "--state", state,
                                      "--dry-run")
            assert code == 0 and line["step"] == expected, output
        ids = {j.snapshot["job"]["name"]: j.jid for j in cluster.jobs}
    doc = json.loads(Path(state).read_text())
    assert doc["job"] == cluster.url.rstrip("/") and set(doc["jobs"]) == set(ids.values())
    for name, jid in ids.items():
        part = doc["jobs"][jid]
        assert part["memory"]["name"] == name and part["memory"]["steps"] == 2
        assert [d["step"] for d in part["decisions"]] == [1, 2]
        assert all(d["job"] == name and d["time"] for d in part["decisions"])
    done = run("report", "--optimum", state, "--json", "-q")
    assert done.exit_code == 0, done.output
    rows = json.loads(done.stdout)["optimum"]
    assert sorted(r["state"].rsplit(": ", 1)[1] for r in rows) == ["cold", "hot"]
