"""The horizon program (docs/models.md, "Planning ahead", (H1)-(H6)), built in bulk and
solved exactly:

    min  sum_t step * sum_g s[g,t]  +  rescale_cost * sum_t r[t]                     (H1)
    s.t. sum_j y[v,t,j] = 1                           each vertex runs one count     (H2)
         s[g,t] >= sum_j k_j y[v,t,j]   for v in g    a group takes its widest       (H3)
         sum_g s[g,t] <= slots                        the slots there are            (H4)
         sum_j C_v(k_j) y[v,t,j] >= floor[v,t] + (restarted[v,t] - floor[v,t]) r[t]  (H5)
         r[t] >= y[v,t,j] - y[v,t-1,j],  r[0] >= 1 - y[v,0,running]    a change is a rescale
         sum of r over any `period` windows - over[t] <= most - spent  the budget   (H6)
         sum_(v on p) sum_j a[p,v,t,j] y[v,t,j] - late[p,t] <= room[p]  the latency   (H7)

y and r are binary, s continuous (the objective holds it at the widest count). The
capacities C_v(k) need not be linear: each count is a column of its own. The budget is kept
before the cost but after the capacity: a rescale over it (``over``) costs more than any
plan within it, so a plan goes over only where no plan within carries the load, and then by
as few rescales as it can. The latency bound comes before the budget: a millisecond late
(``late``) costs as much as LATE_COST rescales over it, so a plan runs late only where no
count that the slots hold keeps the path under its limit, and then as little as it can.
"""

from __future__ import annotations

from dataclasses import dataclass

from streamplace.solve.budget import StopRequest
from streamplace.solve.horizon.instance import HorizonInstance
from streamplace.solve.mip.model import INF, LinearModel
from streamplace.solve.mip.solve import solve_mip
from streamplace.solve.result import SolveOptions, SolveStatus

LATE_COST = 1000.0  # rescales over the budget a second late costs (one a millisecond)


@dataclass(frozen=True)
class HorizonPlan:
    status: SolveStatus
    counts: list[dict[str, int]] | None    # per window: vertex -> parallelism
    slots: list[int] | None                # per window
    rescales: list[bool] | None            # per window: whether it begins with one
    objective: float | None
    bound: float | None
    gap: float | None
    seconds: float
    message: str = ""
    over_budget: int = 0                   # rescales beyond the budget (capacity first)
    late: list[float] | None = None        # per window: seconds the latest path is over

    @property
    def first(self) -> dict[str, int] | None:
        return self.counts[0] if self.counts else None


@dataclass(frozen=True)
class _Columns:
    y: dict[tuple[str, int, int], int]   # (vertex, window, count index) -> column
    s: dict[tuple[str, int], int]        # (group, window)
    r: list[int]
    over: list[int]                      # rescales over the budget, per budget row
    late: dict[tuple[int, int], int]     # (path, window): seconds over its limit


