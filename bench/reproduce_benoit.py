"""Reproduce Benoit et al. 2008, sec. 7: heuristics against the ILP optimum, success rates, times.

1. Fig. 9: a homogeneous platform (one processor class, so cost = processors bought),
   alpha = 0.9 and 1.1, trees of N = 5..50 operators (sec. 7.2 generator, several seeds):
   the cost of the seven heuristics next to the ILP optimum, each heuristic's success rate,
   and how often Subtree-Bottom-Up is optimal for alpha < 1.
2. Goals on the full Dell catalog (Constr): trees of 30 operators proven optimal, and
   60-operator trees within 2% gap in 60 s, at alphas from 0.9 to 1.7 (heavy operators,
   so fewer share a processor), each row with its goal, the column bound's pricing
   MIPs (``c``: its first LP was solved) and the branches whose LP was solved.
3. With ``--lp SECONDS``, instead: the column bound alone (branching included) for that
   long on the heavy goal trees, with the best platform ever found to close branches by:
   how far below that platform its first LP lies, which no bound without branching can
   pass, and how far its bound does.
Writes tables to stdout and a plot to out/reproduce_benoit.png.
Run: ``python bench/reproduce_benoit.py [--seeds 3] [--time-limit 60] [--only-goals]
[--goal-seeds 2] [--lp 200]`` (``--goal-seeds``: trees per row of parts 2 and 3).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from streamplace.io.readers import build_document
from streamplace.model.application import Application
from streamplace.model.generate import benoit_instance, dell_catalog
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.source import SourceMap
from streamplace.solve import (
    Instance,
    SolveOptions,
    SolveResult,
    SolveStatus,
    get_method,
    methods,
)
from streamplace.solve.benoit.branch_price.search import column_bound
from streamplace.solve.benoit.data import tree_data
from streamplace.solve.benoit.group_costs import most_processors
from streamplace.solve.budget import Budget

sys.path.insert(0, str(Path(__file__).parent))
from known import keep_best, kept
from plotting import pyplot, save

ROOT = Path(__file__).resolve().parent.parent
HOMOGENEOUS = "r900-38.40ghz-4gbps"
HEURISTICS = [m.name for m in methods() if m.model == "benoit" and not m.exact]


def make(n: int, alpha: float, seed: int, homogeneous: bool) -> Instance:
    app, infra = benoit_instance(n, alpha=alpha, seed=seed,
                                 work_scale=1e7 if homogeneous else 1e6)
    if homogeneous:
        infra["catalog"] = [c for c in dell_catalog() if c["id"] == HOMOGENEOUS]
    return Instance(build_document(Application, app, SourceMap("generated")),
                    build_document(Infrastructure, infra, SourceMap("generated")))


def fig9(seeds: int, time_limit: float) -> dict[float, dict[str, list[tuple[int, float]]]]:
    curves: dict[float, dict[str, list[tuple[int, float]]]] = {}
    for alpha in (0.9, 1.1):
        print(f"\nFig. 9, homogeneous platform ({HOMOGENEOUS}), alpha = {alpha}: "
              "mean cost in processors bought (fails in brackets)")
        print(f"{'N':>3} {'ILP':>9} {'ILP s':>6} " + " ".join(f"{h[:11]:>11}" for h in HEURISTICS))
        successes: dict[str, int] = defaultdict(int)
        optimal_sbu = tried = 0
        curve: dict[str, list[tuple[int, float]]] = defaultdict(list)
        price = next(c["cost"] for c in dell_catalog() if c["id"] == HOMOGENEOUS)
        for n in range(5, 51, 5):
            costs: dict[str, list[float]] = defaultdict(list)
            fails: dict[str, int] = defaultdict(int)
            ilp_seconds = 0.0
            for seed in range(seeds):
                inst = make(n, alpha, seed, homogeneous=True)
                started = time.perf_counter()
                ilp = get_method("benoit").solve(inst, SolveOptions(time_limit=time_limit))
                ilp_seconds += time.perf_counter() - started
                if ilp.objective is not None:
                    costs["ILP"].append(ilp.objective / price)
                for name in HEURISTICS:
                    result = get_method(name).solve(inst, SolveOptions(seed=seed))
                    if result.objective is None:
                        fails[name] += 1
                        continue
                    successes[name] += 1
                    costs[name].append(result.objective / price)
                    if name == "subtree-bottom-up" and alpha < 1 and \
                            ilp.status == SolveStatus.OPTIMAL:
                        tried += 1
                        optimal_sbu += result.objective == ilp.objective
            cells = []
            for name in ["ILP", *HEURISTICS]:
                values = costs[name]
                mean = sum(values) / len(values) if values else float("nan")
                if values:
                    curve[name].append((n, mean))
                cell = f"{mean:.2f}" + (f"({fails[name]})" if fails[name] else "")
                cells.append(cell)
            print(f"{n:>3} {cells[0]:>9} {ilp_seconds / seeds:>6.2f} "
                  + " ".join(f"{c:>11}" for c in cells[1:]), flush=True)
        total = 10 * seeds
        print("success rates: " + ", ".join(f"{h} {successes[h] / total:.0%}"
                                            for h in HEURISTICS))
        if alpha < 1:
            print(f"Subtree-Bottom-Up optimal in {optimal_sbu} of {tried} solved instances")
        curves[alpha] = curve
    return curves


GOALS = [  # operators, alpha, the gap wanted at the time limit (0: proven optimal)
    (30, 0.9, 0.0), (30, 1.1, 0.0), (30, 1.7, 0.0),
    (60, 0.9, 0.02), (60, 1.1, 0.02), (60, 1.5, 0.02), (60, 1.6, 0.02), (60, 1.7, 0.02)]


MAX_SEEDS = 12


def tree_name(n: int, alpha: float, seed: int) -> str:
    """The goal tree's name among the best known plans (bench/known.py)."""
    return f"benoit-{n}-{alpha}-s{seed}"


