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

from streamplace.model.application import Operator
from streamplace.model.evaluate.constraints import placement_violations
from streamplace.model.plan import Plan
from streamplace.solve.odrp.compact import CompactModel
from streamplace.solve.odrp.data import OdrpData

ROOM = 1e-9  # resource amounts are compared with this slack


def round_relaxation(data: OdrpData, built: CompactModel, values: Sequence[float],
                     ) -> Plan | None:
    """The plan rounded from ``values`` (an LP optimum of ``built``), None where an
    operator finds no room or the plan breaks a constraint."""
    free = {u: {dim: data.capacity(u, dim) for dim in data.dims}
            for u in data.network.processors}
    use: dict[str, float] = {}
    for (_op, u), cells in built.cells.items():
        use[u] = use.get(u, 0.0) + sum(values[col] for _m, _a, col in cells)
    placement: dict[str, dict[str, int]] = {}
    for op in sorted(data.ops, key=lambda o: len(data.cands[o.id]) > 1):  # stable: DAG order
        # the count the LP weighs most, else the next, where the first finds no room
        for m in sorted(data.counts[op.id], key=lambda k: (-values[built.c[(op.id, k)]], k)):
            reps = _place(data, built, values, free, use, op, m)
            if reps is not None:
                placement[op.id] = reps
                break
        else:
            return None
    plan = Plan.model_validate({"placement": placement, "bounds_used": data.bounds_used()})
    return None if placement_violations(data.graph, data.network, plan) else plan


def _place(data: OdrpData, built: CompactModel, values: Sequence[float],
           free: dict[str, dict[str, float]], use: dict[str, float], op: Operator,
           m: int) -> dict[str, int] | None:
    """``m`` replicas of ``op`` by LP share, taken out of ``free``; None (``free`` as it
    was) where one finds no room."""
    want = {u: m * sum(values[col] / count for count, _a, col in
                       built.cells.get((op.id, u), []))
            for u in data.cands[op.id]}
    need = {dim: op.resources.get(dim, 0.0) for dim in data.dims}
    reps: dict[str, int] = {}
    for _ in range(m):
        room = [u for u in data.cands[op.id]
                if reps.get(u, 0) < data.node_cap(op, u, m)
                and all(free[u][dim] + ROOM >= need[dim] + reps.get(u, 0) * need[dim]
                        for dim in data.dims)]
        if not room:
            return None
        u = max(room, key=lambda v: (want[v] - reps.get(v, 0), use.get(v, 0.0)))
        reps[u] = reps.get(u, 0) + 1
    for u, count in reps.items():
        for dim in data.dims:
            free[u][dim] -= count * need[dim]
    return reps
