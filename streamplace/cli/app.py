"""``streamplace``: the commands (docs/cli.md), one module each, on one Typer app."""

from __future__ import annotations

import os
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


COMPLETE = "_STREAMPLACE_COMPLETE"  # set by the completion scripts Typer writes
SUMMARIES = {  # the first sentence of each command's docstring (a test keeps them equal)
    "solve": "Solve: choose replicas and nodes for every operator, write the plan.",
    "compare": "Run several methods and show one table: every metric, time, status, gap to "
               "the bound.",
    "evaluate": "Compute every metric of PLAN and every constraint it violates.",
    "validate": "Check PLAN: every constraint, plus thresholds.",
    "explain": "Why this plan: objective by term and operator, binding constraints, what-if "
               "moves.",
    "diff": "Per operator, the replicas NEW adds and removes against CURRENT; the metric "
            "deltas and the constraints that bind differently.",
    "export": "Write what TARGET takes to run PLAN: configuration, commands or manifests.",
    "sweep": "Solve every scenario of SWEEP: tables, plans and plots in one folder.",
    "render": "Draw PLAN: nodes (by zone) with their use, replicas, flows, the critical path "
              "and every violated constraint.",
    "report": "One HTML file, self-contained: each plan's metrics, utility, drawing, binding "
              "constraints and best changes; a comparison of several plans; a sweep's plots; or an "
              "autoscale run's history.",
    "extract": "Extract: an application (and infrastructure skeleton) from Spark event logs.",
    "observe": "Observe: an application (and infrastructure skeleton, current plan) from a "
               "running Flink job; with --against, the plan's predictions held to what the "
               "job does.",
    "apply": "Apply PLAN to the running Flink job JOB (adaptive scheduler): show the change, "
             "send it, wait until every vertex runs it.",
    "autoscale": "Autoscale: observe, re-plan and apply, step by step, on a running Flink "
                 "job, or on every job of a session cluster at once (JOB: "
                 "http://JOBMANAGER:8081); one JSON line per decision.",
    "schema": "Print the JSON Schema of a file kind on stdout.",
    "methods": "List every method: its model, exact or heuristic, settings and parameters.",
}


def build_app(names: Iterable[str] = COMMANDS, listed_only: bool = False) -> typer.Typer:
    """The Typer app with the named commands (all by default). ``listed_only``: each
    command only as a name and its summary, for the top-level help, which then loads no
    command's module."""
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
        if listed_only:
            app.command(name, short_help=SUMMARIES[name])(_listed)
            continue
        module, function = COMMANDS[name]
        app.command(name, epilog=epilog(name))(
            getattr(import_module(f"streamplace.cli.commands.{module}"), function))
    return app


def _listed() -> None:
    """A command as the top-level help lists it; never run (main builds the real one)."""


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
    args = sys.argv[1:]
    if os.environ.get(COMPLETE):  # the shell completes a line: its words name the command
        words = os.environ.get("COMP_WORDS") or os.environ.get("_TYPER_COMPLETE_ARGS", "")
        args = words.split()[1:2] or args
    if args and args[0] in COMMANDS:
        # only the command being run: the others' modules (and what they import) would
        # cost start-up time for nothing
        build_app([args[0]])(prog_name="streamplace")
        return
    # --version, the top-level help, a misspelt name: every command listed by its summary,
    # none of their modules loaded
    build_app(COMMANDS, listed_only=True)(prog_name="streamplace")


def __getattr__(name: str) -> typer.Typer:
    if name == "app":  # the whole app, for tests and documentation tools
        return build_app()
    raise AttributeError(name)
