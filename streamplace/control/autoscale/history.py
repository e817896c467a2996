"""What the loop keeps of the job over time, in its memory: each source's offered rate per
window (what it sent plus how fast its lag grew: the load it offered, held back or not),
two weeks of it at every window and a year as hourly means beyond; and each vertex's
capacity at each parallelism it ran at (records per second at full busy time, over its
subtasks), from which its capacity curve is fitted."""

from __future__ import annotations

import bisect

import numpy as np

from streamplace.control.running.observation import Observation
from streamplace.model.state import COARSE, COARSE_KEPT, FINE_KEPT, Memory

BUSY_ENOUGH = 0.05  # a vertex busier than this over the window tells its capacity


def offered_rates(obs: Observation, given: dict[str, float]) -> dict[str, float]:
    """Each source's offered rate over the window: the rate given, else what it sent plus
    how fast its lag grew (a source that reports no lag: what it sent, a lower bound while
    it is held back)."""
    out = {}
    for v in obs.vertices:
        if not v.source:
            continue
        rate = given.get(v.op, given.get(v.name))
        if rate is None:
            rate = max(0.0, (v.meter("numRecordsOutPerSecond") or 0.0)
                       + (v.pending_growth or 0.0))
        out[v.op] = rate
    return out


def remember(memory: Memory, obs: Observation, at: float, given: dict[str, float]) -> None:
    """The window ending at ``at`` (Unix time) into the memory: the offered rates and the
    capacities; what is older than FINE_KEPT folded into hourly means."""
    for op, rate in offered_rates(obs, given).items():
        points = memory.history.setdefault(op, [])
        points.append((at, float(f"{rate:.5g}")))
        # the points are in time order: the old ones lead (a scan of the whole list each
        # window made a step cost as much as the history is long)
        gone = bisect.bisect_left(points, at - FINE_KEPT, key=lambda p: p[0])
        if gone:
            _fold(memory.coarse.setdefault(op, []), points[:gone])
            del points[:gone]
    for v in obs.vertices:
        if v.service_rate and v.busy is not None and v.busy >= BUSY_ENOUGH:
            seen = memory.capacity.setdefault(v.op, {})
            n, mean = seen.get(v.parallelism, (0, 0.0))
            capacity = v.service_rate * v.parallelism
            seen[v.parallelism] = (n + 1, float(f"{mean + (capacity - mean) / (n + 1):.6g}"))


def _fold(coarse: list[tuple[float, float, int]], old: list[tuple[float, float]]) -> None:
    for t, rate in old:
        hour = (t // COARSE + 1) * COARSE
        if coarse and coarse[-1][0] == hour:
            _h, mean, n = coarse[-1]
            coarse[-1] = (hour, mean + (rate - mean) / (n + 1), n + 1)
        else:
            coarse.append((hour, rate, 1))
    del coarse[:-COARSE_KEPT]


def series(points: list[tuple[float, float]], step: float, end: float,
           most: int) -> np.ndarray:
    """The rates at a regular ``step`` up to ``end``, at most ``most`` of them, from the
    points read at the windows' ends (linear between them; none before the first point).

    >>> series([(0.0, 10.0), (60.0, 20.0), (120.0, 30.0)], 30.0, 120.0, 10).tolist()
    [10.0, 15.0, 20.0, 25.0, 30.0]
    """
    if not points:
        return np.zeros(0)
    times = np.array([p[0] for p in points])
    rates = np.array([p[1] for p in points])
    count = min(most, int((end - times[0]) // step) + 1)
    grid = end - step * np.arange(count)[::-1]
    return np.asarray(np.interp(grid, times, rates), dtype=float)
