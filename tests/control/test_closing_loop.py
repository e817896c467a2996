"""The parts of apply, autoscale and the drift check that need no cluster: the window of
counters, the offered load, the triggers and DS2's rule, the cluster checks against a real
HTTP server answering as a JobManager does, and every refusal of the commands. The loop
itself runs on real Flink in tests/e2e/test_e2e_loop.py."""

from __future__ import annotations

import copy
import json
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamplace.control.autoscale.rule import Seen, triggers
from streamplace.control.flink.observe import observe
from streamplace.control.flink.rescale import JobAddress, check_cluster
from streamplace.control.flink.window import vertex_window
from streamplace.control.running.offered import offer
from streamplace.errors import EngineError, InputError

from ..conftest import run
from ..support.rest_server import rest_server
from ..support.snapshots import SNAPSHOT, answers

JID = "0" * 31 + "1"


def subtasks(*spans: tuple[float, float, float, int]) -> dict[str, Any]:
    """Vertex details whose subtasks counted (busy, idle, back-pressured ms, records)."""
    return {"subtasks": [{"subtask": k, "status": "RUNNING", "metrics": {
        "accumulated-busy-time": b, "accumulated-idle-time": i,
        "accumulated-backpressured-time": p, "read-records": r, "write-records": r}}
        for k, (b, i, p, r) in enumerate(spans)]}


def test_a_window_is_what_the_subtasks_counted_between_its_ends():
    w = vertex_window("work", subtasks((1000, 0, 0, 10), (0, 1000, 0, 0)),
                      subtasks((8000, 3000, 0, 710), (2000, 8000, 1000, 200)))
    assert w.seconds == pytest.approx(10.0)  # their own time, not a clock of ours
    assert w.busy == pytest.approx((0.7, 0.2)) and w.pressed == pytest.approx((0.0, 0.1))
    assert w.rate("read-records") == pytest.approx(90.0)
    # a back-pressured spell that ends moves time from busy: the share is clamped, no error
    back = vertex_window("s", subtasks((5000, 0, 0, 1)), subtasks((4000, 0, 3000, 2)))
    assert back.busy == (0.0,) and back.pressed == (1.0,)


@pytest.mark.parametrize(("before", "after", "said"), [
    (subtasks((1, 1, 1, 1)), subtasks((1, 1, 1, 1), (1, 1, 1, 1)), "rescaled"),
    (subtasks((900, 900, 0, 50)), subtasks((10, 10, 0, 2)), "restarted"),
    (subtasks((9, 9, 9, 9)), subtasks((9, 9, 9, 9)), "did not move"),
])
def test_a_window_across_a_restart_or_without_news_is_no_answer(before, after, said):
    with pytest.raises(EngineError, match=said):
        vertex_window("work", before, after)


def test_a_window_with_a_counter_flink_answered_incomplete_is_no_reading():
    """Flink 2.2 flags each IO counter on its own: a partial sum, often 0, while busy time
    moves. Read as a count, a busy vertex would look idle and be halved (FLINK-39925)."""
    before = subtasks((1000, 0, 0, 10), (1000, 0, 0, 10))
    after = subtasks((8000, 3000, 0, 710), (8000, 3000, 0, 710))
    after["subtasks"][1]["metrics"] |= {"read-records": 0, "read-records-complete": False}
    with pytest.raises(EngineError, match=r"read-records .* incomplete"):
        vertex_window("work", before, after)
    starting = subtasks((1000, 0, 0, 10), (1000, 0, 0, 10))
    starting["subtasks"][0]["status"] = "INITIALIZING"
    with pytest.raises(EngineError, match=r"INITIALIZING .* not all RUNNING"):
        vertex_window("work", starting, after)


def test_the_offered_load_scales_every_stream_downstream_by_what_it_takes_in():
    snapshot = json.loads(Path(SNAPSHOT).read_text())
    obs = observe(snapshot, SNAPSHOT)
    source = next(v for v in obs.vertices if v.source)
    before = {(s.source, s.target): s.rate for s in obs.streams}
    sent = sum(r for (a, _), r in before.items() if a == source.op)
    offer(obs, {source.op: 3 * sent})
    after = {(s.source, s.target): s.rate for s in obs.streams}
    for key, rate in before.items():
        assert after[key] == pytest.approx(3 * rate, rel=0.05), key  # selectivity kept
    with pytest.raises(InputError, match="is not a source"):
        offer(observe(snapshot, SNAPSHOT), {obs.vertices[-1].op: 10})
    with pytest.raises(InputError, match="not an operator"):
        offer(observe(snapshot, SNAPSHOT), {"nothing": 10})


def test_the_triggers_are_the_flink_autoscalers():
    def seen(busy: float, pressed: float = 0.0, k: int = 2) -> list[Seen]:
        return [Seen("w", k, busy, pressed, False)]

    assert triggers(seen(0.7), 0.4, 1.0) == []
    assert triggers(seen(0.5, 0.2), 0.4, 1.0) != []            # back-pressured
    assert triggers(seen(0.97), 0.4, 1.0) != []                # at its capacity
    assert triggers(seen(0.45), 0.4, 1.0) == []                # within the boundary
    assert triggers(seen(0.3), 0.4, 1.0) != []                 # below it
    assert triggers(seen(0.2, k=1), 0.4, 1.0) == []            # and already at one subtask
    assert triggers([Seen("s", 1, 0.01, 0.0, True)], 0.4, 1.0) == []  # a source idles


