"""Derived view of an application: resolved rates, topological order, cycles.

Rates follow docs/formats.md: an operator's input rate is its own ``input_rate``, else the sum of
its incoming stream rates, else (a source) its largest outgoing rate. A stream without a
``rate`` carries its producer's input rate (selectivity 1); the application ``throughput``
is the last resort, as in Benoit trees where every edge carries one result per period.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import networkx as nx

from streamplace.errors import InputError, Problem
from streamplace.model.application import Application


@dataclass(frozen=True)
class ResolvedStream:
    index: int
    source: str
    target: str
    rate: float
    tuple_size: float

    @property
    def bytes_per_s(self) -> float:
        return self.rate * self.tuple_size


@dataclass
class AppGraph:
    app: Application
    input_rates: dict[str, float]
    streams: list[ResolvedStream]
    digraph: nx.DiGraph = field(repr=False)

    @property
    def sources(self) -> list[str]:
        return [o for o in self.app.operator_ids if self.digraph.in_degree(o) == 0]

    @property
    def sinks(self) -> list[str]:
        return [o for o in self.app.operator_ids if self.digraph.out_degree(o) == 0]

    def cycle(self) -> list[str] | None:
        try:
            edges = nx.find_cycle(self.digraph)
        except nx.NetworkXNoCycle:
            return None
        return [u for u, _ in edges] + [edges[0][0]]

    def topological_order(self) -> list[str]:
        """Operators in DAG order; raises InputError naming a cycle if there is one."""
        cycle = self.cycle()
        if cycle is not None:
            raise InputError([self.app.problem(
                "streams", f"the streams form a cycle {' -> '.join(cycle)}",
                "this model needs a DAG: remove a stream of the cycle, or use a method that "
                "accepts cycles (hill-climbing, ant-system, hybrid)")])
        return list(nx.lexicographical_topological_sort(self.digraph))



def resolve_rates(app: Application) -> tuple[dict[str, float], dict[int, float], list[Problem]]:
    """Input rate per operator and rate per stream index, with problems for underivable ones."""
    ops = {op.id: op for op in app.operators}
    stream_rate: dict[int, float] = {
        j: s.rate for j, s in enumerate(app.streams) if s.rate is not None}
    in_rate: dict[str, float] = {
        o.id: o.input_rate for o in app.operators if o.input_rate is not None}
    incoming: dict[str, list[int]] = {o: [] for o in ops}
    outgoing: dict[str, list[int]] = {o: [] for o in ops}
    for j, s in enumerate(app.streams):
        if s.source in ops and s.target in ops:
            outgoing[s.source].append(j)
            incoming[s.target].append(j)

    def sweep(allow_throughput: bool) -> bool:
        changed = False
        for op_id in ops:
            if op_id not in in_rate:
                ins, outs = incoming[op_id], outgoing[op_id]
                known_out = [stream_rate[j] for j in outs if j in stream_rate]
                if ins and all(j in stream_rate for j in ins):
                    in_rate[op_id] = sum(stream_rate[j] for j in ins)
                elif not ins and known_out:
                    in_rate[op_id] = max(known_out)
                elif not ins and allow_throughput and (app.throughput is not None or not outs):
                    in_rate[op_id] = app.throughput if app.throughput is not None else 0.0
                else:
                    continue
                changed = True
        for j, s in enumerate(app.streams):
            if j not in stream_rate and s.source in in_rate:
                stream_rate[j] = in_rate[s.source]
                changed = True
        return changed

    while sweep(False) or sweep(True):
        pass
    problems = [
        app.problem(f"streams[{j}].rate",
                    f"stream {s.source} -> {s.target} has no rate and none can be derived",
                    f"give it a rate, or give operator {s.source!r} an input_rate")
        for j, s in enumerate(app.streams) if j not in stream_rate
        and s.source in ops and s.target in ops]
    for op_id in ops:
        in_rate.setdefault(op_id, 0.0)
    return in_rate, stream_rate, problems


def build_graph(app: Application) -> AppGraph:
    """Resolve rates and build the graph; raises InputError if a rate cannot be derived."""
    in_rate, stream_rate, problems = resolve_rates(app)
    if problems:
        raise InputError(problems)
    digraph = nx.DiGraph()
    digraph.add_nodes_from(app.operator_ids)
    streams = []
    sizes = {op.id: op.output_size for op in app.operators}
    for j, s in enumerate(app.streams):
        size = s.tuple_size if s.tuple_size is not None else sizes[s.source]
        streams.append(ResolvedStream(j, s.source, s.target, stream_rate[j],
                                      1.0 if size is None else size))
        digraph.add_edge(s.source, s.target, index=j)
    return AppGraph(app=app, input_rates=in_rate, streams=streams, digraph=digraph)


def cyclic_order(digraph: nx.DiGraph) -> tuple[list[str], list[tuple[str, str]]]:
    """A topological order of a possibly cyclic graph and the arcs that break its cycles.

    Seed 001, Alg. 3: the Eades-Lin-Smyth heuristic, removing every current source (into the
    left list) and every current sink (into the right list) as sets; when only cycles remain,
    the first strongly connected component (Tarjan) gives up the vertex with the largest
    out-degree minus in-degree among those next to an already removed vertex. Arcs pointing
    backwards in the resulting order are the feedback arcs.

    >>> g = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "b"), ("c", "d")])
    >>> cyclic_order(g)
    (['a', 'b', 'c', 'd'], [('c', 'b')])
    """
    graph = digraph.copy()
    left: list[list[str]] = []
    right: list[list[str]] = []
    removed: set[str] = set()

    def peel(degree: Callable[[str], int], into: list[list[str]]) -> bool:
        """Remove every vertex with no arc on one side, as one set (Alg. 3, lines 7-36)."""
        found = sorted(v for v in graph if degree(v) == 0)
        if found:
            into.append(found)
            graph.remove_nodes_from(found)
            removed.update(found)
        return bool(found)

    while graph.number_of_nodes():
        # "|", not "or": sources and sinks are both peeled in every round
        while peel(graph.in_degree, left) | peel(graph.out_degree, right):
            pass
        if graph.number_of_nodes():
            condensed = nx.condensation(graph)
            first = next(iter(nx.topological_sort(condensed)))
            component = sorted(condensed.nodes[first]["members"])
            touching = [v for v in component
                        if any(n in removed for n in digraph.predecessors(v))
                        or any(n in removed for n in digraph.successors(v))] or component
            # ties go to the cycle's entry (a removed predecessor), then to the first name
            pick = max(touching, key=lambda v: (
                graph.out_degree(v) - graph.in_degree(v),
                any(n in removed for n in digraph.predecessors(v))))
            left.append([pick])
            graph.remove_node(pick)
            removed.add(pick)
    order = [v for group in left for v in group] + [v for group in reversed(right)
                                                    for v in group]
    position = {v: k for k, v in enumerate(order)}
    feedback = sorted((u, v) for u, v in digraph.edges if position[u] >= position[v])
    return order, feedback
