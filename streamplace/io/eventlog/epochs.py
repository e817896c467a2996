"""Epochs of an event log (docs/models.md sec. 8): a streaming query's progress intervals,
else a batch application's jobs. Rates are computed per epoch too, so a burst shows; the
application file carries one statistic of them (``--rate-statistic``), the report all.

>>> percentile([1.0, 2.0, 3.0, 4.0], 95)
3.85
"""

from __future__ import annotations

import itertools
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from streamplace.io.eventlog.digest import Digest
from streamplace.io.eventlog.records import ProgressReport

STATISTICS = ("mean", "p95", "max")


@dataclass(frozen=True)
class Epoch:
    label: str  # "batch 7 of <query>" or "job 12"
    start_ms: float
    seconds: float


def find_epochs(d: Digest) -> tuple[list[Epoch], dict[int, str]]:
    """The epochs in time order, and the epoch of each stage that ran in one."""
    if len(d.progress) >= 2:
        return _streaming(d)
    return _batch(d)


def _streaming(d: Digest) -> tuple[list[Epoch], dict[int, str]]:
    by_query: dict[str, list[ProgressReport]] = defaultdict(list)
    for report in d.progress:
        by_query[report.query].append(report)
    epochs: list[Epoch] = []
    label_of: dict[tuple[str, int], str] = {}
    for query, reports in by_query.items():
        reports.sort(key=lambda r: r.batch)
        name = reports[0].name or query[:8]
        for before, report in itertools.pairwise(reports):
            seconds = (report.stamp_ms - before.stamp_ms) / 1000.0
            if seconds > 0:
                label = f"batch {report.batch} of {name}"
                label_of[(query, report.batch)] = label
                epochs.append(Epoch(label, before.stamp_ms, seconds))
    stages: dict[int, str] = {}
    for job in d.jobs.values():
        key = (job.get("query"), job.get("batch"))
        if key in label_of:
            for js in job.get("stages", []):
                stages.setdefault(js.stage, label_of[key])
    return sorted(epochs, key=lambda e: e.start_ms), stages


def _batch(d: Digest) -> tuple[list[Epoch], dict[int, str]]:
    epochs: list[Epoch] = []
    stages: dict[int, str] = {}
    for job_id in sorted(d.jobs):
        job = d.jobs[job_id]
        if "submit" not in job or "end" not in job or job["end"] <= job["submit"]:
            continue
        label = f"job {job_id}"
        epochs.append(Epoch(label, job["submit"], (job["end"] - job["submit"]) / 1000.0))
        for js in job.get("stages", []):  # a stage runs in the first job that needs it
            stages.setdefault(js.stage, label)
    return sorted(epochs, key=lambda e: e.start_ms), stages


def epoch_rates(records: Mapping[str, float], epochs: Sequence[Epoch]) -> dict[str, float]:
    """Records per epoch as rates over each epoch's length (epochs without any: 0)."""
    return {e.label: records.get(e.label, 0.0) / e.seconds for e in epochs}


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile, interpolated linearly between the closest ranks."""
    ordered = sorted(values)
    if not ordered:
        return math.nan
    position = (len(ordered) - 1) * q / 100.0
    low = math.floor(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def pick(statistic: str, mean: float, per_epoch: Sequence[float]) -> float:
    """The rate the application file carries: the whole log's mean (records over the
    observation window, i.e. the time-weighted mean of the epochs), or the 95th percentile
    or maximum of the per-epoch rates (the mean when there are no epochs)."""
    if statistic == "mean" or not per_epoch:
        return mean
    return percentile(per_epoch, 95) if statistic == "p95" else max(per_epoch)
