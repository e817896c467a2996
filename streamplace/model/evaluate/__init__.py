"""The ONE evaluator: every metric of every model for any plan, whichever method made it.

Solvers never report metrics of their own; they call :func:`evaluate` on the plan they made.
"""

from __future__ import annotations

from streamplace.model.application import Application
from streamplace.model.evaluate.constraints import (
    limit_violations,
    over,
    placement_violations,
)
from streamplace.model.evaluate.ecker import ecker_score
from streamplace.model.evaluate.odrp import odrp_metrics
from streamplace.model.evaluate.paths import path_metrics, routed_links
from streamplace.model.evaluate.report import Evaluation, Subject, Violation
from streamplace.model.evaluate.trees import benoit_evaluation
from streamplace.model.evaluate.utility import derive_bounds, utility
from streamplace.model.graph import AppGraph, build_graph, cyclic_order
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import MetricLimits, Term
from streamplace.model.network import Network
from streamplace.model.objective import Objective, terms
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current

__all__ = ["Evaluation", "evaluate", "resolve_bounds"]


def evaluate(app: Application, infra: Infrastructure, plan: Plan,
             objective: Objective | None = None, current: Current | None = None,
             limits: MetricLimits | None = None) -> Evaluation:
    """Evaluate ``plan``: ODRP metrics and utility, Benoit constraints and cost (when the
    application sets a ``throughput``), the Ecker score, and every violated constraint;
    against a ``current`` plan, the reconfiguration it costs too; with ``limits``, the
    metrics over them.

    Metrics are ``None`` when some operator has no replica: they would not mean anything.
    """
    objective = objective or Objective()
    graph = build_graph(app)
    notes: list[str] = []
    if graph.cycle() is not None and plan.model == "ecker":
        # Ecker et al., Alg. 3: the Ecker methods score cyclic topologies without feedback arcs
        _, feedback = cyclic_order(graph.digraph)
        graph.remove_arcs(feedback)
        notes.append("cycles broken for latency as Ecker et al., Alg. 3 does: feedback arcs "
                     + ", ".join(f"{a} -> {b}" for a, b in feedback))
    graph.topological_order()  # the metrics need a DAG; this names the cycle otherwise
    network = Network(infra, tuple(plan.purchased)) if plan.purchased else Network.of(infra)
    violations = placement_violations(graph, network, plan)
    warnings: list[str] = notes
    placement = {op: plan.replicas(op) for op in app.operator_ids}
    complete = all(placement.values())
    odrp = util = ecker = paths = None
    moves = current.moves(app.operators, placement) if current is not None else None
    if moves is not None and current is not None and current.max_moves is not None \
            and over(moves, current.max_moves):
        violations.append(Violation(
            "reconfiguration.max_moves", Subject("plan", (Term.RECONFIGURATION.value,)),
            f"starting replicas costs {moves:g} against {current.source}, at most "
            f"{current.max_moves:g} allowed", moves - current.max_moves))
    routed = routed_links(network, plan)
    if complete:
        odrp = odrp_metrics(graph, network, placement, routed)
        if limits:
            violations += limit_violations(limits, odrp)
        bounds, derived = resolve_bounds(graph, network, objective, plan, moves is not None)
        util = utility(odrp, objective, bounds, derived, moves)
        ecker, headroom = ecker_score(graph, network, placement)
        if plan.model == "ecker":  # the 95% rule is part of Ecker's model only
            violations += headroom
        if plan.routes or plan.model == "path":  # bandwidths bind for path tasks only
            paths, path_violations = path_metrics(graph, network, routed, placement)
            violations += path_violations
    benoit = None
    if app.throughput is not None:
        benoit, benoit_violations, notes = benoit_evaluation(graph, network, plan)
        violations += benoit_violations
        warnings += notes
    if plan.application not in (None, app.name):
        warnings.append(f"the plan was made for application {plan.application!r}, "
                        f"not {app.name!r}")
    if plan.infrastructure not in (None, infra.name):
        warnings.append(f"the plan was made for infrastructure {plan.infrastructure!r}, "
                        f"not {infra.name!r}")
    return Evaluation(complete, odrp, util, benoit, ecker, paths, violations, warnings,
                      reconfiguration=moves)


def resolve_bounds(graph: AppGraph, network: Network, objective: Objective,
                   plan: Plan | None = None, replanning: bool = False,
                   ) -> tuple[dict[Term, tuple[float, float]], set[Term]]:
    """Bounds per term: the objective's, else the plan's ``bounds_used``, else derived
    (only then: deriving them solves small problems over the whole instance, the larger
    part of scoring a plan of hundreds of operators)."""
    given = objective.bounds.as_dict()
    recorded = _recorded_bounds(plan)
    bounds: dict[Term, tuple[float, float]] = {}
    derived: set[Term] = set()
    derived_all: dict[Term, tuple[float, float]] | None = None
    for term in terms(replanning):
        if term in given:
            bounds[term] = given[term]
        elif term in recorded:
            bounds[term] = recorded[term]
        else:
            if derived_all is None:
                derived_all = derive_bounds(graph, network, objective.network_metric)
            bounds[term] = derived_all[term]
            derived.add(term)
    return bounds, derived


_LARGEST = 1.7e308  # a recorded bound beyond a float is not one this tool wrote


def _recorded_bounds(plan: Plan | None) -> dict[Term, tuple[float, float]]:
    out: dict[Term, tuple[float, float]] = {}
    if plan is None or not plan.bounds_used:
        return out
    for term in terms(True):
        pair = plan.bounds_used.get(term)
        if (isinstance(pair, list | tuple) and len(pair) == 2
                and all(isinstance(x, int | float) and not isinstance(x, bool)
                        and -_LARGEST <= x <= _LARGEST for x in pair)):
            out[term] = (float(pair[0]), float(pair[1]))  # NaN fails the range test
    return out
