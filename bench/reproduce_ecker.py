"""Reproduce Ecker et al., sec. 6: the latency-aware heuristics on Storm-like workers.

1. The 11-worker setting of sec. 6.1.1 (switch network, 1.5 / 1 / 0.3-core workers) with
   the topologies of Table 1: T-M1 (a chain of 6), T-M2 (one operation with 10 instances),
   T-M3 (3 operations), T-R1..T-R7 random DAGs and T-R8, T-R9 random with a cycle, grown
   as sec. 6.1.2 describes (our generator cannot replay Java's Random, so sizes differ; the
   paper's are printed alongside). For every method: runtime (Table 4) and score s(x).
2. Exact yardsticks where one is known: the ODRP optimum of F (acyclic topologies, ODRP's
   exact solver with a time limit) against every heuristic's F, and the brute-force minimum
   of s(x) on T-M3.
3. Scale: 1,000 instances on 200 workers of the same kinds (each instance 5% of a core and
   64 MB, so that they fit 95% of the workers; splits share their output rather than copy
   it, or rates would grow without bound over hundreds of diamonds); goal: hill climbing
   under 10 s.
Run: ``python bench/reproduce_ecker.py [--time-limit 10] [--odrp-limit 30]``.
"""

from __future__ import annotations

import argparse
import itertools
import time
from typing import Any

from streamplace.io.readers import build_document
from streamplace.model.application import Application
from streamplace.model.evaluate import evaluate
from streamplace.model.graph import build_graph
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan
from streamplace.model.source import SourceMap
from streamplace.model.topologies import ecker_topology, ecker_workers
from streamplace.solve import Instance, SolveOptions, SolveResult, get_method
from streamplace.solve.compare import attempt

METHODS = ["hill-climbing", "ant-system", "hybrid", "resource-aware", "round-robin",
           "first-fit-decreasing"]
PAPER_MS = {  # Table 4: hill climbing, ant system, hybrid, resource-aware scheduler
    "T-M1": (9, 75, 78, 16), "T-M2": (45, 99, 130, 21), "T-M3": (4, 35, 38, 16),
    "T-R1": (558, 450, 841, 25), "T-R2": (65, 131, 197, 20), "T-R3": (231, 285, 534, 23),
    "T-R4": (179, 447, 717, 24), "T-R5": (138, 306, 428, 22), "T-R6": (198, 274, 472, 21),
    "T-R7": (1029, 661, 1020, 26), "T-R8": (185, 377, 355, 19), "T-R9": (263, 408, 480, 21)}
PAPER_SIZE = {"T-M1": 6, "T-M2": 12, "T-M3": 3, "T-R1": 30, "T-R2": 12, "T-R3": 22,
              "T-R4": 28, "T-R5": 20, "T-R6": 20, "T-R7": 42, "T-R8": 14, "T-R9": 18}
DEMAND = {"cpu": 0.1, "memory": 128.0}


def manual(name: str) -> dict[str, Any]:
    def op(i: str, n: int = 1) -> dict[str, Any]:
        return {"id": i, "replicas": n, "resources": dict(DEMAND)}

    if name == "T-M1":
        ids = ["source", "op1", "op2", "op3", "op4", "sink"]
        return {"name": name, "operators": [op(i) for i in ids], "streams": [
            {"from": a, "to": b, "rate": 100, "tuple_size": 100}
            for a, b in itertools.pairwise(ids)]}
    wide = 10 if name == "T-M2" else 1
    return {"name": name, "operators": [op("source"), op("work", wide), op("sink")],
            "streams": [{"from": "source", "to": "work", "rate": 100, "tuple_size": 100},
                        {"from": "work", "to": "sink", "rate": 100, "tuple_size": 100}]}


def topologies() -> list[tuple[str, dict[str, Any]]]:
    out = [(n, manual(n)) for n in ("T-M1", "T-M2", "T-M3")]
    out += [(f"T-R{k}", ecker_topology(k, cycle=k >= 8)) for k in range(1, 10)]
    return out


def build(app_doc: dict[str, Any], infra_doc: dict[str, Any]) -> Instance:
    return Instance(build_document(Application, app_doc, SourceMap("generated")),
                    build_document(Infrastructure, infra_doc, SourceMap("generated")))


def run(method: str, instance: Instance, limit: float) -> tuple[SolveResult, float]:
    """One timed run; a method that does not apply (a cycle) says so instead of raising."""
    t0 = time.perf_counter()
    result = attempt(get_method(method), instance, SolveOptions(time_limit=limit, seed=0))
    return result, time.perf_counter() - t0


def brute_force_score(instance: Instance) -> float:
    """The least s(x) over every placement inside the 95% rule (tiny topologies only)."""
    ops = instance.app.operators
    workers = [n.id for n in instance.infra.nodes if n.role == "processor"]
    best = float("inf")
    options = [list(itertools.combinations_with_replacement(workers, op.replicas or 1))
               for op in ops]
    for combo in itertools.product(*options):
        plan = Plan.model_validate({"method": "hill-climbing", "placement": {
            op.id: list(c) for op, c in zip(ops, combo, strict=True)}})
        ev = evaluate(instance.app, instance.infra, plan)
        if not ev.violations and ev.ecker is not None:
            best = min(best, ev.ecker.score)
    return best