def build(instance: HorizonInstance, budget: bool = True) -> tuple[LinearModel, _Columns]:
    """The program of ``instance`` (without its rescale budget where ``budget`` is False)."""
    m = LinearModel(maximize=False)
    windows = instance.windows
    groups = sorted({v.group for v in instance.vertices})
    y: dict[tuple[str, int, int], int] = {}
    s: dict[tuple[str, int], int] = {}
    r = [m.binary(f"r[{t}]", instance.rescale_cost) for t in range(windows)]
    for t in range(windows):
        for g in groups:
            s[(g, t)] = m.var(f"s[{g},{t}]", 0.0, float(instance.slots), instance.seconds(t))
        for v in instance.vertices:
            for j, k in enumerate(v.counts):
                y[(v.op, t, j)] = m.binary(f"y[{v.op},{t},{k}]")
    for t in range(windows):
        with m.family("H2 one count"):
            for v in instance.vertices:
                cols = [y[(v.op, t, j)] for j in range(len(v.counts))]
                m.row(cols, [1.0] * len(cols), 1.0, 1.0)
        with m.family("H3 widest"):
            for v in instance.vertices:
                cols = [y[(v.op, t, j)] for j in range(len(v.counts))]
                m.row([s[(v.group, t)], *cols], [1.0, *(-float(k) for k in v.counts)], 0.0)
        with m.family("H4 slots"):
            m.row([s[(g, t)] for g in groups], [1.0] * len(groups), hi=float(instance.slots))
        with m.family("H5 capacity"):
            for v in instance.vertices:
                cols = [y[(v.op, t, j)] for j in range(len(v.counts))]
                extra = v.restarted[t] - v.floor[t]
                m.row([*cols, r[t]], [*v.capacity, -extra], lo=v.floor[t], normalise=True)
        with m.family("rescale"):
            for v in instance.vertices:
                if t == 0 and v.running not in v.counts:  # it cannot run on as it does
                    m.row([r[0]], [1.0], lo=1.0)
                for j, k in enumerate(v.counts):
                    if t == 0:
                        if k == v.running:
                            m.row([r[0], y[(v.op, 0, j)]], [1.0, 1.0], lo=1.0)
                    else:
                        m.row([r[t], y[(v.op, t, j)], y[(v.op, t - 1, j)]],
                              [1.0, -1.0, 1.0], lo=0.0)
    over = []
    beyond = over_cost(instance)
    for b in instance.budgets if budget else ():
        with m.family("H6 budget"):
            for t in range(windows):
                first = max(0, t - b.period + 1)
                spent = b.spent[t] if t < len(b.spent) else 0
                over.append(m.var(f"over[{b.period},{t}]", 0.0, float(windows), beyond))
                m.row([*r[first:t + 1], over[-1]], [1.0] * (t + 1 - first) + [-1.0],
                      hi=float(b.most - spent))
    late: dict[tuple[int, int], int] = {}
    for i, path in enumerate(instance.paths):
        with m.family("H7 latency"):
            for t in range(windows):
                late[(i, t)] = m.var(f"late[{path.name},{t}]", 0.0, INF, LATE_COST * beyond)
                cols, coefs = [late[(i, t)]], [-1.0]
                for v in instance.vertices:
                    for j, add in enumerate(path.adds[v.op][t] if v.op in path.adds else ()):
                        cols.append(y[(v.op, t, j)])
                        # a count that cannot carry the load is a second late at least
                        coefs.append(add if add <= path.room + 1 else path.room + 1)
                m.row(cols, coefs, hi=path.room)
    return m, _Columns(y, s, r, over, late)


def over_cost(instance: HorizonInstance) -> float:
    """What a rescale over the budget costs: more than every plan within it."""
    return 10.0 * (instance.rescale_cost + instance.slots * sum(
        instance.seconds(t) for t in range(instance.windows))) + 1.0


def solve_horizon(instance: HorizonInstance, time_limit: float | None,
                  stop: StopRequest | None = None, budget: bool = True) -> HorizonPlan:
    """The cheapest counts over the horizon, proven where the status says optimal."""
    model, cols = build(instance, budget)
    outcome = solve_mip(model, SolveOptions(time_limit=time_limit,
                                            stop=stop or StopRequest()))
    if outcome.values is None:
        return HorizonPlan(outcome.status, None, None, None, None, outcome.bound,
                           None, outcome.seconds, outcome.message)
    x = outcome.values
    counts = [{v.op: next(k for j, k in enumerate(v.counts) if x[cols.y[(v.op, t, j)]] > 0.5)
               for v in instance.vertices} for t in range(instance.windows)]
    groups = sorted({v.group for v in instance.vertices})
    slots = [sum(max(c[v.op] for v in instance.vertices if v.group == g) for g in groups)
             for c in counts]
    rescales = [x[cols.r[t]] > 0.5 for t in range(instance.windows)]
    over = round(max((x[c] for c in cols.over), default=0.0))
    late = [max((x[c] for (_, w), c in cols.late.items() if w == t), default=0.0)
            for t in range(instance.windows)] if cols.late else None
    return HorizonPlan(outcome.status, counts, slots, rescales, outcome.objective,
                       outcome.bound, outcome.gap, outcome.seconds, outcome.message, over,
                       late)
