"""Which stages that ran form which operator, and what the operator is called: a stage is
one, and in a Structured Streaming query every micro-batch's stage at one position of its
job's stage graph is one (docs/models.md sec. 8)."""

from __future__ import annotations

import re
from collections import defaultdict
from typing import NamedTuple

from streamplace.io.eventlog.digest import Digest
from streamplace.io.eventlog.records import JobStage


class StageGroup(NamedTuple):
    """An operator that is one stage."""

    stage: int


class BatchGroup(NamedTuple):
    """An operator that is one position in the stage graph every micro-batch of a streaming
    query repeats (``ordinal`` tells apart the jobs of one batch)."""

    query: str
    ordinal: int
    position: str


Group = StageGroup | BatchGroup


def operator_groups(d: Digest, ran: set[int]) -> tuple[dict[int, Group], set[int]]:
    """The operator each ran stage belongs to: itself, or its position in a micro-batch.

    Also returns the stages of micro-batches the query never reported progress for (one
    stopped mid-batch): they fall outside the observation window, so they are not counted.
    """
    job_of: dict[int, int] = {}
    batches: dict[tuple[str, int], list[int]] = defaultdict(list)
    for jid in sorted(d.jobs):
        job = d.jobs[jid]
        for listed in job.get("stages", []):
            job_of.setdefault(listed.stage, jid)
        if job.get("query") is not None and job.get("batch") is not None:
            batches[job["query"], job["batch"]].append(jid)
    reported = {(p.query, p.batch) for p in d.progress}
    groups: dict[int, Group] = {}
    unreported: set[int] = set()
    for (query, batch), jids in batches.items():
        for ordinal, jid in enumerate(sorted(jids)):
            for sid, position in _positions(d.jobs[jid]["stages"]).items():
                if sid in ran and job_of.get(sid) == jid:
                    groups[sid] = BatchGroup(query, ordinal, position)
                    if (query, batch) not in reported:
                        unreported.add(sid)
    return {sid: groups.get(sid, StageGroup(sid)) for sid in ran}, unreported


def _positions(stages: list[JobStage]) -> dict[int, str]:
    """Each stage's path from the job's final stage, e.g. ``r``, ``r.0``, ``r.0.1``.

    >>> J = JobStage
    >>> _positions([J(4, []), J(5, [4]), J(6, [5]), J(7, [4])])
    {7: 'r', 4: 'r.0'}
    >>> _positions([J(1, []), J(2, [1]), J(3, [2, 1])])
    {3: 'r', 1: 'r.0', 2: 'r.1'}
    """
    parents = {sid: sorted(ps) for sid, ps in stages}
    referenced = {p for ps in parents.values() for p in ps}
    final = max((sid for sid in parents if sid not in referenced), default=None)
    if final is None:
        return {}
    position = {final: "r"}
    queue = [final]
    while queue:
        sid = queue.pop(0)
        for i, parent in enumerate(parents.get(sid, [])):
            if parent not in position:
                position[parent] = f"{position[sid]}.{i}"
                queue.append(parent)
    return position


_CALLSITE = re.compile(r"^(?P<op>\S+) at (?:.*/)?(?P<where>[^/]+)$")


def _short(stage_name: str) -> str:
    """``reduceByKey at /jobs/etl.py:21`` -> ``reduceByKey at etl.py:21``.

    >>> _short("reduceByKey at /tmp/jobs/etl.py:21")
    'reduceByKey at etl.py:21'
    """
    match = _CALLSITE.match(stage_name)
    if match is None:
        return stage_name
    if match.group("where").startswith("NativeMethodAccessorImpl"):
        return match.group("op")
    return f"{match.group('op')} at {match.group('where')}"


def operator_name(d: Digest, sql: dict[int, list[str]], group: Group, sids: list[int]) -> str:
    rep = sids[-1]
    nodes = sql.get(rep) or next((sql[s] for s in reversed(sids) if s in sql), [])
    label = " > ".join(nodes[:6]) + (" > …" if len(nodes) > 6 else "") if nodes else \
        _short(d.stages[rep]["name"])
    if isinstance(group, BatchGroup):
        return f"{label} (query {group.query[:8]}, {len(sids)} micro-batch stages)"
    return f"{label} (stage {rep})"


def operator_ids(d: Digest, members: dict[Group, list[int]]) -> dict[Group, str]:
    """``s<stage>`` for a stage, ``<query>.<position>`` for a micro-batch position."""
    names: dict[str, str] = {}
    for report in sorted(d.progress):
        names.setdefault(report.query, report.name)
    labels: dict[str, str] = {}
    for group in members:
        if isinstance(group, BatchGroup) and group.query not in labels:
            given = re.sub(r"[^A-Za-z0-9_-]+", "-", names.get(group.query, "")).strip("-")
            labels[group.query] = given or f"q{len(labels)}"
    ids: dict[Group, str] = {}
    for group, sids in members.items():
        if isinstance(group, StageGroup):
            ids[group] = f"s{sids[0]}"
        else:
            job = f"j{group.ordinal}." if group.ordinal else ""
            ids[group] = f"{labels[group.query]}.{job}{group.position}"
    return ids
