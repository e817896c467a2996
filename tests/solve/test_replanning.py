"""Re-planning against the plan that runs now (docs/models.md, "Re-planning"): the fifth
utility term, reconfiguration, and the --max-moves budget; both ODRP formulations against
brute force with the term, and the properties a user relies on."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
from pathlib import Path

import pytest

from streamplace.model.evaluate import evaluate
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.solve import FormulationName, Instance, SolveOptions, SolveStatus, get_method

from ..conftest import assert_exact, best_utility, sample
from ..support.instances import random_instance

FORMULATIONS = ("compact", "multiset")


def running_plan(instance: Instance, seed: int) -> Current:
    """Some plan that might run now: 1-2 replicas per operator on random candidates."""
    rng = random.Random(seed)
    nodes = [n.id for n in instance.infra.nodes]
    placement: dict[str, dict[str, int]] = {}
    for op in instance.app.operators:
        cands = op.candidates or nodes
        reps: dict[str, int] = {}
        for _ in range(rng.choice([1, 1, 2]) if op.replica_cap > 1 else 1):
            node = rng.choice(cands)
            reps[node] = reps.get(node, 0) + 1
        placement[op.id] = reps
    return Current(placement)


def with_current(instance: Instance, current: Current, m: float | None) -> Instance:
    weights = instance.objective.weights.model_dump(exclude={"reconfiguration"})
    if m is not None:
        weights["reconfiguration"] = m
    objective = Objective.model_validate({
        "weights": weights, "network_metric": instance.objective.network_metric})
    return dataclasses.replace(instance, objective=objective, current=current)


def solve(instance: Instance, formulation: str = "compact"):
    return get_method("odrp").solve(
        instance, SolveOptions(gap=0.0, formulation=FormulationName(formulation)))


def four_term_utility(instance: Instance, plan: Plan) -> float:
    """F of the four ODRP terms alone, their weights in the ratios the user gave."""
    ev = evaluate(instance.app, instance.infra, plan, instance.objective)
    assert ev.utility is not None
    return ev.utility.value


@pytest.mark.parametrize("seed", range(10))
def test_both_formulations_match_brute_force_with_the_term(seed):
    base = random_instance(seed)
    instance = with_current(base, running_plan(base, seed), m=[None, 0.3, 1.0][seed % 3])
    expected = best_utility(instance)
    for formulation in FORMULATIONS:
        result = solve(instance, formulation)
        if not assert_exact(result, expected, formulation):
            continue
        ev = evaluate(instance.app, instance.infra, result.plan, instance.objective,
                      instance.current)
        assert ev.reconfiguration is not None and ev.violations == []
        assert [t.term for t in ev.utility.terms][-1] == "reconfiguration"


@pytest.mark.parametrize("seed", [1, 4, 6, 9])
def test_max_moves_is_a_hard_budget_equal_to_brute_force(seed):
    base = random_instance(seed)
    current = dataclasses.replace(running_plan(base, seed + 100), max_moves=1)
    instance = with_current(base, current, m=0.0)
    expected = best_utility(instance)
    for formulation in FORMULATIONS:
        result = solve(instance, formulation)
        if not assert_exact(result, expected, formulation):
            continue
        assert current.moves(instance.app.operators, _placement(instance, result.plan)) <= 1


@pytest.mark.parametrize("seed", [0, 2, 5, 7])
def test_max_moves_zero_keeps_an_optimal_current_plan(seed):
    """What runs now is optimal for the load: a zero budget re-plans to it, nothing moves."""
    base = random_instance(seed)
    optimum = solve(base)
    if optimum.status != SolveStatus.OPTIMAL:
        pytest.skip("no feasible plan on this instance")
    current = Current(_placement(base, optimum.plan), max_moves=0)
    for formulation in FORMULATIONS:
        result = solve(with_current(base, current, m=None), formulation)
        assert result.status == SolveStatus.OPTIMAL, formulation
        assert current.moves(base.app.operators, _placement(base, result.plan)) == 0
        assert four_term_utility(base, result.plan) == pytest.approx(optimum.objective,
                                                                     abs=1e-7)


def test_max_moves_zero_only_stops_replicas():
    """Stopping costs nothing: a zero budget may scale in, never start a replica."""
    base = random_instance(3)
    current = Current(running_plan(base, 3).placement, max_moves=0)
    result = solve(with_current(base, current, m=None))
    if result.status == SolveStatus.INFEASIBLE:
        assert evaluate(base.app, base.infra, Plan.model_validate(
            {"placement": current.placement}), base.objective).violations
        return
    for op, reps in _placement(base, result.plan).items():
        for node, count in reps.items():
            assert count <= current.count(op, node)


@pytest.mark.parametrize("seed", range(6))
def test_weight_zero_gives_the_odrp_optimum(seed):
    base = random_instance(seed)
    plain = solve(base)
    replanned = solve(with_current(base, running_plan(base, seed), m=0.0))
    assert replanned.status == plain.status
    if plain.status == SolveStatus.OPTIMAL:
        assert four_term_utility(base, replanned.plan) == pytest.approx(plain.objective,
                                                                        abs=1e-7)


@pytest.mark.parametrize("seed", [0, 1, 4, 8])
def test_four_term_utility_never_falls_as_the_weight_falls(seed):
    base = random_instance(seed)
    current = running_plan(base, seed + 7)
    seen = []
    for m in (4.0, 1.0, 0.5, 0.2, 0.05, 0.0):
        result = solve(with_current(base, current, m))
        if result.status != SolveStatus.OPTIMAL:
            pytest.skip("no feasible plan on this instance")
        seen.append(four_term_utility(base, result.plan))
    assert all(b >= a - 1e-7 for a, b in itertools.pairwise(seen)), seen


def test_default_weight_is_a_fifth_share_keeping_the_others_ratios():
    objective = Objective.model_validate({"weights": {"response_time": 3, "cost": 1}})
    weights = objective.weights.normalised(True)
    assert weights["reconfiguration"] == pytest.approx(0.2)
    assert weights["response_time"] == pytest.approx(0.6)
    assert weights["cost"] == pytest.approx(0.2)
    assert objective.weights.normalised() == {"response_time": 0.75, "availability": 0.0,
                                              "cost": 0.25, "network": 0.0}


@pytest.mark.parametrize("method", ["hill-climbing", "hybrid"])
def test_ecker_search_starts_from_the_running_plan(method):
    base = random_instance(2)
    optimum = solve(base)
    current = Current(_placement(base, optimum.plan))
    result = get_method(method).solve(with_current(base, current, m=0.5),
                                      SolveOptions(seed=1, time_limit=3))
    assert result.status == SolveStatus.FEASIBLE, result.message
    ev = evaluate(base.app, base.infra, result.plan, base.objective, current)
    assert ev.reconfiguration is not None and ev.violations == []


def test_hill_climbing_climbs_from_the_running_plan():
    """One move tried (work 1, the same on any machine): from the running plan the answer
    is within one replica move of it; from hill climbing's own start it is far away."""
    base = random_instance(5)
    running = _placement(base, solve(base).plan)

    def distance(instance: Instance) -> int:
        plan = get_method("hill-climbing").solve(
            instance, SolveOptions(seed=1, params={"work": 1})).plan
        return sum(abs(plan.replicas(op).get(u, 0) - running[op].get(u, 0))
                   for op in running for u in {*running[op], *plan.replicas(op)})

    assert distance(with_current(base, Current(running), m=0.5)) <= 2  # -1 here, +1 there
    assert distance(base) > 4


