"""How many replicas an operator can run: stability bounds the count from below, ``k_i`` and
the capacity of its candidates from above (docs/models.md, "Replica bounds").

Every formulation, heuristic and derived bound sizes itself by :func:`replica_ranges`, so a
model is never larger than the instance allows: ``max_replicas: 100000000`` on an operator
whose candidates hold 48 slots costs what 48 would.

>>> from streamplace.model.application import Operator
>>> fewest_stable(Operator(id="a", service_rate=10, max_replicas=4), 25.0)
3
>>> fewest_stable(Operator(id="a", service_rate=10, max_replicas=4), 30.0)
4
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from streamplace.model.application import Operator
from streamplace.model.network import Network

ROUNDING = 1e-9  # capacities and amounts are floats: 8 / (8 / 3) must give 3
_SETTLE_STEPS = 3


BEYOND_ANY_CAP = 2**63  # "no count of replicas is stable": above every k_i


def fewest_stable(op: Operator, rate: float) -> int:
    """The fewest replicas (at least the operator's minimum, and one of its
    ``replica_counts``) at which a replica is stable (:meth:`Operator.stable_at`:
    ``rate / m < mu``, or ``<= rho mu`` with a utilisation target); ignores ``k_i``
    (callers compare).

    >>> fewest_stable(Operator(id="a", service_rate=10, target_utilization=0.7), 21.0)
    3
    """
    least = op.min_replicas
    if op.service_rate is None or op.replicas is not None:
        return op.aligned(least) or BEYOND_ANY_CAP
    quotient = rate / (op.service_rate * op.target_utilization)
    if not math.isfinite(quotient):  # a service rate or target so small the share overflows
        return BEYOND_ANY_CAP
    need = max(least, math.floor(quotient))
    # floor() of a float quotient can be one off either way at the boundary, so a step or
    # two settles it; the steps are bounded because past 2**53 replicas a step no longer
    # changes the quotient (such a count is far beyond any k_i, so callers refuse it)
    for _ in range(_SETTLE_STEPS):
        if not (need > least and op.stable_at(rate / (need - 1))):
            break
        need -= 1
    for _ in range(_SETTLE_STEPS):
        if op.stable_at(rate / need):
            break
        need += 1
    aligned = op.aligned(need)
    return BEYOND_ANY_CAP if aligned is None else aligned


def is_stable(op: Operator, rate: float, count: int) -> bool:
    return op.stable_at(rate / count)


def capacity_caps(ops: Sequence[Operator], cands: Mapping[str, Sequence[str]],
                  network: Network, floors: Mapping[str, int]) -> dict[str, int | None]:
    """The most replicas each operator's candidates can host next to the other operators'
    minimum needs (``floors``), or None where capacity does not bound it.

    Per resource dimension d the operator uses: the replicas that fit node by node on its
    candidates, and the room left there once every operator whose candidates all lie among
    them has its minimum, divided by one replica's need. A valid bound, not a tight one.
    """
    # operators share few distinct candidate sets: what depends only on the set (who lies
    # inside it, its capacities, their minimum needs) is computed once per set
    sets = {op.id: frozenset(cands[op.id]) for op in ops}
    inside_of = {mine: [o for o in ops if sets[o.id] and sets[o.id] <= mine]
                 for mine in set(sets.values())}
    sizes_of: dict[tuple[frozenset[str], str], list[float]] = {}
    forced_of: dict[tuple[frozenset[str], str], float] = {}
    caps: dict[str, int | None] = {}
    for op in ops:
        mine = sets[op.id]
        cap: float = math.inf
        for dim, amount in op.resources.items():
            if amount <= 0:
                continue
            key = (mine, dim)
            if key not in sizes_of:
                sizes_of[key] = [_capacity(network, u, dim) for u in mine]
                forced_of[key] = sum(floors[o.id] * o.resources.get(dim, 0.0)
                                     for o in inside_of[mine])
            sizes = sizes_of[key]
            if any(math.isinf(size) for size in sizes):
                continue
            per_node = sum(math.floor(size / amount + ROUNDING) for size in sizes)
            # the set's minimum needs, less the operator's own (it lies inside its set)
            forced = forced_of[key] - (floors[op.id] * amount if mine else 0.0)
            shared = math.floor((sum(sizes) - forced) / amount + ROUNDING)
            cap = min(cap, per_node, max(shared, 0))
        caps[op.id] = None if math.isinf(cap) else int(cap)
    return caps


def per_node_cap(op: Operator, network: Network, u: str) -> int | None:
    """The most replicas of ``op`` node ``u`` holds on its own (None: unbounded)."""
    cap: float = math.inf
    for dim, amount in op.resources.items():
        size = _capacity(network, u, dim)
        if amount > 0 and not math.isinf(size):
            cap = min(cap, math.floor(size / amount + ROUNDING))
    return None if math.isinf(cap) else int(cap)


def replica_ranges(ops: Sequence[Operator], rates: Mapping[str, float],
                   cands: Mapping[str, Sequence[str]], network: Network,
                   single_replica: bool = False) -> dict[str, Sequence[int]]:
    """Replica counts each operator may take: stable, within ``k_i`` (1 with
    ``single_replica`` unless fixed), within its candidates' capacity and among its
    ``replica_counts``; ascending, empty when none (a range without ``replica_counts``)."""
    floors = {op.id: fewest_stable(op, rates[op.id]) for op in ops}
    caps = capacity_caps(ops, cands, network, floors)
    out: dict[str, Sequence[int]] = {}
    for op in ops:
        top = op.replica_cap if not (single_replica and op.replicas is None) else 1
        cap = caps[op.id]
        if cap is not None:
            top = min(top, cap)
        every = range(floors[op.id], top + 1)
        out[op.id] = every if op.replica_counts is None else \
            tuple(k for k in sorted(set(op.replica_counts)) if k in every)
    return out


def _capacity(network: Network, u: str, dim: str) -> float:
    resources = network.nodes[u].resources
    return math.inf if resources is None else resources.get(dim, math.inf)
