"""``streamplace``: the commands (docs/cli.md), one module each, on one Typer app."""

from __future__ import annotations

from typing import Annotated

import typer

from streamplace import __version__
from streamplace.cli import runtime
from streamplace.cli.compare import compare_command
from streamplace.cli.diff import diff_command
from streamplace.cli.evaluate import evaluate_command
from streamplace.cli.explain import explain_command
from streamplace.cli.export import export_command
from streamplace.cli.extract import extract_command
from streamplace.cli.listing import methods_command, schema_command
from streamplace.cli.render_plan import render_command
from streamplace.cli.report import report_command
from streamplace.cli.solve import solve_command
from streamplace.cli.sweep import sweep_command
from streamplace.cli.validate import validate_command

app = typer.Typer(
    name="streamplace",
    help="Decide where the operators of a stream-processing application run, and how many "
         "replicas each needs.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    rich_markup_mode=None,
)


def _version(value: bool) -> None:
    if value:
        print(f"streamplace {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(version: Annotated[bool, typer.Option(
        "--version", callback=_version, is_eager=True, help="Print the version.")] = False,
) -> None:
    """streamplace: operator replication and placement for stream processing."""


for _name, _command in (("solve", solve_command), ("compare", compare_command),
                        ("evaluate", evaluate_command), ("validate", validate_command),
                        ("explain", explain_command), ("diff", diff_command),
                        ("export", export_command), ("sweep", sweep_command),
                        ("render", render_command), ("report", report_command),
                        ("extract", extract_command),
                        ("schema", schema_command), ("methods", methods_command)):
    app.command(_name)(_command)


def main() -> None:
    runtime.install()
    app(prog_name="streamplace")