def _placement(instance: Instance, plan: Plan) -> dict[str, dict[str, int]]:
    return {op: plan.replicas(op) for op in instance.app.operator_ids}


def test_cli_re_plans_the_doubled_debs_load_within_a_budget(tmp_path):
    """The README's walk-through: what runs now, the load doubles, re-plan with --current."""
    import yaml

    from ..conftest import DEBS, PLAN, run

    doubled = [sample("debs2015", "application-2x.yaml"), DEBS[1]]
    kept = run("solve", *DEBS, "--current", PLAN, "--max-moves", "0", "--json", "-q")
    assert kept.exit_code == 0, kept.output
    running = yaml.safe_load(Path(PLAN).read_text())["placement"]
    assert json.loads(kept.stdout)["plan"]["placement"] == running

    new = tmp_path / "new.yaml"
    moved = run("solve", *doubled, "--current", PLAN, "-o", str(new), "--json", "-q")
    assert moved.exit_code == 0, moved.output
    document = json.loads(moved.stdout)
    assert document["status"] == "optimal" and document["metrics"]["reconfiguration"] > 0
    assert run("validate", *doubled, str(new), "--current", PLAN).exit_code == 0
    over = run("validate", *doubled, str(new), "--current", PLAN, "--max-moves", "0",
               "--json", "-q")
    assert over.exit_code == 1
    assert [v["constraint"] for v in json.loads(over.stdout)["violations"]] == \
        ["reconfiguration.max_moves"]


def test_cli_refuses_current_where_a_method_cannot_count_it():
    from ..conftest import DEBS, PLAN, run

    refused = run("solve", *DEBS, "--current", PLAN, "-m", "round-robin")
    assert refused.exit_code == 2 and "--current does not apply to round-robin" in \
        refused.output
    alone = run("solve", *DEBS, "--max-moves", "1")
    assert alone.exit_code == 2 and "--current" in alone.output


def test_diff_scores_the_new_plan_as_solve_current_did(tmp_path):
    """The F diff shows for the new plan is the one solve --current reported for it, and
    diff says how it scores."""
    from ..conftest import DEBS, PLAN, run

    doubled = [sample("debs2015", "application-2x.yaml"), DEBS[1]]
    new = tmp_path / "new.yaml"
    solved = run("solve", *doubled, "--current", PLAN, "-o", str(new), "--json", "-q")
    assert solved.exit_code == 0, solved.output
    diff = run("diff", *doubled, PLAN, str(new), "--json", "-q")
    document = json.loads(diff.stdout)
    utility = document["metrics"]["utility"]
    assert utility["new"] == pytest.approx(json.loads(solved.stdout)["objective"], abs=1e-9)
    assert "reconfiguration" in document["scoring"]
    shown = run("diff", *doubled, PLAN, str(new))
    assert "as solve --current scores plans" in shown.stderr
