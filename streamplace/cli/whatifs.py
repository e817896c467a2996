"""What explain and report wrap their what-ifs in: progress on stderr, signals caught,
the command's time limit (docs/cli.md, ``explain``)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from streamplace.cli.console import console
from streamplace.cli.progress import count_progress
from streamplace.cli.runtime import stop_on_signals, watch_for
from streamplace.model.explain import Watch
from streamplace.solve.budget import StopRequest


@contextlib.contextmanager
def watching_what_ifs(time_limit: float | None, quiet: bool, graceful: bool = True,
                      ) -> Iterator[tuple[Watch, StopRequest]]:
    """While explain or report try what-ifs: progress on stderr, signals caught, and what
    the what-ifs look at to stop (:func:`watch_for`); the stop request tells the command
    whether a signal came (its exit code: :func:`signal_exit_code`). Not ``graceful``
    (report, which writes nothing once signalled), a signal ends the command at once, in
    the middle of a drawing too, rather than after it."""
    stop = StopRequest()
    with count_progress(console(), "what-ifs (operators)", enabled=not quiet) as progress, \
            (stop_on_signals(stop) if graceful else contextlib.nullcontext()):
        yield watch_for(stop, time_limit, progress), stop
