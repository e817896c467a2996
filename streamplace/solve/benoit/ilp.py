"""The ILP of Benoit et al. 2008, sec. 5, reformulated so that its size grows with tree edges.

The paper indexes processors by (class, copy) and pairs of operator-processor assignments
(|N|^4 |C|^2 edge variables), which CPLEX could not load for 30 operators. Here:

- Constr: one *slot* per operator; slot u may only host operators i >= u (in a fixed order)
  and only if operator u is on it (x[i,u] <= x[u,u]): every set of bought processors has
  exactly one representation, so identical processors are never permuted. Slot u picks one
  class (k[u,c]); compute (1) and card (2) capacities follow the class chosen.
- Non-Constr: one slot per existing processor, with its own speed, card and links; identical
  processors (same speed, card, cost) are used in order to break their symmetry.
- A tree edge e is cut at slot u when exactly one end is there: cut[e,u] >= |x[a,u] - x[b,u]|
  (it only loosens a capacity row, so a lower bound is exact). Downloads d[u,k,l] pick one
  holding server per needed object (constraints 3-4).
- Processor-processor links (5) need a variable per edge and slot pair; they are added
  lazily, only for pairs that a solution overloads, and the model is solved again. Each added
  row is valid, so the final optimum is the ILP's.
Objective: bought classes' cost (Constr) or used processors' cost (Non-Constr).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from streamplace.model.network import Network
from streamplace.model.plan import Plan
from streamplace.solve.benoit.data import TreeData
from streamplace.solve.mip.model import LinearModel


@dataclass
class Slot:
    name: str                       # purchased id, or the processor's id
    hosts: list[str]                # operators it may run
    classes: list[tuple[str, float, float, float]]  # (class id, cost, speed, card)
    server_link: dict[str, float]   # server -> link bandwidth to this slot


@dataclass
class BenoitModel:
    """Benoit et al.'s program (a :class:`~streamplace.solve.mip.formulation.Formulation`)."""

    model: LinearModel
    slots: list[Slot]
    constr: bool
    ops: list[str]  # the slot order: slot u is represented by operator ops[u] (Constr)
    x: dict[tuple[str, int], int] = field(default_factory=dict)
    k: dict[tuple[int, str], int] = field(default_factory=dict)
    d: dict[tuple[int, str, str], int] = field(default_factory=dict)
    linked: set[tuple[int, int]] = field(default_factory=set)
    used: dict[int, int] = field(default_factory=dict)
    data: TreeData | None = None
    network: Network | None = None

    def add_violated(self, values: Sequence[float], plan: Plan) -> int:
        """Constraint (5) for every pair of processors the plan overloads (the evaluator
        says which); rows are added per pair, once."""
        if self.data is None or self.network is None:
            return 0
        ev = self.data.instance.evaluate(plan)
        index = {slot.name: u for u, slot in enumerate(self.slots)}
        added = 0
        for violation in ev.violations:
            if violation.constraint != "benoit.processor_link":
                continue
            a, b = violation.subject.ids
            u, v = index[a], index[b]
            if (min(u, v), max(u, v)) in self.linked:
                continue
            bandwidth = self.data.link_bandwidth if self.constr else \
                self.network.link(a, b).bandwidth
            add_link_rows(self, self.data, u, v, bandwidth)
            added += 1
        return added

    def decode(self, values: Sequence[float]) -> Plan:
        placement: dict[str, dict[str, int]] = {}
        used: set[int] = set()
        for (op, u), col in self.x.items():
            if values[col] > 0.5:
                placement[op] = {self.slots[u].name: 1}
                used.add(u)
        purchased = [{"id": self.slots[u].name, "class": c}
                     for (u, c), col in self.k.items() if values[col] > 0.5 and self.constr]
        downloads = [{"node": self.slots[u].name, "object": obj, "server": srv}
                     for (u, obj, srv), col in self.d.items() if values[col] > 0.5]
        return Plan.model_validate({"placement": placement, "purchased": purchased,
                                    "downloads": downloads})

    def start_from(self, plan: Plan) -> list[float | None]:
        """A MIP start from a plan: with a catalog each bought processor goes to the slot of
        its first operator (in the slot order), the one representation the model accepts;
        without one, each processor is its own slot."""
        values: list[float | None] = [None] * self.model.num_cols
        for col in (*self.x.values(), *self.k.values(), *self.d.values()):
            values[col] = 0.0
        position = {op: u for u, op in enumerate(self.ops)}
        by_name = {slot.name: u for u, slot in enumerate(self.slots)}
        hosts: dict[str, list[str]] = {}
        for op, reps in plan.placement.items():
            for node in reps:
                hosts.setdefault(node, []).append(op)
        classes = {p.id: p.class_ for p in plan.purchased}
        slot_of: dict[str, int] = {}
        for node, ops in hosts.items():
            u = min(position[op] for op in ops) if self.constr else by_name[node]
            slot_of[node] = u
            for op in ops:
                values[self.x[(op, u)]] = 1.0
            if self.constr:
                values[self.k[(u, classes[node])]] = 1.0
        for d in plan.downloads:
            key = (slot_of[d.node], d.object, d.server)
            if key in self.d:
                values[self.d[key]] = 1.0
        return values


