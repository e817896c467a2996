"""What a running Flink job did over a window: the accumulated counters of each subtask
(``GET /jobs/:jobid/vertices/:vertexid``, its ``subtasks[].metrics``) at the window's two
ends, differenced (``observe --window``).

Flink's 60 s rate meters were seen to read up to 8% high on a loaded machine (217/s for a
200/s stream: a late update tick stretches their window while the divisor stays 60 s).
The counters are exact, and their
time needs no clock of ours: a subtask's busy, idle and back-pressured milliseconds add up
to the time it ran, so the window's length is what the subtasks themselves counted, and the
JobManager's metric cache (up to ``metrics.fetcher.update-interval`` stale) cannot skew it.
"""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from streamplace.control.clock import Clock, nap, poll_until
from streamplace.control.flink.answers import as_list, incomplete, totals
from streamplace.control.flink.job import fetch_snapshot
from streamplace.control.flink.slices import (
    firing_lengths,
    firing_period,
    firings,
    record_service,
    service_variability,
)
from streamplace.control.running.observation import Window
from streamplace.errors import EngineError
from streamplace.solve.budget import StopRequest

MIN_WINDOW = 5.0  # seconds: Flink's counters move in steps
TIMES = ("accumulated-busy-time", "accumulated-idle-time", "accumulated-backpressured-time")
COUNTS = ("read-records", "write-records", "read-bytes", "write-bytes")


def vertex_window(name: str, before: Any, after: Any, between: list[Any] | None = None,
                  ) -> Window:
    """The window of one vertex from its details at the two ends (and ``between``, readings
    inside it, which slice each subtask's busy time for the service's variability); a
    vertex that restarted or was rescaled in between is an :class:`EngineError` (observe
    again)."""
    for which, state in (("start", before), ("end", after)):
        _complete(name, which, state)
    first, second = _subtasks(before), _subtasks(after)
    if set(first) != set(second):
        raise EngineError(f"vertex {name!r} ran {len(first)} subtasks at the window's start "
                          f"and {len(second)} at its end: the job was rescaled during the "
                          "window; observe again once it has settled")
    busy, pressed, spans, busy_ms, served, sliced = [], [], [], 0.0, [], []
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
                              "metrics.fetcher.update-interval (10 s by default); read "
                              "over a longer window (observe --window, autoscale "
                              "--metrics-window)")
        busy.append(min(1.0, max(0.0, deltas["accumulated-busy-time"] / span)))
        pressed.append(min(1.0, max(0.0, deltas["accumulated-backpressured-time"] / span)))
        spans.append(span)
        busy_ms += max(0.0, deltas["accumulated-busy-time"])
        sliced.append(_slices(start, [_subtasks(d).get(index) for d in between or []], end))
        served += [(b, n) for b, n, _ in sliced[-1]]
        for k in COUNTS:
            counts[k] += deltas[k]
    record = record_service(served)
    runs = [firings(one, record) for one in sliced] if record is not None else []
    seconds = sum(spans) / len(spans) / 1000
    return Window(seconds, tuple(busy), tuple(pressed), counts, busy_ms,
                  service_variability(served), record,
                  firing_lengths(runs) if record is not None else None,
                  max((len(r) for r in runs), default=0), firing_period(runs, seconds))


def _slices(start: dict[str, float], middle: list[dict[str, float] | None],
            end: dict[str, float]) -> list[tuple[float, float, float]]:
    """One subtask's (busy seconds, records read, share of the slice busy or
    back-pressured) over each slice of the window, its ends and the readings between them
    that moved on from the last: counted more time (a JobManager answering from its cache
    repeats a reading: the slice then runs on to the next). Time, not records: a slice
    inside a long firing reads none."""
    marks, out = [start], []
    for reading in [*middle, end]:
        if reading is None:
            continue
        if reading.get("read-records", 0.0) < marks[-1].get("read-records", 0.0):
            return []  # went back: the window's own check says why
        if _ran(reading) > _ran(marks[-1]) or reading is end:
            marks.append(reading)
    for a, b in pairwise(marks):
        moved = {k: b.get(k, 0.0) - a.get(k, 0.0) for k in TIMES}
        ran = sum(moved.values())
        held = (moved["accumulated-busy-time"] + moved["accumulated-backpressured-time"]) / ran \
            if ran > 0 else 1.0
        out.append((max(0.0, moved["accumulated-busy-time"]) / 1000,
                    b.get("read-records", 0.0) - a.get("read-records", 0.0),
                    min(1.0, max(0.0, held))))
    return out


def _ran(counters: dict[str, float]) -> float:
    """The milliseconds a subtask counted, busy, idle or back-pressured."""
    return sum(counters.get(k, 0.0) for k in TIMES)


