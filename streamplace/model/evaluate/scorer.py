"""F of a complete ODRP placement, kept up to date while one operator's replicas change
at a time: what a local search or a what-if needs thousands of times per second.

The numbers are the evaluator's for plans without routes of their own: each part comes
from the evaluator's own functions (:func:`~streamplace.model.evaluate.odrp.operator_latency`,
:func:`~streamplace.model.evaluate.odrp.stream_load`, the capacity, stability, limit and
normalisation checks; eqs. 1-21 of Cardellini et al. 2017), and a change touches the
operator's latency and cost, the streams at its ends, the nodes it leaves and joins; the
response time is the longest path again (linear in the graph). Sums move by differences,
so the scorer re-adds them from the parts every REFRESH changes to keep rounding from
piling up. A method's final plan is still scored by :func:`evaluate`.
"""

from __future__ import annotations

import heapq
import math
from collections import defaultdict
from collections.abc import Iterator, Mapping

from streamplace.model.evaluate.constraints import over
from streamplace.model.evaluate.odrp import StreamLoad, operator_latency, stream_load
from streamplace.model.evaluate.utility import normalised
from streamplace.model.graph import AppGraph
from streamplace.model.metrics import NETWORK_METRICS, Metric, MetricLimits, Term
from streamplace.model.network import Network
from streamplace.model.objective import Objective
from streamplace.model.objective import terms as terms_of
from streamplace.model.reconfiguration import Current
from streamplace.model.replicas import is_stable

Multiset = dict[str, int]
REFRESH = 2000  # changes between two exact re-sums
_NETWORK = {Metric.TRAFFIC: "traffic", Metric.NETWORK_USAGE: "usage",
            Metric.ELASTIC_ENERGY: "energy", "link_cost": "link_cost"}
"""Each running total and the StreamLoad field it sums."""


