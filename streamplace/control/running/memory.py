"""Memory pressure of a cluster's TaskManagers, as the Flink autoscaler judges it
(``ScalingMetrics.computeGlobalMetrics``): the GC pressure is the busiest TaskManager's share
of time spent collecting garbage, the heap usage its fullest heap. A job under either looks
slow, and rescaling it adds subtasks that are just as short of memory (FLINK-33764), so the
autoscaler skips the step instead."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MemoryPressure:
    gc: float | None = None     # share of time the busiest TaskManager collects garbage
    heap: float | None = None   # the fullest heap's used share


def vetoed(memory: MemoryPressure, gc_threshold: float, heap_threshold: float) -> str | None:
    """Why the step must not rescale, or None: GC pressure or heap usage above its
    threshold (the Flink autoscaler's ``memory.gc-pressure.threshold`` and
    ``memory.heap-usage.threshold``, both 1 by default: never).

    >>> vetoed(MemoryPressure(gc=0.35), 0.3, 1.0)
    'GC pressure 0.35 is above memory.gc-pressure.threshold 0.3: no rescale until memory is raised'
    """
    if memory.gc is not None and memory.gc > gc_threshold:
        return (f"GC pressure {memory.gc:.2f} is above memory.gc-pressure.threshold "
                f"{gc_threshold:g}: no rescale until memory is raised")
    if memory.heap is not None and memory.heap > heap_threshold:
        return (f"heap usage {memory.heap:.2f} is above memory.heap-usage.threshold "
                f"{heap_threshold:g}: no rescale until memory is raised")
    return None
