"""The loop's pace, shared by autoscale on one job and on a whole cluster: wait the
stabilisation interval (after the start, after a rescale and after a step that read
nothing), take a step, and again, until ``max_steps``, ``until`` or a stop request; a stop
request is seen within a fraction of a second wherever the loop waits."""

from __future__ import annotations

import datetime
import itertools
from collections.abc import Callable

from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.clock import Clock, Stopped, nap
from streamplace.model.decision import Decision
from streamplace.solve.budget import StopRequest


def paced(options: AutoscaleOptions, stop: StopRequest, clock: Clock,
          step: Callable[[int, float], Decision], say: Callable[[Decision], None],
          read: Callable[[Decision], bool], first: int = 1) -> None:
    """Each decision of ``step(number, started)`` to ``say``, numbered from ``first`` (a
    resumed loop goes on from its last step), and a last ``stopped`` one when a stop request
    ended the loop. ``read``: whether a decision rests on a reading (one that does not is
    followed by the next step at once)."""
    started = clock.now()
    pause = options.stabilization_interval
    steps = itertools.count(first) if options.max_steps is None else \
        range(first, first + options.max_steps)
    for number in steps:
        if options.until is not None and clock.now() - started >= options.until:
            break
        try:
            nap(pause, clock, stop)
            decision = step(number, started)
        except Stopped:
            break
        stamp(decision, clock.wall())
        say(decision)
        if stop:
            break
        pause = options.stabilization_interval \
            if decision.decision == "rescale" or not read(decision) else 0.0
    if stop:
        last = Decision(decision="stopped", why=[f"signal {stop.signum}"],
                        seconds=round(clock.now() - started, 1))
        stamp(last, clock.wall())
        say(last)


def stamp(decision: Decision, wall: float) -> None:
    """When the step ended: Unix time, and the same in ISO 8601 (UTC) for a person or a log
    pipeline reading the line."""
    decision.at = round(wall, 3)
    decision.time = datetime.datetime.fromtimestamp(wall, datetime.UTC).isoformat(
        timespec="milliseconds").replace("+00:00", "Z")