def best_known(name: str, found: list[SolveResult]) -> float:
    """The cost of the cheapest valid platform any run ever found on this instance
    (bench/known.py)."""
    def fields(result: SolveResult) -> dict[str, Any]:
        plan = result.plan.model_dump(mode="json", by_alias=True) if result.plan else {}
        return {"method": result.method,
                **{k: plan[k] for k in ("placement", "purchased", "downloads")}}

    return keep_best(name, "cost", ((r.objective, fields(r)) for r in found
                                    if r.plan is not None), maximize=False)


def goals(time_limit: float, seeds: int) -> None:
    print(f"\nGoals on the Dell catalog (Constr), benoit with a {time_limit:g} s limit; the "
          "best heuristic of the paper's seven; the best platform ever found")
    print(f"{'N':>3} {'alpha':>5} {'seed':>4} {'status':>10} {'cost':>7} {'bound':>7} "
          f"{'from':>8} {'gap':>7} {'goal':>12} {'seconds':>7} {'heuristic':>9} "
          f"{'known':>7} {'to it':>6} {'pricings':>9}")
    met: dict[tuple[int, float], int] = defaultdict(int)
    trees: dict[tuple[int, float], int] = {}
    for n, alpha, wanted in GOALS:
        done = 0
        for seed in range(MAX_SEEDS):
            if done == seeds:
                break
            inst = make(n, alpha, seed, homogeneous=False)
            started = time.perf_counter()
            result = get_method("benoit").solve(inst, SolveOptions(time_limit=time_limit))
            seconds = time.perf_counter() - started
            if result.status == SolveStatus.INFEASIBLE:  # an operator no class can run
                continue
            done += 1
            others = [get_method(h).solve(inst, SolveOptions(seed=seed)) for h in HEURISTICS]
            heuristic = min((r.objective for r in others if r.objective is not None),
                            default=float("nan"))
            known = best_known(tree_name(n, alpha, seed), [result, *others])
            gap = 0.0 if result.status == SolveStatus.OPTIMAL else result.gap
            ok = gap is not None and gap <= wanted + 1e-12
            met[(n, alpha)] += ok
            goal = ("optimal" if not wanted else f"<= {wanted:.0%}") + (" met" if ok else
                                                                        " NOT")
            to_known = (result.objective / known - 1) if result.objective else None
            print(f"{n:>3} {alpha:>5} {seed:>4} {result.status.value:>10} "
                  f"{result.objective or float('nan'):>7.0f} "
                  f"{result.bound or float('nan'):>7.0f} "
                  f"{result.solver.get('bound_from', 'highs'):>8} "
                  f"{'-' if gap is None else f'{gap:.2%}':>7} {goal:>12} {seconds:>7.1f} "
                  f"{heuristic:>9.0f} {known:>7.0f} "
                  f"{'-' if to_known is None else f'{to_known:.1%}':>6} "
                  f"{pricings(result):>9}", flush=True)
        trees[(n, alpha)] = done
        if done < seeds:
            print(f"{n:>3} {alpha:>5}  only {done} of seeds 0-{MAX_SEEDS - 1} give an instance "
                  "some plan may satisfy (the others have an operator no class can run)")
    print("goals met: " + ", ".join(
        f"N={n} alpha={a}: " + (f"{met[(n, a)]}/{trees[(n, a)]}" if trees[(n, a)] else
                                "no instance")
        for n, a, _ in GOALS))