def windows(vertices: dict[str, str], before: dict[str, Any],
            details: dict[str, Any], between: list[Any] | None = None) -> dict[str, Window]:
    """Each vertex's window (``vertices``: id to name) from the snapshot taken at the
    window's start (``before``), the details at its end, and those read ``between``."""
    earlier = before.get("vertices")
    earlier = earlier if isinstance(earlier, dict) else {}
    inside = [b for b in between or [] if isinstance(b, dict)]
    return {vid: vertex_window(name, earlier.get(vid), details.get(vid),
                               [b.get(vid) for b in inside])
            for vid, name in vertices.items()}


def _complete(name: str, end: str, details: Any) -> None:
    """A window is read only from subtasks that all run, with every counter whole: a
    subtask still starting, or a counter Flink answered incomplete (read as 0), would make
    a busy vertex look idle (FLINK-39925)."""
    subtasks = [s for s in as_list(details.get("subtasks")) if isinstance(s, dict)] \
        if isinstance(details, dict) else []
    if not subtasks:
        raise EngineError(f"no reading: Flink lists no subtask of vertex {name!r} at the "
                          f"window's {end}; read again once the job runs")
    states = sorted({str(s.get("status")) for s in subtasks} - {"RUNNING"})
    if states:
        raise EngineError(f"no reading: vertex {name!r} has subtasks {', '.join(states)} "
                          f"at the window's {end}, not all RUNNING; read again once they run")
    partial = sorted({c for s in subtasks for c in incomplete(s.get("metrics"))})
    if partial:
        raise EngineError(f"no reading: Flink answered {', '.join(partial)} of vertex "
                          f"{name!r} as incomplete (complete: false) at the window's {end}: "
                          "a partial count is no count; read again")


def _subtasks(details: Any) -> dict[int, dict[str, float]]:
    out = {}
    for s in as_list(details.get("subtasks")) if isinstance(details, dict) else []:
        if isinstance(s, dict) and isinstance(s.get("subtask"), int):
            out[s["subtask"]] = totals(s.get("metrics"))
    return out


STALE_SECONDS = 15.0
"""How long past the window a second reading may wait for Flink's metrics to move: the
JobManager fetches them every ``metrics.fetcher.update-interval`` (10 s by default)."""
STALE_POLL = 0.5  # seconds between two readings of an end that has not moved yet


def fetch_window(url: str, seconds: float, clock: Clock, stop: StopRequest | None = None,
                 label: str = "JOB", slices: int = 1) -> dict[str, Any]:
    """Two snapshots about ``seconds`` apart, the first under ``before``: the accumulated
    counters differenced over the window are exact, where Flink's 60 s meters read a
    stretched window on a loaded machine.

    The JobManager answers from a metric cache that a request refreshes in the background
    (at most every ``metrics.fetcher.update-interval``): each end of the window is read
    again until its counters have moved, so that it holds what the subtasks counted after
    that end began, for at most STALE_SECONDS each. With ``slices`` above one, the vertices
    are read that many times less one between the ends too (``between``): each subtask's
    busy time per slice gives its service's variability where one subtask is all a vertex
    has. A stop request ends the wait (:class:`~streamplace.control.clock.Stopped`)."""
    first = _fresh(url, label, clock, stop)
    between = []
    for _ in range(slices - 1):
        nap(seconds / slices, clock, stop)
        between.append(fetch_snapshot(url, label).get("vertices"))
    nap(seconds / slices, clock, stop)
    second = _fresh(url, label, clock, stop)
    second["before"] = {k: first.get(k) for k in ("taken", "job", "vertices", "pending")}
    if between:
        second["between"] = between
    return second


def _fresh(url: str, label: str, clock: Clock, stop: StopRequest | None) -> dict[str, Any]:
    asked = fetch_snapshot(url, label)
    nap(STALE_POLL, clock, stop)

    def moved() -> dict[str, Any] | None:
        answer = fetch_snapshot(url, label)
        return answer if _moved(asked, answer) else None

    return poll_until(moved, STALE_SECONDS, clock, stop, STALE_POLL) or asked


def _moved(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether every vertex's subtasks counted more time in ``second``: each vertex's
    metrics reach the JobManager's cache on their own. A job that lists no vertex has
    nothing to wait for (what it is, the reading then says)."""
    before, after = _times(first), _times(second)
    return all(after[vid] > before.get(vid, 0.0) for vid in after)


def _times(snapshot: dict[str, Any]) -> dict[str, float]:
    return {vid: sum(counts.get(k, 0.0) for counts in _subtasks(details).values()
                     for k in TIMES)
            for vid, details in snapshot["vertices"].items()}
