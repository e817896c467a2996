"""Semantic checks after parsing: references resolve, ids are unique, files fit together.

Each check returns every problem it finds (never just the first), located in its file.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from streamplace.errors import Problem
from streamplace.model.application import Application
from streamplace.model.fields import DEFAULT_DIMENSION
from streamplace.model.graph import resolve_rates
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.plan import Plan


def _duplicates(ids: Iterable[str]) -> set[str]:
    return {k for k, n in Counter(ids).items() if n > 1}


def check_application(app: Application) -> list[Problem]:
    problems: list[Problem] = []
    op_ids = set(app.operator_ids)
    for dup in _duplicates(app.operator_ids):
        where = [i for i, op in enumerate(app.operators) if op.id == dup][1]
        problems.append(app.problem(f"operators[{where}].id", f"duplicate operator id {dup!r}",
                                    "give every operator its own id"))
    object_ids = {o.id for o in app.objects}
    for dup in _duplicates(o.id for o in app.objects):
        where = [i for i, o in enumerate(app.objects) if o.id == dup][1]
        problems.append(app.problem(f"objects[{where}].id", f"duplicate object id {dup!r}",
                                    "give every object its own id"))
    for i, op in enumerate(app.operators):
        for k, obj in enumerate(op.objects):
            if obj not in object_ids:
                problems.append(app.problem(
                    f"operators[{i}].objects[{k}]", f"unknown object {obj!r}",
                    f"define it under objects, or use one of {sorted(object_ids) or 'none'}"))
        if op.candidates is not None:
            for dup in _duplicates(op.candidates):
                problems.append(app.problem(f"operators[{i}].candidates",
                                            f"candidate {dup!r} is listed twice",
                                            "list each node once"))
    seen: dict[tuple[str, str], int] = {}
    for j, s in enumerate(app.streams):
        for end, value in (("from", s.source), ("to", s.target)):
            if value not in op_ids:
                problems.append(app.problem(f"streams[{j}].{end}", f"unknown operator {value!r}",
                                            _suggest(value, op_ids, "operator")))
        if s.source == s.target:
            problems.append(app.problem(f"streams[{j}]", f"stream from {s.source!r} to itself",
                                        "remove it; an operator does not stream to itself"))
        if (s.source, s.target) in seen:
            problems.append(app.problem(
                f"streams[{j}]", f"second stream {s.source} -> {s.target} "
                f"(first is streams[{seen[(s.source, s.target)]}])",
                "merge them into one stream whose rate is their sum"))
        seen.setdefault((s.source, s.target), j)
    if not problems:
        problems += resolve_rates(app)[2]
    return problems


def application_warnings(app: Application) -> list[str]:
    """What is allowed but probably not meant: operators no stream touches, and parts of
    the application with no stream between them."""
    if len(app.operators) < 2:
        return []
    parent = {op: op for op in app.operator_ids}

    def root(op: str) -> str:
        while parent[op] != op:
            parent[op] = op = parent[parent[op]]
        return op

    touched: set[str] = set()
    for s in app.streams:
        if s.source in parent and s.target in parent:
            touched.update((s.source, s.target))
            parent[root(s.source)] = root(s.target)
    isolated = [op for op in app.operator_ids if op not in touched]
    warnings = [f"operator {op} has no stream: nothing flows to or from it" for op in isolated]
    members: dict[str, list[str]] = {}
    for op in touched:
        members.setdefault(root(op), []).append(op)
    parts = [sorted(c) for c in members.values()]
    if len(parts) + len(isolated) > 1 and len(parts) > 1:
        listed = "; ".join("{" + ", ".join(part[:4]) + (", ..." if len(part) > 4 else "") + "}"
                           for part in sorted(parts))
        warnings.append(f"the application has {len(parts)} parts with no stream between "
                        f"them ({listed}): its response time is the slowest part's")
    return warnings


def check_infrastructure(infra: Infrastructure) -> list[Problem]:
    problems: list[Problem] = []
    node_ids = [n.id for n in infra.nodes]
    known = set(node_ids)
    for dup in _duplicates(node_ids):
        where = [i for i, n in enumerate(infra.nodes) if n.id == dup][1]
        problems.append(infra.problem(f"nodes[{where}].id", f"duplicate node id {dup!r}",
                                      "give every node its own id"))
    for i, c in enumerate(infra.catalog):
        if c.id in known:
            problems.append(infra.problem(f"catalog[{i}].id",
                                          f"class id {c.id!r} is also a node id",
                                          "rename the class or the node"))
    for dup in _duplicates(c.id for c in infra.catalog):
        problems.append(infra.problem("catalog", f"duplicate class id {dup!r}",
                                      "give every class its own id"))
    if not infra.processors and not infra.catalog:
        problems.append(infra.problem("nodes", "no node has role processor",
                                      "mark the nodes that run operators role: processor"))
    dims = {len(n.coordinates) for n in infra.nodes if n.coordinates is not None}
    if len(dims) > 1:
        problems.append(infra.problem("nodes", f"coordinates have mixed dimensions {sorted(dims)}",
                                      "give every node coordinates of the same length"))
    for i, n in enumerate(infra.nodes):
        if n.objects and n.role != "server":
            problems.append(infra.problem(f"nodes[{i}].objects",
                                          f"node {n.id!r} holds objects but is a {n.role}",
                                          "set role: server, or remove its objects"))
    seen: dict[tuple[str, str], int] = {}
    for j, link in enumerate(infra.links):
        for end, value in (("from", link.source), ("to", link.target)):
            if value not in known:
                problems.append(infra.problem(f"links[{j}].{end}", f"unknown node {value!r}",
                                              _suggest(value, known, "node")))
        if link.source == link.target:
            problems.append(infra.problem(f"links[{j}]", f"link from {link.source!r} to itself",
                                          "remove it; a node reaches itself on a perfect link"))
        keys = [(link.source, link.target)]
        if link.bidirectional:
            keys.append((link.target, link.source))
        for key in keys:
            if key in seen and seen[key] != j:
                problems.append(infra.problem(
                    f"links[{j}]", f"link {key[0]} -> {key[1]} is also given by links[{seen[key]}]",
                    "keep one link per direction (bidirectional: true covers both)"))
                break
        for key in keys:
            seen.setdefault(key, j)
    return problems


def check_compatible(app: Application, infra: Infrastructure) -> list[Problem]:
    """Problems of the application with respect to this infrastructure."""
    problems: list[Problem] = []
    roles = {n.id: n.role for n in infra.nodes}
    for i, op in enumerate(app.operators):
        for k, cand in enumerate(op.candidates or []):
            if cand not in roles:
                problems.append(app.problem(f"operators[{i}].candidates[{k}]",
                                            f"unknown node {cand!r} in {infra.name!r}",
                                            _suggest(cand, set(roles), "node")))
            elif roles[cand] != "processor":
                problems.append(app.problem(f"operators[{i}].candidates[{k}]",
                                            f"node {cand!r} is a {roles[cand]}, not a processor",
                                            "pick processor nodes only"))
    declared = [set(n.resources) for n in infra.nodes if n.resources is not None]
    declared += [set(c.resources) for c in infra.catalog if c.resources is not None]
    if declared:
        known_dims = set().union(*declared)
        for i, op in enumerate(app.operators):
            for dim in op.resources:
                if dim not in known_dims:
                    shown = "a plain number" if dim == DEFAULT_DIMENSION else repr(dim)
                    problems.append(app.problem(
                        f"operators[{i}].resources",
                        f"resource {shown} is not declared by any node "
                        f"(nodes declare {', '.join(sorted(known_dims))})",
                        "use the same resource names on operators and nodes"))
    return problems


def check_plan(plan: Plan, app: Application, infra: Infrastructure) -> list[Problem]:
    """Reference problems of a plan (unknown ids); constraint violations are the evaluator's."""
    problems: list[Problem] = []
    op_ids = set(app.operator_ids)
    class_ids = {c.id for c in infra.catalog}
    bought: set[str] = set()
    for i, p in enumerate(plan.purchased):
        if not infra.catalog:
            problems.append(plan.problem(f"purchased[{i}]",
                                         f"{infra.name!r} has no catalog to buy from",
                                         "remove purchased, or add a catalog to the "
                                         "infrastructure"))
        elif p.class_ not in class_ids:
            problems.append(plan.problem(f"purchased[{i}].class", f"unknown class {p.class_!r}",
                                         _suggest(p.class_, class_ids, "class")))
        if p.id in {n.id for n in infra.nodes} or p.id in bought:
            problems.append(plan.problem(f"purchased[{i}].id", f"id {p.id!r} is already taken",
                                         "give every bought processor a new id"))
        bought.add(p.id)
    nodes = {n.id for n in infra.nodes} | bought
    for op_id, multiset in plan.placement.items():
        if op_id not in op_ids:
            problems.append(plan.problem(f"placement.{op_id}", f"unknown operator {op_id!r}",
                                         _suggest(op_id, op_ids, "operator")))
        for node in multiset:
            if node not in nodes:
                problems.append(plan.problem(f"placement.{op_id}.{node}", f"unknown node {node!r}",
                                             _suggest(node, nodes, "node")))
    objects = {o.id for o in app.objects}
    for i, d in enumerate(plan.downloads):
        for key, value, pool, kind in (("node", d.node, nodes, "node"),
                                       ("object", d.object, objects, "object"),
                                       ("server", d.server, nodes, "node")):
            if value not in pool:
                problems.append(plan.problem(f"downloads[{i}].{key}", f"unknown {kind} {value!r}",
                                             _suggest(value, pool, kind)))
    stream_pairs = {(s.source, s.target) for s in app.streams}
    for i, r in enumerate(plan.routes):
        if tuple(r.stream) not in stream_pairs:
            problems.append(plan.problem(f"routes[{i}].stream",
                                         f"no stream {r.stream[0]} -> {r.stream[1]}",
                                         "name a stream of the application as [from, to]"))
        for k, hop in enumerate(r.path):
            if hop not in nodes:
                problems.append(plan.problem(f"routes[{i}].path[{k}]", f"unknown node {hop!r}",
                                             _suggest(hop, nodes, "node")))
    return problems


def _suggest(value: str, pool: set[str], kind: str) -> str:
    import difflib

    close = difflib.get_close_matches(value, sorted(pool), n=1)
    if close:
        return f"did you mean {close[0]!r}?"
    shown = ", ".join(sorted(pool)[:8]) + (", ..." if len(pool) > 8 else "")
    return f"use a known {kind}: {shown}" if pool else f"define the {kind} first"
