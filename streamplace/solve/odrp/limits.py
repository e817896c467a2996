"""Metric limits in the compact ODRP program (docs/models.md sec. 2, "Metric limits"):
rows that bound response time, cost, a network metric from above or availability from
below, whatever F weighs.

Each bounded expression is built from variables that are at least the metric's true value
at an integer point (r is at least every sink's arrival time; a traffic product q at least
h x t), so a row "expression <= limit" admits exactly the plans whose metric is within it:
the solver can always set those variables to their true values. Availability is bounded
from below through log A, whose y and w are at least the use indicators and carry
negative logs, so the same holds.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from streamplace.model.metrics import Metric, MetricLimits
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.data import OdrpData

Cells = dict[tuple[str, str], list[tuple[int, int, int]]]


def add_limits(data: OdrpData, m_: LinearModel, c: dict[tuple[str, int], int], cells: Cells,
               limits: MetricLimits, r: int | None, log_a: list[tuple[int, float]],
               check: Callable[[], None]) -> None:
    for metric, bound in limits.bounds.items():
        check()
        if metric == Metric.AVAILABILITY:
            if bound > 0 and log_a:  # A is 1 when nothing can fail
                m_.row([col for col, _ in log_a], [value for _, value in log_a],
                       lo=math.log(bound))
            continue
        if metric == Metric.RESPONSE_TIME:
            assert r is not None
            _bounded(m_, [r], [1.0], bound)
            continue
        cols: list[int] = []
        vals: list[float] = []
        if metric == Metric.COST:
            for (op_id, m), col in c.items():
                op = data.instance.app.operator(op_id)
                cols.append(col)
                vals.append(op.cost * op.billing_units * m)
        _products(data, m_, cells, _pair_weight(data, metric), cols, vals, metric)
        _bounded(m_, cols, vals, bound)


def _bounded(m_: LinearModel, cols: list[int], vals: list[float], bound: float) -> None:
    """``sum vals x <= bound``, divided by the bound so that the solver's absolute
    feasibility tolerance is relative to the limit (model/metrics.py, LIMIT_TOLERANCE)."""
    if bound > 0:
        m_.row(cols, [v / bound for v in vals], hi=1.0, family="limits")
    else:
        m_.row(cols, vals, hi=bound, family="limits")


def _pair_weight(data: OdrpData, metric: Metric) -> Callable[[str, str], float]:
    """Per byte/s between nodes u and v: the link cost (for cost) or the metric's factor."""
    if metric == Metric.COST:
        return lambda u, v: data.link(u, v).cost
    return lambda u, v: metric.per_byte(data.link(u, v).delay)


def _products(data: OdrpData, m_: LinearModel, cells: Cells, weight: Callable[[str, str], float],
              cols: list[int], vals: list[float], name: str) -> None:
    """Append sum over streams of bytes/s x sum over node pairs of weight(u, v) x the share
    of the source on u x the share of the target on v, as columns and coefficients: the
    products of eqs. 5 and 17-20, lower-bounded as in the objective's (compact.py)."""
    for s in data.streams:
        if s.bytes_per_s <= 0:
            continue
        ups, downs = data.cands[s.source], data.cands[s.target]
        for v in downs:
            g = {u: s.bytes_per_s * weight(u, v) for u in ups
                 if u != v and data.link(u, v).reachable}
            top = max(g.values(), default=0.0)
            if top <= 0:
                continue
            h = m_.var(f"{name}.h[{s.source},{s.target},{v}]", 0.0, top)
            h_cols, h_vals = [h], [1.0]
            for u, g_u in g.items():
                if g_u > 0:
                    for m, _a, col in cells[(s.source, u)]:
                        h_cols.append(col)
                        h_vals.append(-g_u / m)
            m_.row(h_cols, h_vals, 0.0, 0.0)
            for m, a, t in cells[(s.target, v)]:
                q = m_.var(f"{name}.q[{s.source},{s.target},{v},{m},{a}]", 0.0, top)
                m_.row([q, h, t], [1.0, -1.0, -top], lo=-top)
                cols.append(q)
                vals.append(1.0 / m)
