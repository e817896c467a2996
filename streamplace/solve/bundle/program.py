"""The joint ODRP program: each application's compact formulation (odrp/compact.py), its
terms scaled by the application's weight, in one model whose capacity rows (eq. 23) sum
every application's replicas on a node. Nothing else couples the applications, so an
integer point's objective is sum_a omega_a F_a exactly and the optimum is the bundle's."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.compact import CompactModel, build_compact
from streamplace.solve.odrp.data import OdrpData, prepare


@dataclass
class JointModel:
    model: LinearModel
    parts: dict[str, CompactModel]  # by application name
    # each application's columns (start, end) and its share of the offset: its omega_a F_a
    # is sum of cost x over its columns plus its offset
    columns: dict[str, tuple[int, int]]
    offsets: dict[str, float]

    def decode(self, values: Sequence[float]) -> dict[str, Plan]:
        return {name: part.decode(values) for name, part in self.parts.items()}

    def start_from(self, plans: dict[str, Plan]) -> list[float | None]:
        """A MIP start: each part's integer columns from its application's plan."""
        values: list[float | None] = [None] * self.model.num_cols
        for name, part in self.parts.items():
            for col, value in enumerate(part.start_from(plans[name])):
                if value is not None:
                    values[col] = value
        return values


def weighted(data: OdrpData, omega: float) -> OdrpData:
    """``data`` whose every term enters the objective times ``omega``."""
    scales = {term: replace(s, weight=s.weight * omega, slope=s.slope * omega,
                            offset=s.offset * omega) for term, s in data.scales.items()}
    return replace(data, scales=scales)


def build_joint(joint: BundleInstance, budget: Budget | None = None) -> JointModel:
    """Raises InfeasibleError when an application cannot be placed even alone (with its
    reasons, each naming the application), Stopped when ``budget`` runs out."""
    from streamplace.errors import InfeasibleError

    datas: dict[str, OdrpData] = {}
    reasons: list[str] = []
    for app in joint.apps:
        try:
            datas[app.name] = weighted(prepare(joint.alone(app)), joint.weights[app.name])
        except InfeasibleError as exc:
            reasons += [f"{app.name}: {r}" for r in exc.reasons]
    if reasons:
        raise InfeasibleError(reasons)
    model = LinearModel(maximize=True)
    parts, columns, offsets = {}, {}, {}
    for name, data in datas.items():
        first, offset = model.num_cols, model.offset
        with model.prefixed(f"{name}/"):
            # every delay row in the model: the joint program is solved in one round
            parts[name] = build_compact(data, budget, delay_rows="all", into=model)
        columns[name] = (first, model.num_cols)
        offsets[name] = model.offset - offset
    with model.family("capacity (eq. 23), every application"):
        _shared_capacity(model, datas, parts)
    if joint.slots is not None:
        _pooled_slots(model, datas, parts, joint.slots)
    if joint.max_moves is not None:
        cols = [c for part in parts.values() for c in part.moves[0]]
        vals = [v for part in parts.values() for v in part.moves[1]]
        if cols:
            model.row(cols, vals, hi=joint.max_moves, family="max moves, every application")
    return JointModel(model, parts, columns, offsets)


def _shared_capacity(model: LinearModel, datas: dict[str, OdrpData],
                     parts: dict[str, CompactModel]) -> None:
    any_data = next(iter(datas.values()))
    dims = sorted({dim for data in datas.values() for dim in data.dims})
    for u in any_data.network.processors:
        for dim in dims:
            cap = any_data.capacity(u, dim)
            if cap == math.inf:
                continue
            cols: list[int] = []
            vals: list[float] = []
            for name, data in datas.items():
                for op in data.ops:
                    amount = op.resources.get(dim, 0.0)
                    for _m, _a, col in parts[name].cells.get((op.id, u), []):
                        cols.append(col)
                        vals.append(amount)
            if cols:
                model.row(cols, vals, hi=cap)


def _pooled_slots(model: LinearModel, datas: dict[str, OdrpData],
                  parts: dict[str, CompactModel], slots: int) -> None:
    """Slot sharing across a session cluster: each application's width w_a (integer) is at
    least every operator's replica count (sum_m m c[i,m]), and the widths add up to at most
    the cluster's ``slots``. Nothing else in the objective depends on w_a, so a plan is
    feasible exactly when its widest operators fit together."""
    widths = []
    for name, data in datas.items():
        with model.prefixed(f"{name}/"):
            w = model.var("width", 0.0, float(slots), integer=True)
        widths.append(w)
        for op in data.ops:
            counts = data.counts[op.id]
            model.row([*(parts[name].c[(op.id, m)] for m in counts), w],
                      [*(float(m) for m in counts), -1.0], hi=0.0,
                      family="slot sharing: an application's width")
    model.row(widths, [1.0] * len(widths), hi=float(slots),
              family="slot sharing: the cluster's slots")
