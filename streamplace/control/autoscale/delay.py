"""The delayed scale-down of the Flink autoscaler (``scale-down.interval``, FLINK-36535):
a vertex is scaled up at once, and down only once a scale-down has been recommended for the
whole interval, then to the largest parallelism recommended in it. Under a load that comes
and goes, the job is not restarted at every turn (FLINK-36018: "more than 20 times a
day")."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class DelayedScaleDown:
    interval: float                                  # seconds
    pending: dict[str, tuple[float, int]] = field(default_factory=dict)
    """operator: (when a scale-down was first recommended, the largest since)"""

    def hold(self, running: dict[str, int], wanted: dict[str, int], now: float,
             ) -> tuple[dict[str, int], list[str]]:
        """The parallelism to run now, and why any scale-down waits.

        >>> delay = DelayedScaleDown(60)
        >>> delay.hold({"w": 4}, {"w": 2}, 0.0)
        ({'w': 4}, ['w: a scale-down to 2 waits 60 s more (scale-down.interval 60 s)'])
        >>> delay.hold({"w": 4}, {"w": 3}, 30.0)[0], delay.hold({"w": 4}, {"w": 2}, 60.0)[0]
        ({'w': 4}, {'w': 3})
        """
        out, why = {}, []
        for op, k in wanted.items():
            now_runs = running.get(op, k)
            if k >= now_runs:  # up, or no change: nothing waits any more
                self.pending.pop(op, None)
                out[op] = k
                continue
            first, most = self.pending.get(op, (now, k))
            most = max(most, k)
            if now - first >= self.interval:
                self.pending.pop(op, None)
                out[op] = most
                continue
            self.pending[op] = (first, most)
            out[op] = now_runs
            why.append(f"{op}: a scale-down to {most} waits {self.interval - (now - first):.0f} "
                       f"s more (scale-down.interval {self.interval:g} s)")
        return out, why