def cluster_answers(version: str, settings: dict[str, str]) -> dict[str, Any]:
    return {"/config": {"flink-version": version},
            "/jobmanager/config": [{"key": k, "value": v} for k, v in settings.items()]}


@pytest.mark.parametrize(("version", "settings", "said"), [
    ("1.20.3", {}, "jobmanager.scheduler: adaptive"),
    ("2.2.1", {"jobmanager.scheduler": "default"}, "jobmanager.scheduler: adaptive"),
    ("1.17.2", {"jobmanager.scheduler": "adaptive"}, "upgrade to 1.18"),
    ("1.20.3", {"jobmanager.scheduler": "adaptive", "scheduler-mode": "reactive"},
     "reactive"),
])
def test_a_cluster_that_cannot_take_the_change_is_bad_input(version, settings, said):
    with rest_server(cluster_answers(version, settings)) as rest, \
            pytest.raises(InputError, match=said):
        check_cluster(JobAddress.parse(f"{rest}/jobs/{JID}"))
    with rest_server(cluster_answers("2.2.1", {"jobmanager.scheduler": "adaptive"})) as rest:
        assert check_cluster(JobAddress.parse(f"{rest}/jobs/{JID}")) == "2.2.1"


@pytest.fixture
def observed_files(tmp_path: Path) -> dict[str, Path]:
    files = {k: tmp_path / f"{k}.yaml" for k in ("app", "infra", "plan")}
    done = run("observe", SNAPSHOT, "-o", str(files["app"]), "--infrastructure-out",
               str(files["infra"]), "--plan-out", str(files["plan"]), "-q")
    assert done.exit_code == 0, done.output
    return files


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def with_headroom(observed_files: dict[str, Path]) -> None:
    """The paced vertex sleeps, busy all the time: its observed replicas are at capacity,
    and a plan that keeps them breaks stability. Ten times its service rate leaves room."""
    app = yaml.safe_load(observed_files["app"].read_text())
    for op in app["operators"]:
        op["service_rate"] *= 10
    observed_files["app"].write_text(yaml.safe_dump(app))


def test_apply_refuses_without_sending(observed_files: dict[str, Path], tmp_path: Path):
    with_headroom(observed_files)
    files = [str(observed_files[k]) for k in ("app", "infra", "plan")]
    snapshot = json.loads(Path(SNAPSHOT).read_text())
    jid = snapshot["job"]["jid"]
    unreachable = run("apply", *files, f"http://127.0.0.1:{closed_port()}/jobs/{jid}", "--yes")
    assert unreachable.exit_code == 2 and "cannot reach" in unreachable.output
    ended = copy.deepcopy(snapshot)
    ended["job"]["state"] = "CANCELED"
    with rest_server(answers(ended)) as rest:
        stopped = run("apply", *files, f"{rest}/jobs/{jid}", "--yes")
    assert stopped.exit_code == 2 and "not RUNNING" in stopped.output
    plan = yaml.safe_load(observed_files["plan"].read_text())
    op, where = next(iter(plan["placement"].items()))
    plan["placement"][op] = {node: 99 for node in where}  # more than its max_replicas
    broken = tmp_path / "broken.yaml"
    broken.write_text(yaml.safe_dump(plan))
    refused = run("apply", files[0], files[1], str(broken), f"{rest}/jobs/{jid}", "--yes")
    assert refused.exit_code == 1 and "not applied" in refused.output
    with rest_server({**answers(snapshot), **cluster_answers("1.20.3", {})}) as rest:
        default = run("apply", *files, f"{rest}/jobs/{jid}", "--yes")
    assert default.exit_code == 2 and "jobmanager.scheduler: adaptive" in default.output


@pytest.mark.parametrize("args", [
    ["--method", "ds3"], ["--utilization-target", "1.5"], ["--metrics-window", "1"],
    ["--max-steps", "0"], ["--source-rate", "events"], ["--source-rate", "events=-1"],
    ["--utilization-min", "0.8"], ["--utilization-max", "0.5"], ["--max-moves", "-1"],
    ["--metrics-window", "1e308"], ["--replan-time-limit", "0"], ["--wait", "nan"],
    ["--wait", "inf"], ["--wait", "-1"],
])
def test_autoscale_bad_options_are_bad_input_before_anything_is_read(args: list[str]):
    done = run("autoscale", f"http://127.0.0.1:{closed_port()}/jobs/{JID}", "--yes", *args)
    assert done.exit_code == 2, done.output


def test_observe_against_needs_what_the_plan_was_made_from(observed_files):
    done = run("observe", SNAPSHOT, "--against", str(observed_files["plan"]))
    assert done.exit_code == 2 and "--application" in done.output
    alone = run("observe", SNAPSHOT, "--application", str(observed_files["app"]))
    assert alone.exit_code == 2 and "--against" in alone.output
    window = run("observe", SNAPSHOT, "--window", "10")
    assert window.exit_code == 2 and "live job" in window.output


