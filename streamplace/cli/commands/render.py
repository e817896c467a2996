"""``streamplace render``: a plan as a picture (SVG, PNG) or a Graphviz graph (DOT)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from streamplace.cli import args
from streamplace.cli import options as opts
from streamplace.cli.console import handle_errors
from streamplace.cli.emit import Emission, check_outputs, emit
from streamplace.cli.opening import open_inputs
from streamplace.cli.views.tables import table
from streamplace.draw.scene import Scene, build_scene
from streamplace.errors import InputError
from streamplace.io.occupied import occupied_files
from streamplace.io.outputs import Output
from streamplace.model.evaluate import evaluate

FORMATS = ("svg", "png", "dot")


@handle_errors
def render_command(
    application: args.AppArg, infrastructure: args.InfraArg, plan: args.PlanArg,
    output: Annotated[str, typer.Option("-o", "--output",
                                        help="FILE.svg, FILE.png or FILE.dot.")],
    size: Annotated[str | None, typer.Option(
        help="Picture size in pixels, WIDTHxHEIGHT (default: from the plan's size).")] = None,
    title: Annotated[str | None, typer.Option(help="The picture's title.")] = None,
    objective: args.ObjectiveOpt = None, weights: args.WeightsOpt = None,
    network_metric: args.MetricOpt = None, target_utilization_: args.TargetUtilizationOpt = None,
    occupied: args.OccupiedOpt = None,
    quiet: args.QuietOpt = False,
) -> None:
    """Draw PLAN: nodes (by zone) with their use, replicas, flows, the critical path and
    every violated constraint."""
    kind = Path(output).suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise InputError.single(f"cannot tell the picture format of {output!r}",
                                "name the file *.svg, *.png or *.dot", path="-o")
    pixels = parse_size(size)
    check_outputs([output], [application, infrastructure, plan, objective,
                   *occupied_files(occupied)])
    opened = open_inputs(application, infrastructure, objective=objective, weights=weights,
                         network_metric=network_metric, target_utilization=target_utilization_,
                         occupied=occupied)
    app_, infra = opened.app, opened.infra
    plan_ = opts.read_plan(plan, app_, infra)
    ev = evaluate(app_, infra, plan_, opened.objective)
    scene = build_scene(app_, infra, plan_, ev, title or "")
    outputs = []
    if kind == "dot":
        from streamplace.draw.dot import dot_text

        outputs.append(Output(output, dot_text(scene)))
    else:
        from streamplace.draw.figure import draw_figure, figure_size

        draw_figure(scene, output, pixels)
        pixels = pixels or figure_size(scene)
    emit(Emission(outputs=outputs, show=lambda con: _summary(con, scene),
                  notes=[f"{kind.upper()} written to {output}" +
                         (f" ({pixels[0]}x{pixels[1]} px)" if pixels else "")]),
         quiet=quiet)


def parse_size(text: str | None) -> tuple[int, int] | None:
    if text is None:
        return None
    width, sep, height = text.lower().partition("x")
    try:
        pixels = (int(width), int(height)) if sep else None
    except ValueError:
        pixels = None
    if pixels is None or not (100 <= pixels[0] <= 20000 and 100 <= pixels[1] <= 20000):
        raise InputError.single(f"cannot read size {text!r}",
                                "write WIDTHxHEIGHT in pixels, e.g. 1600x1000 (100 to 20000)",
                                path="--size")
    return pixels


def _summary(con: Console, scene: Scene) -> None:
    view = "detailed" if scene.detailed else "aggregated (operators per node)"
    con.print(f"[bold]{scene.title}[/]: {len({b.operator for b in scene.boxes})} operators "
              f"on {len(scene.nodes)} nodes, {view} view")
    if not scene.detailed:  # the detail the picture leaves out
        t = table(con, "Replicas per node", "node", "zone", "replicas")
        for node in scene.nodes:
            here = [b for b in scene.boxes if b.node == node.id]
            t.add_row(node.id, node.zone or "-", ", ".join(
                b.operator + (f"×{b.count}" if b.count > 1 else "") for b in here) or "-")
        con.print(t)
    for note in scene.notes:
        con.print(f"[yellow]violation:[/] {note}", highlight=False)
