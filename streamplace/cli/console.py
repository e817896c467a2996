"""The stderr console, error reporting and exit codes (cli.md) shared by every command."""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

import typer
from rich import box
from rich.console import Console

from streamplace.errors import InfeasibleError, InputError, StreamplaceError

F = TypeVar("F", bound=Callable[..., Any])


def console() -> Console:
    """A console on the *current* stderr (test runners swap it), plain when not a tty."""
    return Console(stderr=True, highlight=False, soft_wrap=True,
                   width=None if sys.stderr.isatty() else 120)


def table_box(con: Console) -> box.Box:
    return box.ROUNDED if con.is_terminal else box.ASCII


def fail(exc: StreamplaceError) -> NoReturn:
    con = console()
    if isinstance(exc, InputError):
        for problem in exc.problems:
            con.print(f"[bold red]error:[/] {_escape(problem.render())}")
        if len(exc.problems) > 1:
            con.print(f"{len(exc.problems)} problems found.")
    elif isinstance(exc, InfeasibleError):
        con.print("[bold red]infeasible:[/] no plan satisfies every constraint")
        for reason in exc.reasons:
            con.print(f"  - {_escape(reason)}")
    else:
        con.print(f"[bold red]error:[/] {_escape(str(exc))}")
    raise typer.Exit(exc.exit_code)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def handle_errors(fn: F) -> F:
    """Map streamplace errors to exit codes; never let a traceback reach the user."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except StreamplaceError as exc:
            fail(exc)
        except (typer.Exit, typer.Abort, KeyboardInterrupt):
            raise
        except OSError as exc:
            console().print(f"[bold red]error:[/] {_escape(str(exc))}")
            raise typer.Exit(2) from None
        except Exception as exc:  # a bug: say so plainly, keep the traceback for debugging
            if os.environ.get("STREAMPLACE_DEBUG"):
                raise
            console().print(f"[bold red]internal error:[/] {type(exc).__name__}: "
                            f"{_escape(str(exc))} (set STREAMPLACE_DEBUG=1 for a traceback)")
            raise typer.Exit(3) from None

    return wrapper  # type: ignore[return-value]
