"""In-network operator trees (Benoit et al. 2008, sec. 2.3; docs/models.md sec. 3):
constraints (1)-(5), cost.

With rho the application throughput and a(i) the processor of operator i:
(1) compute: sum_{i on u} rho * w_i / s_u <= 1;
(2) processor card: object downloads + rho * delta for every tree edge cut at u <= Bp_u;
(3) server card: object rates served by l <= Bs_l;
(4) server-processor link: object rates from l to u <= bs_(l,u);
(5) processor-processor link: rho * delta over tree edges between u and v <= bp_(u,v),
    shared by both directions.
A tree edge is a stream child -> parent carrying rho * delta_child bytes/s (the child's
``output_size``; the stream's own bytes/s when the child has none).
"""

from __future__ import annotations

from collections import defaultdict

from streamplace.model.evaluate.constraints import over
from streamplace.model.evaluate.report import BenoitMetrics, Subject, Usage, Violation
from streamplace.model.graph import AppGraph
from streamplace.model.network import Network
from streamplace.model.plan import Plan


def benoit_evaluation(graph: AppGraph, network: Network,
                      plan: Plan) -> tuple[BenoitMetrics, list[Violation], list[str]]:
    app = graph.app
    assert app.throughput is not None
    rho = app.throughput
    nodes = network.nodes
    violations: list[Violation] = []
    warnings: list[str] = []
    where: dict[str, str] = {}
    for op in app.operators:
        reps = plan.replicas(op.id)
        if sum(reps.values()) > 1:
            violations.append(Violation("benoit.single_processor", Subject("operator", (op.id,)),
                                        f"{op.id} has {sum(reps.values())} replicas; each "
                                        "operator runs on exactly one processor"))
        if reps:
            where[op.id] = next(iter(reps))
    used = sorted(set(where.values()))

    compute: dict[str, float] = defaultdict(float)
    card: dict[str, float] = defaultdict(float)
    for op in app.operators:
        if op.id in where:
            compute[where[op.id]] += rho * op.work / nodes[where[op.id]].speed      # (1)
    proc_link: dict[tuple[str, str], float] = defaultdict(float)
    for s in graph.streams:
        u, v = where.get(s.source), where.get(s.target)
        if u is None or v is None or u == v:
            continue
        size = app.operator(s.source).output_size
        volume = rho * size if size is not None else s.bytes_per_s
        card[u] += volume                                                           # (2)
        card[v] += volume
        proc_link[(min(u, v), max(u, v))] += volume                                 # (5)

    server_card: dict[str, float] = defaultdict(float)
    server_link: dict[tuple[str, str], float] = defaultdict(float)
    objects = {o.id: o for o in app.objects}
    needed = {(u, k) for op_id, u in where.items() for k in app.operator(op_id).objects}
    given: dict[tuple[str, str], str] = {}
    for d in plan.downloads:
        key = (d.node, d.object)
        if key in given:
            violations.append(Violation("benoit.download_duplicate", Subject("node", (d.node,)),
                                        f"{d.node} downloads {d.object} twice"))
            continue
        given[key] = d.server
        if key not in needed:
            warnings.append(f"{d.node} downloads {d.object}, which none of its operators needs")
        server = nodes[d.server]
        if server.role != "server" or d.object not in server.objects:
            violations.append(Violation("benoit.download_server", Subject("node", (d.node,)),
                                        f"{d.server} does not hold {d.object}"))
        rate = objects[d.object].rate
        card[d.node] += rate                                                        # (2)
        server_card[d.server] += rate                                               # (3)
        server_link[(d.server, d.node)] += rate                                     # (4)
    for u, k in sorted(needed - set(given)):
        violations.append(Violation("benoit.download_missing", Subject("node", (u,)),
                                    f"{u} needs object {k} but downloads it from no server"))

    compute_use = [Usage(Subject("node", (u,)), compute[u], 1.0) for u in used]
    card_use = [Usage(Subject("node", (u,)), card[u], nodes[u].bandwidth) for u in used]
    server_use = [Usage(Subject("node", (s,)), load, nodes[s].bandwidth)
                  for s, load in sorted(server_card.items())]
    slink_use = [Usage(Subject("server link", pair), load, network.link(*pair).bandwidth)
                 for pair, load in sorted(server_link.items())]
    plink_use = [Usage(Subject("processors", pair), load, network.link(*pair).bandwidth)
                 for pair, load in sorted(proc_link.items())]
    for name, rows, what in (("benoit.compute", compute_use, "compute (1)"),
                             ("benoit.processor_card", card_use, "network card (2)"),
                             ("benoit.server_card", server_use, "server card (3)"),
                             ("benoit.server_link", slink_use, "server link (4)"),
                             ("benoit.processor_link", plink_use, "processor link (5)")):
        for row in rows:
            if over(row.used, row.capacity):
                violations.append(Violation(name, row.subject,
                                            f"{' - '.join(row.subject.ids)}: {what} needs "
                                            f"{row.used:g}, "
                                            f"has {row.capacity:g}", row.used - row.capacity))

    purchased = {p.id: p.class_ for p in plan.purchased}
    if network.infra.catalog:
        mode = "constr"
        cost = sum(nodes[p].cost for p in purchased)
        for p in sorted(set(purchased) - set(used)):
            warnings.append(f"processor {p} is bought but runs no operator")
    else:
        mode = "non-constr"
        cost = sum(nodes[u].cost for u in used)
    metrics = BenoitMetrics(mode, cost, rho, used, purchased, compute_use, card_use, server_use,
                            slink_use, plink_use)
    return metrics, violations, warnings