def build_benoit(data: TreeData, network: Network) -> BenoitModel:
    constr = bool(data.instance.infra.catalog)
    slots = _constr_slots(data) if constr else _processor_slots(data, network)
    out = BenoitModel(LinearModel(maximize=False), slots, constr, list(data.ops), data=data,
                      network=network)
    m_ = out.model
    on: dict[str, list[int]] = {o: [] for o in data.ops}
    for u, slot in enumerate(slots):
        for op in slot.hosts:
            out.x[(op, u)] = m_.binary(f"x[{op},{u}]")
            on[op].append(u)
    if constr:  # slot u is open iff its representative (operator u) is on it
        for u, slot in enumerate(slots):
            for op in slot.hosts[1:]:
                m_.row([out.x[(op, u)], out.x[(slot.hosts[0], u)]], [1.0, -1.0], hi=0.0,
                       family="slot representative")
    for op in data.ops:                                   # each operator on one processor
        m_.row([out.x[(op, u)] for u in on[op]], [1.0] * len(on[op]), 1.0, 1.0,
               family="one processor each")
    for u, slot in enumerate(slots):
        used = _used(out, u, slot)
        speed_cols, speed_vals, card_cols, card_vals = [], [], [], []
        for cls_id, cost, speed, card in slot.classes:
            col = m_.binary(f"k[{u},{cls_id}]", cost) if constr else used
            if constr:
                out.k[(u, cls_id)] = col
            speed_cols.append(col)
            speed_vals.append(speed)
            card_cols.append(col)
            card_vals.append(card)
        if constr:
            m_.row([*speed_cols, used], [1.0] * len(speed_cols) + [-1.0], 0.0, 0.0,
                   family="one class per slot")
        else:
            m_.add_cost(used, slot.classes[0][1])
        hosted = list(slot.hosts)
        if all(math.isfinite(s) for s in speed_vals):                 # (1)
            m_.row([*(out.x[(o, u)] for o in hosted), *speed_cols],
                   [*(data.work[o] for o in hosted), *(-s for s in speed_vals)], hi=0.0,
                   normalise=True, family="compute (1)")
        card_terms: list[tuple[int, float]] = []
        for obj in sorted({k for o in hosted for k in data.objects[o]}):
            needers = [o for o in hosted if obj in data.objects[o]]
            picks = []
            for srv in data.holders[obj]:
                out.d[(u, obj, srv)] = col = m_.binary(f"d[{u},{obj},{srv}]")
                picks.append(col)
                card_terms.append((col, data.rate[obj]))
            with m_.family("downloads"):
                for o in needers:                       # download it if some operator needs it
                    m_.row([*picks, out.x[(o, u)]], [1.0] * len(picks) + [-1.0], lo=0.0)
                m_.row([*picks, *(out.x[(o, u)] for o in needers)],
                       [1.0] * len(picks) + [-1.0] * len(needers), hi=0.0)
                m_.row(picks, [1.0] * len(picks), hi=1.0)
        for e in data.edges:
            a, b = (e.child, u) in out.x, (e.parent, u) in out.x
            if not (a or b) or e.volume <= 0:
                continue
            cut = m_.var(f"cut[{e.child},{e.parent},{u}]", 0.0, 1.0)
            card_terms.append((cut, e.volume))
            if a and b:
                for s1, s2 in ((e.child, e.parent), (e.parent, e.child)):
                    m_.row([cut, out.x[(s1, u)], out.x[(s2, u)]], [1.0, -1.0, 1.0], lo=0.0,
                           family="cut edges")
            else:
                m_.row([cut, out.x[(e.child if a else e.parent, u)]], [1.0, -1.0], lo=0.0,
                       family="cut edges")
        if all(math.isfinite(c) for c in card_vals) and card_terms:   # (2)
            m_.row([*(c for c, _ in card_terms), *card_cols],
                   [*(v for _, v in card_terms), *(-c for c in card_vals)], hi=0.0,
                   normalise=True, family="processor card (2)")
        for srv in data.servers:                                      # (4)
            cols = [col for (uu, obj, s), col in out.d.items() if uu == u and s == srv]
            bw = slot.server_link.get(srv, math.inf)
            if cols and math.isfinite(bw):
                m_.row(cols, [data.rate[obj] for (uu, obj, s) in out.d
                              if uu == u and s == srv], hi=bw, normalise=True,
                       family="server link (4)")
    for srv in data.servers:                                          # (3)
        served = [(col, data.rate[obj]) for (_u, obj, s), col in out.d.items() if s == srv]
        if served and math.isfinite(data.server_card[srv]):
            m_.row([c for c, _ in served], [r for _, r in served], hi=data.server_card[srv],
                   normalise=True, family="server card (3)")
    processors = set(network.processors)
    uniform = not any(link.source in processors and link.target in processors
                      for link in data.instance.infra.links)
    _order_identical(out, uniform)
    return out


