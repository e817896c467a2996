"""The stage graph of a Spark application, read from a :class:`Digest` (docs/models.md sec. 8).

- Shuffle streams come from RDD lineage, not from the stages' ``Parent IDs``: under adaptive
  query execution a stage's parents are often stages that were skipped (their shuffle output
  was reused from an earlier job). The writer of a shuffle a stage reads is the stage whose
  own RDD (the first of its ``RDD Info``) is the parent of the stage's shuffled RDD.
- Broadcast streams come from the SQL plan: a ``BroadcastExchange`` is computed by the stages
  that update the metrics of the plan nodes below it and read by the stages that update the
  metrics of the nodes above it, up to the next exchange.
- SQL node names per stage come the same way: a plan node belongs to the stages whose
  accumulators include one of its metrics.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass

from streamplace.io.eventlog.digest import Digest
from streamplace.io.eventlog.records import WRITE_BYTES, WRITE_REC, PlanNode

# Plan nodes that carry data between stages, or only wrap other nodes: never part of a name.
_BOUNDARY = ("Exchange", "BroadcastExchange", "ReusedExchange", "ShuffleQueryStage",
             "BroadcastQueryStage", "TableCacheQueryStage", "ResultQueryStage")
_WRAPPERS = ("InputAdapter", "AQEShuffleRead", "AdaptiveSparkPlan", "ColumnarToRow",
             "RowToColumnar", "WholeStageCodegen")


@dataclass(frozen=True)
class StageStream:
    writer: int
    reader: int
    records: float
    bytes: float
    kind: str                            # "shuffle" | "broadcast"


@dataclass
class Lineage:
    streams: list[StageStream]
    sql_names: dict[int, list[str]]
    unresolved: int                      # shuffle reads whose writer is not in the log


def _structural(name: str) -> bool:
    return name.startswith(_BOUNDARY) or name.startswith(_WRAPPERS)


def _walk(tree: PlanNode, ancestors: tuple[PlanNode, ...] = ()
          ) -> Iterator[tuple[PlanNode, tuple[PlanNode, ...]]]:
    """Plan nodes children first (data-flow order), each with its ancestors, nearest first."""
    for child in tree.children:
        yield from _walk(child, (tree, *ancestors))
    yield tree, ancestors


def lineage(d: Digest, ran: set[int]) -> Lineage:
    acc_stage = _accumulator_owners(d, ran)
    shuffles, unresolved = _shuffle_streams(d, ran)
    streams = {(s.writer, s.reader, s.kind): s for s in shuffles}
    for s in _broadcast_streams(d, acc_stage):
        streams.setdefault((s.writer, s.reader, s.kind), s)
    return Lineage(list(streams.values()), _sql_names(d, acc_stage), unresolved)


def _accumulator_owners(d: Digest, ran: set[int]) -> dict[int, set[int]]:
    owners: dict[int, set[int]] = defaultdict(set)
    for sid, values in d.accums.items():
        if sid in ran:
            for acc_id in values:
                owners[acc_id].add(sid)
    return owners


def _shuffle_streams(d: Digest, ran: set[int]) -> tuple[list[StageStream], int]:
    by_top: dict[int, list[int]] = defaultdict(list)
    containing: dict[int, list[int]] = defaultdict(list)
    for sid in ran:
        rdds = d.stages[sid]["rdds"]
        if rdds:
            by_top[rdds[0].id].append(sid)
        for rdd in rdds:
            containing[rdd.id].append(sid)
    found: list[StageStream] = []
    unresolved = 0
    for reader in sorted(ran):
        own = {rdd.id for rdd in d.stages[reader]["rdds"]}
        parents = {p for rdd in d.stages[reader]["rdds"] for p in rdd.parents if p not in own}
        for parent in sorted(parents):
            writer = _writer(d, reader, by_top.get(parent) or containing.get(parent) or [])
            if writer is None:
                unresolved += 1
                continue
            totals = d.tasks.get(writer)
            records = totals[WRITE_REC] if totals else 0.0
            size = totals[WRITE_BYTES] if totals else 0.0
            found.append(StageStream(writer, reader, records, size, "shuffle"))
    return found, unresolved


def _writer(d: Digest, reader: int, candidates: list[int]) -> int | None:
    """The latest candidate submitted before the reader (shuffles are written first)."""
    candidates = [c for c in candidates if c != reader]
    if not candidates:
        return None
    start = d.stages[reader]["submitted"]
    earlier = [c for c in candidates if d.stages[c]["submitted"] <= start] or candidates
    return max(earlier, key=lambda c: (d.stages[c]["submitted"], c))


def _owners_of(node: PlanNode, acc_stage: dict[int, set[int]]) -> set[int]:
    return {sid for acc_id, _ in node.metrics for sid in acc_stage.get(acc_id, ())}


def _below(node: PlanNode, acc_stage: dict[int, set[int]]) -> set[int]:
    """Stages computing the subtree under ``node``, not crossing another exchange."""
    stages: set[int] = set()
    for child in node.children:
        if child.name.startswith(_BOUNDARY):
            continue
        stages |= _owners_of(child, acc_stage) | _below(child, acc_stage)
    return stages


def _above(ancestors: tuple[PlanNode, ...], acc_stage: dict[int, set[int]]) -> set[int]:
    stages: set[int] = set()
    for i, node in enumerate(ancestors):
        wrapper = node.name.endswith("QueryStage") and i == 0
        if node.name.startswith(_BOUNDARY) and not wrapper:
            break
        stages |= _owners_of(node, acc_stage)
    return stages


def _broadcast_streams(d: Digest, acc_stage: dict[int, set[int]]) -> list[StageStream]:
    found = []
    for trees in d.plans.values():
        for tree in trees:
            for node, ancestors in _walk(tree):
                if node.name != "BroadcastExchange":
                    continue
                metrics = {name: d.driver_accums.get(acc_id) for acc_id, name in node.metrics}
                rows = metrics.get("number of output rows") or 0.0
                size = metrics.get("data size") or 0.0
                for writer in _below(node, acc_stage):
                    for reader in _above(ancestors, acc_stage) - {writer}:
                        found.append(StageStream(writer, reader, rows, size, "broadcast"))
    return found


def _sql_names(d: Digest, acc_stage: dict[int, set[int]]) -> dict[int, list[str]]:
    names: dict[int, list[str]] = defaultdict(list)
    seen: set[tuple[int, str, tuple[int, ...]]] = set()
    for trees in d.plans.values():
        for tree in trees:
            for node, _ in _walk(tree):
                if _structural(node.name):
                    continue
                key_ids = tuple(acc_id for acc_id, _ in node.metrics)
                for sid in sorted(_owners_of(node, acc_stage)):
                    if (sid, node.name, key_ids) not in seen:
                        seen.add((sid, node.name, key_ids))
                        names[sid].append(node.name)
    return dict(names)
