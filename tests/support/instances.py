"""The instances tests share, family by family, with the brute force that gives their optima.

Each family's generator makes tiny instances (tens to thousands of plans), small enough to
enumerate: an exact method must hit the brute-forced optimum, a heuristic never beat it.
:data:`BATTERY` (in test_every_method.py) draws on them for every catalogued method.
"""

from __future__ import annotations

import itertools
import math
import random

import networkx as nx

from streamplace.model.evaluate import evaluate
from streamplace.model.generate import benoit_instance
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.solve import Instance
from streamplace.solve.benoit.data import group_needs, handles, tree_data

from ..conftest import make_app, make_infra, make_plan

# ------------------------------------------------------------------ ODRP

METRICS = ("traffic", "network_usage", "elastic_energy")


def random_instance(seed: int) -> Instance:
    """3 nodes, a pinned source and sink, 2-3 replicable operators: 80-800 plans."""
    rng = random.Random(seed)
    n_nodes = 3
    nodes = [{"id": f"n{u}", "resources": rng.choice([3, 4, 5]),
              "speedup": rng.choice([1.0, 1.5, 2.0]),
              "availability": rng.choice([0.97, 0.99, 1.0])} for u in range(n_nodes)]
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": rng.uniform(0.002, 0.03),
              "availability": rng.choice([0.98, 1.0]), "cost": rng.choice([0.0, 0.002])}
             for u in range(n_nodes) for v in range(u + 1, n_nodes)]
    middle = rng.choice([2, 3])
    cap = 3 if middle == 2 else 2
    ops = [{"id": "src", "service_rate": rng.uniform(60, 120), "candidates": ["n0"]}]
    for i in range(1, middle + 1):
        ops.append({"id": f"op{i}", "service_rate": rng.uniform(22, 70),
                    "max_replicas": cap, "cost": rng.choice([1, 2])})
    ops.append({"id": "sink", "latency": 0.004, "candidates": [f"n{n_nodes - 1}"]})
    ids = [o["id"] for o in ops]
    streams = [{"from": a, "to": b, "rate": rng.uniform(20, 50),
                "tuple_size": rng.choice([10, 100])} for a, b in itertools.pairwise(ids)]
    if rng.random() < 0.5:
        streams.append({"from": "src", "to": "op2", "rate": 5, "tuple_size": 50})
    weights = {t: rng.choice([0.0, 0.5, 1.0]) for t in
               ("response_time", "availability", "cost", "network")}
    if not any(weights.values()):
        weights["response_time"] = 1.0
    objective = Objective.model_validate({"weights": weights,
                                          "network_metric": METRICS[seed % 3]})
    return Instance(make_app({"name": f"r{seed}", "operators": ops, "streams": streams}),
                    make_infra({"name": "i", "nodes": nodes, "links": links}), objective)


def spread_instance(seed: int) -> Instance:
    """3 nodes of 2 slots, operators needing 2-3 replicas (k = 3): an optimum must spread
    replicas over nodes, which the random battery above rarely forces."""
    rng = random.Random(1000 + seed)
    nodes = [{"id": f"n{u}", "resources": 2, "speedup": rng.choice([1.0, 1.5]),
              "availability": rng.choice([0.98, 0.995, 1.0])} for u in range(3)]
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": rng.uniform(0.002, 0.02),
              "cost": rng.choice([0.0, 0.001])}
             for u in range(3) for v in range(u + 1, 3)]
    ops = [{"id": "src", "service_rate": 500, "candidates": ["n0"]},
           {"id": "heavy", "service_rate": rng.uniform(21, 30), "max_replicas": 3},
           {"id": "light", "service_rate": rng.uniform(45, 70), "max_replicas": 3},
           {"id": "sink", "latency": 0.002, "candidates": ["n2"]}]
    streams = [{"from": a, "to": b, "rate": 50, "tuple_size": 100}
               for a, b in itertools.pairwise([o["id"] for o in ops])]
    weights = [{"response_time": 1.0}, {"response_time": 1.0, "cost": 1.0},
               {"response_time": 0.5, "availability": 0.5, "network": 1.0}][seed % 3]
    return Instance(make_app({"name": f"spread{seed}", "operators": ops,
                              "streams": streams}),
                    make_infra({"name": "three", "nodes": nodes, "links": links}),
                    Objective.model_validate({"weights": weights}))


