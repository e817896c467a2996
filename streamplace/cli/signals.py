"""SIGINT and SIGTERM, handled from the first instant of the process: this module imports
only the standard library, so the console script installs its handlers before Typer,
pydantic or a solver are loaded (a signal then would otherwise print a traceback).

A signal the process inherited as ignored (``nohup``, a shell's background job) stays
ignored: a job its parent told to ignore SIGINT keeps running through one.
"""

from __future__ import annotations

import signal
from collections.abc import Callable
from types import FrameType

SIGNALS = (signal.SIGINT, signal.SIGTERM)
Handler = Callable[[int, FrameType | None], None]


class Interrupted(BaseException):
    """A signal ended the command; ``exit_code`` is 128 + the signal number."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum


_raised: list[int] = []


def _raise(signum: int, frame: FrameType | None) -> None:
    # once: a second signal while the first one unwinds would interrupt its clean-up
    if not _raised:
        _raised.append(signum)
        raise Interrupted(signum)


def install() -> None:
    """Every command: a signal ends it at once, through the exception handlers (so no
    temporary file is left behind)."""
    for sig in SIGNALS:
        replace(sig, _raise)


def replace(sig: int, handler: Handler) -> object:
    """Set ``handler`` for ``sig`` unless the signal is ignored; return the previous one."""
    previous = signal.getsignal(sig)
    if previous != signal.SIG_IGN:
        signal.signal(sig, handler)
    return previous

