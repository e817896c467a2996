"""ODRP at scale: formulations side by side, the whole process, and time-to-gap curves.

Part 1, DEBS 2015 sample, response-time objective (the paper's ODRP_R): build and solve
seconds of the paper's multiset formulation with HiGHS's own defaults (the baseline), with
streamplace's HiGHS settings (RINS and RENS off), with CBC, the compact formulation with
HiGHS, and the whole ``streamplace solve`` process (start-up, reading, solving, evaluating,
writing the plan; median of three after a first run that compiles the modules), each with
its ratio against the baseline and the optimum it proves (they must agree). Goal: the whole
process >= 25x the baseline.

Part 2, odrp at scale on four instance families (bench/families.py: today's uniform edge +
cloud clusters, pinned operators spread out, heterogeneous data and nodes, real routed
backbones from topohub), each reported on its own, balanced weights with the network-usage
metric, per family, size and seed: odrp's F (scored by the evaluator), its bound and where
the bound came from (proven: the optimum; highs: branch and bound; share_cut, relaxation:
docs/models.md sec. 2), the gap and wall time at the time limit; the best F of every other
catalog method that applies, each run for ``--others-time``; the best plan ever found on the
instance (kept in bench/best_known/, replaced whenever a run beats it) and odrp's distance
to it; the goals beside each (gap <= 1% small, <= 2% medium, <= 5% and a bound large; never
below the best other method and within 0.5% of the best known); last, the worst gap per
family, the worst family first.

Part 3 (``--root``, on its own), the root LP and its share cuts (docs/models.md sec. 2) on
the instances of ``--families`` and ``--sizes``, without a time limit: the LP relaxation's
optimum before and after the rounds, their number, the cuts added, the first LP's seconds
and all the rounds', the pair rows of eq. 4 that never entered the LP, the first LP's
seconds alone by dual simplex and by the interior-point method with every pair row and
without them, beside the best known plan.

Run: ``python bench/odrp.py [--time-limit 60] [--seeds 2] [--others-time 20] [--skip-cbc]
[--only-debs] [--only-scale] [--families uniform,spread-pins,heterogeneous,routed]
[--sizes small,medium,large] [--root]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

from streamplace.io.readers import read_instance, read_objective
from streamplace.model.objective import Objective
from streamplace.solve import (
    FormulationName,
    Instance,
    MipSolver,
    SolveOptions,
    SolveResult,
    get_method,
)
from streamplace.solve.mip.highs.thread import wait_for_abandoned
from streamplace.solve.odrp.compact import CompactModel

sys.path.insert(0, str(Path(__file__).parent))
from families import GENERATED, NETWORKS, SIZES, cases
from known import keep_best, kept

ROOT = Path(__file__).resolve().parent.parent
DEBS = ROOT / "samples" / "debs2015"
WHOLE_PROCESS_GOAL = 25.0


HIGHS_OWN_DEFAULTS = {"mip_heuristic_run_rins": True, "mip_heuristic_run_rens": True}


def run(inst: Instance, formulation: str, solver: str, time_limit: float,
        progress: object = None, highs: dict[str, object] | None = None) -> SolveResult:
    extra: dict[str, object] = {} if progress is None else {"progress": progress}
    return get_method("odrp").solve(inst, SolveOptions(
        time_limit=time_limit, gap=1e-6, formulation=FormulationName(formulation),
        solver=MipSolver(solver), highs=highs or {}, **extra))  # type: ignore[arg-type]


def median_seconds(command: list[str]) -> float:
    """Median wall time of ``command`` over three runs, as installed: Python keeps its
    compiled modules (a first, uncounted run writes them)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    times = []
    for attempt in range(4):
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command[:4])} failed:\n{done.stderr}")
        if attempt:
            times.append(time.perf_counter() - started)
    return statistics.median(times)


def whole_process(out: Path) -> tuple[float, float, str]:
    """``streamplace solve`` on the sample as a user runs it, and its start-up alone (the
    imports and the command, before any file is read): seconds, seconds, F."""
    import json

    seconds = median_seconds([
        sys.executable, "-m", "streamplace", "solve", str(DEBS / "application.yaml"),
        str(DEBS / "infrastructure.yaml"), "--objective",
        str(DEBS / "objective-response-time.yaml"), "-o", str(out), "--format", "json"])
    start_up = median_seconds([sys.executable, "-c", "from streamplace.cli.app import "
                               "build_app; build_app(['solve'])"])
    plan = json.loads(out.read_text())
    return seconds, start_up, f"{plan['metrics']['utility']:.6f}"


