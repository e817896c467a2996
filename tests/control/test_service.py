"""autoscale as a service: /metrics scraped while the real command runs against a scripted
JobManager, checked against its decision lines with prometheus_client's own parser; a
health endpoint that fails once the readings stop; the operator's ScalingReport events,
parsed with the operator's own pattern."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

from streamplace.control.service.events import scaling_reports
from streamplace.control.service.metrics import LoopMetrics
from streamplace.control.service.server import serve

from ..support.fake_jobmanager import fake_jobmanager
from ..support.loops import FakeClock, decisions, pipeline

HANG_GUARD = 120  # seconds: only ever reached when the behaviour under test is broken
# AutoscalerEventUtils.VERTEX_SCALING_REPORT_PATTERN and SCALING_REPORT_SEPARATOR
OPERATOR_ENTRY = re.compile(r"Vertex ID (.*?) \| Parallelism (.*?) -> (.*?) \| Processing "
                            r"capacity (.*?) -> (.*?) \| Target data rate (.*)")
OPERATOR_SEPARATOR = re.compile(r"\{(.+?)\}")


def _scrape(url: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    with urllib.request.urlopen(f"{url}/metrics", timeout=HANG_GUARD) as answer:
        text = answer.read().decode()
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for family in text_string_to_metric_families(text) for s in family.samples}


def _value(scraped: dict, name: str, **labels: str) -> float | None:  # type: ignore[type-arg]
    return scraped.get((name, tuple(sorted(labels.items()))))


def test_the_metrics_scraped_while_autoscale_runs_match_its_decision_lines():
    """Scraped after two lines were said, before the process is stopped: the counters and
    gauges are those of the lines said by then (a prefix of all the lines the run said)."""
    with fake_jobmanager(busy={"counter": 0.95}) as jm:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamplace", "autoscale", jm.job_url,
             "--metrics-port", "0", "--metrics-host", "127.0.0.1", "--dry-run",
             "--utilization-max", "0.9", "--stabilization-interval", "0",
             "--metrics-window", "5", "-q"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            ready = proc.stderr.readline() if proc.stderr else ""
            found = re.search(r"serving metrics on (http://\S+)/metrics", ready)
            assert found, ready
            url = found.group(1)
            said = [json.loads(proc.stdout.readline()) for _ in range(2)] if proc.stdout \
                else []
            scraped = _scrape(url)
            with urllib.request.urlopen(f"{url}/healthz", timeout=HANG_GUARD) as answer:
                assert answer.status == 200 and answer.read().startswith(b"ok")
        finally:
            proc.send_signal(signal.SIGTERM)
            out, _err = proc.communicate(timeout=HANG_GUARD)
    said += [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    steps = [d for d in said if d.get("step")]
    job = {"flink_job": steps[0]["job"], "flink_job_id": steps[0]["job_id"]}
    counted = _value(scraped, "streamplace_autoscale_decisions_total", **job,
                     decision="dry run") or 0.0
    unchanged = _value(scraped, "streamplace_autoscale_decisions_total", **job,
                       decision="no change") or 0.0
    prefix = steps[:int(counted + unchanged)]
    assert len(prefix) >= 2 and int(counted + unchanged) <= len(steps)
    assert counted == sum(d["decision"] == "dry run" for d in prefix) > 0
    last = prefix[-1]
    for op, seen in last["seen"].items():
        assert _value(scraped, "streamplace_autoscale_parallelism", **job,
                      vertex=op) == seen["parallelism"]
        assert _value(scraped, "streamplace_autoscale_busy", **job,
                      vertex=op) == pytest.approx(seen["busy"])
    for op, k in last["to"].items():
        assert _value(scraped, "streamplace_autoscale_recommended_parallelism", **job,
                      vertex=op) == k
    # a dry run sends nothing: no rescale counted
    assert (_value(scraped, "streamplace_autoscale_scalings_total", **job) or 0.0) == 0.0
    assert (_value(scraped, "streamplace_autoscale_seconds_since_reading") or 0.0) >= 0.0


def test_the_health_endpoint_fails_once_the_readings_stop():
    """Healthy while a reading came within the allowance (of the start, before the
    first); 503, saying for how long, once none has."""
    clock = FakeClock()
    job = pipeline(clock, rate=150.0)
    metrics = LoopMetrics(clock, stale_after=300.0)
    server, url = serve(metrics, "127.0.0.1", 0)
    try:
        def health() -> tuple[int, str]:
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=HANG_GUARD) as answer:
                    return answer.status, answer.read().decode()
            except urllib.error.HTTPError as exc:
                return exc.code, exc.read().decode()

        assert health()[0] == 200
        for d in decisions(job, clock, 2):
            metrics.observe(d)
        assert health() == (200, "ok: 0 s since the last reading\n")
        clock.sleep(301.0)
        status, said = health()
        assert status == 503 and "301 s since the last reading" in said
    finally:
        server.shutdown()


def test_a_port_that_is_taken_is_bad_input():
    from streamplace.errors import InputError

    metrics = LoopMetrics(FakeClock(), 60.0)
    server, url = serve(metrics, "127.0.0.1", 0)
    try:
        with pytest.raises(InputError, match="cannot serve metrics"):
            serve(metrics, "127.0.0.1", int(url.rsplit(":", 1)[1]))
    finally:
        server.shutdown()


def test_each_rescale_is_a_scaling_report_the_operators_parser_reads():
    """A job short of capacity is rescaled: its event's message, parsed with the operator's
    own pattern, gives the fields the event carries, and the parallelism the line sent."""
    clock = FakeClock()
    job = pipeline(clock, rate=350.0)
    events: list[dict[str, Any]] = []
    said = decisions(job, clock, 3)
    for d in said:
        events += scaling_reports(d)
    rescaled = [d for d in said if d.decision == "rescale"]
    assert rescaled and len(events) == len(rescaled)
    for event, d in zip(events, rescaled, strict=True):
        assert event["reason"] == "ScalingReport" and event["type"] == "Normal"
        assert event["message"].startswith("Scaling execution enabled, begin scaling")
        parsed = [OPERATOR_ENTRY.search(e) for e in OPERATOR_SEPARATOR.findall(
            event["message"])]
        assert parsed and all(parsed)
        for found, vertex in zip(parsed, event["vertices"], strict=True):
            assert found is not None
            assert found.group(1) == vertex["vertexId"]
            assert int(found.group(3)) == vertex["newParallelism"] == d.to[vertex["vertexId"]]
            assert float(found.group(5)) == pytest.approx(vertex["expectedProcessCapacity"],
                                                          abs=0.01)
        assert (event["job"], event["job_id"], event["time"]) == (d.job, d.job_id, d.time)
