"""One self-contained HTML report: no script, no font, no image or style fetched from
anywhere; pictures are inline SVG. For each plan: its metrics, the utility's breakdown, its
drawing, the constraints that bind and the best single changes (``explain``); for several
plans a comparison table and charts; for a sweep folder its summary and plots; with
``validate``'s checks, the failed ones first."""

from __future__ import annotations

import csv
import html
import math
import re
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from streamplace import fmt
from streamplace.draw.scene import build_scene
from streamplace.model.application import Application
from streamplace.model.explain import Explanation, Watch, explain
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import Metric
from streamplace.model.objective import Objective
from streamplace.model.plan import Plan
from streamplace.model.validation import Check

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       color: #212121; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 0.8em 0; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.3em 0.6em; text-align: left; }
th { background: #f5f5f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
.fail { color: #c62828; font-weight: bold; } .pass { color: #2e7d32; }
.figure svg { max-width: 100%; height: auto; border: 1px solid #eee; }
.note { color: #616161; font-size: 0.9em; }
"""
METRICS = (*((m.value, m.label, m.show) for m in Metric),
           ("utility", "utility F", lambda v: f"{v:.6g}"))


@dataclass
class PlanEntry:
    label: str  # the file it came from
    plan: Plan
    explanation: Explanation = field(repr=False)


LEFT_OUT = ("<p class='note'>Drawing left out: the time limit had passed (or a signal "
            "came) before it was begun.</p>")


def report_html(app: Application, infra: Infrastructure, plans: Sequence[tuple[str, Plan]],
                objective: Objective | None = None, sweeps: Sequence[Path] = (),
                checks: Sequence[Check] | None = None, title: str | None = None,
                watch: Watch | None = None) -> str:
    """The report; each plan's what-ifs until ``watch`` says stop (its notes say so). Once
    it says stop, the drawings and charts not made yet are left out, each saying so: the
    time limit bounds the drawing too (one drawing begun is finished)."""
    stopped = watch.stop if watch is not None else (lambda: False)
    entries = [PlanEntry(label, plan, explain(app, infra, plan, objective, watch))
               for label, plan in plans]
    parts = [f"<h1>{_e(title or f'{app.name} on {infra.name}')}</h1>",
             f"<p class='note'>{len(app.operators)} operators, {len(infra.nodes)} nodes; "
             f"{len(entries)} plan(s){'; ' + str(len(sweeps)) + ' sweep(s)' if sweeps else ''}"
             "</p>"]
    if checks is not None:
        parts.append(_checks(checks))
    if len(entries) > 1:
        parts.append(_comparison(entries, stopped()))
    for entry in entries:
        parts.append(_plan_section(app, infra, entry, stopped()))
    for folder in sweeps:
        parts.append(_sweep_section(folder))
    body = "\n".join(parts)
    return ("<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
            f"<title>{_e(title or app.name)}</title><style>{STYLE}</style></head>"
            f"<body>\n{body}\n</body></html>\n")


def _checks(checks: Sequence[Check]) -> str:
    ordered = sorted(checks, key=lambda c: c.passed)  # failed first
    failed = sum(1 for c in checks if not c.passed)
    rows = "".join(
        f"<tr><td class='{'pass' if c.passed else 'fail'}'>{'pass' if c.passed else 'FAIL'}"
        f"</td><td>{_e(c.group)}: {_e(c.name)}</td><td>{_e(c.message)}"
        + "".join(f"<br>{_e(d)}" for d in c.details) + "</td></tr>" for c in ordered)
    verdict = f"<p class='fail'>{failed} of {len(checks)} checks failed</p>" if failed else \
        f"<p class='pass'>all {len(checks)} checks passed</p>"
    return f"<h2>Checks</h2>{verdict}<table><tr><th>result</th><th>check</th>" \
           f"<th>detail</th></tr>{rows}</table>"


def _comparison(entries: Sequence[PlanEntry], undrawn: bool = False) -> str:
    head = "".join(f"<th>{_e(label)}</th>" for _, label, _ in METRICS)
    rows = []
    for entry in entries:
        metrics = entry.explanation.evaluation.metrics()
        cells = "".join(f"<td class='num'>{_e(show(metrics[key]))}</td>" if key in metrics
                        else "<td>-</td>" for key, _, show in METRICS)
        rows.append(f"<tr><td>{_e(entry.label)}</td><td>{_e(entry.plan.method or '-')}</td>"
                    f"<td>{_e(str(entry.plan.status.value if entry.plan.status else '-'))}"
                    f"</td>{cells}</tr>")
    chart = LEFT_OUT if undrawn else _comparison_chart(entries)
    return (f"<h2>Comparison</h2><table><tr><th>plan</th><th>method</th><th>status</th>"
            f"{head}</tr>{''.join(rows)}</table><div class='figure'>{chart}</div>")


def _comparison_chart(entries: Sequence[PlanEntry]) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    shown = [(Metric.RESPONSE_TIME, "response time (s)"), (Metric.COST, "cost C"),
             ("utility", "utility F")]
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "streamplace"}):
        fig, axes = plt.subplots(1, 3, figsize=(11, 3.2))
        labels = [Path(e.label).stem for e in entries]
        for ax, (key, title) in zip(axes, shown, strict=True):
            values = [e.explanation.evaluation.metrics().get(key, math.nan) for e in entries]
            ax.bar(range(len(entries)), [v if math.isfinite(v) else 0.0 for v in values],
                   color="#1565c0")
            ax.set_xticks(range(len(entries)), labels, rotation=30, ha="right")
            ax.set_title(title)
        fig.tight_layout()
        text = _svg_text(fig)
        plt.close(fig)
    return text


def _plan_section(app: Application, infra: Infrastructure, entry: PlanEntry,
                  undrawn: bool = False) -> str:
    ex = entry.explanation
    ev = ex.evaluation
    metrics = ev.metrics()
    rows = "".join(f"<tr><td>{label}</td><td class='num'>{_e(show(metrics[key]))}</td></tr>"
                   for key, label, show in METRICS if key in metrics)
    status = entry.plan.status.value if entry.plan.status else "written by hand"
    verdict = "feasible" if ev.feasible else f"violates {len(ev.violations)} constraint(s)"
    parts = [f"<h2>Plan {_e(entry.label)}</h2>",
             f"<p>method {_e(entry.plan.method or '-')}, status {_e(status)}; {verdict}</p>",
             f"<table><tr><th>metric</th><th>value</th></tr>{rows}</table>"]
    if ev.utility is not None:
        terms = "".join(
            f"<tr><td>{_e(t.metric)}</td><td class='num'>{t.weight:.3g}</td>"
            f"<td class='num'>{_e(fmt.number(t.value))}</td><td class='num'>{t.normalised:.4g}"
            f"</td><td class='num'>{t.contribution:.4g}</td></tr>" for t in ev.utility.terms)
        parts.append(f"<h3>Utility F = {ev.utility.value:.6g}</h3><table><tr><th>term</th>"
                     "<th>weight</th><th>value</th><th>normalised</th><th>contribution</th>"
                     f"</tr>{terms}</table>")
    drawing = LEFT_OUT if undrawn else _drawing(app, infra, entry)
    parts.append(f"<h3>Placement</h3><div class='figure'>{drawing}</div>")
    if ev.violations:
        items = "".join(f"<li class='fail'>{_e(v.constraint)}: {_e(str(v.subject))}: "
                        f"{_e(v.message)}</li>" for v in ev.violations)
        parts.append(f"<h3>Violated constraints</h3><ul>{items}</ul>")
    if ex.binding:
        rows = "".join(f"<tr><td>{_e(b.kind)}</td><td>{_e(b.subject)}</td><td>{_e(b.detail)}"
                       "</td></tr>" for b in ex.binding)
        parts.append("<h3>Binding constraints</h3><table><tr><th>constraint</th><th>subject"
                     f"</th><th>detail</th></tr>{rows}</table>")
    if ex.what_if:
        rows = "".join(f"<tr><td>{_e(w.operator)}</td><td>{_e(w.move)}</td><td class='num'>"
                       f"{w.utility:.6g}</td><td class='num'>{w.delta:+.4g}</td></tr>"
                       for w in ex.what_if)
        parts.append("<h3>Best single change per operator</h3><table><tr><th>operator</th>"
                     "<th>change</th><th>utility F</th><th>delta F</th></tr>"
                     f"{rows}</table>")
    if ex.notes:
        items = "".join(f"<li>{_e(note)}</li>" for note in ex.notes)
        parts.append(f"<ul class='note'>{items}</ul>")
    return "\n".join(parts)


def _drawing(app: Application, infra: Infrastructure, entry: PlanEntry) -> str:
    from streamplace.draw.figure import draw_figure

    scene = build_scene(app, infra, entry.plan, entry.explanation.evaluation,
                        f"{Path(entry.label).name}")
    with tempfile.TemporaryDirectory(prefix="streamplace-report-") as folder:
        path = Path(folder) / "plan.svg"
        draw_figure(scene, path)
        return _inline_svg(path.read_text(encoding="utf-8"))


def _sweep_section(folder: Path) -> str:
    results = folder / "results.csv"
    parts = [f"<h2>Sweep {_e(str(folder))}</h2>"]
    if results.exists():
        with results.open(encoding="utf-8") as f:
            rows = list(csv.DictReader(f))
        counts = Counter((r["method"], r["status"]) for r in rows)
        table = "".join(f"<tr><td>{_e(m)}</td><td>{_e(s)}</td><td class='num'>{n}</td></tr>"
                        for (m, s), n in sorted(counts.items()))
        parts.append(f"<p>{len(rows)} rows</p><table><tr><th>method</th><th>status</th>"
                     f"<th>rows</th></tr>{table}</table>")
    for svg in sorted((folder / "plots").glob("*.svg")):
        parts.append(f"<h3>{_e(svg.stem)}</h3><div class='figure'>"
                     f"{_inline_svg(svg.read_text(encoding='utf-8'))}</div>")
    return "\n".join(parts)


def _svg_text(fig: object) -> str:
    import io

    buffer = io.StringIO()
    fig.savefig(buffer, format="svg")  # type: ignore[attr-defined]
    return _inline_svg(buffer.getvalue())


def _inline_svg(text: str) -> str:
    """An SVG document as an element of the page: without its XML prolog, DOCTYPE and
    metadata."""
    text = re.sub(r"<\?xml[^>]*\?>", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, flags=re.S)
    # matplotlib's RDF metadata: a date and namespace URIs, nothing a reader needs
    text = re.sub(r"<metadata>.*?</metadata>", "", text, flags=re.S)
    return text.strip()


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)
