"""A scale-up that did not raise the capacity it was meant to (the Flink autoscaler's
``scaling.effectiveness.*``, JobVertexScaler.detectIneffectiveScaleUp): a vertex whose
bottleneck lies elsewhere (a hot key, an external system) gains nothing from subtasks, and
scaling it up again only takes slots."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Effectiveness:
    threshold: float                   # share of the expected increase that must come
    blocking: bool                     # whether an ineffective scale-up holds the next
    last: dict[str, tuple[int, float, float]] = field(default_factory=dict)
    """operator: (parallelism it was scaled up to, capacity before, capacity expected)"""

    def scaled(self, running: dict[str, int], wanted: dict[str, int],
               capacity: dict[str, float]) -> None:
        """Remember each vertex a rescale scales up, with its capacity (records per second
        at full busy time) before and as expected after, in proportion to its subtasks."""
        self.last = {op: (k, capacity[op], capacity[op] * k / running[op])
                     for op, k in wanted.items()
                     if k > running.get(op, k) and capacity.get(op) and running.get(op)}

    def hold(self, running: dict[str, int], wanted: dict[str, int],
             capacity: dict[str, float]) -> tuple[dict[str, int], list[str]]:
        """The parallelism with a vertex's next scale-up held where its last one fell
        short (when blocking), and what was found either way.

        >>> e = Effectiveness(0.1, True, {"w": (4, 100.0, 200.0)})
        >>> held, why = e.hold({"w": 4}, {"w": 8}, {"w": 105.0})
        >>> held, why[0].endswith("by 5/s of the 100/s expected "
        ...                       "(scaling.effectiveness.threshold 0.1): held")
        ({'w': 4}, True)
        """
        out, why = dict(wanted), []
        for op, (k, before, expected) in self.last.items():
            now = capacity.get(op)
            if now is None or running.get(op) != k or expected <= before:
                continue
            gained = now - before if abs(now - before) > 1e-9 * max(1.0, before) else 0.0
            if gained / (expected - before) >= self.threshold:
                continue
            held = self.blocking and wanted.get(op, k) > k
            if held:
                out[op] = k
            why.append(f"{op}: the scale-up to {k} raised its capacity by {gained:.3g}/s of "
                       f"the {expected - before:.3g}/s expected (scaling.effectiveness."
                       f"threshold {self.threshold:g})" + (": held" if held else
                                                           "" if self.blocking else
                                                           "; blocking is off"))
        return out, why