def two_sinks_instance(seed: int) -> Instance:
    """A pinned source and two sinks pinned far apart, a chain of two replicable
    operators feeding both: R is the farther sink's path, which an LP that averages over
    an operator's nodes halves by keeping it half near each sink."""
    rng = random.Random(2000 + seed)
    nodes = [{"id": f"n{u}", "resources": rng.choice([2, 3]),
              "speedup": rng.choice([1.0, 1.5]),
              "availability": rng.choice([0.99, 1.0])} for u in range(4)]
    # n3 is a hub near the source; n1 and n2, where the sinks are, lie far apart
    far = rng.uniform(0.03, 0.06)
    delay = {(0, 1): rng.uniform(0.01, 0.03), (0, 2): rng.uniform(0.01, 0.03), (1, 2): far,
             (0, 3): rng.uniform(0.002, 0.01), (1, 3): rng.uniform(0.01, 0.03),
             (2, 3): rng.uniform(0.01, 0.03)}
    links = [{"from": f"n{u}", "to": f"n{v}", "delay": d} for (u, v), d in delay.items()]
    ops = [{"id": "src", "service_rate": 200, "candidates": ["n0"]},
           {"id": "a", "service_rate": rng.uniform(25, 60), "max_replicas": 2},
           {"id": "b", "service_rate": rng.uniform(25, 60), "max_replicas": 2},
           {"id": "east", "latency": 0.002, "candidates": ["n1"]},
           {"id": "west", "latency": 0.002, "candidates": ["n2"]}]
    streams = [{"from": x, "to": y, "rate": 20, "tuple_size": 100}
               for x, y in (("src", "a"), ("a", "b"), ("b", "east"), ("b", "west"))]
    weights = [{"response_time": 1.0}, {"response_time": 1.0, "availability": 0.5},
               {"response_time": 1.0, "network": 0.5}][seed % 3]
    return Instance(make_app({"name": f"two-sinks{seed}", "operators": ops,
                              "streams": streams}),
                    make_infra({"name": "four", "nodes": nodes, "links": links}),
                    Objective.model_validate({"weights": weights}))


def one_way_instance(seed: int) -> Instance:
    """Two sources and two sinks pinned apart on a network whose links differ by direction
    and break the triangle inequality: an edge node reaches the cloud sooner through
    another edge node than directly, and each link is slower one way than the other. A
    bound that took a hop the wrong way, or straight past the operators between, would
    cut off plans here."""
    rng = random.Random(3000 + seed)
    nodes = [{"id": f"e{u}", "resources": rng.choice([2, 3]),
              "availability": rng.choice([0.99, 1.0])} for u in range(3)]
    nodes.append({"id": "cloud", "resources": 4, "speedup": 2.0, "availability": 0.9999})
    one_way = {("e0", "e1"): rng.uniform(0.002, 0.006),
               ("e1", "e2"): rng.uniform(0.002, 0.006),
               ("e0", "e2"): rng.uniform(0.004, 0.012), ("e0", "cloud"): rng.uniform(0.04, 0.06),
               ("e1", "cloud"): rng.uniform(0.008, 0.015),
               ("e2", "cloud"): rng.uniform(0.015, 0.03)}
    links = []
    for (u, v), d in one_way.items():
        back = d * rng.uniform(0.3, 3.0)
        links += [{"from": u, "to": v, "delay": d, "bidirectional": False},
                  {"from": v, "to": u, "delay": back, "bidirectional": False}]
    ops = [{"id": "camera", "service_rate": 200, "candidates": ["e0"]},
           {"id": "meter", "service_rate": 200, "candidates": ["e1"]},
           {"id": "a", "service_rate": rng.uniform(45, 90), "max_replicas": 2},
           {"id": "b", "service_rate": rng.uniform(45, 90), "max_replicas": 2},
           {"id": "edge", "latency": 0.002, "candidates": ["e2"]},
           {"id": "store", "latency": 0.002, "candidates": ["cloud"]}]
    streams = [{"from": x, "to": y, "rate": 20, "tuple_size": 100}
               for x, y in (("camera", "a"), ("meter", "a"), ("a", "b"), ("b", "edge"),
                            ("b", "store"))]
    weights = [{"response_time": 1.0}, {"response_time": 1.0, "availability": 0.5},
               {"response_time": 1.0, "network": 0.5}][seed % 3]
    return Instance(make_app({"name": f"one-way{seed}", "operators": ops,
                              "streams": streams}),
                    make_infra({"name": "one-way", "nodes": nodes, "links": links}),
                    Objective.model_validate({"weights": weights}))


# ------------------------------------------------------------------ Benoit (trees)

