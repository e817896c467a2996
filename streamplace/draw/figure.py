"""A scene drawn with matplotlib, as SVG or PNG, with nothing outside Python: node areas
(grouped by zone) with a bar of their fullest resource, replica boxes inside, flows as
arrows as wide as their bytes/s, the critical path in red, violations marked where they
happen. Every element carries an id (``node:``, ``box:``, ``critical-box:``, ``flow:``,
``critical-flow:``) that SVG keeps, so tools and tests can find them; text stays text.

matplotlib rather than Graphviz: the picture needs nested areas (zones, nodes, replicas)
and arrows between boxes inside them, which a general graph layout does not give, and it
must be drawn without any program outside Python; ``render -o FILE.dot`` is there for
people who prefer Graphviz's own layout.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

from streamplace.draw.charts import save
from streamplace.draw.layout import BOX_HEIGHT, HEADER, Layout, Rect, lay_out
from streamplace.draw.scene import Scene

if TYPE_CHECKING:
    from matplotlib.axes import Axes

CRITICAL = "#c62828"
FLOW = "#1565c0"
LOCAL = "#9e9e9e"
BOX = "#e3f2fd"
CRITICAL_BOX = "#ffebee"
WARN = "#d84315"
HELD = "#9e9e9e"  # the occupied load of other applications
DPI = 100
PIXELS_PER_UNIT = 42


def figure_size(scene: Scene, layout: Layout | None = None) -> tuple[int, int]:
    """The picture's natural size in pixels: the layout's, wide enough for the title."""
    layout = layout or lay_out(scene)
    title = len(scene.title) + 30  # and the response time after it
    return (max(640, 11 * title, round((layout.width + 2.0) * PIXELS_PER_UNIT)),
            max(360, round((layout.height + 4.8) * PIXELS_PER_UNIT)))


def draw_figure(scene: Scene, path: str | Path, size: tuple[int, int] | None = None) -> None:
    """Write the scene to ``path`` (.svg or .png, atomically), ``size`` pixels wide x high."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    layout = lay_out(scene)
    width, height = size or figure_size(scene, layout)
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "streamplace"}):
        fig = plt.figure(figsize=(width / DPI, height / DPI), dpi=DPI)
        ax = fig.add_axes((0.0, 0.0, 1.0, 1.0))
        ax.set_xlim(-1.0, layout.width + 1.0)
        ax.set_ylim(-layout.height - 3.6, 1.2)
        ax.set_aspect("auto")
        ax.axis("off")
        _title(ax, scene)
        _zones(ax, layout)
        _nodes(ax, scene, layout)
        if scene.detailed:
            _boxes(ax, scene, layout)
            _flows(ax, scene, layout)
        else:
            _aggregate(ax, scene, layout)
        _legend(ax, scene, layout, width)
        save(fig, Path(path), DPI)
        plt.close(fig)


def _title(ax: Axes, scene: Scene) -> None:
    r = f"response time {scene.response_time * 1e3:.4g} ms" \
        if scene.response_time is not None and math.isfinite(scene.response_time) \
        else "response time undefined"
    ax.text(-0.8, 0.75, f"{scene.title}  ·  {r}", fontsize=12, weight="bold",
            va="center")


def _zones(ax: Axes, layout: Layout) -> None:
    from matplotlib.patches import FancyBboxPatch

    for zone, rect in layout.zones.items():
        if not zone:
            continue
        ax.add_patch(FancyBboxPatch((rect.x, rect.y), rect.w, rect.h,
                                    boxstyle="round,pad=0.05", fc="#fafafa", ec="#bdbdbd",
                                    lw=1.0, ls="--", zorder=-1, gid=f"zone:{zone}"))
        ax.text(rect.x + 0.2, rect.y + rect.h - 0.35, zone, fontsize=10,
                style="italic", color="#616161", va="center")


def _nodes(ax: Axes, scene: Scene, layout: Layout) -> None:
    from matplotlib.patches import Rectangle

    for node in scene.nodes:
        rect = layout.nodes[node.id]
        bad = bool(node.violations)
        ax.add_patch(Rectangle((rect.x, rect.y), rect.w, rect.h, fc="white",
                               ec=WARN if bad else "#424242", lw=2.2 if bad else 1.2,
                               zorder=0, gid=f"node:{node.id}"))
        share = node.utilisation
        label = node.id + ("" if share is None else f"  {share:.0%}") + ("  !" if bad else "")
        ax.text(rect.x + 0.15, rect.y + rect.h - 0.3, label, fontsize=9, weight="bold",
                color=WARN if bad else "black", va="center")
        if share is not None:  # the fullest dimension, as a bar under the id
            bar = Rect(rect.x + 0.15, rect.y + rect.h - HEADER + 0.12, rect.w - 0.3, 0.12)
            ax.add_patch(Rectangle((bar.x, bar.y), bar.w, bar.h, fc="#eeeeee", ec="none"))
            ax.add_patch(Rectangle((bar.x, bar.y), bar.w * min(share, 1.0), bar.h,
                                   fc=WARN if share > 1 + 1e-9 else "#66bb6a", ec="none"))
            if node.held_share > 0:  # what other applications hold, first, in grey
                ax.add_patch(Rectangle((bar.x, bar.y), bar.w * min(node.held_share, 1.0),
                                       bar.h, fc=HELD, ec="none", gid=f"held:{node.id}"))
        hidden = layout.hidden.get(node.id)
        if hidden:
            ax.text(rect.x + rect.w / 2, rect.y + 0.12, f"+{hidden} more", fontsize=7,
                    ha="center", color="#616161")


