"""What a team knows is coming (``autoscale --forecast FILE``, docs/formats.md,
``streamplace/forecast/v1``): rates a source will offer from a given time, and events that
multiply what it offers over a span (the 09:00 sale: x4 for 30 minutes), once or every day
or week. The horizon program plans for them beside the forecast its history gives.

>>> f = ForecastFile.model_validate({"events": [{"name": "sale", "at": "09:00",
...     "duration": "30 min", "factor": 4}]})
>>> day = 1_795_824_000.0  # 2026-11-28 00:00 UTC
>>> f.factor("bids", day + 9 * 3600 + 60), f.factor("bids", day + 10 * 3600)
(4.0, 1.0)
"""

from __future__ import annotations

import datetime
import math
import re
from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from streamplace.model.base import Document, StrictModel
from streamplace.model.units import UnitError, parse_quantity

FORECAST_SCHEMA = "streamplace/forecast/v1"
MOST_RATE = 1e9      # records per second: more is a typo, not a stream
MOST_FACTOR = 1000.0
_CLOCK = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?(Z|[+-]\d{2}:\d{2})?$")


def _seconds(value: object) -> object:
    if isinstance(value, int | float) and not isinstance(value, bool):
        return value
    try:
        return parse_quantity(value, "time")
    except UnitError as exc:
        raise ValueError(f"{exc} — write a duration such as 30 min") from None


Duration = Annotated[float, BeforeValidator(_seconds),
                     Field(gt=0, le=7 * 86400, allow_inf_nan=False)]


class RateFrom(StrictModel):
    """A source's rate from ``at`` on (until the next point)."""

    at: datetime.datetime = Field(description="when (ISO 8601, with its time zone)")
    rate: float = Field(ge=0, le=MOST_RATE, allow_inf_nan=False,
                        description="records per second the source offers from then")

    @field_validator("at")
    @classmethod
    def _zoned(cls, at: datetime.datetime) -> datetime.datetime:
        if at.tzinfo is None:
            raise ValueError("has no time zone — write e.g. 2026-11-28T09:00:00Z")
        return at


class Event(StrictModel):
    """A span over which sources offer ``factor`` times what they would."""

    name: str = Field("event", description="what it is, as decisions say it")
    at: str = Field(description="a date and time (ISO 8601 with a zone), or a time of day "
                                "HH:MM[:SS][Z|+HH:MM] (UTC unless a zone is given: every day)")
    every: Literal["day", "week"] | None = Field(
        None, description="how often a date and time recurs from then (default: once)")
    duration: Duration = Field(description="how long it lasts (30 min, 2 h, seconds)")
    factor: float = Field(gt=0, le=MOST_FACTOR, allow_inf_nan=False,
                          description="times what the sources offer otherwise")
    sources: list[str] | None = Field(None, description="the sources it concerns (default "
                                                        "every one)")

    @model_validator(mode="after")
    def _when(self) -> Event:
        if _CLOCK.match(self.at) is None:
            try:
                start = datetime.datetime.fromisoformat(self.at)
            except ValueError:
                raise ValueError(f"at {self.at!r} is neither a date and time nor a time of "
                                 "day — write 2026-11-28T09:00:00Z or 09:00") from None
            if start.tzinfo is None:
                raise ValueError(f"at {self.at!r} has no time zone — add Z or +01:00")
        elif self.every == "week":
            raise ValueError("a time of day recurs every day — give at as a date and time to "
                             "repeat it every week")
        return self

    def covers(self, t: float) -> bool:
        """Whether the event runs at Unix time ``t``."""
        clock = _CLOCK.match(self.at)
        if clock is None:
            start = datetime.datetime.fromisoformat(self.at).timestamp()
            if self.every is None:
                return start <= t < start + self.duration
            period = 604800.0 if self.every == "week" else 86400.0
            return t >= start and (t - start) % period < self.duration
        h, m, sec, zone = clock.groups()
        offset = 0.0
        if zone and zone != "Z":
            sign = -1 if zone[0] == "-" else 1
            offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
        start = int(h) * 3600 + int(m) * 60 + int(sec or 0) - offset
        return (t - start) % 86400.0 < self.duration


class ForecastFile(Document):
    schema_: Literal["streamplace/forecast/v1"] | None = Field(None, alias="schema")
    rates: dict[str, list[RateFrom]] = Field(default_factory=dict, description=(
        "A source's name -> the rates it will offer, each from its time on"))
    events: list[Event] = Field(default_factory=list)

    def sources(self) -> set[str]:
        """Every source the file names."""
        named = set(self.rates)
        for event in self.events:
            named |= set(event.sources or ())
        return named

    def rate(self, source: str, t: float) -> float | None:
        """The rate the file gives ``source`` at ``t``, where it gives one."""
        points = sorted(self.rates.get(source, []), key=lambda p: p.at)
        known = [p.rate for p in points if p.at.timestamp() <= t]
        return known[-1] if known else None

    def factor(self, source: str, t: float) -> float:
        """What the events running at ``t`` multiply ``source``'s rate by."""
        return math.prod((e.factor for e in self.events
                          if (e.sources is None or source in e.sources) and e.covers(t)),
                         start=1.0)

    def said(self, source: str, t: float) -> list[str]:
        """The events running at ``t`` for ``source``, by name."""
        return [f"{e.name} x{e.factor:g}" for e in self.events
                if (e.sources is None or source in e.sources) and e.covers(t)]
