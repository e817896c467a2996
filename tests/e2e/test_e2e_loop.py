"""Closing the loop on real Flink session clusters (1.20 and 2.2 from PyPI): the loaded job
of tests/support/flink_job/LoadedJob.java (events offered at RATE/s, work whose subtask takes
1e6 / WORK_MICROS records/s, a keyed tally, a sink; records of PAYLOAD bytes) starts at
parallelism 1, back-pressured, and is brought to its target utilisation by observe, solve
and apply, or by autoscale; the drift check then holds the plan to what the job does.

Every wait is on a condition the cluster reports (a hang guard bounds it); the windows the
commands read are the job's own counters, so no check depends on this machine's speed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from ..support.flink_cluster import VERSIONS, ClusterPool, FlinkCluster, extra_taskmanager
from ..support.flink_jobs import (
    RATE,
    RUN_TIMEOUT,
    WEIGHTS,
    WINDOW,
    loaded_job,
    runs_at,
    streamplace,
    until,
)

pytestmark = pytest.mark.e2e

TARGET = 0.7
RESULTS = Path(os.environ.get("STREAMPLACE_LOOP_RESULTS", "out"))  # numbers for the docs


@pytest.fixture(scope="module", params=VERSIONS)
def cluster(request: pytest.FixtureRequest, flink_pool: ClusterPool) -> FlinkCluster:
    """8 slots (two TaskManagers of 4): room for twice RATE, beside the other tests' jobs."""
    return flink_pool.get(request.param)






@pytest.fixture
def job(cluster: FlinkCluster) -> Iterator[str]:
    started = loaded_job(cluster)
    yield started
    cluster.cancel(started)


def drift_check(cluster: FlinkCluster, job: str, files: dict[str, Path]) -> dict[str, Any]:
    done = streamplace("observe", f"{cluster.rest}/jobs/{job}", "--window", WINDOW,
                       "--against", str(files["plan"]), "--application", str(files["app"]),
                       "--infrastructure", str(files["infra"]), "--json", "-q")
    assert done.returncode in (0, 1), done.stderr
    doc = json.loads(done.stdout)
    doc["exit"] = done.returncode
    return doc


def sink_keeps_up(drift: dict[str, Any]) -> bool:
    app = drift["drift"]["application"]
    return bool(abs(app["sink_rate"] - app["source_rate"]) <= 0.02 * app["source_rate"])


def assert_converged(drift: dict[str, Any]) -> None:
    """No vertex back-pressured 10% or more, the sink within 2% of the source, each busy
    share within 0.1 of the plan's utilisation."""
    assert drift["exit"] == 0, drift["drift"]["broken"]
    rows = drift["drift"]["operators"]
    assert all(r["pressed"] < 0.10 for r in rows), rows
    assert sink_keeps_up(drift), drift["drift"]["application"]
    for r in rows:
        if r["predicted_utilization"] is not None:
            assert abs(r["busy"] - r["predicted_utilization"]) <= 0.1, r


def test_one_step_at_the_offered_load(cluster: FlinkCluster, job: str, tmp_path: Path):
    url = f"{cluster.rest}/jobs/{job}"
    files = {k: tmp_path / f"{k}.yaml" for k in ("app", "infra", "current", "plan")}
    seen = streamplace("observe", url, "--window", WINDOW, "--source-rate", f"events={RATE}",
                       "-o", str(files["app"]), "--infrastructure-out", str(files["infra"]),
                       "--plan-out", str(files["current"]), "-q")
    assert seen.returncode == 0, seen.stderr
    app = yaml.safe_load(files["app"].read_text())
    assert {s["from"]: s["rate"] for s in app["streams"]}["events"] == pytest.approx(RATE)
    solved = streamplace("solve", str(files["app"]), str(files["infra"]), "--current",
                         str(files["current"]), "--target-utilization", str(TARGET),
                         "--weights", WEIGHTS,
                         "--time-limit", "20", "-o", str(files["plan"]), "-q")
    assert solved.returncode == 0, solved.stderr
    before = streamplace("apply", str(files["app"]), str(files["infra"]), str(files["plan"]),
                         url, "--dry-run", "--json", "-q")
    assert before.returncode == 0, before.stderr
    assert not json.loads(before.stdout)["applied"]
    applied = streamplace("apply", str(files["app"]), str(files["infra"]),
                          str(files["plan"]), url, "--yes", "--json", "-q")
    assert applied.returncode == 0, applied.stderr
    work = json.loads(applied.stdout)["parallelism"]["work"]
    running = {v["name"]: v["parallelism"] for v in cluster.get(f"/jobs/{job}")["vertices"]}
    assert running["work"] == work >= 2
    # a job just rescaled drains what queued while it restarted, its sink above its
    # source for a window (205/s against 200/s once, beside two busy loops): the model
    # is judged once the two agree, or on the third window
    drift = drift_check(cluster, job, files)
    for _ in range(2):
        if sink_keeps_up(drift):
            break
        drift = drift_check(cluster, job, files)
    _record(cluster, "one step", drift)
    assert_converged(drift)


