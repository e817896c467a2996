"""When a running job is rescaled, and DS2's rule for how far.

The triggers are the Flink Kubernetes operator autoscaler's: a vertex whose busy share
leaves ``[utilization.min, utilization.max]``, or one back-pressured. DS2 (Kalavri et al.,
OSDI '18, eq. 3 as the Flink autoscaler applies it) gives each operator
ceil(λ / (μ · target)) instances (:func:`~streamplace.solve.baseline.ds2.ds2_parallelism`,
the one place the rule is written), where μ is the true processing rate of one instance
(records per second of busy time) and λ the rate it must take in; it decides parallelism
only, with no placement, cost or availability.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamplace.control.running.observation import PRESSED, SATURATED
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.explain import roles
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan
from streamplace.solve.baseline.ds2 import ds2_parallelism


@dataclass(frozen=True)
class Seen:
    """One operator of the running job over the metrics window."""

    op: str
    parallelism: int
    busy: float | None    # its busy share, or its utilisation at the offered load
    pressed: float
    source: bool
    at_offered: bool = False  # ``busy`` is the utilisation the offered load would give it

    @property
    def said(self) -> str:
        return f"would run at {self.busy:.2f} of its capacity at the offered load" \
            if self.at_offered else f"is busy {self.busy:.2f}"


def triggers(seen: list[Seen], low: float, high: float) -> list[str]:
    """Why the job should be rescaled (busy shares outside ``[low, high]``, backpressure);
    empty when it should be left alone."""
    out = []
    top = min(high, SATURATED)
    for s in seen:
        if s.pressed >= PRESSED:
            out.append(f"{s.op} is back-pressured {s.pressed:.0%} of the time")
        elif s.busy is not None and not s.source and s.busy > top:
            out.append(f"{s.op} {s.said}, above "
                       + (f"{high:g}" if high < SATURATED
                          else f"{SATURATED:g}: at its capacity"))
        elif s.busy is not None and not s.source and s.busy < low and s.parallelism > 1:
            out.append(f"{s.op} {s.said}, below {low:g}, on {s.parallelism} "
                       "subtasks")
    return out


def pressing(seen: list[Seen], high: float) -> list[str]:
    """The triggers that ask for more capacity (backpressure, a busy share above
    ``high``): the job is in trouble now, whatever was planned.

    >>> pressing([Seen("w", 2, 0.99, 0.0, False), Seen("k", 4, 0.1, 0.0, False)], 0.9)
    ['w is busy 0.99, above 0.9']
    """
    return [why for why in triggers(seen, 0.0, high) if "below" not in why]


def ds2(app: Application, current: dict[str, int]) -> dict[str, int]:
    """Each operator's parallelism by DS2's rule at its target utilisation, within its
    replica cap and rounded up to one of its ``replica_counts``; a source, or an operator
    without a service rate, keeps its own.

    >>> from streamplace.model.application import Application
    >>> app = Application.model_validate({"name": "a", "operators": [
    ...     {"id": "s"}, {"id": "w", "service_rate": 100, "max_replicas": 8,
    ...                   "target_utilization": 0.7}],
    ...     "streams": [{"from": "s", "to": "w", "rate": 200}]})
    >>> ds2(app, {"s": 1, "w": 1})
    {'s': 1, 'w': 3}
    """
    graph = build_graph(app)
    out = {}
    for op in app.operators:
        if op.id in graph.sources or op.service_rate is None:
            out[op.id] = current[op.id]
            continue
        wanted = min(ds2_parallelism(op, graph.input_rates[op.id]), op.replica_cap)
        out[op.id] = op.aligned(wanted) or op.replica_cap  # within its replica_counts
    return out


def spread(app: Application, infra: Infrastructure, wanted: dict[str, int]) -> Plan:
    """DS2's parallelism on the TaskManagers, as Flink's slot sharing fills them: each
    operator's subtasks on the nodes with room for them, in turn."""
    placement: dict[str, dict[str, int]] = {}
    for op in app.operators:
        left, where = wanted[op.id], {}
        for node in infra.nodes:
            if left == 0:
                break
            room = min((node.resources or {}).get(d, math.inf) // amount
                       for d, amount in op.resources.items()) if op.resources else left
            take = int(min(left, room))
            if take > 0:
                where[node.id] = take
                left -= take
        placement[op.id] = where or {infra.nodes[0].id: wanted[op.id]}
    return Plan.model_validate({"application": app.name, "infrastructure": infra.name,
                                "method": "ds2", "placement": placement})


def predicted(app: Application, infra: Infrastructure, plan: Plan) -> dict[str, float | None]:
    """Each operator's utilisation under ``plan``, as the evaluator puts it (load per
    replica over service rate), to four figures."""
    ev = evaluate(app, infra, plan)
    assert ev.odrp is not None  # a complete plan: observed, solved or spread
    return {r.id: None if r.utilisation is None else float(f"{r.utilisation:.4g}")
            for r in roles(app, ev)}
