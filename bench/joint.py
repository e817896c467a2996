"""Several applications on one edge + cloud infrastructure: the joint program against
placing them one after another in priority order (odrp each, beside those placed before).

Families ``shared edge-cloud``: 4 edge nodes of 2-3 units (speed 0.5-1, availability
0.99-0.995) and 2 cloud nodes (speed 2, availability 0.9999) of 8-12 units (``roomy``) or
4-6 (``tight``: the applications compete for the cloud), delays 2-10 ms
edge-cloud and 1-3 ms within a tier; 2-4 applications, each a chain of 3-5 operators whose
source is pinned to an edge node of its own and whose sink runs in the cloud, weights 1-3 and random
priorities. Balanced weights of the four ODRP terms.

Prints per instance: the applications, F of the joint solve (status, gap, seconds), F in
priority order (or which application it leaves out), and the difference; then the
instance built so that priority order leaves an application out while the joint program
places all. Run: ``python bench/joint.py [--time-limit 20] [--seeds 8]``.
"""

from __future__ import annotations

import argparse
import itertools
import random
import time

from streamplace.io.readers import application_from, infrastructure_from
from streamplace.model.objective import Objective
from streamplace.solve import SolveOptions, get_method
from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.bundle.result import BundleResult
from streamplace.solve.bundle.solve import place_in_priority_order, solve_joint

FAMILIES = {"shared edge-cloud, roomy cloud": (8, 10, 12),
            "shared edge-cloud, tight cloud": (4, 5, 6)}


def shared_instance(seed: int, cloud_units: tuple[int, ...] = (8, 10, 12)) -> BundleInstance:
    rng = random.Random(seed)
    edge = [{"id": f"edge-{k}", "resources": rng.choice([2, 3]),
             "speedup": rng.choice([0.5, 1.0]), "availability": rng.choice([0.99, 0.995])}
            for k in range(4)]
    cloud = [{"id": f"cloud-{k}", "resources": rng.choice(cloud_units), "speedup": 2.0,
              "availability": 0.9999, "cost": 1.0} for k in range(2)]
    nodes = edge + cloud
    links = []
    for i, a in enumerate(nodes):
        for b in nodes[i + 1:]:
            across = a["id"][:4] != b["id"][:4]
            links.append({"from": a["id"], "to": b["id"],
                          "delay": rng.uniform(0.002, 0.010) if across
                          else rng.uniform(0.001, 0.003)})
    infra = infrastructure_from({"name": f"shared-{seed}", "nodes": nodes, "links": links},
                                f"shared-{seed}")
    apps = []
    count = 2 + seed % 3
    sites = rng.sample(edge, count)  # each application's sensors at a site of its own
    for k in range(count):
        length = rng.randint(3, 5)
        rate = rng.uniform(60, 160)
        ops = [{"id": "source", "service_rate": 2000,
                "candidates": [sites[k]["id"]]}]
        for i in range(1, length - 1):
            ops.append({"id": f"op{i}", "service_rate": rng.uniform(0.6, 1.4) * rate,
                        "max_replicas": 3, "cost": rng.choice([1, 2])})
        ops.append({"id": "sink", "latency": 0.003, "candidates": [c["id"] for c in cloud]})
        ids = [op["id"] for op in ops]
        streams = [{"from": a, "to": b, "rate": rate, "tuple_size": rng.choice([100, 500])}
                   for a, b in itertools.pairwise(ids)]
        apps.append(application_from({
            "name": f"app{k}", "operators": ops, "streams": streams,
            "weight": rng.choice([1, 2, 3]), "priority": rng.randint(0, 3)}, f"app{k}"))
    return BundleInstance(tuple(apps), infra, Objective())


def first_comes_first_served() -> BundleInstance:
    """``fast`` (priority 1) alone takes the fast node; ``pinned`` must run there and needs
    all of it: priority order leaves pinned out, the joint program moves fast aside."""
    infra = infrastructure_from({"name": "pair", "nodes": [
        {"id": "n0", "resources": 2, "speedup": 2.0}, {"id": "n1", "resources": 2}],
        "links": [{"from": "n0", "to": "n1", "delay": 0.001}]}, "pair")
    fast = application_from({"name": "fast", "priority": 1, "operators": [
        {"id": "source", "latency": 0.01}]}, "fast")
    pinned = application_from({"name": "pinned", "operators": [
        {"id": "source", "latency": 0.01, "resources": 2, "candidates": ["n0"]}]}, "pinned")
    return BundleInstance((pinned, fast), infra,
                         Objective.model_validate({"weights": {"response_time": 1}}))


def _said(result: BundleResult) -> str:
    if result.objective is None:
        return f"{result.status.value}: {result.message[:70]}"
    gap = f", gap {result.gap * 100:.2g}%" if result.gap is not None else ""
    return f"{result.objective:.4f} ({result.status.value}{gap}, {result.seconds:.1f} s)"


def compare(label: str, joint: BundleInstance,
            time_limit: float) -> tuple[BundleResult, BundleResult]:
    odrp = get_method("odrp")
    started = time.perf_counter()
    together = solve_joint(joint, odrp, SolveOptions(time_limit=time_limit))
    in_order = place_in_priority_order(joint, odrp, SolveOptions(time_limit=time_limit))
    diff = "" if together.objective is None or in_order.objective is None else \
        f"{together.objective - in_order.objective:+.4f}"
    if together.objective is not None and in_order.objective is None:
        diff = "joint places all, priority order does not"
    apps = " ".join(f"{a.name}(w{a.weight:g},p{a.priority},{len(a.operators)})"
                    for a in joint.apps)
    print(f"{label:<22} {apps}")
    print(f"{'':<22} joint    {_said(together)}")
    print(f"{'':<22} priority {_said(in_order)}")
    print(f"{'':<22} joint - priority: {diff or '-'}   ({time.perf_counter() - started:.1f} s)")
    return together, in_order


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--time-limit", type=float, default=20.0)
    parser.add_argument("--seeds", type=int, default=8)
    args = parser.parse_args()
    for family, units in FAMILIES.items():
        print(f"family {family}: joint (odrp, {args.time_limit:g} s) against priority order "
              "(odrp each, the same limit shared)")
        runs = [compare(f"{family.split(', ')[1]} {seed}", shared_instance(seed, units),
                        args.time_limit) for seed in range(args.seeds)]
        both = [(j.objective, p.objective) for j, p in runs
                if j.objective is not None and p.objective is not None]
        rescued = sum(j.objective is not None and p.objective is None for j, p in runs)
        proven = sum(j.status.value == "optimal" for j, _p in runs)
        infeasible = sum(j.status.value == "infeasible" for j, _p in runs)
        below = sum(j < p - 1e-9 for j, p in both)
        better = [j - p for j, p in both if j > p + 1e-9]
        print(f"== {family}: joint proven optimal on {proven} of {len(runs)} (and proven "
              f"infeasible on {infeasible}); below priority "
              f"order on {below}; above it on {len(better)} (by up to "
              f"{max(better, default=0):.4f}); places every application where priority "
              f"order leaves one out on {rescued}\n")
    compare("first come first served", first_comes_first_served(), args.time_limit)


if __name__ == "__main__":
    main()