AUTOSCALE = ("--yes", "--metrics-window", WINDOW, "--stabilization-interval", "2",
             "--utilization-target", str(TARGET), "-q")
"""The Flink autoscaler's defaults otherwise: a scale-down waits scale-down.interval (an
hour), so a re-plan that trades a slot for response time one step and back the next does
not restart the job twice (seen once on 2.2.1 with no interval: 5 -> 8 -> 6)."""


def read(line: dict[str, Any]) -> bool:
    """Whether the step read the job: a step that found it restarting says "no reading"
    (a "no change" with nothing seen), which neither converges nor oscillates."""
    return bool(line.get("seen"))


def converged(lines: list[dict[str, Any]], most: int, held_to_plan: bool = True,
              ) -> list[int]:
    """Work's parallelism at each rescale, once the decisions are known to converge:
    at most ``most`` rescales, never above where they end (no overshoot), ending on a
    "no change" with nothing back-pressured and, ``held_to_plan``, work as busy as the
    last rescale predicted (within 0.1). Steps without a reading are left out."""
    lines = [line for line in lines if read(line)]
    rescales = [line for line in lines if line["decision"] == "rescale"]
    assert len(rescales) <= most, lines
    assert lines[-1]["decision"] == "no change", lines[-1]
    steps = [line["to"]["work"] for line in rescales]
    assert steps == sorted(steps) and all(k <= lines[-1]["from"]["work"] for k in steps), steps
    seen = lines[-1]["seen"]
    assert all(v["backpressured"] < 0.10 for v in seen.values()), seen
    if held_to_plan:  # the utilisation the last rescale predicted, against what followed
        assert abs(seen["work"]["busy"] - lines[-1]["planned"]["work"]) <= 0.1, lines[-1]
    return steps


def test_autoscale_ds2_converges_from_the_throughput_alone(cluster: FlinkCluster):
    """On 2.2 only, for the tier's time: the odrp loop runs on both versions."""
    if cluster.home.name.endswith("1.20.3"):
        pytest.skip("DS2's loop runs on Flink 2.2 (the tier's time); odrp's on both")
    job = loaded_job(cluster)
    try:
        done = streamplace("autoscale", f"{cluster.rest}/jobs/{job}", "--method", "ds2",
                           "--max-steps", "3", *AUTOSCALE)
    finally:
        cluster.cancel(job)
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    steps = converged(lines, 3)
    _record(cluster, "autoscale ds2", {"steps": len(steps), "work": steps,
                                       "slots": max(lines[-1]["from"].values()),
                                       "last": lines[-1]})


