"""A bundle of applications sharing one infrastructure, and the verdict on their plans.

Each application's utility F_a is normalised by its own bounds, derived on the whole (free)
infrastructure as they would be were it placed alone, so F_a means the same in the joint
program, in priority order and in the evaluation; the bundle's utility is
F = sum_a omega_a F_a with the weights normalised to sum 1 (docs/models.md).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from streamplace.errors import InfeasibleError
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate, resolve_bounds
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import MetricLimits
from streamplace.model.network import Network
from streamplace.model.objective import Bounds, Objective
from streamplace.model.occupied import HeldBy, beside, held_by_plan
from streamplace.model.plan import Plan
from streamplace.solve.result import Instance


@dataclass(frozen=True)
class JointInstance:
    """Applications (distinct names) on one infrastructure under one objective; ``limits``
    hold for each application, ``own_limits`` for the application they are keyed by (over
    ``limits`` where both bound a metric)."""

    apps: tuple[Application, ...]
    infra: Infrastructure
    objective: Objective = field(default_factory=Objective)
    limits: MetricLimits | None = None
    own_limits: Mapping[str, MetricLimits] = field(default_factory=dict)

    def __post_init__(self) -> None:
        names = [app.name for app in self.apps]
        assert len(set(names)) == len(names), f"application names repeat: {names}"

    @property
    def weights(self) -> dict[str, float]:
        """omega_a, summing to 1."""
        total = sum(app.weight for app in self.apps)
        return {app.name: app.weight / total for app in self.apps}

    def in_priority_order(self) -> list[Application]:
        """Higher priority first; ties keep the order given (sorted is stable)."""
        return sorted(self.apps, key=lambda app: -app.priority)

    def objective_for(self, app: Application) -> Objective:
        """The objective with ``app``'s bounds made explicit (derived on the whole
        infrastructure where the objective gives none), so that its F does not move with
        what the other applications hold."""
        bounds, _derived = resolve_bounds(build_graph(app), Network.of(self.infra), self.objective)
        given = {term.value: pair for term, pair in bounds.items()
                 if math.isfinite(pair[0]) and math.isfinite(pair[1]) and pair[0] < pair[1]}
        return self.objective.model_copy(update={"bounds": Bounds.model_validate(given)})

    @property
    def limited(self) -> bool:
        """Whether some metric limit bounds some application."""
        return bool(self.limits) or any(self.own_limits.values())

    def limits_for(self, app: Application) -> MetricLimits | None:
        own = self.own_limits.get(app.name)
        if own is None:
            return self.limits
        return MetricLimits({**(self.limits.bounds if self.limits else {}), **own.bounds})

    def alone(self, app: Application, holders: list[HeldBy] | None = None) -> Instance:
        """``app`` as a problem of its own, beside what ``holders`` hold."""
        infra = beside(self.infra, holders) if holders else self.infra
        return Instance(app, infra, self.objective_for(app), None, self.limits_for(app))


@dataclass(frozen=True)
class JointEvaluation:
    """Each application's plan evaluated beside the others' plans, so a node the union
    overfills is a violation of each application on it."""

    weights: dict[str, float]
    evaluations: dict[str, Evaluation]
    problems: tuple[str, ...] = ()  # the others alone overfill a node

    @property
    def feasible(self) -> bool:
        return not self.problems and all(
            ev.complete and not ev.violations for ev in self.evaluations.values())

    @property
    def utility(self) -> float | None:
        """F = sum_a omega_a F_a; None while some plan is incomplete."""
        total = 0.0
        for name, ev in self.evaluations.items():
            if ev.utility is None:
                return None
            total += self.weights[name] * ev.utility.value
        return total


def evaluate_joint(joint: JointInstance, plans: dict[str, Plan]) -> JointEvaluation:
    """The one evaluator on every application's plan beside the others' load."""
    alone = {app.name: joint.alone(app).evaluate(plans[app.name]) for app in joint.apps}
    held = {name: held_by_plan(name, ev) for name, ev in alone.items() if ev.complete}
    problems: list[str] = []
    evaluations = {}
    for app in joint.apps:
        others = [h for name, h in held.items() if name != app.name]
        try:
            infra = beside(joint.infra, others) if others else joint.infra
        except InfeasibleError as exc:  # the others alone already overfill a node
            problems += [p for p in exc.reasons if p not in problems]
            infra = joint.infra
        evaluations[app.name] = evaluate(app, infra, plans[app.name], joint.objective_for(app),
                                         None, joint.limits_for(app))
    return JointEvaluation(joint.weights, evaluations, tuple(problems))
