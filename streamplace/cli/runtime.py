"""Signals and the command's clock (docs/cli.md, "Guarantees").

- SIGINT and SIGTERM end any command: outside a solve at once (exit 130 / 143, nothing
  written), during a solve the first one asks the method to stop (it returns its best plan
  within about a second, which is then written) and a second one ends the command at once.
- ``--time-limit`` counts from the start of the process, so it bounds the whole command:
  reading, building, solving and writing (for explain and report: trying what-ifs). Where
  the app runs inside a longer-lived process (a test runner, a notebook), it counts from
  the command's own start.
"""

from __future__ import annotations

import contextlib
import signal
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import TYPE_CHECKING

from streamplace.cli.clock import seconds_since_start
from streamplace.cli.signals import SIGNALS, Interrupted, replace
from streamplace.solve.budget import StopRequest

if TYPE_CHECKING:
    from streamplace.model.explain import Watch

__all__ = ["Interrupted", "remaining", "seconds_since_start", "stop_on_signals"]


@contextlib.contextmanager
def stop_on_signals(stop: StopRequest) -> Iterator[StopRequest]:
    """While solving: the first signal sets ``stop`` (the method winds down and keeps its
    best plan), a second one ends the command at once."""

    def ask(signum: int, frame: FrameType | None) -> None:
        if stop:
            raise Interrupted(signum)
        stop.set(signum)

    previous = {sig: replace(sig, ask) for sig in SIGNALS}
    try:
        yield stop
    finally:
        for sig, handler in previous.items():
            if handler is not None and handler != signal.SIG_IGN:
                signal.signal(sig, handler)  # type: ignore[arg-type]


FINISH_SHARE, FINISH_MIN, FINISH_MAX = 0.05, 0.2, 3.0


def finishing_reserve(limit: float) -> float:
    """Seconds of a whole-command limit kept back from the method for what follows it
    (scoring the plan, writing it, the summary, freeing the model): 5% of the limit, at
    least 0.2 s and at most 3 s (docs/cli.md, "What bounds time and memory").

    >>> finishing_reserve(20), finishing_reserve(1), finishing_reserve(600)
    (1.0, 0.2, 3.0)
    """
    return min(FINISH_MAX, max(FINISH_MIN, FINISH_SHARE * limit))


def remaining(limit: float | None) -> float | None:
    """What is left of a whole-command time limit for the method, less the reserve for
    finishing."""
    if limit is None:
        return None
    return max(limit - seconds_since_start() - finishing_reserve(limit), 1e-6)


def signal_exit_code(stop: StopRequest) -> int:
    """128 + the signal that stopped the command, 0 when none did."""
    return 128 + stop.signum if stop.signum else 0


def watch_for(stop: StopRequest, time_limit: float | None,
              progress: Callable[[int, int], None]) -> Watch:
    """What explain and report look at between what-ifs: a signal, the command's time
    limit (less the finishing reserve), and where to say how far they got."""
    from streamplace.model.explain import Watch

    left = remaining(time_limit)
    deadline = None if left is None else time.monotonic() + left

    def stopping() -> bool:
        return bool(stop) or (deadline is not None and time.monotonic() >= deadline)

    return Watch(stopping, progress)

