"""``--max-response-time`` as a constraint of the horizon program (docs/models.md, (H7)):
each source-to-sink path's marker age, hop by hop as (L3) has it, at every count each
vertex may run in every window planned, so that a scale-up for latency leads the rise as
one for capacity does.

Of (L3)'s terms, the flush (half the buffer timeout) and the network do not move with the
counts; the queueing does: the records flushed with the marker and Kingman's wait, both as
(L3) has them, at the vertex's count and load. Where the p99 is held
(``--response-time-statistic p99``), a hop's wait enters at its own 99th percentile, an
exponential tail of mean W / rho after a wait with probability rho:

    W_99 = (W / rho) ln(100 rho)   (0 where rho <= 0.01),

and the path's p99 is taken as what was read less the hops' sum as they run plus their sum
at the counts planned: a sum of quantiles, at least the quantile of the sum for waits that
rise together, so on the safe side. What is left of the limit once the terms that do not
move (and what the model misses, calibrated so that the counts that run give the markers
read) are taken off is ``room``, what the queueing may add. The queueing at a vertex at
count k, carrying lambda_t records per second with capacity C(k) from its fitted curve, is
taken at

    rho = lambda_t / C(k),   S = k / C(k)

(where the window read the busy time a record typically takes, S_r, below the average, the
queue is the records' own, rho = lambda_t S_r / k, S = S_r, and lambda_t / C(k) < 1 its
bound: the work no record brings counts towards the capacity, and a window's firing,
D at once, holds up the markers that meet it, a share (total - rho) / (1 - rho) of them,
as in (L3); D is taken as it runs at every count, though split over more subtasks it
would shorten: on the safe side)

with T, c, c_s^2 and the barriers those of the hop into it on the running job (the
producers' count c is taken as it runs: the term it enters is the smaller one). A window's
load is the larger of its own and the next's, as the capacity's floor takes it: the bound is
held from the window a rescale takes effect in.
"""

from __future__ import annotations

import math
from dataclasses import replace

from streamplace.control.autoscale.capacity import Curve
from streamplace.control.running.hops import Hop
from streamplace.control.running.latency import PathLatency
from streamplace.solve.horizon.instance import LatencyPath


def queueing(hop: Hop, load: float, count: int, capacity: float,
             statistic: str = "mean") -> float:
    """What the queue before a vertex adds at ``count`` subtasks of ``capacity`` records
    per second in all, carrying ``load``: infinite where it does not carry it."""
    if capacity <= 0 or load >= capacity:
        return math.inf
    if hop.total is not None:  # the records' own share, each record's service as read
        return waited(replace(hop, busy=min(1.0, load / count * hop.service),
                              total=load / capacity), statistic)
    return waited(replace(hop, busy=load / capacity, service=count / capacity), statistic)


def waited(hop: Hop, statistic: str = "mean") -> float:
    """The hop's queueing terms: the batch flushed with the marker, the wait and the wait
    behind a firing, at their means or at their 99th percentiles."""
    firing = hop.behind_firing if statistic == "mean" else hop.behind_firings(0.99)
    if statistic == "mean" or hop.queue <= 0 or not math.isfinite(hop.queue):
        return hop.batch + hop.queue + firing
    scale = hop.queue / hop.busy  # the wait of a marker that waits, exponential
    return hop.batch + firing + (scale * math.log(100 * hop.busy) if hop.busy > 0.01 else 0.0)


def latency_paths(paths: list[PathLatency], limit: float, counts: dict[str, list[int]],
                  load: dict[str, list[float]], curves: dict[str, Curve | None],
                  windows: int, statistic: str = "mean",
                  ) -> tuple[tuple[LatencyPath, ...], list[str]]:
    """The paths whose ``statistic`` the program holds below ``limit`` (``counts``: each
    vertex's columns; ``load``: records per second into it per window, one more than
    ``windows``), and what was left out: a path whose fixed part already reaches the
    limit, which no count shortens (said), or whose hops' vertices have no capacity curve
    (held as they run)."""
    out, said = [], []
    for p in paths:
        if not math.isfinite(p.predicted.expected.mean):
            said.append(f"{p.name}: its prediction is unbounded on the plan that runs (a "
                        "vertex at its capacity): the latency is not planned ahead")
            continue
        # what was read less what the counts that run add: the part that does not move
        fixed = p.measured.held(statistic) - sum(waited(h, statistic) for h in p.predicted.path)
        adds: dict[str, tuple[tuple[float, ...], ...]] = {}
        for hop in p.predicted.path:
            op, curve = hop.stream[1], curves.get(hop.stream[1])
            if curve is None or op not in counts or op not in load:
                fixed += waited(hop, statistic)  # what it adds as it runs
                continue
            ahead = [max(load[op][t:t + 2]) for t in range(windows)]
            adds[op] = tuple(tuple(queueing(hop, ahead[t], k, curve.at(k), statistic)
                                   for k in counts[op]) for t in range(windows))
        room = limit - fixed
        if room <= 0:
            said.append(f"{p.name}: what no count shortens ({fixed * 1000:.0f} ms at the "
                        f"{statistic}: the buffers, the network and what the model misses) "
                        f"reaches --max-response-time {limit * 1000:.0f} ms: not planned ahead")
            continue
        out.append(LatencyPath(p.name, room, adds))
    return tuple(out), said

