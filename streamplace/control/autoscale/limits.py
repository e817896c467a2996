"""The Flink autoscaler's limits on one rescale, per vertex (``JobVertexScaler``): a
scale-up by at most ``scale-up.max-factor``, a scale-down to no less than
1 - ``scale-down.max-factor`` of what runs, every parallelism within
``[vertex.min-parallelism, vertex.max-parallelism]`` (widened to what runs), and the
vertices of ``vertex.exclude.ids`` left as they run."""

from __future__ import annotations

import math
from collections.abc import Collection


def limited(running: dict[str, int], wanted: dict[str, int], up: float, down: float,
            least: int, most: int, excluded: Collection[str],
            ) -> tuple[dict[str, int], list[str]]:
    """The parallelism within the limits, and what each limit changed.

    >>> limited({"w": 10}, {"w": 2}, 100000.0, 0.6, 1, 200, ())
    ({'w': 4}, ['w: scaled down to 4, not 2 (scale-down.max-factor 0.6)'])
    >>> limited({"w": 2}, {"w": 9}, 1.0, 0.6, 1, 200, ())[0]
    {'w': 4}
    >>> limited({"w": 2}, {"w": 9}, 100000.0, 0.6, 1, 200, ("w",))[0]
    {'w': 2}
    """
    out, why = {}, []
    for op, k in wanted.items():
        now = running.get(op, k)
        if op in excluded:
            if k != now:
                why.append(f"{op}: left at {now}, not {k} (vertex.exclude.ids)")
            out[op] = now
            continue
        got, said = k, ""
        if k < now and k < math.ceil(now * (1 - down)):
            got, said = math.ceil(now * (1 - down)), f"scale-down.max-factor {down:g}"
        elif k > now and k > math.ceil(now * (1 + up)):
            got, said = math.ceil(now * (1 + up)), f"scale-up.max-factor {up:g}"
        low, high = min(now, least), max(now, most)
        if got < low or got > high:
            got = min(max(got, low), high)
            said = f"vertex.min-parallelism {least}, vertex.max-parallelism {most}"
        if got != k:
            verb = "up" if got > now else "down" if got < now else "kept"
            why.append(f"{op}: scaled {verb} to {got}, not {k} ({said})" if verb != "kept"
                       else f"{op}: kept at {got}, not {k} ({said})")
        out[op] = got
    return out, why