def add_link_rows(out: BenoitModel, data: TreeData, u: int, v: int, bandwidth: float) -> None:
    """Constraint (5) for slots u and v: tree edges between them within the link's bandwidth."""
    m_ = out.model
    terms = []
    for e in data.edges:
        for a, b in ((u, v), (v, u)):
            if (e.child, a) in out.x and (e.parent, b) in out.x and e.volume > 0:
                y = m_.var(f"y[{e.child},{e.parent},{a},{b}]", 0.0, 1.0)
                m_.row([y, out.x[(e.child, a)], out.x[(e.parent, b)]], [1.0, -1.0, -1.0],
                       lo=-1.0, family="processor link (5)")
                terms.append((y, e.volume))
    if terms:
        m_.row([c for c, _ in terms], [w for _, w in terms], hi=bandwidth, normalise=True,
               family="processor link (5)")
    out.linked.add((min(u, v), max(u, v)))


def _used(out: BenoitModel, u: int, slot: Slot) -> int:
    m_ = out.model
    if out.constr:
        return out.x[(slot.hosts[0], u)]  # the representative operator opens the slot
    used = m_.binary(f"used[{slot.name}]")
    for op in slot.hosts:
        m_.row([used, out.x[(op, u)]], [1.0, -1.0], lo=0.0, family="processor used")
    out.used[u] = used
    return used


def _constr_slots(data: TreeData) -> list[Slot]:
    classes = [(c.id, c.cost, c.speed, c.bandwidth) for c in data.classes]
    links = {srv: data.link_bandwidth for srv in data.servers}
    return [Slot(f"p{u + 1}", data.ops[u:], classes, links) for u in range(len(data.ops))]


def _processor_slots(data: TreeData, network: Network) -> list[Slot]:
    slots = []
    for p in network.processors:
        node = network.nodes[p]
        links = {srv: network.link(srv, p).bandwidth for srv in data.servers}
        slots.append(Slot(p, list(data.ops), [(p, node.cost, node.speed, node.bandwidth)],
                          links))
    return slots


def _order_identical(out: BenoitModel, uniform_links: bool) -> None:
    """Non-Constr: among processors alike in every way, use the earlier ones first.

    Only when processor-processor links are uniform: otherwise two processors with the same
    speed and card still differ in where they can send.
    """
    if out.constr or not uniform_links:
        return
    groups: dict[tuple[object, ...], list[int]] = {}
    for u, slot in enumerate(out.slots):
        key = (slot.classes[0][1:], tuple(sorted(slot.server_link.items())))
        groups.setdefault(key, []).append(u)
    for members in groups.values():
        for a, b in itertools.pairwise(members):
            out.model.row([out.used[a], out.used[b]], [1.0, -1.0], lo=0.0,
                          family="symmetry: identical processors in order")
