"""What placement heuristics share: replica counts, a capacity-aware state, the result.

A heuristic places *instances* (replicas). Operators with a fixed ``replicas`` get exactly
that many; the others get the fewest replicas at which each is stable (M/M/1), capped at
k_i. Every plan goes through the one evaluator before it leaves: a plan that breaks a
constraint is reported as the method's failure, never returned.
"""

from __future__ import annotations

import math
import random
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from streamplace.model.application import Operator
from streamplace.model.evaluate.utility import candidates
from streamplace.model.graph import AppGraph, build_graph
from streamplace.model.network import Network
from streamplace.model.plan import ModelFamily, Plan
from streamplace.model.replicas import fewest_stable
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.conclude import conclude
from streamplace.solve.result import Instance, SolveOptions, SolveResult, SolveStatus
from streamplace.solve.solver_report import SolverReport


def replica_count(op: Operator, rate: float) -> int:
    """Fixed replicas, else the fewest stable ones within k_i (k_i if none is stable).

    >>> from streamplace.model.application import Operator
    >>> replica_count(Operator(id="a", service_rate=10, max_replicas=4), 25.0)
    3
    """
    return min(fewest_stable(op, rate), op.replica_cap)


@dataclass
class PlacementState:
    """Instances placed so far, with the resources they use on every node."""

    graph: AppGraph
    network: Network
    counts: dict[str, int]
    cands: dict[str, list[str]]
    nodes: dict[str, dict[str, int]] = field(default_factory=dict)
    used: dict[str, dict[str, float]] = field(default_factory=lambda: defaultdict(
        lambda: defaultdict(float)))
    headroom: float = 1.0  # share of every resource instances may use (Ecker: 0.95)

    @classmethod
    def empty(cls, instance: Instance) -> PlacementState:
        graph = build_graph(instance.app)
        network = Network.of(instance.infra)
        processors = set(network.processors)
        counts = {op.id: replica_count(op, graph.input_rates[op.id])
                  for op in instance.app.operators}
        cands = {op.id: [u for u in candidates(op, network) if u in processors]
                 for op in instance.app.operators}
        return cls(graph, network, counts, cands, {op: {} for op in counts})

    @cached_property
    def _ops(self) -> dict[str, Operator]:
        return {op.id: op for op in self.graph.app.operators}

    def op(self, op_id: str) -> Operator:
        return self._ops[op_id]

    def free(self, u: str, dim: str) -> float:
        resources = self.network.nodes[u].resources
        cap = math.inf if resources is None else resources.get(dim, math.inf)
        return cap - self.used[u][dim]

    def fits(self, op_id: str, u: str, headroom: float | None = None) -> bool:
        """Room for one more instance, keeping ``headroom`` (default: the state's) of
        every resource free."""
        headroom = self.headroom if headroom is None else headroom
        resources = self.network.nodes[u].resources
        for dim, amount in self.op(op_id).resources.items():
            cap = math.inf if resources is None else resources.get(dim, math.inf)
            if self.used[u][dim] + amount > headroom * cap + 1e-9:
                return False
        return True

    def room(self, u: str) -> float:
        """Free share of the node's scarcest resource (1 = empty or unbounded)."""
        resources = self.network.nodes[u].resources
        if not resources:
            return 1.0
        return min((self.free(u, d) / c) if c > 0 and math.isfinite(c) else 1.0
                   for d, c in resources.items())

    def place(self, op_id: str, u: str) -> None:
        self.nodes[op_id][u] = self.nodes[op_id].get(u, 0) + 1
        for dim, amount in self.op(op_id).resources.items():
            self.used[u][dim] += amount

    def remove(self, op_id: str, u: str) -> None:
        self.nodes[op_id][u] -= 1
        if not self.nodes[op_id][u]:
            del self.nodes[op_id][u]
        for dim, amount in self.op(op_id).resources.items():
            self.used[u][dim] -= amount

    def instances(self) -> list[tuple[str, int]]:
        """(operator, replica number) in DAG order."""
        return [(op, k) for op in self.graph.topological_order() for k in range(self.counts[op])]


class PlacementFailure(Exception):
    """A heuristic could not place everything; the message says what and where."""


def finish(method: str, instance: Instance, placement: dict[str, dict[str, int]],
           budget: Budget, info: dict[str, object] | None = None, *, model: ModelFamily,
           objective_metric: str = "utility") -> SolveResult:
    """A placement heuristic's plan, through the shared :func:`conclude`: ``feasible``, or
    ``interrupted`` when a stop request cut its search short."""
    status = SolveStatus.INTERRUPTED if budget.interrupted else SolveStatus.FEASIBLE
    counters = dict(info or {})
    seed = counters.pop("seed", None)
    return conclude(method, instance, Plan.model_validate({"placement": placement}),
                    status, model=model, started=budget.started,
                    info=SolverReport(method, seed=seed if isinstance(seed, int) else None,
                                      counters=counters),
                    objective_metric=objective_metric)


def stopped_before_a_plan(method: str, budget: Budget) -> SolveResult:
    """A heuristic stopped before it had any complete plan."""
    status = budget.stop_status()
    reason = budget.stop_reason()
    return SolveResult(status, method, seconds=budget.elapsed(),
                       message=f"{method}: {reason} before any complete plan")


Place = Callable[[PlacementState, random.Random, Budget], dict[str, object] | None]


def run_placement(method: str, model: ModelFamily, instance: Instance, options: SolveOptions,
                  place: Place, objective_metric: str = "utility") -> SolveResult:
    """Run a constructive heuristic: ``place(state, rng, budget)`` fills an empty
    placement (and may return statistics); a :class:`PlacementFailure` becomes the method's
    failure, anything placed goes through :func:`finish`."""
    budget = options.budget()
    state = PlacementState.empty(instance)
    try:
        info = place(state, random.Random(options.seed), budget) or {}
    except PlacementFailure as exc:
        return SolveResult(SolveStatus.ERROR, method, seconds=budget.elapsed(),
                           message=f"{method} failed: {exc}")
    except Stopped:
        return stopped_before_a_plan(method, budget)
    return finish(method, instance, state.nodes, budget,
                  {"seed": options.seed, "instances": sum(state.counts.values()), **info},
                  model=model, objective_metric=objective_metric)
