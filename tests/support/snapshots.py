"""Shared by several test modules (no test module imports another)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamplace.control.flink.job import METERS

from ..conftest import run, sample
from .flink_cluster import RATE

SNAPSHOT = sample("flink", "paced-snapshot.json")


def observed_files(folder: Path) -> tuple[dict[str, Any], list[str]]:
    """``observe SNAPSHOT``'s document, and its application, infrastructure and current
    plan written as files in ``folder`` (in that order)."""
    doc = json.loads(run("observe", SNAPSHOT, "--json", "-q").stdout)
    files = []
    for key in ("application", "infrastructure", "plan"):
        path = folder / f"{key}.yaml"
        path.write_text(yaml.safe_dump(doc[key]))
        files.append(str(path))
    return doc, files


TOLERANCE = 0.02  # Flink's meters over 60 s, against the rate the job was made to keep


LIVE_SCHEDULE = 0.5  # a job beside other work: see assert_what_the_job_was_made_to_do


PASSED = 0.75
"""The share of records the filter passes: it keeps the even running sums of 16 keys,
which are every sum of the 8 even keys and every other sum of the 8 odd ones."""


def assert_what_the_job_was_made_to_do(doc: dict[str, Any], live: bool = False) -> None:
    """The paced job at parallelism 2, observed: its rates, and its source's service rate.

    ``live``: read from a job running beside other work. Its pacing keeps a schedule, so
    after a stall it sends the records it owes at once, and a 60 s window that holds such a
    burst averages above the rate (106 for 100 on a loaded machine): the rates are then
    checked against each other within the tolerance, and against the schedule only
    loosely. The saved snapshot is checked against the schedule within the tolerance."""
    rates = {(s["from"], s["to"]): s["rate"] for s in doc["application"]["streams"]}
    sent = 2 * RATE if not live else rates[("numbers-pace", "counter")]  # two subtasks
    assert rates == pytest.approx({("numbers-pace", "counter"): sent,
                                   ("counter", "evens"): sent,
                                   ("evens", "sink"): PASSED * sent}, rel=TOLERANCE)
    schedule = LIVE_SCHEDULE if live else TOLERANCE
    assert sent == pytest.approx(2 * RATE, rel=schedule)
    ops = {o["id"]: o for o in doc["application"]["operators"]}
    # the pacing map sleeps between records: its vertex is busy all the time at RATE
    assert ops["numbers-pace"]["service_rate"] == pytest.approx(RATE, rel=schedule)
    # the other vertices were made to keep up: what they can take exceeds what they get. How
    # far it exceeds it is this machine's speed (busy time grows beside other work), so only
    # the saved snapshot, taken on a quiet machine, is held to its margin of 100x
    floor = sent if live else 100 * RATE
    assert all(ops[o]["service_rate"] > floor for o in ("counter", "evens", "sink"))
    assert any("'Source: numbers -> pace' is busy 100%" in w for w in doc["report"]["warnings"])
    # a Long, as Flink's network stack carries it: 21 bytes. A reading on a loaded machine
    # (CI, both tiers at once) was seen a little off it: the consumer's byte and record
    # counters need not move together while a buffer is being read
    tuple_sizes = [s["tuple_size"] for s in doc["application"]["streams"]]
    assert tuple_sizes == pytest.approx([21.0] * len(tuple_sizes), rel=0.01), tuple_sizes
    placement = doc["plan"]["placement"]
    assert {o: sum(where.values()) for o, where in placement.items()} == dict.fromkeys(ops, 2)


def answers(snapshot: dict[str, Any]) -> dict[str, Any]:
    """The REST calls observe makes, answered as the cluster answered them."""
    jid = snapshot["job"]["jid"]
    out = {f"/jobs/{jid}": snapshot["job"], "/config": snapshot["config"],
           "/taskmanagers": snapshot["taskmanagers"]}
    for vid, detail in snapshot["vertices"].items():
        out[f"/jobs/{jid}/vertices/{vid}"] = detail
        out[f"/jobs/{jid}/vertices/{vid}/subtasks/metrics?get={','.join(METERS)}"] = \
            snapshot["metrics"][vid]
    return out
