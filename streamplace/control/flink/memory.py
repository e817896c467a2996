"""Memory pressure of a cluster's TaskManagers read as the Flink autoscaler reads it
(``ScalingMetrics.computeGlobalMetrics``): the GC pressure from
``Status.JVM.GarbageCollector.All.TimeMsPerSecond`` / 1000 of the busiest TaskManager, the
heap usage from ``Status.JVM.Memory.Heap.Used`` over ``...Heap.Max`` of the fullest."""

from __future__ import annotations

from typing import Any

from streamplace.control.flink.answers import as_number
from streamplace.control.flink.job import split_job_url
from streamplace.control.running.memory import MemoryPressure
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


def pressure(memory: Any) -> MemoryPressure:
    """The GC pressure and the heap usage the answers give, each None where unknown.

    >>> pressure({GC: 350.0, HEAP_USED: 90.0, HEAP_MAX: 100.0})
    MemoryPressure(gc=0.35, heap=0.9)
    """
    if not isinstance(memory, dict):
        return MemoryPressure()
    gc = memory.get(GC)
    used, most = memory.get(HEAP_USED), memory.get(HEAP_MAX)
    return MemoryPressure(
        gc / 1000 if isinstance(gc, float | int) else None,
        used / most if isinstance(used, float | int) and isinstance(most, float | int)
        and most > 0 else None)
