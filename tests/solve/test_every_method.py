"""One battery, every method: each catalogued method on every battery instance it accepts.

For each pair: the status and the plan agree and the evaluator accepts the plan; an exact
method hits the brute-forced optimum of its family, a heuristic never beats it; the same
seed under a work limit gives the same plan; a stop requested before the start is answered
at once, without a plan the method had no time to check; bad parameters are refused through
the library as on the command line. A method missing from the battery fails
:func:`test_every_catalogued_method_is_in_the_battery`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache

import pytest

from streamplace.errors import InputError
from streamplace.model.evaluate import Evaluation
from streamplace.model.graph import build_graph
from streamplace.solve import Instance, Method, SolveOptions, SolveResult, SolveStatus, methods
from streamplace.solve.budget import StopRequest
from streamplace.solve.placement import replica_count

from ..conftest import best_feasible, best_utility
from ..support.battery import BATTERY
from ..support.instances import (
    bimodal_instance,
    cheapest_platform,
    every_path_plan,
    random_instance,
    sbon_instances,
    tiny_tree,
)


@dataclass(frozen=True)
class Case:
    """A battery instance: its name and the model family whose optimum it was made for."""

    name: str
    family: str
    make: Callable[[], Instance]


CASES = [
    *(Case(f"odrp-{s}", "odrp", lambda s=s: random_instance(s)) for s in (0, 1, 4)),
    *(Case(f"benoit-constr-{s}", "benoit", lambda s=s: tiny_tree(s, constr=True))
      for s in (0, 1)),
    Case("benoit-given-2", "benoit", lambda: tiny_tree(2, constr=False)),
    *(Case(f"path-{s}", "path", lambda s=s: bimodal_instance(s)) for s in (0, 1)),
    *(Case(f"sbon-{s}", "sbon", lambda s=s: dict(sbon_instances())[s]) for s in (0, 1)),
]


@cache
def instance(name: str) -> Instance:
    return next(c for c in CASES if c.name == name).make()


# The battery's family each method family is held to, and what it is held on: the value a
# plan scores (from its evaluation) and whether more is better. Ecker's heuristics and the
# frameworks' baselines have no exact method of their own: they are held to the brute force
# of the ODRP instances, on Ecker's score and on F.
Score = Callable[[Evaluation], float]
HELD_TO: dict[str, tuple[str, Score, bool]] = {
    "odrp": ("odrp", lambda ev: ev.utility.value, True),
    "baseline": ("odrp", lambda ev: ev.utility.value, True),
    "ecker": ("odrp", lambda ev: ev.ecker.score, False),
    "benoit": ("benoit", lambda ev: ev.benoit.cost, False),
    "sbon": ("sbon", lambda ev: ev.odrp.network_usage, False),
    "path": ("path", lambda ev: ev.paths.cost, False),
}

# Every catalogued method: (name, model family) with the parameters that bound its work, so
# that two runs of one seed do the same work on any machine.


@cache
def optimum(method_name: str, family: str, case: str) -> float | None:
    """The brute-forced optimum ``method_name`` (of ``family``) is held to on ``case``."""
    inst = instance(case)
    score = HELD_TO[family][1]
    if family == "benoit":
        return cheapest_platform(inst)
    if family == "path":
        every = every_path_plan(inst)
        return min(plan[0] for plan in every) if every else None
    if family == "sbon":
        return best_feasible(inst, lambda op: [op.replicas or 1], score)
    if family == "ecker":
        rates = build_graph(inst.app).input_rates
        return best_feasible(inst, lambda op: [replica_count(op, rates[op.id])], score,
                             model="ecker")
    return best_utility(inst, single_replica=method_name == "odp")


def _entry(name: str, family: str) -> Method:
    return next(m for m in methods() if (m.name, m.model) == (name, family))


PAIRS = [pytest.param(name, family, case.name, id=f"{name}[{family}]-{case.name}")
         for (name, family) in BATTERY for case in CASES]


def _accepted(name: str, family: str, case: str) -> tuple[Method, Instance]:
    method, inst = _entry(name, family), instance(case)
    reason = method.accepts(inst)
    if reason is not None:
        pytest.skip(f"{name} does not apply: {reason}")
    return method, inst


def _options(name: str, family: str, **more: object) -> SolveOptions:
    return SolveOptions(seed=3, params=BATTERY[(name, family)], **more)  # type: ignore[arg-type]


def _checked(result: SolveResult, inst: Instance) -> Evaluation | None:
    """Status and plan agree, and the evaluator accepts the plan: the evaluation."""
    assert (result.plan is not None) == result.status.has_plan or \
        (result.plan is None and result.status.stopped_early), result
    if result.plan is None:
        return None
    ev = inst.evaluate(result.plan)
    assert ev.violations == [], (result.method, ev.violations)
    return ev


@pytest.mark.parametrize(("name", "family", "case"), PAIRS)
def test_plans_hold_and_meet_the_optimum(name, family, case):
    method, inst = _accepted(name, family, case)
    result = method.solve(inst, _options(name, family))
    assert result.status not in (SolveStatus.TIME_LIMIT, SolveStatus.INTERRUPTED), result
    ev = _checked(result, inst)
    held_to, score, maximise = HELD_TO[family]
    if next(c for c in CASES if c.name == case).family != held_to:
        return  # no optimum of this family on this instance: the contract alone holds
    best = optimum(name, family, case)
    if method.exact:
        if best is None:
            assert result.status == SolveStatus.INFEASIBLE, result
            return
        assert result.status == SolveStatus.OPTIMAL, result
        assert ev is not None and score(ev) == pytest.approx(best, rel=1e-7, abs=1e-9)
        return
    assert result.status in (SolveStatus.FEASIBLE, SolveStatus.ERROR), result
    if ev is not None:
        assert best is not None, "a heuristic planned where brute force found no plan"
        worse_by = best - score(ev) if maximise else score(ev) - best
        assert worse_by >= -1e-9 * max(1.0, abs(best)), (score(ev), best)


@pytest.mark.parametrize(("name", "family", "case"), PAIRS)
def test_the_same_seed_and_work_give_the_same_plan(name, family, case):
    method, inst = _accepted(name, family, case)
    first = method.solve(inst, _options(name, family))
    second = method.solve(inst, _options(name, family))
    assert first.status == second.status
    assert (first.plan is None) == (second.plan is None)
    if method.exact and first.plan is not None:
        # a proof fixes the optimum, not which of equally good plans the solver and the
        # search beside it (a thread) reach first
        assert first.objective == pytest.approx(second.objective, rel=1e-9, abs=1e-12)
    elif first.plan is not None:
        assert first.plan.placement == second.plan.placement
        assert first.plan.purchased == second.plan.purchased


@pytest.mark.parametrize(("name", "family", "case"), PAIRS)
def test_a_stop_before_the_start_is_answered_at_once(name, family, case):
    """The stop is set before the call: no search step may run, so the work the method
    reports is none, and whatever plan it returns it checked (the start or a first
    construction) and calls interrupted."""
    method, inst = _accepted(name, family, case)
    stop = StopRequest()
    stop.set()
    result = method.solve(inst, _options(name, family, stop=stop))
    _checked(result, inst)
    assert result.status in (SolveStatus.INTERRUPTED, SolveStatus.INFEASIBLE,
                             SolveStatus.ERROR), result
    if result.status == SolveStatus.INFEASIBLE:
        assert method.exact or result.reasons, result  # proven before any search
    for counter in ("nodes", "moves", "work"):
        if counter in result.solver:
            assert not result.solver[counter], (counter, result.solver)


@pytest.mark.parametrize(("name", "family"), list(BATTERY))
def test_bad_parameters_are_refused_through_the_library_too(name, family):
    method = _entry(name, family)
    inst = next(instance(c.name) for c in CASES if method.accepts(instance(c.name)) is None)
    with pytest.raises(InputError, match=f"{name} has no parameter 'no_such_parameter'"):
        method.solve(inst, SolveOptions(params={"no_such_parameter": 1}))
    for param in method.params:
        bad: object = "nowhere" if param.choices else (param.low - 1 if param.low is not None
                                                        else "many")
        with pytest.raises(InputError) as refused:
            method.solve(inst, SolveOptions(params={param.name: bad}))
        assert refused.value.problems[0].path == param.name


def test_a_misspelt_parameter_gets_the_command_lines_words():
    """The library and the command line refuse a typo with the same message and fix."""
    from ..conftest import DEBS, run

    relaxation = _entry("relaxation", "sbon")
    with pytest.raises(InputError) as refused:
        relaxation.solve(instance("sbon-0"), SolveOptions(params={"maping": "nearest"}))
    cli = run("solve", *DEBS, "--method", "relaxation", "--solver-option", "maping=nearest")
    assert cli.exit_code == 2
    problem = refused.value.problems[0]
    assert problem.message in cli.stderr and "did you mean 'mapping'?" in cli.stderr
    assert problem.fix == "did you mean 'mapping'?"
    with pytest.raises(InputError, match="must be at least 0"):
        relaxation.solve(instance("sbon-0"), SolveOptions(params={"load_weight": -5.0}))


def test_every_catalogued_method_is_in_the_battery():
    """A method added to the catalog must be added here, with what it is held to."""
    catalogued = {(m.name, m.model) for m in methods()}
    assert catalogued == set(BATTERY)
    assert {m.model for m in methods()} == set(HELD_TO)
    for name, family in BATTERY:
        method = _entry(name, family)
        accepted = [c.name for c in CASES if method.accepts(instance(c.name)) is None]
        held = [c for c in accepted if next(x for x in CASES if x.name == c).family
                == HELD_TO[family][0]]
        assert held, f"{name} ({family}) meets no battery instance it is held to"


SOLVED_BY_BACKENDS = [pytest.param(name, family, case.name, solver,
                                   id=f"{name}-{case.name}-{solver}")
                      for (name, family) in BATTERY for case in CASES
                      for solver in ("cbc", "scip")
                      if _entry(name, family).mip and case.family == HELD_TO[family][0]]


@pytest.mark.parametrize(("name", "family", "case", "solver"), SOLVED_BY_BACKENDS)
def test_every_backend_reaches_the_same_optimum(name, family, case, solver):
    """The seam (solve_mip): CBC and SCIP prove the optimum HiGHS proves, program for
    program, and each says how it ended in the same types."""
    from streamplace.solve import MipSolver, Setting

    method, inst = _accepted(name, family, case)
    assert Setting.SOLVER in method.settings
    best = optimum(name, family, case)
    result = method.solve(inst, _options(name, family, solver=MipSolver(solver)))
    if best is None:
        assert result.status == SolveStatus.INFEASIBLE, result
        return
    assert result.status == SolveStatus.OPTIMAL, result
    ev = _checked(result, inst)
    assert ev is not None and HELD_TO[family][1](ev) == pytest.approx(best, rel=1e-7, abs=1e-9)


def test_a_counter_may_not_take_a_report_fields_name():
    """Counters are written into the same flat block as the report's fields: one named like
    a field, or like a model size's column, is refused instead of overwriting it."""
    from streamplace.solve.solver_report import SolverReport

    for name in ("seed", "nodes", "variables", "constraints"):
        with pytest.raises(ValueError, match="would overwrite"):
            SolverReport("m", counters={name: 1})
        with pytest.raises(ValueError, match="would overwrite"):
            SolverReport("m").counting(**{name: 1})
    assert SolverReport("m").counting(moves=3)["moves"] == 3