def tiny_tree(seed: int, constr: bool) -> Instance:
    rng = random.Random(seed)
    n = rng.choice([3, 4, 5])
    app, infra = benoit_instance(n, alpha=rng.choice([1.5, 1.7, 1.9]), n_types=3,
                                 n_servers=2, seed=seed)
    infra["defaults"]["link"]["bandwidth"] = rng.choice([5e7, 2e8, 1e9])
    for node in infra["nodes"]:
        node["bandwidth"] = rng.choice([4e7, 1e8, 1e10])
    if constr:
        infra["catalog"] = rng.sample(infra["catalog"], 6)
    else:
        del infra["catalog"]
        infra["nodes"] += [{"id": f"q{j}", "speed": rng.choice([8e9, 2e10, 4e10]),
                            "bandwidth": rng.choice([1e8, 3e8]), "cost": rng.choice([3, 5, 8])}
                           for j in range(3)]
    return Instance(make_app(app), make_infra(infra))


def partitions(items: list[str]):
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for k in range(len(part)):
            yield [*part[:k], [first, *part[k]], *part[k + 1:]]
        yield [[first], *part]


def download_choices(instance: Instance, hosts: dict[str, list[str]]):
    data = tree_data(instance, need_catalog=False)
    needs = [(node, k) for node, ops in hosts.items()
             for k in sorted({k for o in ops for k in data.objects[o]})]
    for servers in itertools.product(*(data.holders[k] for _, k in needs)):
        yield [{"node": n, "object": k, "server": s}
               for (n, k), s in zip(needs, servers, strict=True)]


def cheapest_platform(instance: Instance) -> float | None:
    data = tree_data(instance, need_catalog=False)
    best = None
    if instance.infra.catalog:
        for part in partitions(list(data.ops)):
            classes = []
            for block in part:
                need = group_needs(data, set(block))
                cls = next((c for c in data.classes if handles(c, *need)), None)
                classes.append(cls)
            if None in classes:
                continue
            cost = sum(c.cost for c in classes)
            if best is not None and cost >= best:
                continue
            hosts = {f"b{j}": block for j, block in enumerate(part)}
            for downloads in download_choices(instance, hosts):
                plan = Plan.model_validate({
                    "placement": {o: {f"b{j}": 1} for j, b in enumerate(part) for o in b},
                    "purchased": [{"id": f"b{j}", "class": c.id}
                                  for j, c in enumerate(classes)],
                    "downloads": downloads})
                if not evaluate(instance.app, instance.infra, plan).violations:
                    best = cost
                    break
        return best
    procs = [n.id for n in instance.infra.nodes if n.role == "processor"]
    for combo in itertools.product(procs, repeat=len(data.ops)):
        hosts: dict[str, list[str]] = {}
        for op, p in zip(data.ops, combo, strict=True):
            hosts.setdefault(p, []).append(op)
        cost = sum(instance.infra.node(p).cost for p in hosts)
        if best is not None and cost >= best:
            continue
        for downloads in download_choices(instance, hosts):
            plan = Plan.model_validate({"placement": {o: {p: 1} for o, p in
                                                      zip(data.ops, combo, strict=True)},
                                        "downloads": downloads})
            if not evaluate(instance.app, instance.infra, plan).violations:
                best = cost
                break
    return best


def two_operator_tree(work: float, leaf_output: float, card: float) -> Instance:
    """A leaf feeding the root, one server, one catalog class of cost 1 and speed 1e10."""
    app = make_app({"name": "t", "throughput": 1, "operators": [
        {"id": "root", "work": work, "output_size": 1},
        {"id": "leaf", "work": work, "output_size": leaf_output}],
        "streams": [{"from": "leaf", "to": "root"}]})
    infra = make_infra({"name": "i", "nodes": [{"id": "s", "role": "server"}],
                        "catalog": [{"id": "only", "cost": 1, "speed": 1e10,
                                     "bandwidth": card}]})
    return Instance(app, infra)


# ------------------------------------------------------------------ path mapping

MAX_NULL = 2


