"""What a running Flink job did over a window: the accumulated counters of each subtask
(``GET /jobs/:jobid/vertices/:vertexid``, its ``subtasks[].metrics``) at the window's two
ends, differenced (``observe --window``).

Flink's 60 s rate meters read up to 8% high on a loaded machine (a late update tick
stretches their window while the divisor stays 60 s). The counters are exact, and their
time needs no clock of ours: a subtask's busy, idle and back-pressured milliseconds add up
to the time it ran, so the window's length is what the subtasks themselves counted, and the
JobManager's metric cache (up to ``metrics.fetcher.update-interval`` stale) cannot skew it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from streamplace.errors import EngineError
from streamplace.io.engines.flink_values import as_list, totals

TIMES = ("accumulated-busy-time", "accumulated-idle-time", "accumulated-backpressured-time")
COUNTS = ("read-records", "write-records", "read-bytes", "write-bytes")


@dataclass(frozen=True)
class Window:
    """One vertex over the window: shares of time per subtask, records over all of them."""

    seconds: float                # the time its subtasks counted, averaged over them
    busy: tuple[float, ...]       # per subtask, share of time busy
    pressed: tuple[float, ...]    # per subtask, share of time back-pressured
    counts: dict[str, float]      # read-records, write-records, read-bytes, write-bytes
    busy_ms: float                # over all subtasks

    def rate(self, count: str) -> float:
        return self.counts.get(count, 0.0) / self.seconds


def vertex_window(name: str, before: Any, after: Any) -> Window:
    """The window of one vertex from its details at the two ends; a vertex that restarted
    or was rescaled in between is an :class:`EngineError` (observe again)."""
    first, second = _subtasks(before), _subtasks(after)
    if set(first) != set(second):
        raise EngineError(f"vertex {name!r} ran {len(first)} subtasks at the window's start "
                          f"and {len(second)} at its end: the job was rescaled during the "
                          "window; observe again once it has settled")
    busy, pressed, spans, busy_ms = [], [], [], 0.0
    counts = dict.fromkeys(COUNTS, 0.0)
    for index, end in second.items():
        start = first[index]
        deltas = {k: end.get(k, 0.0) - start.get(k, 0.0) for k in (*TIMES, *COUNTS)}
        # Flink counts busy time as what is left of the time run, so a back-pressured
        # spell moves from busy to back-pressured when it ends: a share may go back, the
        # time run and the records may not
        if sum(deltas[k] for k in TIMES) < 0 or any(deltas[k] < 0 for k in COUNTS):
            raise EngineError(f"the counters of vertex {name!r} went back during the window: "
                              "the job restarted; observe again once it has settled")
        span = sum(deltas[k] for k in TIMES)
        if span <= 0:
            raise EngineError(f"Flink's counters of vertex {name!r} did not move over the "
                              "window: the JobManager fetches metrics every "
                              "metrics.fetcher.update-interval (10 s by default); give a "
                              "longer --window")
        busy.append(min(1.0, max(0.0, deltas["accumulated-busy-time"] / span)))
        pressed.append(min(1.0, max(0.0, deltas["accumulated-backpressured-time"] / span)))
        spans.append(span)
        busy_ms += max(0.0, deltas["accumulated-busy-time"])
        for k in COUNTS:
            counts[k] += deltas[k]
    return Window(sum(spans) / len(spans) / 1000, tuple(busy), tuple(pressed), counts, busy_ms)


def windowed(vertices: list[Any], before: dict[str, Any],
              details: dict[str, Any]) -> float:
    """Every vertex's counters and shares over the window, put where the meters and the
    life-long counters were (``vertices``: flink_observe's ObservedVertex, which imports
    this module): the rest of the reading is the same."""
    earlier = before.get("vertices")
    earlier = earlier if isinstance(earlier, dict) else {}
    for v in vertices:
        w = vertex_window(v.name, earlier.get(v.id), details.get(v.id))
        p = len(w.busy)
        rates = {"numRecordsInPerSecond": w.rate("read-records"),
                 "numRecordsOutPerSecond": w.rate("write-records"),
                 "busyTimeMsPerSecond": 1000 * sum(w.busy) / p,
                 "backPressuredTimeMsPerSecond": 1000 * sum(w.pressed) / p}
        v.meters = {k: (r if k.startswith("num") else r * p, r / p if k.startswith("num")
                        else r) for k, r in rates.items()}
        v.totals = {**w.counts, "accumulated-busy-time": w.busy_ms}
        v.window = w
    spans: list[float] = [v.window.seconds for v in vertices]
    return sum(spans) / max(1, len(spans))


def _subtasks(details: Any) -> dict[int, dict[str, float]]:
    out = {}
    for s in as_list(details.get("subtasks")) if isinstance(details, dict) else []:
        if isinstance(s, dict) and isinstance(s.get("subtask"), int):
            out[s["subtask"]] = totals(s.get("metrics"))
    return out
