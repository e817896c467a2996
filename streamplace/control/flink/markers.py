"""Flink's latency markers read from a running job.

With ``metrics.latency.interval`` set, Flink 2.2.1 (checked; 1.20 is not) lists them among
each vertex's metrics (``GET /jobs/:jid/vertices/:vid/metrics``), not the job's, one per
reporting subtask:
``<subtask>.latency.source_id.<vertex>[.source_subtask_index.<k>].operator_id.<vertex>
.operator_subtask_index.<k>.latency_<stat>``, ``stat`` one of ``mean``, ``median``,
``p99`` ... in milliseconds (``metrics.latency.granularity``: ``operator`` by default,
``subtask`` adds the source's subtask; ``single`` names no source and is not read).
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict

from streamplace.control.flink.answers import as_number
from streamplace.control.flink.config import buffer_timeout, cluster_config
from streamplace.control.flink.rescale import JobAddress
from streamplace.control.running.latency import Measured
from streamplace.io.http import get_json

MARKER = re.compile(r"^\d+\.latency\.source_id\.([0-9a-f]{32})(?:\.source_subtask_index\.\d+)?"
                    r"\.operator_id\.([0-9a-f]{32})\.operator_subtask_index\.\d+\."
                    r"latency_(mean|median|p99)$")


def fetch_markers(where: JobAddress, vertices: dict[str, str]) -> dict[tuple[str, str], Measured]:
    """(source operator, operator): its markers, from each vertex's metrics (``vertices``:
    vertex id -> operator id). Empty where the job reports none."""
    found: dict[tuple[str, str], dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
    for vid in vertices:
        listed = get_json(where.at(f"{where.job}/vertices/{vid}/metrics"), "JOB")
        ids = [m.get("id") for m in listed if isinstance(m, dict)] \
            if isinstance(listed, list) else []
        wanted = [i for i in ids if isinstance(i, str) and MARKER.match(i)]
        for chunk in range(0, len(wanted), 40):  # a URL of reasonable length
            got = get_json(where.at(f"{where.job}/vertices/{vid}/metrics?get="
                                    + ",".join(wanted[chunk:chunk + 40])), "JOB")
            for m in got if isinstance(got, list) else []:
                hit = MARKER.match(str(m.get("id")))
                value = as_number(m.get("value"))
                if hit and value is not None and value >= 0 and hit.group(1) in vertices \
                        and hit.group(2) in vertices:
                    key = (vertices[hit.group(1)], vertices[hit.group(2)])
                    found[key][hit.group(3)].append(value / 1000)
    return {key: Measured(statistics.fmean(s["mean"]), statistics.median(s["median"]),
                          max(s["p99"]))
            for key, s in found.items() if s["mean"] and s["median"] and s["p99"]}


def job_markers(job: str, vertex_of: dict[str, str],
                ) -> tuple[dict[tuple[str, str], Measured], float]:
    """The markers of the running job ``job`` (``vertex_of``: operator -> vertex id), and
    the cluster's buffer timeout they crossed."""
    where = JobAddress.parse(job)
    measured = fetch_markers(where, {vid: op for op, vid in vertex_of.items()})
    return measured, buffer_timeout(cluster_config(where.address, where.base))
