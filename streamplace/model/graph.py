"""Derived view of an application: resolved rates, topological order, cycles.

Rates follow docs/formats.md: an operator's input rate is its own ``input_rate``, else the sum of
its incoming stream rates, else (a source) its largest outgoing rate. A stream without a
``rate`` carries its producer's input rate (selectivity 1); the application ``throughput``
is the last resort, as in Benoit trees where every edge carries one result per period.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from streamplace.errors import InputError, Problem
from streamplace.model.application import Application

if TYPE_CHECKING:
    import networkx as nx


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
    """The application as a graph. ``preds``/``succs`` hold each operator's distinct
    neighbours in stream order; ``digraph`` is the same graph in networkx, built on first use
    (networkx costs a tenth of a second to import, more than solving a small instance)."""

    app: Application
    input_rates: dict[str, float]
    streams: list[ResolvedStream]
    preds: dict[str, list[str]] = field(repr=False)
    succs: dict[str, list[str]] = field(repr=False)

    @cached_property
    def digraph(self) -> nx.DiGraph:
        import networkx as nx

        digraph = nx.DiGraph()
        digraph.add_nodes_from(self.app.operator_ids)
        for s in self.streams:
            if s.target in self.succs[s.source]:
                digraph.add_edge(s.source, s.target, index=s.index)
        return digraph

    @property
    def sources(self) -> list[str]:
        return [o for o in self.app.operator_ids if not self.preds[o]]

    @property
    def sinks(self) -> list[str]:
        return [o for o in self.app.operator_ids if not self.succs[o]]

    def remove_arcs(self, arcs: Iterable[tuple[str, str]]) -> None:
        """Drop arcs (feedback arcs, to score a cyclic application as a DAG)."""
        for a, b in arcs:
            self.succs[a].remove(b)
            self.preds[b].remove(a)
            if "digraph" in self.__dict__:
                self.digraph.remove_edge(a, b)
        self.__dict__.pop("_order", None)

    def cycle(self) -> list[str] | None:
        """Some directed cycle as [a, b, ..., a], searched depth first in operator order."""
        state = dict.fromkeys(self.app.operator_ids, 0)  # 0 new, 1 on the path, 2 done
        for root in self.app.operator_ids:
            if state[root]:
                continue
            path, todo = [root], [iter(self.succs[root])]
            state[root] = 1
            while todo:
                nxt = next(todo[-1], None)
                if nxt is None:
                    state[path.pop()] = 2
                    todo.pop()
                elif state[nxt] == 1:
                    return [*path[path.index(nxt):], nxt]
                elif state[nxt] == 0:
                    state[nxt] = 1
                    path.append(nxt)
                    todo.append(iter(self.succs[nxt]))
        return None

    def topological_order(self) -> list[str]:
        """Operators in DAG order, the smallest name first among those ready; raises
        InputError naming a cycle if there is one."""
        order = self.__dict__.get("_order")
        if order is not None:
            return list(order)
        cycle = self.cycle()
        if cycle is not None:
            raise InputError([self.app.problem(
                "streams", f"the streams form a cycle {' -> '.join(cycle)}",
                "this model needs a DAG: remove a stream of the cycle, or use a method that "
                "accepts cycles (hill-climbing, ant-system, hybrid)")])
        waiting = {op: len(p) for op, p in self.preds.items()}
        ready = [op for op, n in waiting.items() if n == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            op = heapq.heappop(ready)
            order.append(op)
            for nxt in self.succs[op]:
                waiting[nxt] -= 1
                if waiting[nxt] == 0:
                    heapq.heappush(ready, nxt)
        self.__dict__["_order"] = order
        return list(order)


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
    preds: dict[str, list[str]] = {op: [] for op in app.operator_ids}
    succs: dict[str, list[str]] = {op: [] for op in app.operator_ids}
    streams = []
    sizes = {op.id: op.output_size for op in app.operators}
    for j, s in enumerate(app.streams):
        size = s.tuple_size if s.tuple_size is not None else sizes[s.source]
        streams.append(ResolvedStream(j, s.source, s.target, stream_rate[j],
                                      1.0 if size is None else size))
        if s.target not in succs[s.source]:
            succs[s.source].append(s.target)
            preds[s.target].append(s.source)
    return AppGraph(app=app, input_rates=in_rate, streams=streams, preds=preds, succs=succs)


def cyclic_order(digraph: nx.DiGraph) -> tuple[list[str], list[tuple[str, str]]]:
    """A topological order of a possibly cyclic graph and the arcs that break its cycles.

    Ecker et al., Alg. 3: the Eades-Lin-Smyth heuristic, removing every current source (into the
    left list) and every current sink (into the right list) as sets; when only cycles remain,
    the first strongly connected component (Tarjan) gives up the vertex with the largest
    out-degree minus in-degree among those next to an already removed vertex. Arcs pointing
    backwards in the resulting order are the feedback arcs.

    >>> import networkx as nx
    >>> g = nx.DiGraph([("a", "b"), ("b", "c"), ("c", "b"), ("c", "d")])
    >>> cyclic_order(g)
    (['a', 'b', 'c', 'd'], [('c', 'b')])
    """
    import networkx as nx

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