def test_observe_against_the_plan_the_job_runs(observed_files):
    done = run("observe", SNAPSHOT, "--against", str(observed_files["plan"]), "--application",
               str(observed_files["app"]), "--infrastructure", str(observed_files["infra"]),
               "--json", "-q")
    assert done.exit_code == 0, done.output
    drift = json.loads(done.stdout)["drift"]
    assert drift["passed"] and drift["operators"]
    for row in drift["operators"]:  # the model made from the job predicts the job
        assert row["running"] == row["planned"]
        if row["predicted_utilization"] is not None and row["busy"] is not None:
            assert row["predicted_utilization"] == pytest.approx(row["busy"], abs=0.1)


def adaptive_job() -> tuple[dict[str, Any], str]:
    """The sample job's answers, on a cluster of the adaptive scheduler with 4 free slots."""
    snapshot = json.loads(Path(SNAPSHOT).read_text())
    return ({**answers(snapshot), **cluster_answers("2.2.1", {"jobmanager.scheduler":
                                                              "adaptive"}),
             "/overview": {"slots-total": 8, "slots-available": 4}}, snapshot["job"]["jid"])


@pytest.fixture
def wider(observed_files: dict[str, Path], tmp_path: Path) -> list[str]:
    """APP INFRA PLAN where one vertex runs 3 subtasks instead of 2."""
    with_headroom(observed_files)
    plan = yaml.safe_load(observed_files["plan"].read_text())
    op = next(iter(plan["placement"]))
    node = next(iter(plan["placement"][op]))
    plan["placement"][op] = {node: 3}
    path = tmp_path / "wider.yaml"
    path.write_text(yaml.safe_dump(plan))
    return [str(observed_files["app"]), str(observed_files["infra"]), str(path)]


def test_apply_sends_once_and_says_what_runs_when_the_job_does_not_follow(wider):
    got, jid = adaptive_job()
    sent: list[tuple[str, Any]] = []
    path = f"/jobs/{jid}/resource-requirements"
    with rest_server(got, {path: (200, {})}, sent) as rest:
        dry = run("apply", *wider, f"{rest}/jobs/{jid}", "--dry-run", "--json")
        assert dry.exit_code == 0 and sent == []
        assert [c["to"] for c in json.loads(dry.stdout)["changes"]] == [3]
        late = run("apply", *wider, f"{rest}/jobs/{jid}", "--yes", "--wait", "1")
    assert late.exit_code == 3 and "does not run the plan 1 s after" in late.output
    assert "running" in late.output
    assert len(sent) == 1 and sorted(b["parallelism"]["upperBound"]
                                     for b in sent[0][1].values()) == [2, 2, 2, 3]
    with rest_server(got, {path: (500, {"errors": ["Internal server error.",
                                                   "<Exception on server side:\norg.Boom: "
                                                   "no\n\tat x>"]})}, sent) as rest:
        failed = run("apply", *wider, f"{rest}/jobs/{jid}", "--yes")
    assert failed.exit_code == 3 and "answered 500" in failed.output
    assert "org.Boom: no" in failed.output and len(sent) == 2


def test_a_plan_for_another_job_is_refused(observed_files: dict[str, Path], wider):
    app = yaml.safe_load(Path(wider[0]).read_text())
    app["operators"][0]["engine_id"] = "f" * 32
    Path(wider[0]).write_text(yaml.safe_dump(app))
    got, jid = adaptive_job()
    sent: list[tuple[str, Any]] = []
    with rest_server(got, {f"/jobs/{jid}/resource-requirements": (200, {})}, sent) as rest:
        other = run("apply", *wider, f"{rest}/jobs/{jid}", "--yes")
    assert other.exit_code == 2 and "matches no vertex" in other.output and sent == []


@pytest.mark.parametrize(("sig", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_an_interrupt_while_apply_waits_says_the_change_was_sent(wider, sig, code):
    got, jid = adaptive_job()
    sent: list[tuple[str, Any]] = []
    with rest_server(got, {f"/jobs/{jid}/resource-requirements": (200, {})}, sent) as rest:
        waiting = subprocess.Popen([sys.executable, "-m", "streamplace", "apply", *wider,
                                    f"{rest}/jobs/{jid}", "--yes", "--wait", "600"],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            guard = time.monotonic() + 120  # a hang guard: the PUT is the signal to go on
            while not sent and waiting.poll() is None and time.monotonic() < guard:
                time.sleep(0.05)
            assert sent, waiting.communicate(timeout=60)
            waiting.send_signal(sig)
            _, err = waiting.communicate(timeout=60)
        finally:
            waiting.kill()
    assert waiting.returncode == code, err
    assert "the change was sent" in err and "Traceback" not in err
    # the last line is true: never "stopped before anything was written" after a PUT
    assert "the change was sent" in err.strip().splitlines()[-1]
    assert "before anything was written" not in err
