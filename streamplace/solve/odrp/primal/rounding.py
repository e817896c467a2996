"""A plan read off the relaxation's LP optimum, for the primal search to climb from.

The relaxation (relaxation_bound.py) is solved anyway for its bound; its optimum also says
which nodes a good plan uses. The searches that start from a framework baseline fill the
edge nodes near the pinned operators first and cannot leave them: availability is a product
over the nodes in use, so moving one replica off a node gains nothing until the node is
empty, and every move on the way costs response time. The LP pays for a node's use in
proportion to what it fills (the capacity rows times y[u]), so its optimum puts the load
on few reliable nodes. On bench/odrp.py's 100 x 60 instances (2 cores) the rounded plan
scored F 0.940 (uniform), 0.932 (spread-out pins), 0.917 (heterogeneous), 0.876 and 0.867
(routed TataNld, brain), where the 60 s runs from the baseline had reached 0.842, 0.843,
0.854, 0.890 and 0.866.

Rounding: pinned operators first (their one node must not be filled by others), then the
rest in the DAG's order; each takes the replica count the LP weighs most (the next where
that finds no room) and puts its replicas one at a time on the candidate with the most LP
share not yet placed, ties going to the nodes the LP uses most, as long as the node has
room. Nothing here is exact; the plan is only a start, and one that breaks any constraint
is dropped.
"""

from __future__ import annotations

from collections.abc import Sequence

from streamplace.model.evaluate.constraints import placement_violations
from streamplace.model.plan import Plan
from streamplace.solve.odrp.compact import CompactModel
from streamplace.solve.odrp.data import OdrpData
from streamplace.solve.placement import PlacementState


def round_relaxation(data: OdrpData, built: CompactModel, values: Sequence[float],
                     ) -> Plan | None:
    """The plan rounded from ``values`` (an LP optimum of ``built``), None where an
    operator finds no room or the plan breaks a constraint."""
    state = PlacementState(data.graph, data.network, {}, data.cands,  # counts: chosen below
                           {op.id: {} for op in data.ops})
    use: dict[str, float] = {}
    for (_op, u), cells in built.cells.items():
        use[u] = use.get(u, 0.0) + sum(values[col] for _m, _a, col in cells)
    for op in sorted(data.ops, key=lambda o: len(data.cands[o.id]) > 1):  # stable: DAG order
        # the count the LP weighs most, else the next, where the first finds no room
        counts = sorted(data.counts[op.id], key=lambda k: (-values[built.c[(op.id, k)]], k))
        if not any(_place(data, built, values, state, use, op.id, m) for m in counts):
            return None
    plan = Plan.model_validate({"placement": state.nodes, "bounds_used": data.bounds_used()})
    return None if placement_violations(data.graph, data.network, plan) else plan


def _place(data: OdrpData, built: CompactModel, values: Sequence[float],
           state: PlacementState, use: dict[str, float], op: str, m: int) -> bool:
    """Place ``m`` replicas of ``op`` by LP share; False (``state`` as it was) where one
    finds no room."""
    want = {u: m * sum(values[col] / count for count, _a, col in built.cells.get((op, u), []))
            for u in data.cands[op]}
    placed = state.nodes[op]
    for _ in range(m):
        room = [u for u in data.cands[op] if placed.get(u, 0) < data.node_cap(
            state.op(op), u, m) and state.fits(op, u)]
        if not room:
            for u, count in list(placed.items()):
                for _ in range(count):
                    state.remove(op, u)
            return False
        state.place(op, max(room, key=lambda v: (want[v] - placed.get(v, 0), use.get(v, 0.0))))
    state.counts[op] = m
    return True
