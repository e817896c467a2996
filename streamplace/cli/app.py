"""``streamplace``: the commands (docs/cli.md), one module each, on one Typer app."""

from __future__ import annotations

import sys
from collections.abc import Iterable
from importlib import import_module
from typing import Annotated

import typer

from streamplace import __version__
from streamplace.cli import clock
from streamplace.cli.epilogs import epilog

COMMANDS = {  # name: (module, function); a command's module is imported when it runs
    "solve": ("solve", "solve_command"), "compare": ("compare", "compare_command"),
    "evaluate": ("evaluate", "evaluate_command"), "validate": ("validate", "validate_command"),
    "explain": ("explain", "explain_command"), "diff": ("diff", "diff_command"),
    "export": ("export", "export_command"), "sweep": ("sweep", "sweep_command"),
    "render": ("render", "render_command"), "report": ("report", "report_command"),
    "extract": ("extract", "extract_command"),
    "observe": ("observe", "observe_command"), "apply": ("apply", "apply_command"),
    "autoscale": ("autoscale", "autoscale_command"), "schema": ("listing", "schema_command"),
    "methods": ("listing", "methods_command"),
}


def build_app(names: Iterable[str] = COMMANDS) -> typer.Typer:
    """The Typer app with the named commands (all by default)."""
    app = typer.Typer(
        name="streamplace",
        help="Decide where the operators of a stream-processing application run, and how "
             "many replicas each needs.",
        no_args_is_help=True,
        add_completion=True,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
        rich_markup_mode=None,
    )
    app.callback()(_root)
    for name in names:
        module, function = COMMANDS[name]
        app.command(name, epilog=epilog(name))(
            getattr(import_module(f"streamplace.cli.{module}"), function))
    return app


def _version(value: bool) -> None:
    if value:
        print(f"streamplace {__version__}")
        raise typer.Exit(0)


def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version.")] = False,
) -> None:
    """streamplace: operator replication and placement for stream processing."""
    clock.command_begins()


def main() -> None:
    """Run the command line (the console script is :func:`streamplace.cli.entry.main`, which
    handles signals first)."""
    clock.count_from_process_start()
    build_app(_commands_named(sys.argv[1:]))(prog_name="streamplace")


def _commands_named(args: list[str]) -> list[str]:
    """Only the command being run, when the first argument names one: the others' modules
    (and what they import) would cost start-up time for nothing. Otherwise every command,
    so that help lists them all and a misspelt name gets Typer's own message."""
    return [args[0]] if args and args[0] in COMMANDS else list(COMMANDS)


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # the whole app, for tests and documentation tools
        return build_app()
    raise AttributeError(name)
