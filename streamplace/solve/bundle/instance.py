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
from streamplace.model.evaluate.constraints import over
from streamplace.model.evaluate.report import Evaluation
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import MetricLimits
from streamplace.model.network import Network
from streamplace.model.objective import Bounds, Objective
from streamplace.model.occupied import HeldBy, beside, held_by_plan
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.solve.result import Instance


@dataclass(frozen=True)
class BundleInstance:
    """Applications (distinct names) on one infrastructure under one objective; ``limits``
    hold for each application, ``own_limits`` for the application they are keyed by (over
    ``limits`` where both bound a metric)."""

    apps: tuple[Application, ...]
    infra: Infrastructure
    objective: Objective = field(default_factory=Objective)
    limits: MetricLimits | None = None
    own_limits: Mapping[str, MetricLimits] = field(default_factory=dict)
    # re-planning: the plans that run now, by application (one not among them arrives), and
    # the most reconfiguration all of them together may cost (--max-moves)
    current: Mapping[str, Current] = field(default_factory=dict)
    max_moves: float | None = None
    # the slots of a session cluster the applications share, wherever Flink puts them: an
    # application takes as many as its widest operator runs replicas (slot sharing)
    slots: int | None = None

    def __post_init__(self) -> None:
        names = [app.name for app in self.apps]
        assert len(set(names)) == len(names), f"application names repeat: {names}"

    @property
    def weights(self) -> dict[str, float]:
        """omega_a, summing to 1; weights are ratios, scaled by the largest first so that
        huge ones (1e308 twice) cannot overflow the sum to infinity and every weight to 0."""
        largest = max((app.weight for app in self.apps), default=1.0)
        total = sum(app.weight / largest for app in self.apps)
        return {app.name: app.weight / largest / total for app in self.apps}

    def in_priority_order(self) -> list[Application]:
        """Higher priority first; ties keep the order given (sorted is stable)."""
        return sorted(self.apps, key=lambda app: -app.priority)

    def objective_for(self, app: Application) -> Objective:
        """The objective with ``app``'s bounds made explicit (derived on the whole
        infrastructure where the objective gives none), so that its F does not move with
        what the other applications hold."""
        bounds, _derived = resolve_bounds(build_graph(app), Network.of(self.infra),
                                          self.objective, None, app.name in self.current)
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

    def alone(self, app: Application, holders: list[HeldBy] | None = None,
              max_moves: float | None = None, slots: int | None = None) -> Instance:
        """``app`` as a problem of its own, beside what ``holders`` hold, its reconfiguration
        bounded by ``max_moves`` and its width by ``slots`` where given."""
        infra = beside(self.infra, holders) if holders else self.infra
        now = self.current.get(app.name)
        if now is not None and max_moves is not None:
            now = Current(now.placement, max_moves, now.source)
        placed = app if slots is None else narrowed(app, slots)
        return Instance(placed, infra, self.objective_for(app), now, self.limits_for(app))

    def slots_over(self, plans: Mapping[str, Plan]) -> str | None:
        """Why the plans take more of the pooled ``slots`` than there are; None when they
        fit (or nothing is pooled)."""
        if self.slots is None:
            return None
        widths = {app.name: width(app, plans[app.name]) for app in self.apps}
        if sum(widths.values()) <= self.slots:
            return None
        said = " + ".join(f"{name} {k}" for name, k in widths.items())
        return f"the plans take {said} = {sum(widths.values())} slots, the cluster has " \
               f"{self.slots}"

    def moves(self, plans: Mapping[str, Plan]) -> float:
        """The reconfiguration the plans cost together, against the plans that run now."""
        return sum(now.moves(app.operators, {op.id: plans[app.name].replicas(op.id)
                                             for op in app.operators})
                   for app in self.apps if (now := self.current.get(app.name)) is not None)


@dataclass(frozen=True)
class BundleEvaluation:
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


def width(app: Application, plan: Plan) -> int:
    """The slots a plan of ``app`` takes under slot sharing: its widest operator's
    replicas."""
    return max((sum(plan.replicas(op.id).values()) for op in app.operators), default=0)


def narrowed(app: Application, most: int) -> Application:
    """``app`` with no operator running more than ``most`` replicas (the slots left to it);
    an operator that may run none fewer keeps its own least count, so it is infeasible."""
    out = app.model_copy(update={"operators": [
        op if op.replicas is not None else
        op.model_copy(update={"max_replicas": max(1, min(op.replica_cap, most))})
        for op in app.operators]})
    out.attach_source(app.source)
    return out


def evaluate_bundle(joint: BundleInstance, plans: dict[str, Plan]) -> BundleEvaluation:
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
                                         joint.current.get(app.name), joint.limits_for(app))
    if joint.max_moves is not None and all(ev.complete for ev in evaluations.values()):
        moves = joint.moves(plans)
        if over(moves, joint.max_moves):
            problems.append(f"starting replicas costs {moves:g} over the bundle, at most "
                            f"{joint.max_moves:g} allowed (--max-moves)")
    if all(ev.complete for ev in evaluations.values()) and \
            (pooled := joint.slots_over(plans)) is not None:
        problems.append(pooled)
    return BundleEvaluation(joint.weights, evaluations, tuple(problems))
