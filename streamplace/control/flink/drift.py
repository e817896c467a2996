"""The model held to the running job (``observe JOB --against PLAN --application APP
--infrastructure INFRA``): per operator, what the plan predicted against what the job did.

- utilisation: λ / (k·μ) from the application's rates and service rates (docs/models.md)
  against the busy share of the vertex's subtasks, their mean and the busiest (skew);
- input rate: the plan's λ against records in (a source: records out);
- capacity: k·μ against the true processing rate, the running subtasks times the records
  one takes per second of busy time;
- backpressure: the share of time its subtasks were back-pressured.

A share is off when it differs by more than the tolerance, a rate when it differs by more
than that fraction. Broken promises, which make the check fail (exit 1): a vertex that runs
another parallelism than the plan's, one back-pressured PRESSED or more, one busy at its
capacity where the plan left headroom. Latency is compared where the job reports its
markers (:mod:`~streamplace.control.running.latency`): informative, never a broken promise.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamplace.control.running.latency import PathLatency
from streamplace.control.running.observation import (
    PRESSED,
    SATURATED,
    Observation,
    ObservedVertex,
)
from streamplace.io.engines.common import components
from streamplace.io.engines.flink import Vertex, match
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.explain import roles
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan

TOLERANCE = 0.1


@dataclass
class DriftRow:
    op: str
    vertex: str
    planned: int
    running: int
    predicted_utilization: float | None
    busy: float | None
    busy_max: float | None
    predicted_rate: float
    rate: float | None
    capacity: float | None          # k·μ, the plan's
    true_capacity: float | None     # running subtasks x records per busy second
    pressed: float
    off: list[str] = field(default_factory=list)     # where the model is off, and why
    broken: list[str] = field(default_factory=list)  # promises the running job breaks

    def to_json(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class Drift:
    rows: list[DriftRow]
    tolerance: float
    window: float | None
    source_rate: float | None
    predicted_source_rate: float
    sink_rate: float | None
    predicted_sink_rate: float
    notes: list[str] = field(default_factory=list)
    vertex_of: dict[str, str] = field(default_factory=dict)  # operator: its vertex id
    latency: list[PathLatency] = field(default_factory=list)  # where markers were read

    @property
    def broken(self) -> list[str]:
        return [f"{r.op}: {b}" for r in self.rows for b in r.broken]

    def to_json(self) -> dict[str, Any]:
        return {"tolerance": self.tolerance, "window": self.window,
                "passed": not self.broken, "broken": self.broken,
                "operators": [r.to_json() for r in self.rows],
                "application": {"source_rate": self.source_rate,
                                "predicted_source_rate": self.predicted_source_rate,
                                "sink_rate": self.sink_rate,
                                "predicted_sink_rate": self.predicted_sink_rate},
                "latency": [p.to_json() for p in self.latency],
                "notes": list(self.notes)}


def drift(obs: Observation, app: Application, infra: Infrastructure, plan: Plan, file: str,
          tolerance: float = TOLERANCE) -> Drift:
    """Predicted (by the evaluator) against measured, per operator of ``app`` (matched to
    the job's vertices as export matches them: engine_id, else name)."""
    graph = build_graph(app)
    vertices = {v.id: v for v in obs.vertices}
    matched = match(components(app, plan), [Vertex(v.id, v.name, v.parallelism,
                                                   v.max_parallelism)
                                            for v in obs.vertices], file)
    ev = evaluate(app, infra, plan)
    assert ev.odrp is not None  # a complete plan (components checked it)
    predicted = {m.id: m for m in ev.odrp.operators}
    out_rate = {op.id: sum(s.rate for s in ev.odrp.streams if s.source == op.id)
                for op in app.operators}
    utilisation = {r.id: r.utilisation for r in roles(app, ev)}
    rows = []
    for op in app.operators:
        v, m = vertices[matched[op.id].id], predicted[op.id]
        source = op.id in graph.sources
        mu = op.service_rate
        rate = v.meter("numRecordsOutPerSecond" if source else "numRecordsInPerSecond")
        row = DriftRow(op.id, v.name, m.count, v.parallelism,
                       None if source else utilisation[op.id], v.busy,
                       max(v.window.busy) if v.window else None,
                       out_rate[op.id] if source else m.input_rate, rate,
                       None if mu is None else m.count * mu,
                       None if v.service_rate is None else v.service_rate * v.parallelism,
                       v.pressed)
        _judge(row, v, source, mu, tolerance)
        rows.append(row)
    sources = [vertices[matched[o].id] for o in graph.sources]
    sinks = [vertices[matched[o].id] for o in graph.sinks]
    result = Drift(rows, tolerance, obs.window,
                   _total(sources, "numRecordsOutPerSecond"),
                   sum(out_rate[o] for o in graph.sources),
                   _total(sinks, "numRecordsInPerSecond"),
                   sum(predicted[o].input_rate for o in graph.sinks),
                   vertex_of={op: m.id for op, m in matched.items()})
    if obs.window is None:
        result.notes.append("read from Flink's 60 s meters, which read up to 8% high on a "
                            "loaded machine: give --window SECONDS for exact counters")
    return result


def _judge(row: DriftRow, v: ObservedVertex, source: bool, mu: float | None,
           tolerance: float) -> None:
    if row.running != row.planned:
        row.broken.append(f"runs {row.running} subtasks, the plan has {row.planned}")
    if row.pressed >= PRESSED:
        row.broken.append(f"back-pressured {row.pressed:.0%} of the time, which a plan with "
                          "every operator below its capacity does not allow")
    if row.busy is not None and row.busy >= SATURATED and not source and \
            (row.predicted_utilization or 0.0) < SATURATED - tolerance:
        row.broken.append(f"busy {row.busy:.0%}: at its capacity, where the plan has it at "
                          f"{row.predicted_utilization or 0.0:.0%}")
        if v.pressed < PRESSED:
            row.off.append("its input queues grow while nothing shows backpressure yet "
                           "(small records: the network buffers take the backlog first)")
    rate_off = row.rate is not None and row.predicted_rate > 0 and \
        abs(row.rate - row.predicted_rate) > tolerance * row.predicted_rate
    if rate_off and source:
        row.off.append(f"the source sends {row.rate:.4g}/s, the plan assumes "
                       f"{row.predicted_rate:.4g}/s: it cannot keep up, or the offered load "
                       "changed")
    elif rate_off:
        row.off.append(f"it takes in {row.rate:.4g}/s, the plan assumes "
                       f"{row.predicted_rate:.4g}/s (upstream)")
    if row.predicted_utilization is not None and row.busy is not None and \
            abs(row.busy - row.predicted_utilization) > tolerance and not rate_off and \
            mu is not None and v.service_rate is not None:
        row.off.append(f"busy {row.busy:.2f} against a predicted {row.predicted_utilization:.2f}: "
                       f"the service rate drifted, a replica takes {v.service_rate:.4g} records "
                       f"per busy second against the plan's {mu:.4g}")
    if row.busy is not None and row.busy_max is not None and \
            row.busy_max - row.busy > tolerance:
        row.off.append(f"skew across subtasks: the busiest is busy {row.busy_max:.2f}, the "
                       f"mean {row.busy:.2f}")


def _total(vertices: list[ObservedVertex], meter: str) -> float | None:
    rates = [v.meter(meter) for v in vertices]
    return None if any(r is None for r in rates) else sum(r or 0.0 for r in rates)
