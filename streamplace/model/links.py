"""The values a network is made of: logical links, physical hops, platform nodes, and what a
route's attributes add up to (delays and costs add, availabilities multiply, bandwidth is
the smallest)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class LogicalLink:
    delay: float
    availability: float
    cost: float
    bandwidth: float
    path: tuple[str, ...]

    @property
    def reachable(self) -> bool:
        return math.isfinite(self.delay)


@dataclass(frozen=True)
class Hop:
    """One physical hop of a route: an explicit link, or the mesh's default (public) link."""

    link: LogicalLink
    dedicated: bool


PERFECT = LogicalLink(0.0, 1.0, 0.0, math.inf, ())
UNREACHABLE = LogicalLink(math.inf, 0.0, math.inf, 0.0, ())


@dataclass(frozen=True)
class PlatformNode:
    """A node as the evaluator sees it: an infrastructure node or a bought processor."""

    id: str
    role: str
    resources: dict[str, float] | None
    speedup: float
    availability: float
    cost: float
    speed: float
    bandwidth: float
    objects: tuple[str, ...]
    purchased_class: str | None = None
    load: float = 0.0


def chain(hops: list[LogicalLink], path: tuple[str, ...]) -> LogicalLink:
    """Links in series: delays and costs add, availabilities multiply, the narrowest
    bandwidth carries."""
    return LogicalLink(
        delay=sum(h.delay for h in hops),
        availability=math.prod(h.availability for h in hops),
        cost=sum(h.cost for h in hops),
        bandwidth=min(h.bandwidth for h in hops),
        path=path,
    )


class Reach(NamedTuple):
    """What a summary needs of a logical link."""

    delay: float
    availability: float
    cost: float




def reach(link: LogicalLink) -> Reach:
    return Reach(link.delay, link.availability, link.cost)


UNREACHED = Reach(math.inf, 0.0, math.inf)