def bimodal_instance(seed: int, nodes: int = 9, services: int = 4,
                     free_links: bool = False) -> Instance:
    """A Barabasi-Albert platform (as sec. 4.2's BRITE topologies) of dedicated links,
    a few opportunistic links, and a random path task. With ``free_links`` no link costs
    anything, so every map ties on cost and sec. 4.3's tie-breaks decide."""
    rng = random.Random(seed)
    price = 0.0 if free_links else 1.0
    graph = nx.barabasi_albert_graph(nodes, 2, seed=seed)
    infra = {"name": "ba", "routing": "shortest-path",
             "nodes": [{"id": f"n{u}", "resources": rng.choice([2, 3, 4]),
                        "load": rng.choice([0.0, 0.2, 0.5]),
                        "bandwidth": rng.choice([3e4, 1e5])} for u in graph.nodes],
             "links": [{"from": f"n{a}", "to": f"n{b}", "delay": 0.01,
                        "cost": price * round(rng.uniform(1, 5), 2) * 1e-4,
                        "bandwidth": rng.choice([2e4, 5e4, 1e5])} for a, b in graph.edges]}
    pairs = [(a, b) for a in graph.nodes for b in graph.nodes
             if a < b and not graph.has_edge(a, b)]
    for a, b in rng.sample(pairs, min(6, len(pairs))):
        infra["links"].append({"from": f"n{a}", "to": f"n{b}", "delay": 0.05,
                               "cost": price * round(rng.uniform(2, 8), 2) * 1e-4,
                               "kind": "opportunistic"})
    ids = [f"n{u}" for u in graph.nodes]
    ops = [{"id": "src", "candidates": [rng.choice(ids)]}]
    ops += [{"id": f"t{k}", "candidates": sorted(rng.sample(ids, 3)),
             "resources": rng.choice([1, 2])} for k in range(services - 2)]
    ops.append({"id": "dst", "candidates": [rng.choice(ids)]})
    streams = [{"from": a["id"], "to": b["id"], "rate": 100,
                "tuple_size": rng.choice([100, 200, 300])} for a, b in itertools.pairwise(ops)]
    return Instance(make_app({"name": "task", "operators": ops, "streams": streams}),
                    make_infra(infra))


def hop_routes(instance: Instance, u: str, v: str) -> list[list[str]]:
    """Every route for one hop, straight from the infrastructure: simple dedicated paths
    with at most MAX_NULL nodes between, or the one opportunistic link."""
    if u == v:
        return [[]]
    dedicated = nx.DiGraph()
    out = []
    for link in instance.infra.links:
        if link.kind == "dedicated":
            dedicated.add_edge(link.source, link.target)
            dedicated.add_edge(link.target, link.source)
        elif {link.source, link.target} == {u, v}:
            out.append([u, v])
    if u in dedicated and v in dedicated:
        out += [list(p) for p in nx.all_simple_paths(dedicated, u, v, cutoff=MAX_NULL + 1)]
    return out


def every_path_plan(instance: Instance):
    """(cost, load balance, dedicated, public, plan placement) of every feasible plan."""
    ops = [op.id for op in instance.app.operators]
    found = []
    for nodes in itertools.product(*(instance.app.operator(o).candidates for o in ops)):
        options = [hop_routes(instance, a, b) for a, b in itertools.pairwise(nodes)]
        for routes in itertools.product(*options):
            plan = make_plan({"model": "path", "placement": {
                o: {u: 1} for o, u in zip(ops, nodes, strict=True)}, "routes": [
                {"stream": [ops[i], ops[i + 1]], "from": r[0], "to": r[-1], "path": r}
                for i, r in enumerate(routes) if r]}, instance.app, instance.infra)
            ev = evaluate(instance.app, instance.infra, plan)
            if not ev.violations:
                p = ev.paths
                found.append((p.cost, p.load_balance, p.dedicated_hops, p.public_hops, nodes))
    return found


def rank(cost: float, balance: float, dedicated: int, public: int) -> tuple:
    """Sec. 4.3's order, written out here on its own: cost, then the load-balance factor in
    bands of 0.1, more dedicated hops, fewer public hops."""
    return (round(cost, 12), math.floor(balance / 0.1), -dedicated, public)


# ------------------------------------------------------------------ SBON

def sbon_instances():
    for seed in range(6):
        rng = random.Random(seed)
        doc = {"name": "tiny", "routing": "shortest-path",
               "nodes": [{"id": f"n{k}", "resources": rng.choice([1, 2, 3])} for k in range(5)],
               "links": [{"from": f"n{a}", "to": f"n{b}", "delay": rng.uniform(0.001, 0.05)}
                         for a in range(5) for b in range(a + 1, 5)
                         if b == a + 1 or rng.random() < 0.6]}  # a connected ring-ish mesh
        app_ = {"name": "q", "operators": [
            {"id": "p0", "candidates": ["n0"]}, {"id": "p1", "candidates": ["n4"]},
            {"id": "a", "replicas": rng.choice([1, 2])}, {"id": "b"},
            {"id": "c", "candidates": [f"n{rng.randrange(5)}"]}],
            "streams": [{"from": "p0", "to": "a", "rate": rng.uniform(1, 10)},
                        {"from": "p1", "to": "a", "rate": rng.uniform(1, 10)},
                        {"from": "a", "to": "b", "rate": rng.uniform(1, 10)},
                        {"from": "p1", "to": "b", "rate": rng.uniform(1, 10)},
                        {"from": "b", "to": "c", "rate": rng.uniform(1, 10)}]}
        yield seed, Instance(make_app(app_), make_infra(doc))
