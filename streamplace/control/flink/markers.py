"""Flink's latency markers read from a running job.

With ``metrics.latency.interval`` set, Flink 2.2.1 (checked; 1.20 is not) lists them among
each vertex's metrics (``GET /jobs/:jid/vertices/:vid/metrics``), not the job's, one per
reporting subtask:
``<subtask>.latency.source_id.<vertex>[.source_subtask_index.<k>].operator_id.<vertex>
.operator_subtask_index.<k>.latency_<stat>``, ``stat`` one of ``mean``, ``median``,
``p99`` ... in milliseconds (``metrics.latency.granularity``: ``operator`` by default,
``subtask`` adds the source's subtask; ``single`` names no source and is not read). Flink
1.20 registers them in the job's group on each TaskManager instead, listed among the job's
metrics (``GET /jobs/:jid/metrics``) without the subtask in front: read there where no
vertex lists any.
"""

from __future__ import annotations

import math
import re
import statistics
from collections import defaultdict
from dataclasses import replace

from streamplace.control.flink.answers import as_number
from streamplace.control.flink.config import buffer_timeout, cluster_config
from streamplace.control.flink.rescale import JobAddress
from streamplace.control.flink.samples import check_held
from streamplace.control.running.latency import Measured
from streamplace.errors import EngineError, InputError
from streamplace.io.http import get_json

MARKER = re.compile(r"^(?:\d+\.)?latency\.source_id\.([0-9a-f]{32})"
                    r"(?:\.source_subtask_index\.\d+)?\.operator_id\.([0-9a-f]{32})\.operator_subtask_index\.\d+\."
                    r"latency_(mean|median|p99)$")


def fetch_markers(where: JobAddress, vertices: dict[str, str]) -> dict[tuple[str, str], Measured]:
    """(source operator, operator): its markers, from each vertex's metrics (``vertices``:
    vertex id -> operator id). Empty where the job reports none. A pair whose statistics
    are all NaN (empty histograms) or not finite, or any of them negative (clocks apart),
    is bad input naming the pair and why: never a latency read as none, or as zero."""
    found: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    unread: dict[tuple[str, str], str] = {}  # a pair's first statistic that is no latency
    groups = [f"{where.job}/vertices/{vid}/metrics" for vid in vertices]
    for group in [*groups, f"{where.job}/metrics"]:
        if group == f"{where.job}/metrics" and found:
            break  # 2.x lists them per vertex; 1.20 in the job's group
        listed = get_json(where.at(group), "JOB")
        ids = [m.get("id") for m in listed if isinstance(m, dict)] \
            if isinstance(listed, list) else []
        wanted = [i for i in ids if isinstance(i, str) and MARKER.match(i)]
        for chunk in range(0, len(wanted), 40):  # a URL of reasonable length
            got = get_json(where.at(f"{group}?get=" + ",".join(wanted[chunk:chunk + 40])),
                           "JOB")
            for m in got if isinstance(got, list) else []:
                hit = MARKER.match(str(m.get("id")))
                if not hit or hit.group(1) not in vertices or hit.group(2) not in vertices:
                    continue
                key = (vertices[hit.group(1)], vertices[hit.group(2)])
                value = as_number(m.get("value"))
                if value is None or value < 0:
                    unread.setdefault(key, _unread(m.get("value")))
                else:
                    found[key][hit.group(3)].append(value / 1000)
    read = {key: Measured(statistics.fmean(s["mean"]), statistics.median(s["median"]),
                          max(s["p99"]))
            for key, s in found.items() if s["mean"] and s["median"] and s["p99"]}
    for (source, op), why in unread.items():
        if (source, op) not in read or why.startswith("negative"):
            raise InputError.single(f"the latency markers of {source} -> {op} {why}",
                                    UNREAD_FIX[why.split()[0]], path="metrics.latency.interval")
    return read


UNREAD_FIX = {
    "hold": "read again once markers have arrived (one every metrics.latency.interval; "
            "the histogram keeps metrics.latency.history-size of them)",
    "negative": "synchronise the TaskManagers' clocks (NTP): a marker carries the wall "
                "clock of its source's TaskManager, and its age is read on another's",
    "are": "read again: a histogram this large is no latency; check the TaskManagers' "
           "clocks"}


def _unread(value: object) -> str:
    """Why a marker's statistic is no latency, in words (its first word keys the fix)."""
    text = str(value).strip()
    if text.lower() in ("nan", "none", ""):
        return "hold no marker yet (NaN: the histograms are empty)"
    number = as_number(value)
    if number is not None and number < 0:
        return f"negative ({number:.0f} ms)"
    return f"are not a finite number of milliseconds ({text[:20]})"


def job_markers(job: str, vertex_of: dict[str, str], config: dict[str, str] | None = None,
                ) -> tuple[dict[tuple[str, str], Measured], float]:
    """The markers of the running job ``job`` (``vertex_of``: operator -> vertex id), and
    the cluster's buffer timeout they crossed (``config``: the cluster's, read if not
    given)."""
    where = JobAddress.parse(job)
    if config is None:
        config = cluster_config(where.address, where.base)
    timeout = buffer_timeout(config)
    if math.isinf(timeout):
        raise InputError.single(
            "the cluster flushes its network buffers only when full (execution.buffer-"
            "timeout.enabled: false, or a negative buffer timeout): a marker's age then "
            "rests on how fast each 32 KiB buffer fills, which no parallelism bounds",
            "set execution.buffer-timeout.enabled: true and execution.buffer-timeout."
            "interval (100 ms by default) to hold a latency", path="execution.buffer-timeout")
    read = fetch_markers(where, {vid: op for op, vid in vertex_of.items()})
    if not read:
        return read, timeout
    counts = check_held(config, get_json(where.at(where.job), "JOB"), {
        pair: (vertex_of[pair[0]], vertex_of[pair[1]]) for pair in read
        if pair[0] in vertex_of and pair[1] in vertex_of})
    return {pair: replace(m, markers=counts[pair][0], span=counts[pair][1])
            if pair in counts else m for pair, m in read.items()}, timeout


NO_PERIODIC = 10 ** 15  # ms: Flink's interval where periodic checkpoints are off (Long.MAX)


def checkpoint_interval(job: str) -> float:
    """Seconds between the job's checkpoints (``GET /jobs/:jid/checkpoints/config``'s
    ``interval``, in ms): each barrier flushes every output buffer it passes. Infinite
    where checkpointing is off (Flink answers 404) or not periodic."""
    where = JobAddress.parse(job)
    try:
        answer = get_json(where.at(f"{where.job}/checkpoints/config"), "JOB")
    except (InputError, EngineError):
        return math.inf
    interval = as_number(answer.get("interval")) if isinstance(answer, dict) else None
    return interval / 1000 if interval and 0 < interval < NO_PERIODIC else math.inf
