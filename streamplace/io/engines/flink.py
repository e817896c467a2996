"""Flink: per job vertex parallelism as ``pipeline.jobvertex-parallelism-overrides``
(a FlinkDeployment's ``flinkConfiguration`` or a plain config line), and the body of
``PUT /jobs/:jobid/resource-requirements`` for an in-place change (docs/engines.md, Flink).

Overrides are keyed by JobVertexID, after operator chaining: an operator is matched to the
vertex whose id is its ``engine_id``, or whose name (a chain ``A -> B``, maybe with a
``Source: `` or ``Sink: `` prefix) contains its ``engine_id``, id or name as one member.
The ids come from the JSON of ``GET /jobs/:jobid`` (``--flink-job``).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from streamplace.errors import InputError, Problem
from streamplace.io.engines.common import (
    Artifact,
    Component,
    Export,
    ExportOptions,
    components,
    summary_row,
    yaml_text,
)
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

OVERRIDES = "pipeline.jobvertex-parallelism-overrides"
MAX_PARALLELISM = "pipeline.max-parallelism"
VERTEX_ID = re.compile(r"[0-9a-fA-F]{32}")  # a JobVertexID (and a JobID): 16 bytes in hex
_PREFIXES = ("Source: ", "Sink: ")
_SUFFIXES = (": Writer",)  # a Sink V2 sink's writer vertex (its committer keeps its name)


@dataclass(frozen=True)
class Vertex:
    id: str
    name: str
    parallelism: int | None
    max_parallelism: int | None

    @property
    def members(self) -> list[str]:
        """The operator names chained into this vertex."""
        out = []
        for part in self.name.split(" -> "):
            part = part.strip()
            for prefix in _PREFIXES:
                part = part.removeprefix(prefix)
            for suffix in _SUFFIXES:
                part = part.removesuffix(suffix)
            out.append(part)
        return out


def export_flink(app: Application, infra: Infrastructure, plan: Plan,
                 options: ExportOptions) -> Export:
    items = components(app, plan)
    notes = ["Flink's scheduler chooses the TaskManager slots of every subtask: the plan's "
             "nodes are not exported, only each vertex's parallelism"]
    two = _major(options.flink_version) >= 2 if options.flink_version else None
    if two is False:
        notes.append(f"written for Flink {options.flink_version}: every artifact takes effect "
                     "there (rest with the adaptive scheduler)")
    else:
        notes.append(("Flink 2.x applies" if two is None else f"Flink {options.flink_version} "
                      "applies") + " the config and deployment overrides to no job submitted "
                     "in application mode or by flink run until FLINK-38770 ships: there, use "
                     "the rest artifact with the adaptive scheduler (docs/engines.md)")
    if options.flink_job is None:
        vertices, matched = _from_engine_ids(items)
        notes.append("without --flink-job the operators' engine_id are taken as the job's "
                     "vertex ids and as all of them; chaining is not checked")
        job_max = None
    else:
        vertices = job_vertices(options.flink_job, options.flink_job_file)
        matched = match(items, vertices, options.flink_job_file)
        job_max = options.flink_job.get("maxParallelism")
    parallelism = _vertex_parallelism(items, matched, vertices, notes)
    overrides = ",".join(f"{vid}:{p}" for vid, p in parallelism.items())
    config = {OVERRIDES: overrides}
    too_small = {v.id: parallelism[v.id] for v in vertices if v.id in parallelism
                 and v.max_parallelism is not None and parallelism[v.id] > v.max_parallelism}
    if too_small:
        needed = max(too_small.values())
        config[MAX_PARALLELISM] = str(default_max_parallelism(needed))
        notes.append(f"vertex(es) {', '.join(too_small)} need more than their max parallelism: "
                     f"{MAX_PARALLELISM} is raised, which takes a restart; keyed state in a "
                     "savepoint taken with another max parallelism cannot be restored, and "
                     "vertices whose max parallelism is set in code keep it")
    elif isinstance(job_max, int) and job_max > 0 and parallelism and \
            max(parallelism.values()) > job_max:
        config[MAX_PARALLELISM] = str(default_max_parallelism(max(parallelism.values())))
    artifacts = [
        Artifact("config", "".join(f"{k}: {v}\n" for k, v in config.items()),
                 "Flink configuration lines (config.yaml, or -D on the command line)"),
        Artifact("deployment", yaml_text({"spec": {"flinkConfiguration": config}}),
                 "a FlinkDeployment patch: spec.flinkConfiguration"),
    ]
    unknown = [v for v in vertices if v.id not in parallelism and v.parallelism is None]
    withheld = {}
    if too_small:
        withheld["rest"] = ("PUT /jobs/:jobid/resource-requirements refuses an upper bound "
                            f"above a vertex's max parallelism ({', '.join(too_small)})")
    elif unknown:
        withheld["rest"] = (
            "the body sets every vertex, and the job JSON gives no parallelism for "
            + ", ".join(f"{v.name!r} ({v.id})" for v in unknown)
            + ", which no operator matches: save the job JSON of the running job")
    if withheld:
        notes.append(f"no in-place REST body: {withheld['rest']}")
    else:
        # the lower bound at 1, as the Flink autoscaler's standalone realizer sends it: a
        # job that cannot get every slot runs on below the plan instead of failing
        body = {v.id: {"parallelism": {"lowerBound": 1,
                                       "upperBound": parallelism.get(v.id, v.parallelism)}}
                for v in vertices}
        artifacts.append(Artifact(
            "rest", json.dumps(body, indent=2) + "\n",
            "the body of PUT /jobs/:jobid/resource-requirements (adaptive scheduler): every "
            "vertex, upper bound the planned parallelism, lower bound 1 (a job that cannot "
            "get every slot runs on below the plan)"))
    if two and "rest" not in withheld:  # the one artifact that takes effect there
        artifacts.insert(0, artifacts.pop())
    elif two:
        notes.append(f"no artifact of this plan takes effect on Flink {options.flink_version}: "
                     "the rest body is withheld (above) and the overrides are not applied")
    rows = [summary_row(c, vertex=matched[c.op.id].id, vertex_name=matched[c.op.id].name)
            for c in items]
    return Export("flink", artifacts, notes, rows, withheld)


def _major(version: str) -> int:
    """The major version of ``1.20``, ``2.2.1`` (as ``--flink-version`` takes them)."""
    if not re.fullmatch(r"\d+\.\d+(\.\d+)?", version):
        raise InputError.single(f"cannot read Flink version {version!r}",
                                "write it as Flink prints it, e.g. 1.20.3 or 2.2",
                                path="--flink-version")
    return int(version.split(".")[0])


def default_max_parallelism(parallelism: int) -> int:
    """Flink's own default for a parallelism (KeyGroupRangeAssignment): the power of two at
    or above 1.5 x parallelism, within [128, 32768].

    >>> default_max_parallelism(3), default_max_parallelism(100), default_max_parallelism(200)
    (128, 256, 512)
    """
    target = parallelism + parallelism // 2
    power = 1
    while power < target:
        power *= 2
    return min(max(power, 128), 32768)


def job_vertices(job: Any, file: str) -> list[Vertex]:
    """The vertices of a ``GET /jobs/:jobid`` response; every shape problem at once."""
    if not isinstance(job, dict) or not isinstance(job.get("vertices"), list):
        raise InputError.single("not the JSON of GET /jobs/:jobid: no 'vertices' list",
                                "save it with curl http://JOBMANAGER:8081/jobs/JOBID",
                                file=file)
    problems, vertices = [], []
    for i, v in enumerate(job["vertices"]):
        vid = v.get("id") if isinstance(v, dict) else None
        name = v.get("name") if isinstance(v, dict) else None
        if not isinstance(vid, str) or not VERTEX_ID.fullmatch(vid) or \
                not isinstance(name, str):
            problems.append(Problem("a vertex needs an 'id' (32 hex digits) and a 'name'",
                                    "use the unedited response of GET /jobs/:jobid",
                                    path=f"vertices[{i}]", file=file))
            continue
        vertices.append(Vertex(vid, name, _int(v.get("parallelism")),
                               _int(v.get("maxParallelism"))))
    if problems:
        raise InputError(problems)
    return vertices


def match(items: list[Component], vertices: list[Vertex], file: str) -> dict[str, Vertex]:
    """Each operator's vertex; one matching none or several is an error naming both sides."""
    problems, out = [], {}
    listed = "; ".join(f"{v.name!r} ({v.id})" for v in vertices)
    for c in items:
        keys = {c.op.engine_id} if c.op.engine_id else {c.op.id, c.op.name} - {None}
        hits = [v for v in vertices if v.id in keys or keys & set(v.members)]
        if len(hits) == 1:
            out[c.op.id] = hits[0]
            continue
        what = "no vertex" if not hits else \
            "several vertices: " + "; ".join(f"{v.name!r} ({v.id})" for v in hits)
        problems.append(Problem(
            f"operator {c.op.id} matches {what} of the job (vertices: {listed})",
            "set the operator's engine_id to its JobVertexID, or name the Flink operator "
            "like the operator", path=f"operators.{c.op.id}", file=file))
    if problems:
        raise InputError(problems)
    return out


