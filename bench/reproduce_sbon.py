"""Reproduce Pietzuch et al. 2006, Table 1: network usage (and delay) penalty over the
exhaustive optimum.

A 1,550-node transit-stub topology (networkx, streamplace.model.topologies), 1,000
aggregation queries of 4 producers (2 KB/s each) -> 1 aggregator (8:1) -> 1 consumer,
producers and consumer on random distinct nodes. Every method places each query's
aggregator; penalties are the increase in total network usage over exhaustive's (the
paper's OPTIMAL), and the increase in delay over the direct producer -> consumer route (the
paper's delay penalty). Also: the cost-space embedding error and time per query.

Run: ``python bench/reproduce_sbon.py [--queries 1000] [--seed 0]``.
Goal: relaxation within 15% of the optimum (the paper: 15%).
"""

from __future__ import annotations

import argparse
import random
import time
from collections import defaultdict

from streamplace.io.readers import build_document
from streamplace.model.application import Application
from streamplace.model.costspace import cost_space
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.network import Network
from streamplace.model.source import SourceMap
from streamplace.model.topologies import aggregation_query, transit_stub
from streamplace.solve import Instance, SolveOptions, SolveStatus, get_method

PAPER = {"exhaustive": (0, 13), "relaxation (mapping=nearest)": (15, 24), "producer": (43, 75),
         "consumer": (60, 0), "random": (81, 76)}
RUNS = [("exhaustive", {}), ("relaxation", {"mapping": "nearest"}), ("relaxation", {}),
        ("producer", {}), ("consumer", {}), ("random", {})]


def label(method: str, extra: dict[str, str]) -> str:
    return method + ("" if not extra else " (" + ", ".join(f"{k}={v}" for k, v in
                                                           extra.items()) + ")")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    started = time.perf_counter()
    infra = build_document(Infrastructure, transit_stub(args.seed), SourceMap("transit-stub"))
    network = Network.of(infra)
    ids = [n.id for n in infra.nodes]
    space = cost_space(network)
    print(f"topology: {len(ids)} nodes, {len(infra.links)} links, built and embedded in "
          f"{time.perf_counter() - started:.1f} s")
    print(f"cost space: {space.source}, 3-D, median relative error "
          f"{space.median_error:.1%}, 90th percentile {space.p90_error:.1%} "
          f"({space.pairs_fitted} pairs fitted, {space.pairs_checked} held out)")

    rng = random.Random(args.seed)
    usage: dict[str, float] = defaultdict(float)
    delay_ratio: dict[str, float] = defaultdict(float)
    seconds: dict[str, float] = defaultdict(float)
    failed: dict[str, int] = defaultdict(int)
    done = 0
    for q in range(args.queries):
        doc = aggregation_query(ids, rng, name=f"q{q}")
        app = build_document(Application, doc, SourceMap(f"q{q}"))
        instance = Instance(app, infra)
        direct = max(network.delay(op.candidates[0], doc["operators"][-1]["candidates"][0])
                     for op in app.operators[:4] if op.candidates)
        results = {}
        for method, extra in RUNS:
            t0 = time.perf_counter()
            result = get_method(method).solve(instance, SolveOptions(
                seed=q, params=extra))
            seconds[label(method, extra)] += time.perf_counter() - t0
            results[label(method, extra)] = result
        if any(r.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
               for r in results.values()):
            for name, r in results.items():
                failed[name] += r.status not in (SolveStatus.OPTIMAL, SolveStatus.FEASIBLE)
            continue
        done += 1
        for name, r in results.items():
            assert r.evaluation is not None and r.evaluation.odrp is not None
            usage[name] += r.evaluation.odrp.network_usage
            delay_ratio[name] += r.evaluation.odrp.response_time / direct - 1
        if (q + 1) % 100 == 0:
            print(f"  {q + 1} queries placed, {time.perf_counter() - started:.0f} s")

    optimum = usage["exhaustive"]
    print(f"\n{done} queries; network usage and delay penalty, side by side with the paper")
    print(f"{'method':32} {'usage penalty':>14} {'paper':>6} {'delay penalty':>14} "
          f"{'paper':>6} {'ms/query':>9} {'failed':>7}")
    for method, extra in RUNS:
        name = label(method, extra)
        paper = PAPER.get(name)
        penalty = usage[name] / optimum - 1 if optimum else float("nan")
        delay = delay_ratio[name] / max(done, 1)
        print(f"{name:32} {penalty:>14.1%} {paper[0] if paper else '-':>5}% "
              f"{delay:>14.1%} {paper[1] if paper else '-':>5}% "
              f"{1000 * seconds[name] / max(args.queries, 1):>9.1f} {failed[name]:>7}")
    relaxation = usage["relaxation"] / optimum - 1
    verdict = "met" if relaxation <= 0.15 else "not met"
    print(f"\ngoal (relaxation within 15% of the optimum): {verdict} ({relaxation:.1%}); "
          f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
