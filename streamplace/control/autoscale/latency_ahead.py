"""``--max-response-time`` as a constraint of the horizon program (docs/models.md, (H7)):
each source-to-sink path's marker age, hop by hop as (L3) has it, at every count each
vertex may run in every window planned, so that a scale-up for latency leads the rise as
one for capacity does.

Of (L3)'s terms, the flush (half the buffer timeout), the network and what the model
misses on the running job (e: the markers measured less (L3) on the plan that runs) do
not move with the counts: they are taken from the limit, and what is left (``room``) is
what the queueing may add. The queueing at a vertex at count k, carrying lambda_t records
per second with capacity C(k) from its fitted curve, is

    rho = lambda_t / C(k),   S = k / C(k)

in (L3)'s batch and queue terms, with T, c, c_s^2 and the barriers those of the hop into it
on the running job (the producers' count c is
taken as it runs: the term it enters is the smaller one). A window's load is the larger of
its own and the next's, as the capacity's floor takes it: the bound is held from the
window a rescale takes effect in.
"""

from __future__ import annotations

import math
from dataclasses import replace

from streamplace.control.autoscale.capacity import Curve
from streamplace.control.running.hops import Hop
from streamplace.control.running.latency import PathLatency
from streamplace.solve.horizon.instance import LatencyPath


def queueing(hop: Hop, load: float, count: int, capacity: float) -> float:
    """What the queue before a vertex adds at ``count`` subtasks of ``capacity`` records
    per second in all, carrying ``load``: infinite where it does not carry it."""
    if capacity <= 0 or load >= capacity:
        return math.inf
    there = replace(hop, busy=load / capacity, service=count / capacity)
    return there.batch + there.queue


def latency_paths(paths: list[PathLatency], limit: float, counts: dict[str, list[int]],
                  load: dict[str, list[float]], curves: dict[str, Curve | None],
                  windows: int) -> tuple[tuple[LatencyPath, ...], list[str]]:
    """The paths the program holds below ``limit`` (``counts``: each vertex's columns;
    ``load``: records per second into it per window, one more than ``windows``), and what
    was left out: a path whose fixed part already reaches the limit, which no count
    shortens (said), or whose hops' vertices have no capacity curve (held as they run)."""
    out, said = [], []
    for p in paths:
        measured, model = p.measured.mean, p.predicted.expected
        if not math.isfinite(model.mean):
            said.append(f"{p.name}: its prediction is unbounded on the plan that runs (a "
                        "vertex at its capacity): the latency is not planned ahead")
            continue
        missed = measured - model.mean
        fixed = missed + p.predicted.unshortened
        adds: dict[str, tuple[tuple[float, ...], ...]] = {}
        for hop in p.predicted.path:
            op, curve = hop.stream[1], curves.get(hop.stream[1])
            if curve is None or op not in counts or op not in load:
                fixed += hop.batch + hop.queue  # what it adds as it runs
                continue
            ahead = [max(load[op][t:t + 2]) for t in range(windows)]
            adds[op] = tuple(tuple(queueing(hop, ahead[t], k, curve.at(k)) for k in counts[op])
                             for t in range(windows))
        room = limit - fixed
        if room <= 0:
            said.append(f"{p.name}: what no count shortens ({fixed * 1000:.0f} ms: the "
                        "buffers, the network and what the model misses) reaches "
                        f"--max-response-time {limit * 1000:.0f} ms: not planned ahead")
            continue
        out.append(LatencyPath(p.name, room, adds))
    return tuple(out), said

