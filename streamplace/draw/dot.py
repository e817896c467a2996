"""A scene as Graphviz DOT, for people who use Graphviz's own layout: one cluster per zone,
one per node inside it, a vertex per replica box (``operator@node``), an edge per flow with
its bytes/s as label and pen width; the critical path in red."""

from __future__ import annotations

import math

from streamplace.draw.scene import Scene

_CRITICAL = "#c62828"


def dot_text(scene: Scene) -> str:
    lines = [f"digraph {_quote(scene.title)} {{", "  rankdir=LR;", "  compound=true;",
             '  node [shape=box, style="rounded,filled", fillcolor="#e3f2fd", '
             'fontname="Helvetica"];', f"  label={_quote(_caption(scene))};"]
    boxes_on: dict[str, list[str]] = {}
    for box in scene.boxes:
        boxes_on.setdefault(box.node, []).append(box.key)
    by_key = {b.key: b for b in scene.boxes}
    for k, (zone, nodes) in enumerate(scene.zones().items()):
        indent = "  "
        if zone:
            lines += [f"  subgraph cluster_zone_{k} {{", f"    label={_quote(zone)};",
                      '    style="dashed"; color="#bdbdbd";']
            indent = "    "
        for node in nodes:
            share = node.utilisation
            held = f", {node.held_share:.0%} held" if node.held_share > 0 else ""
            label = node.id + ("" if share is None else f" ({share:.0%}{held})")
            colour = "#d84315" if node.violations else "#424242"
            lines += [f"{indent}subgraph {_quote('cluster_' + node.id)} {{",
                      f"{indent}  label={_quote(label)}; color={_quote(colour)};"]
            for key in boxes_on.get(node.id, []):
                box = by_key[key]
                name = box.operator + (f" x{box.count}" if box.count > 1 else "")
                attrs = [f"label={_quote(name)}"]
                if box.critical:
                    attrs += [f"color={_quote(_CRITICAL)}", 'fillcolor="#ffebee"', "penwidth=2"]
                if box.violations:
                    attrs.append(f"tooltip={_quote('; '.join(box.violations))}")
                lines.append(f"{indent}  {_quote(key)} [{', '.join(attrs)}];")
            lines.append(f"{indent}}}")
        if zone:
            lines.append("  }")
    top = max((f.bytes_per_s for f in scene.flows), default=0.0)
    for flow in scene.flows:
        width = 1.0 + 4.0 * math.sqrt(flow.bytes_per_s / top) if top > 0 else 1.0
        attrs = [f"label={_quote(f'{flow.bytes_per_s:.4g} B/s')}", f"penwidth={width:.2f}"]
        if flow.critical:
            attrs.append(f"color={_quote(_CRITICAL)}")
        elif flow.local:
            attrs += ['color="#9e9e9e"', "style=dashed"]
        lines.append(f"  {_quote(flow.source)} -> {_quote(flow.target)} [{', '.join(attrs)}];")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _caption(scene: Scene) -> str:
    path = " -> ".join(scene.critical_path)
    caption = f"{scene.title}: critical path {path}" if path else scene.title
    if scene.occupied:
        caption += f"; beside the occupied load of {', '.join(scene.occupied)}"
    return caption


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'
