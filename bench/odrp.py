"""ODRP formulations and solvers side by side, then a scale curve of the compact form.

Part 1, DEBS 2015 sample, response-time objective (the paper's ODRP_R): build and solve
seconds of multiset+HiGHS (the baseline), multiset+CBC and compact+HiGHS, with ratios
against the baseline and the optimal utility each proves (they must agree).
Part 2: random layered DAGs on random clusters (bench/scenarios.py) from 6 to 50 nodes,
8 to 30 operators, k from 1 to 4, each with a time limit: where compact still proves
optimality, and the gap where it does not.

Run: ``python bench/odrp.py [--time-limit 60] [--skip-cbc] [--only-debs]``.
"""

from __future__ import annotations

import argparse
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

sys.path.insert(0, str(Path(__file__).parent))
from scenarios import instance

ROOT = Path(__file__).resolve().parent.parent
SCALE = [(6, 8, 2), (6, 8, 3), (10, 10, 2), (10, 12, 3), (15, 12, 3), (20, 15, 2),
         (20, 15, 3), (30, 20, 2), (30, 20, 4), (40, 25, 3), (50, 30, 4)]


def run(inst: Instance, formulation: str, solver: str, time_limit: float) -> SolveResult:
    return get_method("odrp").solve(inst, SolveOptions(
        time_limit=time_limit, gap=1e-6, formulation=FormulationName(formulation),
        solver=MipSolver(solver)))


def debs(time_limit: float, skip_cbc: bool) -> None:
    folder = ROOT / "samples" / "debs2015"
    app, infra = read_instance(str(folder / "application.yaml"),
                               str(folder / "infrastructure.yaml"))
    objective = read_objective(str(folder / "objective-response-time.yaml"))
    inst = Instance(app, infra, objective)
    print("DEBS 2015 sample, response-time objective (ODRP_R)")
    print(f"{'formulation+solver':<20} {'variables':>9} {'rows':>6} {'build s':>8} "
          f"{'solve s':>8} {'total s':>8} {'ratio':>7} {'status':>10} {'F':>10}")
    rows = [("multiset", "highs"), ("multiset", "cbc"), ("compact", "highs")]
    baseline = None
    for formulation, solver in rows:
        if skip_cbc and solver == "cbc":
            continue
        started = time.perf_counter()
        result = run(inst, formulation, solver, time_limit)
        total = time.perf_counter() - started
        s = result.solver
        build = s.get("build_seconds", 0.0) + s.get("load_seconds", 0.0)
        solve = total - build
        baseline = baseline or total
        print(f"{formulation + '+' + solver:<20} {s.get('variables', 0):>9} "
              f"{s.get('constraints', 0):>6} {build:>8.2f} {solve:>8.2f} {total:>8.2f} "
              f"{baseline / total:>6.1f}x {result.status.value:>10} "
              f"{result.objective if result.objective is not None else float('nan'):>10.6f}")


def scale(time_limit: float) -> None:
    print(f"\nscale curve: compact+HiGHS, response-time objective, time limit {time_limit:g}s")
    print(f"{'nodes':>5} {'ops':>4} {'k':>2} {'variables':>9} {'binaries':>8} {'rows':>7} "
          f"{'build s':>8} {'seconds':>8} {'status':>10} {'gap':>8} {'B&B nodes':>9}")
    objective = Objective.model_validate({"weights": {"response_time": 1}})
    for n_nodes, n_ops, k in SCALE:
        app, infra = instance(n_nodes, n_ops, k, seed=0)
        started = time.perf_counter()
        result = run(Instance(app, infra, objective), "compact", "highs", time_limit)
        total = time.perf_counter() - started
        s = result.solver
        gap = "-" if result.gap is None else f"{result.gap * 100:.2f}%"
        print(f"{n_nodes:>5} {n_ops:>4} {k:>2} {s.get('variables', 0):>9} "
              f"{s.get('integer_variables', 0):>8} {s.get('constraints', 0):>7} "
              f"{s.get('build_seconds', 0):>8.2f} {total:>8.1f} {result.status.value:>10} "
              f"{gap:>8} {s.get('nodes', 0):>9}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--skip-cbc", action="store_true")
    parser.add_argument("--only-debs", action="store_true")
    args = parser.parse_args()
    debs(max(args.time_limit, 300.0), args.skip_cbc)
    if not args.only_debs:
        scale(args.time_limit)


if __name__ == "__main__":
    main()
