"""ODRP at scale: formulations side by side, the whole process, and time-to-gap curves.

Part 1, DEBS 2015 sample, response-time objective (the paper's ODRP_R): build and solve
seconds of the paper's multiset formulation with HiGHS's own defaults (the baseline), with
streamplace's HiGHS settings (RINS and RENS off), with CBC, the compact formulation with
HiGHS, and the whole ``streamplace solve`` process (start-up, reading, solving, evaluating,
writing the plan; median of three after a first run that compiles the modules), each with
its ratio against the baseline and the optimum it proves (they must agree). Goal: the whole
process >= 25x the baseline.

Part 2, time-to-gap curves of the compact formulation on edge + cloud clusters (two thirds
small edge nodes, a cloud of 16-slot nodes 20-50 ms away; bench/scenarios.py), balanced
weights with the network-usage metric, several seeds per size: the relative gap HiGHS
reports after 1, 2, 5, 10, 20, 30 and 60 s ('none': no plan yet; 'no bound': a plan, the
start's, but HiGHS still in the root LP). Goals: 30 x 20 (k = 4) proven optimal within
60 s, 50 x 40 (k = 4) within 1% in 60 s.

Run: ``python bench/odrp.py [--time-limit 60] [--seeds 3] [--skip-cbc] [--only-debs]
[--only-curves]``.
"""

from __future__ import annotations

import argparse
import itertools
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
from streamplace.solve.progress import SolverProgress

sys.path.insert(0, str(Path(__file__).parent))
from scenarios import edge_cloud_instance

ROOT = Path(__file__).resolve().parent.parent
DEBS = ROOT / "samples" / "debs2015"
CHECKPOINTS = (1, 2, 5, 10, 20, 30, 60)
FAMILIES = [  # nodes, operators, k, goal: the gap at the time limit
    (20, 15, 3, 0.0), (30, 20, 4, 0.0), (50, 40, 4, 0.01)]
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


def curve(n_nodes: int, n_ops: int, k: int, seed: int,
          time_limit: float) -> tuple[SolveResult, list[tuple[float, float | None]], float]:
    app, infra = edge_cloud_instance(n_nodes, n_ops, k, seed)
    objective = Objective.model_validate({
        "weights": {"response_time": 1, "availability": 1, "cost": 1, "network": 1},
        "network_metric": "network_usage"})
    seen: list[tuple[float, float | None]] = []
    started = time.perf_counter()

    def progress(event: SolverProgress) -> None:
        seen.append((time.perf_counter() - started, event.gap))

    result = run(Instance(app, infra, objective), "compact", "highs", time_limit, progress)
    return result, seen, time.perf_counter() - started


def gap_at(seen: list[tuple[float, float | None]], result: SolveResult, total: float,
           at: float) -> str:
    if at >= total:
        final = 0.0 if result.status.value == "optimal" else result.gap
        if final is None:
            return "no bound" if result.plan is not None else "none"
        return f"{final * 100:.2f}%"
    before = [gap for seconds, gap in seen if seconds <= at]
    if not before or before[-1] is None:
        return "none"  # no plan yet
    return f"{before[-1] * 100:.2f}%"


def curves(time_limit: float, seeds: int) -> None:
    checkpoints = [c for c in CHECKPOINTS if c <= time_limit]
    print(f"\ntime-to-gap, compact+HiGHS, edge + cloud clusters, balanced weights, network "
          f"usage, time limit {time_limit:g} s")
    print(f"{'nodes':>5} {'ops':>4} {'k':>2} {'seed':>4} {'columns':>8} {'rows':>7} "
          + "".join(f"{str(c) + ' s':>8}" for c in checkpoints)
          + f" {'seconds':>8} {'status':>10} {'goal':>8}")
    for n_nodes, n_ops, k, goal in FAMILIES:
        met = done = 0
        for seed in itertools.count():
            if done == seeds:
                break
            result, seen, total = curve(n_nodes, n_ops, k, seed, time_limit)
            if result.status.value == "infeasible":  # k too small for a merged stream's rate
                print(f"{n_nodes:>5} {n_ops:>4} {k:>2} {seed:>4}  no plan exists: "
                      f"{'; '.join(result.reasons)[:70]}")
                continue
            done += 1
            s = result.solver
            gap = 0.0 if result.status.value == "optimal" else result.gap
            ok = gap is not None and (gap <= goal if goal else result.status.value == "optimal")
            met += ok
            print(f"{n_nodes:>5} {n_ops:>4} {k:>2} {seed:>4} {s.get('variables', 0):>8} "
                  f"{s.get('constraints', 0):>7} "
                  + "".join(f"{gap_at(seen, result, total, c):>8}" for c in checkpoints)
                  + f" {total:>8.1f} {result.status.value:>10} "
                  f"{'met' if ok else 'NOT met':>8}", flush=True)
        want = "proven optimal" if not goal else f"gap <= {goal:.0%}"
        print(f"{'':>5} goal {n_nodes} x {n_ops}: {want} within {time_limit:g} s: met on "
              f"{met} of {seeds} seeds")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--skip-cbc", action="store_true")
    parser.add_argument("--only-debs", action="store_true")
    parser.add_argument("--only-curves", action="store_true")
    args = parser.parse_args()
    if not args.only_curves:
        debs(max(args.time_limit, 300.0), args.skip_cbc)
    if not args.only_debs:
        curves(args.time_limit, args.seeds)


if __name__ == "__main__":
    main()
