"""What changes between the plan that runs now and a new one (``streamplace diff``).

Both plans are scored by the one evaluator with the same objective and the same bounds (the
objective's, else derived from the instance; never the bounds either plan recorded, which
may differ), so every delta compares like with like.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from streamplace.model.application import Application, Operator
from streamplace.model.evaluate import evaluate
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.explain import Binding, bindings
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import METRIC_NAMES, Term
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current

DIFF_METRICS = (*METRIC_NAMES, "utility")
FLINK_ENTRY = ("{{ Vertex ID {vertex} | Parallelism {before} -> {after} | "
               "Processing capacity {cap_before:.2f} -> {cap_after:.2f} | "
               "Target data rate {rate:.2f}}}")
"""The Flink Kubernetes operator's autoscaler report entry (AutoScalerEventHandler's
SCALING_SUMMARY_ENTRY), so the lines read like the scaling reports Flink users know."""


@dataclass(frozen=True)
class OperatorChange:
    """One operator whose replicas differ: counts per node before and after."""

    id: str
    vertex: str  # its engine id, else its id
    before: dict[str, int]
    after: dict[str, int]
    capacity_before: float | None  # tuples/s all replicas serve: sum count x mu x speed-up
    capacity_after: float | None
    target_rate: float  # tuples/s entering the operator

    @property
    def parallelism(self) -> tuple[int, int]:
        return sum(self.before.values()), sum(self.after.values())

    @property
    def added(self) -> dict[str, int]:
        return {u: n - self.before.get(u, 0) for u, n in sorted(self.after.items())
                if n > self.before.get(u, 0)}

    @property
    def removed(self) -> dict[str, int]:
        return {u: n - self.after.get(u, 0) for u, n in sorted(self.before.items())
                if n > self.after.get(u, 0)}

    @property
    def moved(self) -> int:
        """Replicas that stop on one node and start on another."""
        return min(sum(self.added.values()), sum(self.removed.values()))

    def flink_line(self) -> str:
        before, after = self.parallelism
        return FLINK_ENTRY.format(vertex=self.vertex, before=before, after=after,
                                  cap_before=self.capacity_before or 0.0,
                                  cap_after=self.capacity_after or 0.0,
                                  rate=self.target_rate)

    def to_json(self) -> dict[str, Any]:
        before, after = self.parallelism
        return {"operator": self.id, "vertex": self.vertex, "parallelism": [before, after],
                "before": self.before, "after": self.after, "added": self.added,
                "removed": self.removed, "moved": self.moved,
                "capacity": [self.capacity_before, self.capacity_after],
                "target_rate": self.target_rate}


@dataclass
class PlanDiff:
    current: Evaluation
    new: Evaluation
    changes: list[OperatorChange]
    reconfiguration: float  # M of the new plan against the current one (models.md sec. 2)
    binding_before: list[Binding] = field(default_factory=list)
    binding_after: list[Binding] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.changes)

    @property
    def started(self) -> int:
        return sum(sum(c.added.values()) for c in self.changes)

    @property
    def stopped(self) -> int:
        return sum(sum(c.removed.values()) for c in self.changes)

    @property
    def scoring(self) -> str:
        """How F is scored here, said where F is shown."""
        utility = self.new.utility or self.current.utility
        if utility is None:
            return "F is undefined: some operator has no replica"
        weight = next((t.weight for t in utility.terms
                       if t.term == Term.RECONFIGURATION), 0.0)
        return (f"F weighs the reconfiguration term against the current plan ({weight:.3g} of "
                "the weights, the replicas the new plan starts), as solve --current scores "
                "plans; the current plan starts none")

    def metric_deltas(self) -> dict[str, tuple[float | None, float | None]]:
        before, after = self.current.metrics(), self.new.metrics()
        return {m: (before.get(m), after.get(m)) for m in DIFF_METRICS}

    def binding_changes(self) -> tuple[list[Binding], list[Binding]]:
        """Bindings only the current plan has, and those only the new one has."""
        before, after = set(self.binding_before), set(self.binding_after)
        return ([b for b in self.binding_before if b not in after],
                [b for b in self.binding_after if b not in before])

    def violation_changes(self) -> tuple[list[str], list[str]]:
        """Violations fixed by the new plan, and those it introduces (as text)."""
        before = {v.key: v for v in self.current.violations}
        after = {v.key: v for v in self.new.violations}
        return ([f"{v.constraint}: {v.message}" for k, v in before.items() if k not in after],
                [f"{v.constraint}: {v.message}" for k, v in after.items() if k not in before])

    def to_json(self) -> dict[str, Any]:
        gone, new = self.binding_changes()
        fixed, broken = self.violation_changes()
        return {
            "changed": self.changed, Term.RECONFIGURATION.value: self.reconfiguration,
            "scoring": self.scoring,
            "started": self.started, "stopped": self.stopped,
            "operators": [c.to_json() for c in self.changes],
            "metrics": {m: {"current": a, "new": b,
                            "delta": b - a if a is not None and b is not None else None}
                        for m, (a, b) in self.metric_deltas().items()},
            "binding": {"only_current": [_binding(b) for b in gone],
                        "only_new": [_binding(b) for b in new]},
            "violations": {"fixed": fixed, "introduced": broken},
            "flink": [c.flink_line() for c in self.changes],
        }


def diff_plans(app: Application, infra: Infrastructure, current: Plan, new: Plan,
               objective: Objective | None = None) -> PlanDiff:
    """Per operator, the replicas added and removed per node; the metric deltas; the
    constraints that bind differently. Both plans are scored against the current one, as
    ``solve --current`` scores a re-plan: F has the reconfiguration term, and the new
    plan's F is the one solve reported for it."""
    objective = objective or Objective()
    running = Current({op: current.replicas(op) for op in app.operator_ids},
                      source="the current plan")
    scored = [evaluate(app, infra, p.model_copy(update={"bounds_used": None}), objective,
                       running) for p in (current, new)]
    rates = build_graph(app).input_rates
    speed = {n.id: n.speedup for n in infra.nodes}
    changes = []
    for op in app.operators:
        before, after = current.replicas(op.id), new.replicas(op.id)
        if before != after:
            changes.append(OperatorChange(
                op.id, op.engine_id or op.id, before, after, _capacity(op, before, speed),
                _capacity(op, after, speed), rates[op.id]))
    out = PlanDiff(scored[0], scored[1], changes, scored[1].reconfiguration or 0.0)
    if scored[0].odrp is not None and scored[1].odrp is not None:
        out.binding_before, out.binding_after = bindings(app, scored[0]), bindings(app, scored[1])
    return out


def _capacity(op: Operator, replicas: dict[str, int], speed: dict[str, float]
              ) -> float | None:
    if not op.service_rate:
        return None
    return sum(count * op.service_rate * speed[u] for u, count in replicas.items())


def _binding(b: Binding) -> dict[str, str]:
    return {"kind": b.kind, "subject": b.subject, "detail": b.detail}