def _boxes(ax: Axes, scene: Scene, layout: Layout) -> None:
    from matplotlib.patches import FancyBboxPatch

    for box in scene.boxes:
        rect = layout.boxes.get(box.key)
        if rect is None:
            continue
        bad = bool(box.violations)
        ax.add_patch(FancyBboxPatch(
            (rect.x, rect.y), rect.w, rect.h, boxstyle="round,pad=0.02",
            fc=CRITICAL_BOX if box.critical else BOX,
            ec=WARN if bad else (CRITICAL if box.critical else "#64b5f6"),
            lw=2.0 if bad or box.critical else 0.8, zorder=2,
            gid=("critical-box:" if box.critical else "box:") + box.key))
        label = box.operator + (f" ×{box.count}" if box.count > 1 else "") + \
            ("  !" if bad else "")
        ax.text(rect.x + 0.12, rect.y + BOX_HEIGHT / 2, label, fontsize=8, va="center",
                color=WARN if bad else "black", zorder=3)


def _flows(ax: Axes, scene: Scene, layout: Layout) -> None:
    from matplotlib.patches import FancyArrowPatch

    top = max((f.bytes_per_s for f in scene.flows), default=0.0)
    for flow in scene.flows:
        a, b = layout.boxes.get(flow.source), layout.boxes.get(flow.target)
        if a is None or b is None:
            continue
        width = 0.5 + 2.3 * math.sqrt(flow.bytes_per_s / top) if top > 0 else 0.7
        colour = CRITICAL if flow.critical else (LOCAL if flow.local else FLOW)
        start, end = (a.right, b.right) if flow.local else _ends(a, b)
        stacked = start[0] == end[0]  # both on the right-hand side: bow outwards
        style = f"arc3,rad={-0.6 if b.y < a.y else 0.6}" if stacked else "arc3,rad=0.12"
        ax.add_patch(FancyArrowPatch(
            start, end, connectionstyle=style, arrowstyle="-|>", mutation_scale=9,
            lw=width, color=colour, alpha=0.75, ls="--" if flow.local else "-", zorder=1,
            gid=("critical-flow:" if flow.critical else "flow:") +
            f"{flow.source}->{flow.target}"))


def _ends(a: Rect, b: Rect) -> tuple[tuple[float, float], tuple[float, float]]:
    """Leave from the side facing the target, arrive on the side facing the source."""
    if b.x >= a.x + a.w:
        return a.right, b.left
    if b.x + b.w <= a.x:
        return a.left, b.right
    return a.right, b.right  # one above the other: around the right-hand side


def _aggregate(ax: Axes, scene: Scene, layout: Layout) -> None:
    """Operators per node, and node-to-node traffic, for plans too big for boxes."""
    from collections import defaultdict

    from matplotlib.patches import FancyArrowPatch

    per_node: dict[str, list[str]] = defaultdict(list)
    for box in sorted(scene.boxes, key=lambda b: (b.level, b.operator)):
        per_node[box.node].append(box.operator + (f"×{box.count}" if box.count > 1 else ""))
    for node, names in per_node.items():
        rect = layout.nodes[node]
        shown = ", ".join(names[:4]) + (f" +{len(names) - 4}" if len(names) > 4 else "")
        ax.text(rect.x + 0.15, rect.y + rect.h - HEADER - 0.1,
                f"{sum(1 for b in scene.boxes if b.node == node)} operators\n{shown}",
                fontsize=7, va="top", wrap=True)
    between: dict[tuple[str, str], float] = defaultdict(float)
    for flow in scene.flows:
        u, v = flow.source.rsplit("@", 1)[1], flow.target.rsplit("@", 1)[1]
        if u != v:
            between[(u, v)] += flow.bytes_per_s
    top = max(between.values(), default=0.0)
    for (u, v), rate in between.items():
        width = 0.5 + 4.0 * math.sqrt(rate / top) if top > 0 else 0.8
        ax.add_patch(FancyArrowPatch(layout.nodes[u].centre, layout.nodes[v].centre,
                                     connectionstyle="arc3,rad=0.1", arrowstyle="-|>",
                                     mutation_scale=9, lw=width, color=FLOW, alpha=0.5,
                                     gid=f"traffic:{u}->{v}"))


def _legend(ax: Axes, scene: Scene, layout: Layout, width_px: int) -> None:
    top = max((f.bytes_per_s for f in scene.flows if not f.local), default=0.0)
    path = " → ".join(scene.critical_path)
    lines = [f"critical path (red): {path}" if path else "no critical path",
             f"arrow width: bytes/s between replicas (widest {top:.4g} B/s); dashed grey: "
             "within a node; bar: fullest resource of the node",
             *([f"grey in a bar: held by the occupied load of {', '.join(scene.occupied)}"]
               if scene.occupied else []),
             *[f"! {note}" for note in scene.notes[:3]]]
    if not scene.detailed:
        lines[1] = "aggregated view (too many operators or nodes for boxes): arrows are " \
                   "node-to-node traffic; `streamplace evaluate` lists every replica"
    import textwrap

    columns = max(40, int((width_px - 30) / 6.3))  # 8 pt characters at 100 dpi
    wrapped = [(k, part) for k, line in enumerate(lines)
               for part in textwrap.wrap(line, columns, subsequent_indent="   ")]
    for row, (k, line) in enumerate(wrapped[:8]):
        ax.text(-0.8, -layout.height - 0.9 - 0.4 * row, line, fontsize=8,
                color=CRITICAL if k == 0 and path else "#424242", va="center")
