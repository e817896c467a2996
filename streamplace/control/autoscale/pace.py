"""The loop's pace, shared by autoscale on one job and on a whole cluster: wait the
stabilisation interval (after the start, after a rescale and after a step that read
nothing), take a step, and again, until ``max_steps``, ``until`` or a stop request; a stop
request is seen within a fraction of a second wherever the loop waits."""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable

from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.model.decision import Decision
from streamplace.solve.budget import StopRequest

NAP = 0.2  # seconds between two looks at the stop request while waiting


class Stopped(Exception):
    """A stop request came while the loop waited."""


def nap(seconds: float, stop: StopRequest, clock: Callable[[], float]) -> None:
    """Wait, in short naps so that a stop request is seen at once (:class:`Stopped`)."""
    ends = clock() + seconds
    while not stop and clock() < ends:
        time.sleep(min(NAP, max(0.0, ends - clock())))
    if stop:
        raise Stopped


def paced(options: AutoscaleOptions, stop: StopRequest, clock: Callable[[], float],
          step: Callable[[int, float], Decision], say: Callable[[Decision], None],
          read: Callable[[Decision], bool]) -> None:
    """Each decision of ``step(number, started)`` to ``say``, and a last ``stopped`` one when
    a stop request ended the loop. ``read``: whether a decision rests on a reading (one
    that does not is followed by the next step at once)."""
    started = clock()
    pause = options.stabilization_interval
    steps = itertools.count(1) if options.max_steps is None else \
        range(1, options.max_steps + 1)
    for number in steps:
        if options.until is not None and clock() - started >= options.until:
            break
        try:
            nap(pause, stop, clock)
            decision = step(number, started)
        except Stopped:
            break
        say(decision)
        if stop:
            break
        pause = options.stabilization_interval \
            if decision.decision == "rescale" or not read(decision) else 0.0
    if stop:
        say(Decision(decision="stopped", why=[f"signal {stop.signum}"],
                     seconds=round(clock() - started, 1)))