RUN_SPREAD = 0.02  # hill climbing's own s(x) moves this much between runs here (1.35-1.38)


def fmt(x: float | None, spec: str = ".4f") -> str:
    return "-" if x is None else format(x, spec)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=10.0)
    parser.add_argument("--odrp-limit", type=float, default=30.0)
    args = parser.parse_args()
    workers = ecker_workers(11)
    for method in METHODS:  # warm up imports and caches, so the first row is not penalised
        run(method, build(manual("T-M3"), workers), args.time_limit)

    print("1. runtimes (ms) and scores s(x) on the 11-worker setting; paper's Table 4 in []")
    print(f"{'topology':9} {'inst':>4} {'[paper]':>7}  " + "  ".join(
        f"{m[:14]:>22}" for m in METHODS))
    yardsticks = []
    for name, doc in topologies():
        instance = build(doc, workers)
        paper = PAPER_MS[name]
        cells = []
        results = {}
        for k, method in enumerate(METHODS):
            result, seconds = run(method, instance, args.time_limit)
            results[method] = result
            score = result.evaluation.ecker.score if result.evaluation and \
                result.evaluation.ecker else None
            ref = f"[{paper[k]}]" if k < 4 else ""
            cells.append(f"{seconds * 1000:6.0f}{ref:>7} {fmt(score):>8}")
        size = sum(op.replicas or 1 for op in instance.app.operators)
        print(f"{name:9} {size:>4} {'[' + str(PAPER_SIZE[name]) + ']':>7}  " + "  ".join(cells))
        yardsticks.append((name, instance, results))

    print("\n2. against exact optima")
    print(f"{'topology':9} {'ODRP F*':>9} {'status':>10}  " + "  ".join(
        f"{m[:14]:>14}" for m in METHODS))
    for name, instance, results in yardsticks:
        if build_graph(instance.app).cycle() is not None:
            print(f"{name:9} {'cyclic: ODRP does not apply':>21}")
            continue
        best = get_method("odrp").solve(instance, SolveOptions(time_limit=args.odrp_limit))
        cells = []
        for method in METHODS:
            r = results[method]
            f = r.evaluation.utility.value if r.evaluation and r.evaluation.utility else None
            bad = f is not None and best.bound is not None and f > best.bound + 1e-9
            cells.append(f"{fmt(f):>13}{'!' if bad else ' '}")
        print(f"{name:9} {fmt(best.objective):>9} {best.status.value:>10}  " + "  ".join(cells))
    tm3 = next(inst for name, inst, _ in yardsticks if name == "T-M3")
    scores = {m: r.evaluation.ecker.score for m, r in
              next(res for name, _, res in yardsticks if name == "T-M3").items()
              if r.evaluation and r.evaluation.ecker}
    print(f"T-M3 brute-force minimum of s(x): {brute_force_score(tm3):.6f}; heuristics: "
          + ", ".join(f"{m} {s:.6f}" for m, s in scores.items()))

    print("\n3. scale: 1,000 instances on 200 workers")
    scale = build(ecker_topology(1, operations=667, parallelism=(1, 2), duplicate=False,
                                 demand={"cpu": 0.05, "memory": 64.0}), ecker_workers(200))
    size = sum(op.replicas or 1 for op in scale.app.operators)
    print(f"{size} instances of {len(scale.app.operators)} operations, "
          f"{len(scale.app.streams)} streams")
    print(f"{'method':22} {'seconds':>8} {'status':>9} {'s(x)':>8} {'start s(x)':>10} "
          f"{'R (ms)':>8} {'traffic':>10}")
    scores: dict[str, float | None] = {}
    for method in METHODS:
        result, seconds = run(method, scale, args.time_limit)
        ev = result.evaluation
        score = scores[method] = ev.ecker.score if ev and ev.ecker else None
        start = result.solver.get("start_score")
        r_ms = ev.odrp.response_time * 1000 if ev and ev.odrp else None
        traffic = ev.odrp.traffic if ev and ev.odrp else None
        print(f"{method:22} {seconds:8.2f} {result.status.value:>9} {fmt(score):>8} "
              f"{fmt(start if isinstance(start, float) else None):>10} "
              f"{fmt(r_ms, '.2f'):>8} {fmt(traffic, '.4g'):>10}")
        if method == "hill-climbing":
            verdict = "met" if seconds < 10 else "not met"
            print(f"  goal (hill climbing under 10 s on 1,000 x 200): {verdict}")
    climbed = scores.get("hill-climbing")
    for method in ("ant-system", "hybrid"):
        mine = scores.get(method)
        ok = mine is not None and climbed is not None and mine <= climbed * (1 + RUN_SPREAD)
        ratio = f"{mine / climbed:.3f}x hill climbing's s(x)" if mine and climbed else "no plan"
        print(f"  goal ({method}: a plan in 10 s, no worse than hill climbing within "
              f"{RUN_SPREAD:.0%}, its own spread between runs): {'met' if ok else 'NOT met'} "
              f"({ratio})")


if __name__ == "__main__":
    main()
