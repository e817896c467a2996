"""What the horizon program is given: for each vertex, the parallelisms it may run and the
capacity of each, the capacity each window needs of it (more in a window that begins with a
restart), the slots, the rescale budget and the costs. Everything the forecast, the fitted
capacity curves and the job's graph say has been turned into these numbers beforehand
(``control/autoscale/predict.py``): the program is the same offline (``report --optimum``,
the rates a run saw) as online (the rates forecast)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class HorizonVertex:
    op: str
    counts: tuple[int, ...]          # the parallelisms it may run, ascending
    capacity: tuple[float, ...]      # records per second at each, full busy time
    running: int                     # what it runs now (the program starts from it)
    group: str = "default"           # its slot-sharing group
    floor: tuple[float, ...] = ()    # capacity each window needs of it
    restarted: tuple[float, ...] = ()  # ... where the window begins with a rescale


@dataclass(frozen=True)
class Budget:
    """At most ``most`` rescales in any ``period`` consecutive windows; ``spent[t]``: those
    already made before the horizon that count in window t's period. A program may hold
    several (the budget given, and its pace over the horizon)."""

    most: int
    period: int
    spent: tuple[int, ...] = ()


@dataclass(frozen=True)
class LatencyPath:
    """A source-to-sink path held to ``--max-response-time``: what the queueing at each of
    its vertices adds to a marker's age, per window and per count (seconds; infinite where
    the count does not carry the window's load), and ``room``, what the limit leaves them
    once the buffers, the network and what the model misses are taken (docs/models.md,
    (H7))."""

    name: str
    room: float
    adds: dict[str, tuple[tuple[float, ...], ...]]  # op -> window -> count index -> seconds


@dataclass(frozen=True)
class HorizonInstance:
    step: float                        # seconds a window
    vertices: tuple[HorizonVertex, ...]
    slots: int                         # the slots the job may hold
    rescale_cost: float                # slot-seconds a rescale costs (its restart)
    budgets: tuple[Budget, ...] = ()
    durations: tuple[float, ...] = ()  # seconds each window lasts, where not all ``step``
    paths: tuple[LatencyPath, ...] = ()  # held below --max-response-time

    def seconds(self, t: int) -> float:
        return self.durations[t] if t < len(self.durations) else self.step

    @property
    def windows(self) -> int:
        return len(self.vertices[0].floor) if self.vertices else 0
