"""Memory pressure of a cluster's TaskManagers, as the Flink autoscaler reads it
(``ScalingMetrics.computeGlobalMetrics``): the GC pressure is the busiest TaskManager's share
of time spent collecting garbage (``Status.JVM.GarbageCollector.All.TimeMsPerSecond`` / 1000),
the heap usage its fullest heap (``Status.JVM.Memory.Heap.Used`` over ``...Heap.Max``). A
job under either looks slow, and rescaling it adds subtasks that are just as short of memory
(FLINK-33764), so the autoscaler skips the step instead."""

from __future__ import annotations

from typing import Any

from streamplace.control.flink.job import split_job_url
from streamplace.control.flink.values import as_number
from streamplace.errors import InputError, Unreachable
from streamplace.io.http import get_json

GC = "Status.JVM.GarbageCollector.All.TimeMsPerSecond"
HEAP_USED, HEAP_MAX = "Status.JVM.Memory.Heap.Used", "Status.JVM.Memory.Heap.Max"


def fetch_memory(url: str, label: str = "JOB") -> dict[str, Any]:
    """``GET /taskmanagers/metrics`` for the GC time, then for the heap: asked apart, as the
    Flink autoscaler asks, since Flink answers nothing when one name of a query is missing
    (the GC total exists from Flink 1.19). Empty where the JobManager does not say."""
    address, base, _ = split_job_url(url, label)
    out: dict[str, Any] = {}
    for names in ((GC,), (HEAP_USED, HEAP_MAX)):
        try:
            answer = get_json(address.at(f"{base}/taskmanagers/metrics?get={','.join(names)}"),
                              label)
        except Unreachable:
            raise
        except InputError:  # a proxy that passes only the calls it knows
            continue
        for metric in answer if isinstance(answer, list) else []:
            if isinstance(metric, dict) and metric.get("id") in names:
                out[metric["id"]] = as_number(metric.get("max"))
    return out


def pressure(memory: Any) -> tuple[float | None, float | None]:
    """The GC pressure and the heap usage the answers give, each None where unknown.

    >>> pressure({GC: 350.0, HEAP_USED: 90.0, HEAP_MAX: 100.0})
    (0.35, 0.9)
    """
    if not isinstance(memory, dict):
        return None, None
    gc = memory.get(GC)
    used, most = memory.get(HEAP_USED), memory.get(HEAP_MAX)
    return (gc / 1000 if isinstance(gc, float | int) else None,
            used / most if isinstance(used, float | int) and isinstance(most, float | int)
            and most > 0 else None)


def vetoed(memory: Any, gc_threshold: float, heap_threshold: float) -> str | None:
    """Why the step must not rescale, or None: GC pressure or heap usage above its
    threshold (the Flink autoscaler's ``memory.gc-pressure.threshold`` and
    ``memory.heap-usage.threshold``, both 1 by default: never).

    >>> vetoed({GC: 350.0}, 0.3, 1.0)
    'GC pressure 0.35 is above memory.gc-pressure.threshold 0.3: no rescale until memory is raised'
    """
    gc, heap = pressure(memory)
    if gc is not None and gc > gc_threshold:
        return (f"GC pressure {gc:.2f} is above memory.gc-pressure.threshold "
                f"{gc_threshold:g}: no rescale until memory is raised")
    if heap is not None and heap > heap_threshold:
        return (f"heap usage {heap:.2f} is above memory.heap-usage.threshold "
                f"{heap_threshold:g}: no rescale until memory is raised")
    return None
