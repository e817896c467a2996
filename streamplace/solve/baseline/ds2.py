"""DS2's one-step scaling rule (Kalavri et al., OSDI 2018), as autoscalers apply it: in
topological order, each operator's parallelism is the target input rate over what one
replica truly processes at the utilisation target,

    p_i = ceil(lambda_i / (rho x mu_i)),

where lambda_i is the operator's input rate (its upstream operators' target rates carried
through the streams' rates, i.e. their true output ratios) and mu_i its true service rate
(useful time only, as ``extract`` measures it). Operators without a service rate, or with a
fixed count, keep theirs. Placement is what an engine's own packing would do with those
counts: Heron's first-fit-decreasing (the ``first-fit-decreasing`` baseline). DS2 sizes; it
does not place, so this shows what an autoscaler would choose next to the optimum.
"""

from __future__ import annotations

import math

from streamplace.model.application import Operator
from streamplace.solve.baseline.frameworks import first_fit_decreasing
from streamplace.solve.method import Method, acyclic
from streamplace.solve.placement import PlacementFailure, PlacementState, run_placement
from streamplace.solve.result import Instance, SolveOptions, SolveResult


def ds2_parallelism(op: Operator, rate: float) -> int:
    """DS2's parallelism for one operator.

    >>> ds2_parallelism(Operator(id="a", service_rate=10, max_replicas=8), 25.0)
    3
    >>> ds2_parallelism(Operator(id="a", service_rate=10, target_utilization=0.7,
    ...                          max_replicas=8), 25.0)
    4
    """
    if op.replicas is not None:
        return op.replicas
    if op.service_rate is None:
        return op.min_replicas
    return max(1, math.ceil(rate / (op.target_utilization * op.service_rate) - 1e-12))


def _ds2(state: PlacementState) -> dict[str, object]:
    rates = state.graph.input_rates
    wanted = {op.id: ds2_parallelism(op, rates[op.id]) for op in state.graph.app.operators}
    over = [f"{op} needs {n} replicas, max_replicas {state.op(op).replica_cap}"
            for op, n in wanted.items() if n > state.op(op).replica_cap]
    if over:
        raise PlacementFailure("DS2's rule asks for more replicas than allowed: " +
                               "; ".join(over))
    state.counts = wanted
    first_fit_decreasing(state)
    return {"parallelism": wanted}


def solve_ds2(instance: Instance, options: SolveOptions) -> SolveResult:
    return run_placement("ds2", "baseline", instance, options, lambda s, r, b: _ds2(s))


METHODS = (
    Method("ds2", "baseline", exact=False, run=solve_ds2, accepts=acyclic,
           paper="Kalavri et al. 2018",
           summary="DS2's rule: ceil(rate / (rho x true rate)) replicas per operator, placed "
                   "by first-fit-decreasing"),
)
