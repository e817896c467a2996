"""autoscale over a session cluster, in-process: the jobs share its slots, scale-downs go
first so that the scale-ups find their slots free, and what does not fit is shared out by
priority, said."""

from __future__ import annotations

from streamplace.model.jobs import JobsFile, JobTerms

from ..support.loops import FakeClock, MemoryCluster, cluster_decisions, pipeline, said


def _cluster(clock: FakeClock, idle: float, busy: float, **running: dict[str, int],
             ) -> MemoryCluster:
    """Two jobs on 8 slots (2 TaskManagers of 4), each on 4: ``quiet`` offered ``idle``
    records/s, ``loaded`` offered ``busy``."""
    quiet = pipeline(clock, rate=idle, running={"work": 4}, name="quiet")
    loaded = pipeline(clock, rate=busy, running={"work": 4}, name="loaded")
    return MemoryCluster({quiet.jid: quiet, loaded.jid: loaded}, clock)


def test_a_scale_up_gets_the_slots_a_scale_down_frees_sent_first():
    clock = FakeClock()
    cluster = _cluster(clock, 50.0, 550.0)
    quiet, loaded = cluster.jobs.values()
    first = cluster_decisions(cluster, clock, 1, catch_up_duration=0.0)[0]
    parts = first.jobs
    assert parts["quiet"].decision == parts["loaded"].decision == "rescale", first
    assert parts["quiet"].to["work"] == 2 and parts["loaded"].to["work"] == 6
    assert quiet.rescales[0][0] < loaded.rescales[0][0]  # the slots freed first
    assert quiet.width() + loaded.width() <= 8


def test_with_no_free_slot_the_higher_priority_is_served_first():
    """Both overloaded on 4 slots each: the job of higher priority cannot grow without the
    other shrinking, and the lower one's scale-up waits, named."""
    clock = FakeClock()
    cluster = _cluster(clock, 550.0, 550.0)
    terms = JobsFile(jobs={"loaded": JobTerms(priority=1)})
    first = cluster_decisions(cluster, clock, 1, terms, catch_up_duration=0.0)[0]
    parts = first.jobs
    assert parts["quiet"].to == parts["quiet"].from_, parts["quiet"].why
    assert said(parts["quiet"], "waits for slots") or said(first, "quiet cannot get")
    assert sum(job.width() for job in cluster.jobs.values()) <= 8


def test_a_delayed_scale_down_holds_no_slot_a_higher_priority_waits_for():
    """quiet idles, and its scale-down would wait scale-down.interval; loaded, of higher
    priority, needs its slots: the scale-down is not delayed, said, and loaded grows."""
    clock = FakeClock()
    cluster = _cluster(clock, 50.0, 550.0)
    terms = JobsFile(jobs={"loaded": JobTerms(priority=1)})
    first = cluster_decisions(cluster, clock, 1, terms, catch_up_duration=0.0,
                              scale_down_interval=3600.0)[0]
    parts = first.jobs
    assert said(parts["quiet"], "a scale-down not delayed: loaded (priority 1) waits")
    assert parts["loaded"].to["work"] == 6 and parts["loaded"].decision == "rescale"


def test_a_job_that_ends_is_let_go_and_one_that_starts_is_taken_in():
    clock = FakeClock()
    cluster = _cluster(clock, 50.0, 50.0)
    loaded = list(cluster.jobs.values())[1]
    said_ = cluster_decisions(cluster, clock, 1)
    assert said(said_[0], "quiet (") and said(said_[0], "runs: taken in")
    loaded.ended = "CANCELED"
    again = cluster_decisions(cluster, clock, 1)[0]
    assert list(again.jobs) == ["quiet"]


def test_a_job_without_latency_markers_is_still_scaled_in_a_cluster():
    """--max-response-time over a cluster: a job that reports no markers is not left
    drowning; its latency is said not to be read, and it is scaled on its other triggers."""
    clock = FakeClock()
    cluster = _cluster(clock, 50.0, 550.0)
    first = cluster_decisions(cluster, clock, 1, method="odrp", max_response_time=0.5,
                              catch_up_duration=0.0)[0]
    loaded = first.jobs["loaded"]
    assert loaded.decision == "rescale" and loaded.to["work"] > 4, loaded.why
    assert any("the latency was not read" in w for w in loaded.warnings)


def test_a_restarted_cluster_loop_resumes_each_jobs_memory(tmp_path):
    """autoscale over the cluster with --state, stopped after a step and started again:
    the steps go on, each job's delayed scale-down still counts from when it was first
    recommended, each job's part of every step is in its own state (stamped, for report
    --optimum), and a job submitted again under its name (a new id) takes its memory."""
    from streamplace.io.state import read_state, write_state

    path = str(tmp_path / "cluster.json")
    clock = FakeClock()
    cluster = _cluster(clock, 50.0, 150.0)
    quiet = next(j for j in cluster.jobs.values() if j.name == "quiet")

    def again(steps: int) -> list:  # type: ignore[type-arg]
        kept = read_state(path, cluster.address)
        return cluster_decisions(cluster, clock, steps, state=kept,
                                 keep=lambda doc: write_state(path, doc),
                                 scale_down_interval=3600.0)

    first = again(1)
    kept = read_state(path, cluster.address)
    waiting = kept.jobs[quiet.jid].memory.pending["work"].first
    assert said(first[0].jobs["quiet"], "waits")
    second = again(1)
    assert second[0].step == 2
    kept = read_state(path, cluster.address)
    assert kept.jobs[quiet.jid].memory.pending["work"].first == waiting
    assert [d.step for d in kept.jobs[quiet.jid].decisions] == [1, 2]
    assert all(d.at is not None and d.seen for d in kept.jobs[quiet.jid].decisions)
    assert [d.step for d in kept.decisions] == [1, 2] and not kept.decisions[0].jobs
    # quiet submitted again from a savepoint: a new id, its old one gone
    del cluster.jobs[quiet.jid]
    quiet.jid = "f" * 32
    cluster.jobs[quiet.jid] = quiet
    third = again(1)
    assert said(third[0], f"quiet ({'f' * 32}) runs: taken in, the memory of its run as")
    kept = read_state(path, cluster.address)
    assert kept.jobs["f" * 32].memory.pending["work"].first == waiting
    assert len(kept.jobs) == 2