class PlacementScorer:
    """A complete placement and its F under fixed normalisation ``bounds``."""

    def __init__(self, graph: AppGraph, network: Network, objective: Objective,
                 bounds: Mapping[Term, tuple[float, float]], placement: Mapping[str, Multiset],
                 limits: MetricLimits | None = None, current: Current | None = None) -> None:
        self.graph, self.network, self.limits, self.current = graph, network, limits, current
        self.ops = {op.id: op for op in graph.app.operators}
        self.order = graph.topological_order()
        self.position = {op: k for k, op in enumerate(self.order)}
        self.into = {op: [(p, (p, op)) for p in graph.preds[op]] for op in self.order}
        self.out = {op: list(graph.succs[op]) for op in self.order}
        self.sinks = list(graph.sinks)
        self.streams = {(s.source, s.target): s for s in graph.streams}
        self.touching: dict[str, list[tuple[str, str]]] = defaultdict(list)
        for key in self.streams:
            self.touching[key[0]].append(key)
            self.touching[key[1]].append(key)
        self.speed = {u: n.speedup for u, n in network.nodes.items()}
        self.weights = objective.weights.normalised(current is not None)
        self.metric = objective.network_metric
        self.bounds = dict(bounds)
        self.terms = [t for t in terms_of(current is not None) if self.weights[t]]
        self.placement: dict[str, Multiset] = {}
        self._reset({op: dict(reps) for op, reps in placement.items()})

    # state ---------------------------------------------------------------------------

    def _reset(self, placement: dict[str, Multiset]) -> None:
        self.ready = False  # the parts first, then their sums (_resum)
        self.placement = placement
        self.latency: dict[str, float] = {}
        self.cost: dict[str, float] = {}
        self.moves: dict[str, float] = {}
        self.stream: dict[tuple[str, str], StreamLoad] = {}
        self.usage: dict[tuple[str, str], float] = defaultdict(float)
        self.unstable: set[str] = set()  # operators loaded past their target utilisation
        self.hosts: dict[str, int] = defaultdict(int)  # operators on each node
        self.pairs: dict[tuple[str, str], int] = defaultdict(int)  # streams on each pair
        for op in self.order:
            self._add_operator(op)
        for key in self.streams:
            self._add_stream(key)
        self.longest: dict[str, float] = {}  # the longest path ending with each operator
        self.dirty: set[str] = set(self.order)
        self._resum()

    def _resum(self) -> None:
        self.ready = False
        self.changes = 0
        self.totals = {name: math.fsum(getattr(load, field) for load in self.stream.values())
                       for name, field in _NETWORK.items()}
        self.totals["compute_cost"] = math.fsum(self.cost.values())
        self.totals["moves"] = math.fsum(self.moves.values())
        self.overfull = {key for key, used in self.usage.items() if self._over(key, used)}
        self.log_nodes = [0.0, 0]  # sum of finite logs, count of zero availabilities
        for u, n in self.hosts.items():
            if n:
                self._log(self.log_nodes, self.network.nodes[u].availability, 1)
        self.log_links = [0.0, 0]
        for pair, n in self.pairs.items():
            if n:
                self._log(self.log_links, self.network.link(*pair).availability, 1)
        self.ready = True

    @staticmethod
    def _log(total: list[float], availability: float, sign: int) -> None:
        if availability > 0:
            total[0] += sign * math.log(availability)
        else:
            total[1] += sign

    def _over(self, key: tuple[str, str], used: float) -> bool:
        resources = self.network.nodes[key[0]].resources
        return over(used, math.inf if resources is None else resources.get(key[1], math.inf))

    def _add_operator(self, op_id: str, sign: int = 1) -> None:
        op, reps = self.ops[op_id], self.placement[op_id]
        if sign > 0:
            rate = self.graph.input_rates[op_id]
            self.latency[op_id] = operator_latency(op, rate, reps, self.speed)
            count = sum(reps.values())
            self.cost[op_id] = op.cost * op.billing_units * count
            stable = op.service_rate is None or (count > 0 and is_stable(op, rate, count))
            (self.unstable.discard if stable else self.unstable.add)(op_id)
            if self.current is not None:
                self.moves[op_id] = self.current.moves([op], {op_id: reps})
        for u, c in reps.items():
            for dim, amount in op.resources.items():
                key = (u, dim)
                self.usage[key] += sign * amount * c
                if self.ready:
                    if self._over(key, self.usage[key]):
                        self.overfull.add(key)
                    else:
                        self.overfull.discard(key)
            self._host(u, sign)

    def _host(self, u: str, sign: int) -> None:
        before = self.hosts[u]
        self.hosts[u] = before + sign
        if self.ready and (before == 0 or self.hosts[u] == 0):
            self._log(self.log_nodes, self.network.nodes[u].availability, sign)

    def _add_stream(self, key: tuple[str, str], sign: int = 1) -> None:
        if sign < 0:
            load = self.stream.pop(key)
        else:
            s = self.streams[key]
            load = self.stream[key] = stream_load(
                s.rate, s.tuple_size, self.placement[s.source], self.placement[s.target],
                self.network.link)
        for u, v, _availability in load.remote:
            self._pair((u, v), sign)
        if self.ready:
            for name, field in _NETWORK.items():
                self.totals[name] += sign * getattr(load, field)

    def _pair(self, pair: tuple[str, str], sign: int) -> None:
        before = self.pairs[pair]
        self.pairs[pair] = before + sign
        if self.ready and (before == 0 or self.pairs[pair] == 0):
            self._log(self.log_links, self.network.link(*pair).availability, sign)

    # changes -------------------------------------------------------------------------

    def change(self, op_id: str, replicas: Multiset) -> None:
        """Give ``op_id`` the multiset ``replicas`` (its candidates and counts unchecked)."""
        self.changes += 1
        old_cost, old_moves = self.cost[op_id], self.moves.get(op_id, 0.0)
        for key in self.touching[op_id]:
            self._add_stream(key, -1)
        self._add_operator(op_id, -1)
        self.placement[op_id] = dict(replicas)
        self.dirty.add(op_id)  # its latency and the delays of its streams changed
        self.dirty.update(self.out[op_id])
        self._add_operator(op_id)
        for key in self.touching[op_id]:
            self._add_stream(key)
        self.totals["compute_cost"] += self.cost[op_id] - old_cost
        self.totals["moves"] += self.moves.get(op_id, 0.0) - old_moves
        if self.changes >= REFRESH:
            self._resum()

    def snapshot(self) -> dict[str, Multiset]:
        return {op: dict(reps) for op, reps in self.placement.items()}

    def restore(self, placement: Mapping[str, Multiset]) -> None:
        """Back to ``placement`` (a snapshot), changing only the operators that differ."""
        for op, reps in placement.items():
            if self.placement[op] != reps:
                self.change(op, reps)

    def trial(self, op_id: str, replicas: Multiset) -> tuple[float, dict[Metric, float]] | None:
        """F and the metrics with ``op_id`` on ``replicas`` (None when that breaks
        capacity, stability or a limit), the placement left as it was."""
        before = self.placement[op_id]
        self.change(op_id, replicas)
        out = (self.value(), self.metrics()) if self.feasible() else None
        self.change(op_id, before)
        return out

    # what the state scores -------------------------------------------------------------

    def response_time(self) -> float:
        """The longest path (eqs. 8-11), recomputed from the operators changed since it
        was last asked for, onwards while their values change."""
        best, stream, latency, position = self.longest, self.stream, self.latency, \
            self.position
        queue = [(position[op], op) for op in self.dirty]
        heapq.heapify(queue)
        queued = set(self.dirty)
        self.dirty = set()
        while queue:
            _, op = heapq.heappop(queue)
            queued.discard(op)
            value = max((best[p] + stream[key].delay for p, key in self.into[op]),
                        default=0.0) + latency[op]
            if best.get(op) != value:
                best[op] = value
                for nxt in self.out[op]:
                    if nxt not in queued:
                        queued.add(nxt)
                        heapq.heappush(queue, (position[nxt], nxt))
        return max((best[s] for s in self.sinks), default=0.0)

    def availability(self) -> float:
        if self.log_nodes[1] or self.log_links[1]:
            return 0.0
        return math.exp(self.log_nodes[0] + self.log_links[0])

    def metrics(self) -> dict[Metric, float]:
        totals = self.totals
        return {Metric.RESPONSE_TIME: self.response_time(),
                Metric.AVAILABILITY: self.availability(),
                Metric.COST: totals["compute_cost"] + totals["link_cost"],
                **{m: totals[m] for m in NETWORK_METRICS}}

    def feasible(self) -> bool:
        """Capacity, stability and the limits hold (candidates and replica caps are the
        caller's to keep)."""
        if self.overfull or self.unstable:
            return False
        return not self.limits or not self.limits.broken(self.metrics().__getitem__)

    def score(self) -> float:
        """F where the placement is feasible, minus infinity where it is not."""
        return self.value() if self.feasible() else -math.inf

    def value(self) -> float:
        """F (eq. 21), as :func:`streamplace.model.evaluate.utility.utility` scores it."""
        values = {m.value: v for m, v in self.metrics().items()}
        values[Term.NETWORK] = values[self.metric]
        values[Term.RECONFIGURATION] = self.totals["moves"]
        return sum(self.weights[t] * normalised(t, values[t], *self.bounds[t])
                   for t in self.terms)


def shifted(multiset: Multiset, remove: str | None, add: str | None) -> Multiset:
    """``multiset`` with one replica taken from ``remove`` and one put on ``add`` (either
    None: only the other).

    >>> shifted({"a": 2}, "a", "b")
    {'a': 1, 'b': 1}
    """
    out = dict(multiset)
    if remove is not None:
        out[remove] -= 1
        if not out[remove]:
            del out[remove]
    if add is not None:
        out[add] = out.get(add, 0) + 1
    return out


def one_replica_changes(current: Multiset, nodes: list[str], add: bool, remove: bool,
                        ) -> Iterator[tuple[str, Multiset]]:
    """Every change of one replica, said in words: one moved to another of ``nodes``, one
    added on any of them (when ``add``), one removed (when ``remove``)."""
    for u in list(current):
        for v in nodes:
            if v != u:
                yield f"move one replica {u} -> {v}", shifted(current, u, v)
    if add:
        for v in nodes:
            yield f"add a replica on {v}", shifted(current, None, v)
    if remove:
        for u in list(current):
            yield f"remove a replica from {u}", shifted(current, u, None)
