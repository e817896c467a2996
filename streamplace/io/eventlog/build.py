"""An application (and an infrastructure skeleton) from a log's :class:`Digest` (docs/models.md
sec. 8).

- Operators: one per stage that ran; in a Structured Streaming query, the stages every
  micro-batch repeats collapse into one operator per position in the batch's stage graph
  (the path from the batch job's final stage through its ``Parent IDs``, skipped stages
  included, so a batch that skips a stage keeps the positions of the others).
- Rates: records over one observation window shared by every stream, so relative rates are
  relative record counts: the span of the streaming queries' progress events, else first job
  start to last job end.
- service_rate: records the operator consumed (input records, shuffle records read,
  broadcast rows received) per second of executor run time; a stage that consumed nothing
  measurable (a parallelized collection, a generated range) is rated by the records it
  produced instead. max_replicas: the stage's task count.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from streamplace.errors import InputError
from streamplace.io.eventlog.digest import Digest
from streamplace.io.eventlog.epochs import Epoch, epoch_rates, find_epochs, pick
from streamplace.io.eventlog.grouping import Group, operator_groups, operator_ids, operator_name
from streamplace.io.eventlog.layout import EventLog
from streamplace.io.eventlog.lineage import lineage
from streamplace.io.eventlog.records import (
    FIRST_LAUNCH,
    IN_REC,
    LAST_FINISH,
    OK,
    OUT_REC,
    READ_REC,
    RUN_MS,
    SUMMED,
    USEFUL_NS,
    WAIT_MS,
    WRITE_NS,
    WRITE_REC,
)
from streamplace.model.application import EXTRACTED, Application
from streamplace.model.infrastructure import Infrastructure


@dataclass(frozen=True)
class ExtractedOperator:
    id: str
    name: str
    stages: tuple[int, ...]
    tasks: int
    consumed: float
    produced: float
    run_seconds: float
    service_rate: float | None  # per second of useful time: the true rate
    input_rate: float | None
    observed_rate: float | None = None  # per second of run time, waiting included
    useful_seconds: float = 0.0
    fetch_wait_seconds: float = 0.0
    write_seconds: float = 0.0


@dataclass(frozen=True)
class ExtractedStream:
    source: str
    target: str
    kind: str
    records: float
    bytes: float
    rate: float  # the statistic the application carries
    tuple_size: float | None
    per_epoch: dict[str, float] = field(default_factory=dict)  # epoch label -> rate


@dataclass
class Extraction:
    """What ``streamplace extract`` found, and what it had to leave aside."""

    app_id: str
    app_name: str
    window: float
    window_basis: str
    operators: list[ExtractedOperator]
    streams: list[ExtractedStream]
    hosts: dict[str, int]
    skipped_stages: int
    unresolved_reads: int
    unreported_stages: int
    counts: dict[str, int]
    ignored_events: int
    damage: list[str]
    files: int
    log_bytes: int
    warnings: list[str]
    rate_statistic: str = "mean"
    epochs: list[Epoch] = field(default_factory=list)
    input_epochs: dict[str, dict[str, float]] = field(default_factory=dict)  # op -> rates
    # the extracted files, made once: the documents written, and the models they read as
    documents: tuple[dict[str, Any], dict[str, Any]] | None = None
    application: Application | None = None
    infrastructure: Infrastructure | None = None

    def application_document(self) -> dict[str, Any]:
        ops = []
        for op in self.operators:
            entry: dict[str, Any] = {"id": op.id, "name": op.name}
            if op.service_rate is not None:
                entry["service_rate"] = _round(op.service_rate)
            if op.input_rate is not None:
                entry["input_rate"] = _round(op.input_rate)
            entry["max_replicas"] = max(1, op.tasks)
            ops.append(entry)
        streams = []
        for s in self.streams:
            entry = {"from": s.source, "to": s.target, "rate": _round(s.rate)}
            if s.tuple_size is not None:
                entry["tuple_size"] = _round(s.tuple_size)
            streams.append(entry)
        return {"schema": "streamplace/application/v1", "name": self.app_name,
                "description": f"{EXTRACTED} {self.app_id}: rates over "
                               f"{self.window:.6g} s ({self.window_basis})",
                "operators": ops, "streams": streams}

    def report(self) -> dict[str, Any]:
        """What was read and what was left aside, for ``--json`` and scripts."""
        return {"app_id": self.app_id, "files": self.files, "bytes": self.log_bytes,
                "window": self.window, "window_basis": self.window_basis,
                "rate_statistic": self.rate_statistic,
                "epochs": [{"label": e.label, "start_ms": e.start_ms, "seconds": e.seconds,
                            "streams": {f"{s.source}->{s.target}": s.per_epoch.get(e.label)
                                        for s in self.streams},
                            "inputs": {op: rates.get(e.label)
                                       for op, rates in self.input_epochs.items()}}
                           for e in self.epochs],
                "operators": [{"id": o.id, "stages": list(o.stages), "tasks": o.tasks,
                               "records_in": o.consumed, "records_out": o.produced,
                               "run_seconds": o.run_seconds,
                               "useful_seconds": o.useful_seconds,
                               "fetch_wait_seconds": o.fetch_wait_seconds,
                               "shuffle_write_seconds": o.write_seconds,
                               "service_rate": o.service_rate,
                               "observed_rate": o.observed_rate} for o in self.operators],
                "streams": [{"from": s.source, "to": s.target, "kind": s.kind,
                             "records": s.records, "bytes": s.bytes} for s in self.streams],
                "skipped_stages": self.skipped_stages,
                "unresolved_reads": self.unresolved_reads,
                "unreported_stages": self.unreported_stages, "counts": self.counts,
                "ignored_events": self.ignored_events, "damage": self.damage,
                "warnings": self.warnings}

    def infrastructure_document(self, nodes: int | None = None, cores: int | None = None,
                                ) -> dict[str, Any]:
        """One processor per executor host with its cores; or, with ``nodes`` and
        ``cores``, a skeleton sized for the deployment the user plans."""
        if nodes is not None and cores is not None:
            return {"schema": "streamplace/infrastructure/v1",
                    "name": f"{self.app_id}-{nodes}x{cores}",
                    "nodes": [{"id": f"node-{k + 1}", "role": "processor", "resources": cores}
                              for k in range(nodes)]}
        return {"schema": "streamplace/infrastructure/v1", "name": f"{self.app_id}-executors",
                "nodes": [{"id": host, "role": "processor", "resources": cores}
                          for host, cores in sorted(self.hosts.items())]}


def _round(value: float) -> float:
    return float(f"{value:.6g}")


def extract_application(d: Digest, log: EventLog, rate_statistic: str = "mean",
                        ) -> Extraction:
    app_id = log.app_id
    ran = {sid for sid, stage in d.stages.items() if stage["ran"]}
    if not ran:
        raise InputError.single("no stage ran in this event log",
                                "extract a log of an application that ran at least one job "
                                "(a log cut short may end before any did)", file=app_id)
    graph = lineage(d, ran)
    groups, unreported = operator_groups(d, ran)
    window, basis = _window(d, app_id)
    members: dict[Group, list[int]] = defaultdict(list)
    for sid in sorted(ran - unreported):
        members[groups[sid]].append(sid)
    if not members:
        raise InputError.single(
            f"none of the {len(ran)} stage(s) that ran can be placed: they belong to "
            "micro-batches the query never reported progress for",
            "extract a log that runs past its first progress report (the log may be cut "
            "short)", file=app_id)
    ids = operator_ids(d, members)

    epochs, stage_epoch = find_epochs(d)
    flows: dict[tuple[Group, Group, str], list[float]] = defaultdict(lambda: [0.0, 0.0])
    flow_epochs: dict[tuple[Group, Group, str], dict[str, float]] = defaultdict(
        lambda: defaultdict(float))
    received: dict[Group, float] = defaultdict(float)
    for s in graph.streams:
        src, dst = groups[s.writer], groups[s.reader]
        if src == dst or s.writer in unreported or s.reader in unreported:
            continue
        flows[src, dst, s.kind][0] += s.records
        flows[src, dst, s.kind][1] += s.bytes
        if s.reader in stage_epoch:
            flow_epochs[src, dst, s.kind][stage_epoch[s.reader]] += s.records
        if s.kind == "broadcast":
            received[dst] += s.records
    fed = {dst for _, dst, _ in flows}

    operators = []
    input_epochs: dict[str, dict[str, float]] = {}
    for group, sids in members.items():
        totals = [sum(d.tasks[s][i] for s in sids if s in d.tasks) for i in SUMMED]
        consumed = totals[IN_REC] + totals[READ_REC] + received[group]
        produced = totals[WRITE_REC] + totals[OUT_REC]
        basis_records = consumed or produced
        run, useful = totals[RUN_MS] / 1000.0, totals[USEFUL_NS] / 1e9
        source = group not in fed and totals[IN_REC] > 0
        if source:
            read: dict[str, float] = defaultdict(float)
            for sid in sids:
                if sid in stage_epoch and sid in d.tasks:
                    read[stage_epoch[sid]] += d.tasks[sid][IN_REC]
            input_epochs[ids[group]] = epoch_rates(read, epochs)
        operators.append(ExtractedOperator(
            id=ids[group], name=operator_name(d, graph.sql_names, group, sids),
            stages=tuple(sids), tasks=max(d.stages[s]["tasks"] for s in sids),
            consumed=consumed, produced=produced, run_seconds=run,
            service_rate=basis_records / useful if basis_records > 0 and useful > 0 else None,
            input_rate=pick(rate_statistic, totals[IN_REC] / window,
                            list(input_epochs[ids[group]].values())) if source else None,
            observed_rate=basis_records / run if basis_records > 0 and run > 0 else None,
            useful_seconds=useful, fetch_wait_seconds=totals[WAIT_MS] / 1000.0,
            write_seconds=totals[WRITE_NS] / 1e9))
    streams = []
    for (src, dst, kind), (rec, size) in sorted(
            flows.items(), key=lambda kv: (ids[kv[0][0]], ids[kv[0][1]])):
        per_epoch = epoch_rates(flow_epochs[src, dst, kind], epochs)
        streams.append(ExtractedStream(
            ids[src], ids[dst], kind, rec, size,
            pick(rate_statistic, rec / window, list(per_epoch.values())),
            size / rec if rec > 0 else None, per_epoch))
    counts = {k: int(v) for k, v in d.counts.items()}
    return Extraction(
        app_id=app_id, app_name=str(d.app.get("name") or app_id), window=window,
        window_basis=basis, operators=sorted(operators, key=lambda o: o.stages[0]),
        streams=streams, hosts=_hosts(d), skipped_stages=len(d.stages) - len(ran),
        unresolved_reads=graph.unresolved, unreported_stages=len(unreported), counts=counts,
        ignored_events=sum(d.ignored.values()), damage=list(d.damage), files=len(log.files),
        log_bytes=log.size, warnings=[
            "the log is still being written (.inprogress): events after its last complete "
            "line are missing"] if log.in_progress else [],
        rate_statistic=rate_statistic, epochs=epochs, input_epochs=input_epochs)


def _window(d: Digest, app_id: str) -> tuple[float, str]:
    if len(d.progress) >= 2:
        stamps = [p.stamp_ms for p in d.progress]
        span = (max(stamps) - min(stamps)) / 1000.0
        if span > 0:
            return span, "streaming progress, first to last"
    starts = [j["submit"] for j in d.jobs.values() if "submit" in j]
    ends = [j["end"] for j in d.jobs.values() if "end" in j]
    if starts and ends and max(ends) > min(starts):
        return (max(ends) - min(starts)) / 1000.0, "first job start to last job end"
    finishes = [t[LAST_FINISH] for t in d.tasks.values() if t[OK] > 0]
    launches = [t[FIRST_LAUNCH] for t in d.tasks.values() if t[OK] > 0]
    if finishes and launches and max(finishes) > min(launches):
        return (max(finishes) - min(launches)) / 1000.0, "first task launch to last task end"
    raise InputError.single("the log spans no measurable time (no finished job or task)",
                            "extract a log of an application whose jobs finished (a log cut "
                            "short may end before any did)", file=app_id)


def _hosts(d: Digest) -> dict[str, int]:
    """Cores per executor host; the driver counts only when it ran the tasks (local mode)."""
    executors = {k: v for k, v in d.executors.items() if k != "driver"} or d.executors
    hosts: dict[str, int] = defaultdict(int)
    for host, cores in executors.values():
        hosts[host] += cores
    if not hosts:
        match = re.match(r"local\[(\d+)", str(d.app.get("master", "")))
        hosts["localhost"] = int(match.group(1)) if match else 1
    return dict(hosts)