def pricings(result: SolveResult) -> str:
    """The column bound's pricing MIPs (``c``: its first LP was solved) and, after a slash,
    the branches whose LP was solved, the first among them."""
    count = result.solver.get("column_pricings")
    converged = "c" if result.solver.get("column_converged") else ""
    nodes = result.solver.get("column_nodes")
    return "-" if count is None else f"{count}{converged}/{nodes}"


def master_lp(seconds: float, seeds: int) -> None:
    print(f"\nThe column bound alone for {seconds:g} s on the heavy goal trees, the best "
          "platform ever found closing branches: its first LP and its bound below that")
    print(f"{'N':>3} {'alpha':>5} {'seed':>4} {'first LP':>8} {'bound':>8} {'branches':>8} "
          f"{'open':>4} {'known':>7} {'LP below':>8} {'gap':>6}")
    for n, alpha, _ in GOALS:
        if alpha < 1.5:
            continue
        done = 0
        for seed in range(MAX_SEEDS):
            record = kept(tree_name(n, alpha, seed))
            if done == seeds or record is None:
                continue
            done += 1
            known = float(record["cost"])
            data = tree_data(make(n, alpha, seed, homogeneous=False), need_catalog=False)
            found = column_bound(data, Budget(seconds), most_processors(data, known),
                                 cheapest=known)
            master = found.master if found.master is not None else float("nan")
            bound = found.bound if found.bound is not None else float("nan")
            print(f"{n:>3} {alpha:>5} {seed:>4} {master:>8.0f} {bound:>8.0f} "
                  f"{found.nodes:>8} {found.open:>4} {known:>7.0f} {1 - master / known:>8.2%} "
                  f"{1 - bound / known:>6.2%}", flush=True)


def plot(curves: dict[float, dict[str, list[tuple[int, float]]]], path: Path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(curves), figsize=(11, 4), sharey=False)
    for ax, (alpha, curve) in zip(axes, curves.items(), strict=True):
        for name, points in curve.items():
            style: dict[str, Any] = {"linewidth": 2.5, "color": "black"} if name == "ILP" else {}
            ax.plot([n for n, _ in points], [c for _, c in points], "o-", markersize=3,
                    label=name, **style)
        ax.set_title(f"alpha = {alpha}: heuristics vs the ILP optimum", fontsize=10)
        ax.set_xlabel("operators N")
        ax.set_ylabel("processors bought (mean)")
        ax.legend(fontsize=7)
    save(fig, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--time-limit", type=float, default=60.0)
    parser.add_argument("--goal-seeds", type=int, default=2)
    parser.add_argument("--only-goals", action="store_true")
    parser.add_argument("--lp", type=float, metavar="SECONDS",
                        help="only the column bound against the best known, for this long")
    args = parser.parse_args()
    if args.lp:
        master_lp(args.lp, args.goal_seeds)
        return
    if not args.only_goals:
        curves = fig9(args.seeds, args.time_limit)
        plot(curves, ROOT / "out" / "reproduce_benoit.png")
    goals(args.time_limit, args.goal_seeds)


if __name__ == "__main__":
    main()
