"""Random instances for in-network operator trees, following Benoit et al. 2008, sec. 7.2.

Binary trees of N operators whose leaves are basic objects of 15 types; small objects of
5-30 MB or big ones of 450-530 MB; downloads every 50 s or every 2 s; computation
w = (delta_l + delta_r)^alpha and output size delta = (delta_l + delta_r)^beta (beta = 1)
over the two children; rho = 1; 6 servers with 10 GB/s cards holding the object types at
random; every link 1 GB/s; the Dell PowerEdge R900 catalog of Table 1.

The paper does not state the unit of w; here w = ((delta_l + delta_r) / 1 MB)^alpha *
``work_scale`` operations, with ``work_scale`` = 1e6 by default, so that alpha decides whether
compute or bandwidth limits the platform, as in the paper's figures.
"""

from __future__ import annotations

import random
from typing import Any

MB = 1e6
R900_CPUS = ((11.72, 0), (19.20, 1550), (25.60, 2399), (38.40, 3949), (46.88, 5299))
R900_CARDS = ((1, 0), (2, 399), (4, 1197), (10, 2800), (20, 5999))
R900_BASE = 7548


def dell_catalog() -> list[dict[str, Any]]:
    """Table 1 of Benoit et al. 2008: base $7,548 plus processor and network card increments."""
    return [{"id": f"r900-{ghz:.2f}ghz-{gbps}gbps", "cost": R900_BASE + cpu_cost + card_cost,
             "speed": ghz * 1e9, "bandwidth": gbps * 1e9 / 8}
            for ghz, cpu_cost in R900_CPUS for gbps, card_cost in R900_CARDS]


def benoit_instance(n_ops: int, *, alpha: float = 0.9, big_objects: bool = False,
                    download_every: float = 2.0, n_types: int = 15, n_servers: int = 6,
                    work_scale: float = 1e6, seed: int = 0,
                    ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(application, infrastructure) documents for a random tree of ``n_ops`` operators.

    >>> app, infra = benoit_instance(5, seed=1)
    >>> len(app["operators"]), len(app["streams"]), len(infra["catalog"])
    (5, 4, 25)
    """
    rng = random.Random(seed)
    low, high = (450 * MB, 530 * MB) if big_objects else (5 * MB, 30 * MB)
    types: list[dict[str, Any]] = [{"id": f"o{k + 1}", "size": round(rng.uniform(low, high)),
              "frequency": 1.0 / download_every} for k in range(n_types)]
    # grow a binary tree: every operator has two child slots, filled by operators until
    # there are n_ops of them, then by objects
    children: dict[int, list[int | str]] = {0: []}
    open_slots = [0, 0]
    made = 1
    while made < n_ops:
        where = open_slots.pop(rng.randrange(len(open_slots)))
        children[where].append(made)
        children[made] = []
        open_slots += [made, made]
        made += 1
    for where in open_slots:
        children[where].append(rng.choice(types)["id"])
    size = {t["id"]: float(t["size"]) for t in types}
    delta: dict[int, float] = {}
    work: dict[int, float] = {}
    for op in sorted(children, reverse=True):  # children have larger numbers
        sizes = [delta[c] if isinstance(c, int) else size[c] for c in children[op]]
        delta[op] = sum(sizes)
        work[op] = (sum(sizes) / MB) ** alpha * work_scale
    operators: list[dict[str, Any]] = [
        {"id": f"n{op}", "work": round(work[op], 1), "output_size": round(delta[op]),
                  "objects": [c for c in children[op] if isinstance(c, str)]}
                 for op in sorted(children)]
    streams = [{"from": f"n{c}", "to": f"n{op}"} for op in sorted(children)
               for c in children[op] if isinstance(c, int)]
    used = sorted({o for op in operators for o in op["objects"]})
    app = {"name": f"benoit-{n_ops}-a{alpha:g}-s{seed}", "throughput": 1.0,
           "operators": operators, "streams": streams,
           "objects": [t for t in types if t["id"] in used]}
    holders: dict[str, list[str]] = {f"s{j + 1}": [] for j in range(n_servers)}
    for t in types:
        for server in rng.sample(sorted(holders), k=rng.randint(1, min(3, n_servers))):
            holders[server].append(t["id"])
    infra = {"name": f"benoit-{n_servers}-servers",
             "nodes": [{"id": s, "role": "server", "bandwidth": 10e9, "objects": objs}
                       for s, objs in holders.items()],
             "defaults": {"link": {"bandwidth": 1e9}},
             "catalog": dell_catalog()}
    return app, infra