def debs(time_limit: float, skip_cbc: bool) -> None:
    app, infra = read_instance(str(DEBS / "application.yaml"), str(DEBS / "infrastructure.yaml"))
    objective = read_objective(str(DEBS / "objective-response-time.yaml"))
    inst = Instance(app, infra, objective)
    print("DEBS 2015 sample, response-time objective (ODRP_R)")
    print(f"{'run':<24} {'variables':>9} {'rows':>6} {'build s':>8} {'solve s':>8} "
          f"{'total s':>8} {'ratio':>7} {'status':>10} {'F':>10}")
    rows = [("multiset", "highs", HIGHS_OWN_DEFAULTS, "multiset+highs, defaults"),
            ("multiset", "highs", None, "multiset+highs"), ("multiset", "cbc", None, None),
            ("compact", "highs", None, None)]
    baseline = tuned = 0.0
    for formulation, solver, highs, name in rows:
        if skip_cbc and solver == "cbc":
            continue
        started = time.perf_counter()
        result = run(inst, formulation, solver, time_limit, highs=highs)
        total = time.perf_counter() - started
        s = result.solver
        build = s.get("build_seconds", 0.0) + s.get("load_seconds", 0.0)
        baseline = baseline or total
        if name == "multiset+highs":
            tuned = total
        objective = result.objective if result.objective is not None else float("nan")
        print(f"{name or formulation + '+' + solver:<24} {s.get('variables', 0):>9} "
              f"{s.get('constraints', 0):>6} {build:>8.2f} {total - build:>8.2f} "
              f"{total:>8.2f} {baseline / total:>6.1f}x {result.status.value:>10} "
              f"{objective:>10.6f}", flush=True)
    seconds, start_up, utility = whole_process(Path("/tmp") / "streamplace-bench-odrp-plan.json")
    ratio = baseline / seconds
    print(f"{'streamplace solve':<24} {'':>9} {'':>6} {'':>8} {'':>8} {seconds:>8.2f} "
          f"{ratio:>6.1f}x {'':>10} {utility:>10}")
    print(f"of which start-up (imports and the command, before any file is read): "
          f"{start_up:.2f} s")
    met = "met" if ratio >= WHOLE_PROCESS_GOAL else "NOT met"
    print(f"goal: whole process >= {WHOLE_PROCESS_GOAL:g}x the paper's ILP with HiGHS's own "
          f"defaults: {met} ({ratio:.1f}x; {tuned / seconds:.1f}x against the paper's ILP "
          "with streamplace's HiGHS settings, RINS and RENS off)")


OTHERS = ("hybrid", "hill-climbing", "ant-system", "resource-aware", "first-fit-decreasing",
          "round-robin", "ds2")
# per size: the gap goal (None: a bound, whatever it is) and F's goal against the best known
GOALS = {"small": (0.01, 0.005), "medium": (0.02, 0.005), "large": (0.05, 0.005)}


def balanced() -> Objective:
    return Objective.model_validate({
        "weights": {"response_time": 1, "availability": 1, "cost": 1, "network": 1},
        "network_metric": "network_usage"})


def true_f(inst: Instance, result: SolveResult) -> float | None:
    """F of a result's plan as the evaluator scores it, ODRP's way (Ecker plans too), None
    without a feasible plan."""
    from streamplace.model.evaluate import evaluate

    if result.plan is None:
        return None
    plan = result.plan.model_copy(update={"model": None})
    ev = evaluate(inst.app, inst.infra, plan, inst.objective)
    return None if ev.violations or ev.utility is None else ev.utility.value


def best_known(name: str, found: list[tuple[float | None, SolveResult]]) -> float:
    """F of the best plan any run ever found on this instance (bench/known.py)."""
    return keep_best(name, "F", ((f, {"method": r.method, "placement": {
        op: dict(reps) for op, reps in r.plan.placement.items()}})
        for f, r in found if r.plan is not None), maximize=True)


def scale(time_limit: float, others_time: float, families: list[str], sizes: list[str],
          seeds: int) -> None:
    print(f"\nodrp at scale, per family (bench/families.py), balanced weights, network "
          f"usage; odrp {time_limit:g} s, every other method {others_time:g} s")
    header = (f"{'size':<6} {'instance':<30} {'F':>7} {'bound':>7} {'from':>10} {'gap':>7} "
              f"{'goal':>9} {'wall s':>6} {'best other':>25} {'best known':>10} {'to it':>6} "
              f"{'goal':>4}")
    summary: dict[str, list[float]] = {}
    family = None
    for case in cases(families, sizes, seeds):
        if case.family != family:
            family = case.family
            print(f"\n{family}\n{header}")
        inst = Instance(case.app, case.infra, balanced())
        started = time.perf_counter()
        result = run(inst, "compact", "highs", time_limit)
        wall = time.perf_counter() - started
        # a HiGHS solve left behind at the limit would take a core from what runs next
        # here; a command-line run ends its process instead
        wait_for_abandoned()
        f = true_f(inst, result)
        others = []
        for method in OTHERS:
            other = get_method(method).solve(inst, SolveOptions(time_limit=others_time, seed=0))
            others.append((true_f(inst, other), other))
        top = max(((g, r.method) for g, r in others if g is not None), default=(None, "-"))
        known = best_known(case.name, [(f, result), *others])
        gap = 0.0 if result.status.value == "optimal" else result.gap
        gap_goal, known_goal = GOALS[case.size]
        summary.setdefault(case.family, []).append(float("inf") if gap is None else gap)
        ok_gap = "met" if gap is not None and gap <= gap_goal else "NOT"
        to_known = None if f is None else (known - f) / abs(known)
        ok_known = "met" if to_known is not None and to_known <= known_goal and (
            top[0] is None or (f is not None and f >= top[0])) else "NOT"
        origin = "-" if result.bound is None else (
            "proven" if result.status.value == "optimal"
            else str(result.solver.get("bound_from", "highs")))
        print(f"{case.size:<6} {case.label:<30} {_num(f):>7} {_num(result.bound):>7} "
              f"{origin:>10} {_pct(gap):>7} {f'<={gap_goal:.0%} ' + ok_gap:>9} {wall:>6.1f} "
              f"{top[1] + ' ' + _num(top[0]):>25} {known:>10.4f} {_pct(to_known):>6} "
              f"{ok_known:>4}", flush=True)
    print("\ngoals: gap <= 1% (small), <= 2% (medium), <= 5% and a bound (large); F never "
          "below the best other method and within 0.5% of the best known plan")
    print("worst gap per family, worst first:")
    for name, gaps in sorted(summary.items(), key=lambda kv: -max(kv[1])):
        worst = max(gaps)
        print(f"  {name:<14} {'no bound' if worst == float('inf') else f'{worst:.1%}'}")