def test_autoscale_odrp_converges_and_follows_a_rate_step(cluster: FlinkCluster,
                                                          tmp_path: Path):
    """From the throughput alone, then after the source doubles its rate (the flag file
    is made when the loop first says "no change" on a reading): at most three decisions to
    converge, at most two after the step, and no change once converged (no oscillation).
    The seventh step leaves room for one that finds the job restarting (on a busy machine
    a rescale can outlast the stabilisation interval)."""
    flag = tmp_path / "double"
    started = loaded_job(cluster, flag)
    loop = subprocess.Popen([sys.executable, "-m", "streamplace", "autoscale",
                             f"{cluster.rest}/jobs/{started}", "--max-steps", "7", *AUTOSCALE],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: list[dict[str, Any]] = []
    step = 0
    try:
        assert loop.stdout is not None
        for text in loop.stdout:  # the hang guard: communicate's timeout below
            lines.append(json.loads(text))
            if lines[-1]["decision"] == "no change" and read(lines[-1]) and not flag.exists():
                flag.touch()
                step = len(lines)
        _, err = loop.communicate(timeout=RUN_TIMEOUT)
    finally:
        loop.kill()
        cluster.cancel(started)
    _record(cluster, "autoscale odrp decisions", {"decisions": lines})
    assert loop.returncode == 0, err
    assert flag.exists(), lines
    before, after = lines[:step], lines[step:]
    first = converged(before, 3)
    after = [line for line in after if read(line)]
    settled = next((k for k, line in enumerate(after) if line["decision"] == "no change"),
                   len(after))
    assert settled <= 2, after
    assert all(line["decision"] == "no change" for line in after[settled:]), after
    # made from what the back-pressured job let through (a lower bound), the prediction
    # after the step is not held to: the busy share stays within the boundary, as planned
    then = converged(after[:settled + 1], 2, held_to_plan=False)
    offered = after[-1]["seen"]["events"]["records_out"]
    assert offered > 1.5 * RATE, after[-1]  # the step took place (the job offers 2 x RATE)
    assert after[-1]["from"]["work"] > before[-1]["from"]["work"]
    _record(cluster, "autoscale odrp", {"steps": len(first), "work": first,
                                        "slots": max(before[-1]["from"].values()),
                                        "after_step": then, "decisions_after_step":
                                        settled + 1, "last": after[-1]})


def test_apply_refuses_what_it_cannot_do_and_sends_nothing(cluster: FlinkCluster, job: str,
                                                          tmp_path: Path):
    url = f"{cluster.rest}/jobs/{job}"
    files = observed(url, tmp_path, "current")
    current = yaml.safe_load(files["current"].read_text())
    node = next(iter(current["placement"]["work"]))
    wide = tmp_path / "wide.yaml"  # 12 subtasks of work, on a cluster of 8 slots
    infra = yaml.safe_load(files["infra"].read_text())
    for n in infra["nodes"]:  # the model allows it; the cluster has not the slots
        n["resources"]["slots.work"] = 12
    files["infra"].write_text(yaml.safe_dump(infra))
    app = yaml.safe_load(files["app"].read_text())
    for op in app["operators"]:
        op["max_replicas"] = 12
    files["app"].write_text(yaml.safe_dump(app))
    wide.write_text(yaml.safe_dump({**current, "placement": {**current["placement"],
                                                             "work": {node: 12}}}))
    refused = streamplace("apply", str(files["app"]), str(files["infra"]), str(wide), url,
                          "--yes")
    assert refused.returncode == 3, refused.stderr
    assert "nothing was sent" in refused.stderr and "work 1" in refused.stderr
    fits = tmp_path / "fits.yaml"
    fits.write_text(yaml.safe_dump({**current, "placement": {**current["placement"],
                                                             "work": {node: 2}}}))
    ci = streamplace("apply", str(files["app"]), str(files["infra"]), str(fits), url,
                     env={"CI": "true"})
    assert ci.returncode == 2 and "--yes" in ci.stderr
    other = streamplace("apply", str(files["app"]), str(files["infra"]), str(wide),
                        f"{cluster.rest}/jobs/{'0' * 32}", "--yes")
    assert other.returncode == 2, other.stderr
    running = {v["name"]: v["parallelism"] for v in cluster.get(f"/jobs/{job}")["vertices"]}
    assert running["work"] == 1  # nothing was half-applied


def test_a_lost_taskmanager_leaves_a_rescaled_job_running_below_its_plan(
        cluster: FlinkCluster, tmp_path: Path):
    """FLINK-34311: apply keeps the lower bound of parallelism, so a job rescaled onto a
    TaskManager that then stops runs on, on the slots left, where a lower bound raised to
    the plan failed it ("Not enough resources available for scheduling")."""
    if cluster.home.name.endswith("1.20.3"):
        pytest.skip("on Flink 2.2, where the loss was seen; the lower bound is the same rule")
    with extra_taskmanager(cluster) as third:  # 12 slots: the plan needs the third's
        job = loaded_job(cluster)
        try:
            url = f"{cluster.rest}/jobs/{job}"
            files = observed(url, tmp_path, "plan")
            app = yaml.safe_load(files["app"].read_text())
            for op in app["operators"]:  # room in the model: the cluster decides here
                if "service_rate" in op:  # one read before it was seen busy takes no time
                    op["service_rate"] *= 100
            files["app"].write_text(yaml.safe_dump(app))
            plan = yaml.safe_load(files["plan"].read_text())
            nodes = [n["id"] for n in yaml.safe_load(files["infra"].read_text())["nodes"]]
            plan["placement"]["work"] = {n: 3 for n in nodes}  # 9 subtasks over 3 managers
            files["plan"].write_text(yaml.safe_dump(plan))
            applied = streamplace("apply", str(files["app"]), str(files["infra"]),
                                  str(files["plan"]), url, "--yes", "-q")
            assert applied.returncode == 0, applied.stderr
            assert runs_at(cluster, job, {**_running(cluster, job), "work": 9})["work"] == 9
            third.process.terminate()
            third.process.wait(timeout=RUN_TIMEOUT)

            def settled() -> dict[str, Any]:
                return cluster.get(f"/jobs/{job}")

            after = until(settled, lambda j: j["state"] in ("FAILED", "FAILING") or (
                j["state"] == "RUNNING" and all(v["status"] == "RUNNING"
                                                for v in j["vertices"])
                and {v["name"]: v["parallelism"] for v in j["vertices"]}["work"] <= 8))
            assert after["state"] == "RUNNING", after["state"]
            assert 1 <= {v["name"]: v["parallelism"] for v in after["vertices"]}["work"] <= 8
        finally:
            cluster.cancel(job)


def observed(url: str, folder: Path, plan: str) -> dict[str, Path]:
    """The running job observed: its application, TaskManagers and the plan it runs (under
    the key ``plan``)."""
    files = {k: folder / f"{k}.yaml" for k in ("app", "infra", plan)}
    seen = streamplace("observe", url, "-o", str(files["app"]), "--infrastructure-out",
                       str(files["infra"]), "--plan-out", str(files[plan]), "-q")
    assert seen.returncode == 0, seen.stderr
    return files


def _running(cluster: FlinkCluster, job: str) -> dict[str, int]:
    return {v["name"]: v["parallelism"] for v in cluster.get(f"/jobs/{job}")["vertices"]}


def _record(cluster: FlinkCluster, what: str, numbers: dict[str, Any]) -> None:
    """The run's numbers, for docs/engines.md's table (out/closing-the-loop.jsonl)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    version = cluster.home.name.removeprefix("flink-")
    with (RESULTS / "closing-the-loop.jsonl").open("a") as out:
        out.write(json.dumps({"flink": version, "what": what, **numbers}) + "\n")
