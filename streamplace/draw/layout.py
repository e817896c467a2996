"""Where each part of a scene goes, in drawing units: zones side by side from the sources'
end of the DAG to the sinks' (ordered by the mean depth of the operators they run), each
zone a grid of node areas filled column by column in the same order, each node area a
stack of replica boxes (shallowest operator first). Data flows left to right, mostly."""

from __future__ import annotations

import math
from dataclasses import dataclass

from streamplace.draw.scene import Scene

NODE_WIDTH = 3.4
HEADER = 0.85  # node id, utilisation bar
BOX_HEIGHT = 0.42
BOX_GAP = 0.08
GAP = 0.9  # between node areas
ZONE_GAP = 1.4
ZONE_HEADER = 0.7
IDLE_HEIGHT = 0.75  # a node running nothing: its header only
MAX_BOXES_SHOWN = 12  # per node in the detailed view; more become "+k more"


@dataclass(frozen=True)
class Rect:
    x: float
    y: float  # bottom
    w: float
    h: float

    @property
    def right(self) -> tuple[float, float]:
        return self.x + self.w, self.y + self.h / 2

    @property
    def left(self) -> tuple[float, float]:
        return self.x, self.y + self.h / 2

    @property
    def centre(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


@dataclass
class Layout:
    width: float
    height: float
    zones: dict[str, Rect]  # zone label -> area ("" when the infrastructure has none)
    nodes: dict[str, Rect]
    boxes: dict[str, Rect]  # box key -> rectangle (detailed view only)
    hidden: dict[str, int]  # node -> boxes not drawn (beyond MAX_BOXES_SHOWN)


def lay_out(scene: Scene) -> Layout:
    depth = _mean_depth(scene)
    groups = sorted(scene.zones().items(),
                    key=lambda item: (_mean([depth[n.id] for n in item[1]]), str(item[0])))
    shown = max((sum(1 for b in scene.boxes if b.node == n.id) for n in scene.nodes),
                default=1)
    rows_of_boxes = min(max(shown, 1), MAX_BOXES_SHOWN) if scene.detailed else 3
    cell_h = HEADER + rows_of_boxes * (BOX_HEIGHT + BOX_GAP) + BOX_GAP
    zones, nodes = {}, {}
    x = 0.0
    tallest = 0.0
    busy = {b.node for b in scene.boxes}
    for zone, members in groups:
        members = sorted(members, key=lambda n: (depth[n.id], n.id))
        used = [n for n in members if n.id in busy]
        idle = [n for n in members if n.id not in busy]
        rows = max(1, round(math.sqrt(len(used) * 1.6))) if used else 0
        cols = math.ceil(len(used) / rows) if used else 0
        rows = math.ceil(len(used) / cols) if used else 0
        for i, node in enumerate(used):
            col, row = divmod(i, rows)
            nodes[node.id] = Rect(x + col * (NODE_WIDTH + GAP),
                                  -(row + 1) * (cell_h + GAP), NODE_WIDTH, cell_h)
        height = rows * (cell_h + GAP)
        # idle nodes: a compact block of headers below the busy ones
        idle_cols = max(cols, 1, math.ceil(math.sqrt(len(idle)))) if idle else 0
        idle_w = (max(cols, 1) * (NODE_WIDTH + GAP) - GAP + GAP) / idle_cols - GAP \
            if idle else 0.0
        for i, node in enumerate(idle):
            row, col = divmod(i, idle_cols)
            nodes[node.id] = Rect(x + col * (idle_w + GAP),
                                  -height - (row + 1) * (IDLE_HEIGHT + GAP),
                                  idle_w, IDLE_HEIGHT)
        if idle:
            height += math.ceil(len(idle) / idle_cols) * (IDLE_HEIGHT + GAP)
        width = max(cols, 1) * (NODE_WIDTH + GAP) - GAP
        height -= GAP
        zones[zone or ""] = Rect(x - 0.3, -height - GAP - 0.3, width + 0.6,
                                 height + 0.6 + ZONE_HEADER)
        tallest = max(tallest, height + ZONE_HEADER + 0.6)
        x += width + ZONE_GAP
    boxes: dict[str, Rect] = {}
    hidden: dict[str, int] = {}
    if scene.detailed:
        for node_id, area in nodes.items():
            stack = sorted((b for b in scene.boxes if b.node == node_id),
                           key=lambda b: (b.level, b.operator))
            for k, box in enumerate(stack[:MAX_BOXES_SHOWN]):
                top = area.y + area.h - HEADER - k * (BOX_HEIGHT + BOX_GAP)
                boxes[box.key] = Rect(area.x + 0.25, top - BOX_HEIGHT, area.w - 0.5,
                                      BOX_HEIGHT)
            if len(stack) > MAX_BOXES_SHOWN:
                hidden[node_id] = len(stack) - MAX_BOXES_SHOWN
    return Layout(max(x - ZONE_GAP, NODE_WIDTH), tallest, zones, nodes, boxes, hidden)


def _mean_depth(scene: Scene) -> dict[str, float]:
    levels: dict[str, list[int]] = {n.id: [] for n in scene.nodes}
    for box in scene.boxes:
        levels.setdefault(box.node, []).extend([box.level] * box.count)
    deepest = max((b.level for b in scene.boxes), default=0) + 1
    return {node: _mean(values) if values else deepest for node, values in levels.items()}


def _mean(values: list[float] | list[int]) -> float:
    return sum(values) / len(values) if values else math.inf