def _num(x: float | None, places: int = 4) -> str:
    return "-" if x is None else f"{x:.{places}f}"


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.1%}"


def root(families: list[str], sizes: list[str], seeds: int) -> None:
    from streamplace.solve.budget import Budget
    from streamplace.solve.odrp.compact import build_compact
    from streamplace.solve.odrp.data import prepare
    from streamplace.solve.odrp.root import MAX_ROUNDS, cut_root

    print(f"\nthe root LP and its share cuts, no time limit (at most {MAX_ROUNDS} rounds); "
          "first LP alone by dual simplex and by the interior-point method, with every "
          "pair row of eq. 4 and without them")
    print(f"{'family':>13} {'instance':>30} {'LP':>8} {'with cuts':>9} {'rounds':>6} "
          f"{'cuts':>5} {'first s':>7} {'all s':>6} {'left out':>8} {'simplex':>7} "
          f"{'ipm':>6} {'simplex-':>8} {'ipm-':>6} {'best known':>10}")
    for case in cases(families, sizes, seeds):
        data = prepare(Instance(case.app, case.infra, balanced()))
        alone = [first_lp_seconds(build_compact(data), solver, held)
                 for held in (False, True) for solver in ("simplex", "ipm")]
        cut = cut_root(data, build_compact(data), Budget(time_limit=None))
        if cut is None or cut.first is None or cut.bound is None:
            raise SystemExit(f"{case.name}: the LP was not solved")
        known = kept(case.name)
        print(f"{case.family:>13} {case.label:>30} {cut.first:>8.5f} {cut.bound:>9.5f} "
              f"{cut.rounds:>6} {cut.cuts:>5} {cut.first_seconds:>7.1f} {cut.seconds:>6.1f} "
              f"{cut.delay_rows_left_out:>8} "
              + " ".join(f"{x:>{w}.1f}" for x, w in zip(alone, (7, 6, 8, 6), strict=True))
              + f" {known['F'] if known else float('nan'):>10.5f}", flush=True)


def first_lp_seconds(built: CompactModel, solver: str, without_pair_rows: bool) -> float:
    """Seconds of the program's LP relaxation, by ``solver``, with or without eq. 4's pair
    rows (where they start out of the model, there are none to take out)."""
    from streamplace.solve.budget import Budget
    from streamplace.solve.mip.persistent import Ended, PersistentModel
    from streamplace.solve.odrp.delays import HeldRows

    lp = PersistentModel(threads=1, relaxation=True, options={"solver": solver})
    lp.load(built.model)
    if without_pair_rows and built.delays is not None and built.delays.rows:
        lp.delete_rows(HeldRows(built.delays.rows).model_rows)
    started = time.perf_counter()
    if lp.solve(Budget(time_limit=None)) is not Ended.OPTIMAL:
        raise SystemExit("the LP was not solved")
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--skip-cbc", action="store_true")
    parser.add_argument("--only-debs", action="store_true")
    parser.add_argument("--only-scale", action="store_true")
    parser.add_argument("--others-time", type=float, default=20.0)
    parser.add_argument("--root", action="store_true")
    parser.add_argument("--families", default=",".join([*GENERATED, "routed"]),
                        help="comma-separated, of: " + ", ".join([*GENERATED, "routed"]))
    parser.add_argument("--sizes", default=",".join(SIZES),
                        help="comma-separated, of: " + ", ".join(NETWORKS))
    args = parser.parse_args()
    if args.root:
        root(args.families.split(","), args.sizes.split(","), args.seeds)
        return
    if not args.only_scale:
        debs(max(args.time_limit, 300.0), args.skip_cbc)
    if not args.only_debs:
        scale(args.time_limit, args.others_time, args.families.split(","),
              args.sizes.split(","), args.seeds)


if __name__ == "__main__":
    main()
