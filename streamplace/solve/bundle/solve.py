"""Placing a bundle: the joint program (odrp), or one application after another in
priority order with any method, each beside the load of those placed before it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from streamplace.errors import InfeasibleError
from streamplace.model.occupied import HeldBy, held_by_plan
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget, Stopped
from streamplace.solve.bundle.instance import BundleInstance, evaluate_bundle, width
from streamplace.solve.bundle.program import JointModel, build_joint
from streamplace.solve.bundle.result import BundleResult
from streamplace.solve.method import Method
from streamplace.solve.mip.solve import solve_mip
from streamplace.solve.progress import no_progress
from streamplace.solve.result import SolveOptions, SolveStatus

PROGRAM_METHODS = ("odrp",)  # the methods with a joint program; every other one goes in order


def place_in_priority_order(joint: BundleInstance, method: Method,
                            options: SolveOptions) -> BundleResult:
    """Each application in priority order, by ``method``, beside those placed before it;
    the first that cannot be placed ends the run (no plan for the bundle, its reason said).
    A time limit is shared out evenly among the applications still to place."""
    budget = options.budget()
    plans: dict[str, Plan] = {}
    holders: list[HeldBy] = []
    order = joint.in_priority_order()
    spent = 0.0  # of --max-moves, by the applications placed so far
    taken = 0    # of the pooled slots, by the applications placed so far
    for k, app in enumerate(order):
        left = budget.remaining()
        share = None if left is None else left / (len(order) - k)
        moves_left = None if joint.max_moves is None else max(0.0, joint.max_moves - spent)
        slots_left = None if joint.slots is None else joint.slots - taken
        if slots_left is not None and slots_left < 1:
            return _failed(joint, method, budget, app.name, plans,
                           f"no slot is left of the cluster's {joint.slots}")
        try:
            instance = joint.alone(app, holders, moves_left, slots_left)
        except InfeasibleError as exc:  # cannot happen with feasible plans; said if it does
            return _failed(joint, method, budget, app.name, plans, "; ".join(exc.reasons))
        # each application's own F is no progress of the bundle's: kept quiet
        result = method.solve(instance, replace(options, time_limit=share,
                                                progress=no_progress))
        if result.plan is None:
            why = "; ".join(result.reasons) or result.message or result.status.value
            return _failed(joint, method, budget, app.name, plans, why, result.status)
        plan = result.plan.model_copy(update={"application": app.name})
        plans[app.name] = plan
        taken += width(app, plan)
        if instance.current is not None:
            spent += instance.current.moves(app.operators, {
                op.id: plan.replicas(op.id) for op in app.operators})
        holders.append(held_by_plan(app.name, instance.evaluate(plan)))
    evaluation = evaluate_bundle(joint, plans)
    status = SolveStatus.FEASIBLE if evaluation.feasible else SolveStatus.ERROR
    return BundleResult(status, method.name, "priority", plans if evaluation.feasible else None,
                       evaluation, evaluation.utility, None, budget.elapsed(),
                       "" if evaluation.feasible else "the plans do not fit together")


def _failed(joint: BundleInstance, method: Method, budget: Budget, name: str,
            plans: dict[str, Plan], why: str,
            status: SolveStatus = SolveStatus.INFEASIBLE) -> BundleResult:
    placed = ", ".join(plans) or "nothing"
    reason = f"{name} cannot be placed beside {placed} (placed before it): {why}"
    if status.has_plan or status == SolveStatus.OPTIMAL:
        status = SolveStatus.INFEASIBLE
    return BundleResult(status, method.name, "priority", None, None, None, None,
                       budget.elapsed(), reason, (reason,))


def solve_joint(joint: BundleInstance, method: Method, options: SolveOptions) -> BundleResult:
    """The joint program of ``method`` (odrp) maximising (J1): exact, its status
    ``optimal`` only when the solver proved it. It starts from the plans placed in priority
    order (odrp, with at most half the time limit), so a time limit leaves a plan whenever
    that order finds one."""
    begun = begin(joint, method, options, "joint")
    if isinstance(begun, BundleResult):
        return begun
    built, first, budget = begun
    start = built.start_from(first.plans) if first.plans else None
    outcome = solve_mip(built.model, options, start, budget)
    if outcome.values is None:
        return without_values(method, "joint", outcome.status, outcome.bound, outcome.message,
                              first, budget, joint.limited)
    status, message = outcome.status, outcome.message
    return conclude(joint, method, "joint", built, outcome.values, status, outcome.bound,
                    message, first, budget, outcome.objective)


Begun = tuple[JointModel, BundleResult, Budget]


def begin(joint: BundleInstance, method: Method, options: SolveOptions,
          mode: str) -> Begun | BundleResult:
    """The built program, the plans in priority order (its start, given half the time
    limit) and the budget; or the result that ends the solve already."""
    budget = options.budget()
    try:
        built = build_joint(joint, budget)
    except InfeasibleError as exc:
        return BundleResult(SolveStatus.INFEASIBLE, method.name, mode, seconds=budget.elapsed(),
                           message="; ".join(exc.reasons), reasons=tuple(exc.reasons))
    except Stopped:
        return BundleResult(budget.stop_status(), method.name, mode, seconds=budget.elapsed(),
                           message=f"{budget.stop_reason()} while the program was built")
    left = budget.remaining()
    first = place_in_priority_order(joint, method, replace(
        options, time_limit=None if left is None else left / 2))
    return built, first, budget


def without_values(method: Method, mode: str, status: SolveStatus, bound: float | None,
                   message: str, first: BundleResult, budget: Budget,
                   limited: bool = False) -> BundleResult:
    """The solver ended without a plan: proven infeasible, or stopped (the plans in
    priority order then stand, where there are some)."""
    if status == SolveStatus.INFEASIBLE:
        why = "no placement of the applications fits the infrastructure together" + (
            " within the metric limits" if limited else "")
        return BundleResult(SolveStatus.INFEASIBLE, method.name, mode,
                           seconds=budget.elapsed(), message=why, reasons=(why,))
    if first.plans:
        return replace(first, status=status, mode=mode, bound=bound, seconds=budget.elapsed(),
                       message="the solver stopped before a plan of its own: the plans "
                               "placed in priority order")
    return BundleResult(status, method.name, mode, bound=bound, seconds=budget.elapsed(),
                       message=message or "no plan was found")


def conclude(joint: BundleInstance, method: Method, mode: str, built: JointModel,
             values: Sequence[float], status: SolveStatus, bound: float | None,
             message: str, first: BundleResult, budget: Budget,
             model_objective: float | None = None) -> BundleResult:
    """The solver's plans, evaluated; the program's value of them checked against the
    evaluator's (``model_objective``, for the weighted sum); the plans in priority order
    instead where they score better on (J1) and nothing was proven."""
    plans = {name: plan.model_copy(update={"application": name})
             for name, plan in built.decode(values).items()}
    evaluation = evaluate_bundle(joint, plans)
    value = evaluation.utility
    if not evaluation.feasible or value is None:
        broken = [str(v) for ev in evaluation.evaluations.values() for v in ev.violations]
        raise AssertionError("the joint program's plans break the evaluator's rules: "
                             f"{broken + list(evaluation.problems)}")
    if model_objective is not None and abs(model_objective - value) > 1e-6:
        status = SolveStatus.FEASIBLE if status == SolveStatus.OPTIMAL else status
        message = (f"the program valued its plans at {model_objective:.6g}, the evaluator "
                   f"at {value:.6g}")
    result = BundleResult(status, method.name, mode, plans, evaluation, value, bound,
                         budget.elapsed(), message)
    if mode == "joint" and first.plans and first.objective is not None and \
            first.objective > value + 1e-12:
        return replace(result, plans=first.plans, evaluation=first.evaluation,
                       objective=first.objective, message="the plans placed in priority "
                       "order scored better than the solver's")
    return result