def _from_engine_ids(items: list[Component]) -> tuple[list[Vertex], dict[str, Vertex]]:
    bad = [c for c in items if not (c.op.engine_id and VERTEX_ID.fullmatch(c.op.engine_id))]
    if bad:
        raise InputError([Problem(
            f"operator {c.op.id} has no JobVertexID for its engine_id",
            "give --flink-job FILE (the JSON of GET /jobs/:jobid), or set engine_id to the "
            "vertex's id (32 hex digits)", path=f"operators.{c.op.id}.engine_id")
            for c in bad])
    vertices = {c.name: Vertex(c.name, c.op.name or c.op.id, None, None) for c in items}
    return list(vertices.values()), {c.op.id: vertices[c.name] for c in items}


def _vertex_parallelism(items: list[Component], matched: dict[str, Vertex],
                        vertices: list[Vertex], notes: list[str]) -> dict[str, int]:
    """One parallelism per vertex, in the job's order: a chain runs at one parallelism, so
    operators chained together with different counts get their largest (and a note)."""
    by_vertex: dict[str, list[Component]] = {}
    for c in items:
        by_vertex.setdefault(matched[c.op.id].id, []).append(c)
    out = {}
    for v in vertices:
        chained = by_vertex.get(v.id)
        if not chained:
            kept = f"{v.parallelism}" if v.parallelism is not None else "it has now"
            notes.append(f"vertex {v.name!r} ({v.id}) matches no operator: the rest body "
                         f"keeps its parallelism ({kept}); with config or deployment a "
                         "resubmitted job runs it at the job's own parallelism (set in code, "
                         "else parallelism.default), not at the running one")
            continue
        counts = {c.op.id: c.parallelism for c in chained}
        out[v.id] = max(counts.values())
        if len(set(counts.values())) > 1:
            notes.append(f"vertex {v.name!r} chains {', '.join(counts)} with "
                         f"{', '.join(map(str, counts.values()))} replicas: it runs at "
                         f"{out[v.id]}; break the chain (disableChaining) to run each at its "
                         "own parallelism")
    return out


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
