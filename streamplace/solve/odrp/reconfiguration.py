"""Re-planning rows of the compact ODRP program (docs/models.md sec. 2, "Re-planning")."""

from __future__ import annotations

from streamplace.model.metrics import Term
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.data import OdrpData

Cells = dict[tuple[str, str], list[tuple[int, int, int]]]


def add_reconfiguration(data: OdrpData, m_: LinearModel,
                        cells: Cells) -> tuple[list[int], list[float]]:
    """M = sum migration_cost_i * max(0, U_i(u) - c_i(u)) through e[i,u] >= U_i(u) - c_i(u),
    e >= 0, charged to F (minimised, so e is the max at the optimum); ``--max-moves`` bounds
    the sum, which the smallest such e meets exactly when M does. Returns M as (columns,
    coefficients), for a budget over several applications (solve/bundle)."""
    current = data.instance.current
    assert current is not None
    slope = data.scales[Term.RECONFIGURATION].slope if Term.RECONFIGURATION in data.scales else 0.0
    cols: list[int] = []
    vals: list[float] = []
    for op in data.ops:
        if op.migration_cost <= 0:
            continue
        for u in data.cands[op.id]:
            here = cells.get((op.id, u), [])
            held = current.count(op.id, u)
            if not here or max(a for _m, a, _c in here) <= held:
                continue  # never more replicas there than run now
            e = m_.var(f"e[{op.id},{u}]", cost=slope * op.migration_cost)
            m_.row([e, *(col for _m, _a, col in here)], [1.0] + [-1.0] * len(here),
                   lo=-float(held))
            cols.append(e)
            vals.append(op.migration_cost)
    if current.max_moves is not None and cols:
        m_.row(cols, vals, hi=current.max_moves, family="max moves")
    return cols, vals
