"""autoscale on a Nexmark-shaped job on real Flink 2.2.1 (tests/support/flink_job/NexmarkJob.java,
q5: bids -> hot items, keyed on 24 key groups, a sliding window -> sink), whose FLIP-27 source
reads a topic of 4 partitions and reports its lag (``pendingRecords``): the offered load is
read from the lag, the keyed vertex goes to a count that divides its key groups, the source
is capped at its partitions, and a second autoscale resumes from the first one's state, with
the restart time it measured. Through a proxy that answers a vertex's counters incomplete,
no decision is taken.

Waits are on conditions the cluster reports (a hang guard bounds them), never on time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..support.flink_cluster import ClusterPool, worker_of
from ..support.flink_jobs import runs_at, streamplace, until
from ..support.flink_proxy import flink_proxy, incomplete_vertex
from ..support.nexmark import PARTITIONS, nexmark

pytestmark = [pytest.mark.e2e, worker_of("2.2.1", "nexmark")]

RATE, KEY_GROUPS = 150, 24  # hot items: 100 bids/s a subtask


def test_the_lag_sizes_a_keyed_vertex_to_a_divisor_of_its_key_groups_and_a_restart_resumes(
        flink_pool: ClusterPool, tmp_path: Path):
    cluster = flink_pool.get("2.2.1")
    with nexmark(cluster, tmp_path, "q5", RATE) as job:
        until(job.lag, lambda pending: pending > 0)  # one subtask takes 100 of 150 bids/s
        state = tmp_path / "state.json"
        step = ("--max-steps", "1", "--stabilization-interval", "0", "--metrics-window", "6",
                "--catch-up-duration", "60", "--scaling-parallelism-alignment-mode",
                "EVENLY_SPREAD", "--state", str(state), "--yes", "-q")
        first = streamplace("autoscale", job.url, "--restart-time", "5", *step)
        assert first.returncode == 0, first.stderr
        line = json.loads(first.stdout.splitlines()[0])
        assert line["decision"] == "rescale", line["why"]
        assert "pendingRecords" in line["offered"] and line["lag"]["bids"] > 0, line
        hot = line["to"]["hot-items"]
        assert hot > 1 and KEY_GROUPS % hot == 0, line["to"]
        runs_at(cluster, job.job, {"Source: bids": 1, "hot items": hot, "sink: Writer": 1})

        observed = streamplace("observe", job.url, "--json", "-q")
        assert observed.returncode == 0, observed.stderr
        ops = {op["id"]: op for op in json.loads(observed.stdout)["application"]["operators"]}
        assert ops["bids"]["max_replicas"] == PARTITIONS  # its metrics name 4 partitions

        restart = line["seconds_to_rescale"]
        second = streamplace("autoscale", job.url, *step, "--dry-run")
        assert second.returncode == 0, second.stderr
        resumed = json.loads(second.stdout.splitlines()[0])
        assert f"a restart of {restart:.3g} s" in resumed["offered"], (restart, resumed)
        kept = json.loads(state.read_text())
        assert [d["decision"] for d in kept["decisions"]] == ["rescale", resumed["decision"]]


def test_no_decision_is_taken_on_a_reading_flink_answers_incomplete(flink_pool: ClusterPool,
                                                                      tmp_path: Path):
    """q1 at parallelism 1 cannot keep up, so autoscale would scale it up; through a proxy
    that answers the work vertex's counters incomplete and drops a subtask, the step says
    there is no reading and sends nothing. The same step through a clean proxy decides."""
    cluster = flink_pool.get("2.2.1")
    with nexmark(cluster, tmp_path, "q1", RATE) as job:
        step = ("--max-steps", "1", "--stabilization-interval", "0", "--metrics-window", "6",
                "--yes", "-q")
        with flink_proxy(cluster.rest) as proxy:
            proxy.tamper = incomplete_vertex("convert")
            refused = streamplace("autoscale", f"{proxy.url}/jobs/{job.job}", *step)
            proxy.tamper = None
            decided = streamplace("autoscale", f"{proxy.url}/jobs/{job.job}", *step,
                                  "--dry-run")
        assert refused.returncode == 0, refused.stderr
        line = json.loads(refused.stdout.splitlines()[0])
        assert line["decision"] == "no change" and proxy.puts == [], line
        assert "as incomplete (complete: false)" in line["why"][0], line["why"]
        assert json.loads(decided.stdout.splitlines()[0])["decision"] == "dry run", \
            decided.stdout


def test_a_backlog_is_planned_for_and_drained(flink_pool: ClusterPool, tmp_path: Path):
    """q1 at 45 events/s runs on one subtask (90-100/s of capacity, more than 45 / 0.7 with
    room for a busy machine's longer sleeps). Its topic is paused (the source reads nothing,
    events keep arriving): without backlog sizing (catch-up 0) the rate alone keeps 1
    subtask; sized to work the backlog off within a 10 s catch-up, the job is scaled up (by
    how much depends on how far the lag grew while the commands ran). Released, the backlog
    is worked off (a backlog small enough to fit in the network buffers would leave the
    topic at once, unseen). The source sent nothing over the window, so the streams are
    read from the 60 s meters."""
    cluster = flink_pool.get("2.2.1")
    with nexmark(cluster, tmp_path, "q1", 45) as job:
        (job.topic / "hold").touch()
        until(job.lag, lambda pending: pending >= 300)
        step = ("--max-steps", "1", "--stabilization-interval", "0", "--metrics-window", "6",
                "--restart-time", "10", "--yes", "-q")
        unsized = streamplace("autoscale", job.url, *step, "--catch-up-duration", "0",
                              "--dry-run")
        sized = streamplace("autoscale", job.url, *step, "--catch-up-duration", "10")
        (job.topic / "hold").unlink()
        assert unsized.returncode == 0 and sized.returncode == 0, unsized.stderr + sized.stderr
        alone = json.loads(unsized.stdout.splitlines()[0])
        line = json.loads(sized.stdout.splitlines()[0])
        assert alone["to"]["convert"] == 1, alone
        assert line["decision"] == "rescale" and line["to"]["convert"] >= 2, (
            line["offered"], line["lag"], line["why"])
        assert line["lag"]["bids"] >= 300 and "worked off over 10 s" in line["offered"], line
        runs_at(cluster, job.job, {"Source: bids": 1, "convert": line["to"]["convert"],
                                   "sink: Writer": 1})
        until(job.lag, lambda pending: pending < 45)  # under a second of events: worked off
        assert job.lag() < 45
