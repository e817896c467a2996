"""The consoles, error reporting and exit codes shared by every command (docs/cli.md).

| code | meaning |
| 0 | success |
| 1 | the answer is "no" (validate found violations; solve proved infeasibility) |
| 2 | bad usage or bad input |
| 3 | no answer (no plan within the limit, solver error, internal error) |
| 130, 143 | interrupted by SIGINT, SIGTERM |
| 141 | standard output or error was closed early (e.g. ``| head``): nothing more is said |
"""

from __future__ import annotations

import contextlib
import functools
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
from rich import box
from rich.console import Console
from rich.markup import escape

from streamplace.cli.runtime import Interrupted
from streamplace.errors import InfeasibleError, InputError, StreamplaceError

F = TypeVar("F", bound=Callable[..., Any])
EXIT_CLOSED_PIPE = 141  # 128 + SIGPIPE, what a shell reports for a tool whose reader left
EXIT_SIGINT = 130


class _Console(Console):
    def on_broken_pipe(self) -> None:
        """Rich would exit with 1, the "answer is no" code; a closed pipe is not an answer."""
        closed_pipe()


UNCUT = 100_000  # columns of a console off a terminal: wide enough never to cut


def console(*, errors: bool = False) -> Console:
    """A console on the *current* stderr (test runners swap it), plain when not a tty.
    Off a terminal (a CI log) nothing is cut to a width: a table is as wide as what it
    holds, every number and name whole. With ``--json`` on a stdout that stderr shares
    (``cmd --json > out 2>&1``, or spark-submit, which merges a Python driver's stderr into
    its stdout) only ``errors`` are said: the JSON document stays the only output."""
    if not errors and json_shares_stderr():
        return _Console(file=_devnull(), highlight=False)
    return _Console(stderr=True, highlight=False, soft_wrap=True,
                    width=None if sys.stderr.isatty() else UNCUT)


@functools.cache
def _devnull() -> Any:
    return open(os.devnull, "w")


def json_shares_stderr() -> bool:
    """``--json`` was asked for, and standard output and error are one stream."""
    if "--json" not in sys.argv[1:]:
        return False
    try:
        out, err = os.fstat(sys.stdout.fileno()), os.fstat(sys.stderr.fileno())
    except (OSError, ValueError, AttributeError):  # a test runner's in-memory streams
        return False
    return (out.st_dev, out.st_ino) == (err.st_dev, err.st_ino)


def stdout_console() -> Console:
    """Requested output (a listing) on stdout: never cut to a width; wraps on a terminal."""
    tty = sys.stdout.isatty()
    return _Console(file=sys.stdout, highlight=False, soft_wrap=not tty,
                    width=None if tty else UNCUT)


def table_box(con: Console) -> box.Box:
    return box.ROUNDED if con.is_terminal else box.ASCII


def fail(exc: StreamplaceError) -> NoReturn:
    con = console(errors=True)
    if isinstance(exc, InputError):
        for problem in exc.problems:
            con.print(f"[bold red]error:[/] {escape(problem.render())}")
        if len(exc.problems) > 1:
            con.print(f"{len(exc.problems)} problems found.")
    elif isinstance(exc, InfeasibleError):
        con.print("[bold red]infeasible:[/] no plan satisfies every constraint")
        for reason in exc.reasons:
            con.print(f"  - {escape(reason)}")
    else:
        con.print(f"[bold red]error:[/] {escape(str(exc))}")
    raise typer.Exit(exc.exit_code)


def handle_errors(fn: F) -> F:
    """Map errors to exit codes; never let a traceback reach the user."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        sent_changes().clear()  # a command run in a longer-lived process starts afresh
        _CLOSED.clear()
        try:
            result = fn(*args, **kwargs)
            if _CLOSED:  # a progress line met the closed pipe; the command went on unsaid
                raise typer.Exit(EXIT_CLOSED_PIPE)
            return result
        except StreamplaceError as exc:
            sent = sent_changes()
            if sent and exc.exit_code == 2:  # never "bad input" once a change may be out
                _guarded(_say, f"[bold red]error:[/] {escape(str(exc))}")
                _guarded(_say, f"[yellow]the change may have been sent to "
                               f"{escape(sent[-1])}:[/] observe the job before sending it "
                               "again")
                raise typer.Exit(3) from None
            _guarded(fail, exc)
        except (typer.Exit, typer.Abort):
            raise
        except BrokenPipeError:
            closed_pipe()
        except (Interrupted, KeyboardInterrupt) as exc:
            code = exc.exit_code if isinstance(exc, Interrupted) else EXIT_SIGINT
            _guarded(_say, interrupted_line(rich=True))
            raise typer.Exit(code) from None
        except OSError as exc:
            where = f"{exc.filename}: " if exc.filename else ""
            reason = os.strerror(exc.errno).lower() if exc.errno else str(exc)
            _guarded(_say, f"[bold red]error:[/] {escape(where + reason)}")
            raise typer.Exit(2) from None
        except Exception as exc:  # a bug: say so plainly, keep the traceback for debugging
            if os.environ.get("STREAMPLACE_DEBUG"):
                raise
            _guarded(_say, f"[bold red]internal error:[/] {type(exc).__name__}: "
                           f"{escape(str(exc))} (set STREAMPLACE_DEBUG=1 for a traceback)")
            raise typer.Exit(3) from None

    return wrapper  # type: ignore[return-value]


def sent_changes() -> list[str]:
    """The jobs this process sent a change to (the control layer's ledger; empty when no
    command of this process loaded it, without loading it)."""
    rescale = sys.modules.get("streamplace.control.flink.rescale")
    sent: list[str] = getattr(rescale, "SENT", [])
    return sent


def interrupted_line(rich: bool) -> str:
    """The last line of an interrupted command: true whether or not a change was sent."""
    sent = sent_changes()
    if sent:
        text = (f"interrupted: the change was sent to {sent[-1]}, and Flink carries it out: "
                "observe the job to see where it stands")
    else:
        text = "interrupted: stopped before anything was written"
    return f"[bold red]interrupted:[/]{escape(text.removeprefix('interrupted:'))}" if rich \
        else text


def _say(text: str) -> None:
    console(errors=True).print(text)


def _guarded(say: Callable[[Any], Any], what: Any) -> None:
    """Report, unless stderr itself is a closed pipe."""
    try:
        say(what)
    except BrokenPipeError:
        closed_pipe()


class ClosedPipe(typer.Exit):
    """The reader went away; a progress report that meets it catches this and goes on."""


_CLOSED: list[bool] = []  # a closed pipe was met where the command could go on


def pipe_closed_meanwhile() -> None:
    """Say, from a progress report that caught :class:`ClosedPipe` (in a solver's callback
    the exit would end the solve as a solver error), that the command ends with 141."""
    _CLOSED.append(True)


def closed_pipe() -> NoReturn:
    """The reader went away: say nothing more (the interpreter's final flush included)."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a test runner's in-memory stream
            os.dup2(devnull, stream.fileno())
    raise ClosedPipe(EXIT_CLOSED_PIPE)
