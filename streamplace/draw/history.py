"""An autoscale run's history (its ``--state`` file) as one self-contained HTML page: per
vertex, its parallelism, its busiest subtask's busy share against the utilisation the plan
that ran predicted, and the records it took in, decision by decision; then every rescale
with why and how long the job stopped."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from streamplace.draw.report import STYLE, _e, _svg_text


def history_html(states: Sequence[tuple[str, dict[str, Any]]], title: str | None = None) -> str:
    """The page for each state file (its path, its document)."""
    heading = title or "autoscale history"
    parts = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{_e(heading)}</title>"
             f"<style>{STYLE}</style></head><body><h1>{_e(heading)}</h1>"]
    for path, doc in states:
        parts.append(_state_section(path, doc))
    parts.append("</body></html>")
    return "\n".join(parts)


def _state_section(path: str, doc: dict[str, Any]) -> str:
    decisions = [d for d in doc.get("decisions", []) if isinstance(d, dict) and d.get("seen")]
    parts = [f"<h2>{_e(doc.get('job', path))}</h2>",
             f"<p class='note'>{_e(path)}: {len(decisions)} decision(s) with a reading, "
             f"{sum(d.get('decision') == 'rescale' for d in decisions)} rescale(s)</p>"]
    if not decisions:
        parts.append("<p class='note'>No decision read the job yet: nothing to draw.</p>")
        return "\n".join(parts)
    parts.append(f"<div class='figure'>{_svg_text(_figure(decisions))}</div>")
    parts.append(_rescales(decisions))
    return "\n".join(parts)


def _figure(decisions: list[dict[str, Any]]) -> Any:
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    ops = list(decisions[-1]["seen"])
    fig = Figure(figsize=(11, 2.3 * len(ops) + 0.6), layout="constrained")
    axes = fig.subplots(len(ops), 1, sharex=True, squeeze=False)[:, 0]
    x = list(range(1, len(decisions) + 1))
    handles: list[Any] = []
    for ax, op in zip(axes, ops, strict=True):
        seen = [d["seen"].get(op, {}) for d in decisions]
        ax.step(x, [s.get("parallelism") for s in seen], where="post", color="#1565c0",
                label="parallelism")
        ax.set_ylabel(f"{op}\nsubtasks")
        ax.set_ylim(bottom=0)
        share = ax.twinx()
        share.plot(x, [s.get("busy_max") for s in seen], "o-", color="#c62828", ms=3,
                   label="busiest subtask busy")
        share.plot(x, [(d.get("planned") or {}).get(op) for d in decisions], "--",
                   color="#6a1b9a", label="predicted utilisation")
        share.plot(x, [s.get("backpressured") for s in seen], ":", color="#ef6c00",
                   label="back-pressured")
        share.set_ylim(0, 1.05)
        share.set_ylabel("share of time")
        rates = ax.twinx()
        rates.spines["right"].set_position(("axes", 1.08))
        rates.plot(x, [s.get("records_in") or s.get("records_out") for s in seen],
                   color="#9e9e9e", lw=1, label="records/s in (a source: out)")
        rates.set_ylabel("records/s")
        if not handles:  # one legend for every row: the same lines in each
            handles = [h for a in (ax, share, rates) for h in a.get_legend_handles_labels()[0]]
    axes[-1].set_xlabel("decision")
    axes[-1].xaxis.set_major_locator(MaxNLocator(integer=True))
    fig.legend(handles=handles, loc="outside lower center", ncols=5, fontsize="small")
    return fig


def _rescales(decisions: list[dict[str, Any]]) -> str:
    rows = ["<table><tr><th>decision</th><th>step</th><th>changed</th><th>why</th>"
            "<th>job stopped (s)</th></tr>"]
    for k, d in enumerate(decisions, 1):
        if d.get("decision") != "rescale":
            continue
        moved = ", ".join(f"{op} {d['from'].get(op)} → {n}" for op, n in d.get("to", {}).items()
                          if d.get("from", {}).get(op) != n)
        took = d.get("seconds_to_rescale")
        rows.append(f"<tr><td class='num'>{k}</td><td class='num'>{_e(str(d.get('step')))}</td>"
                    f"<td>{_e(moved)}</td><td>{_e('; '.join(d.get('why', [])))}</td>"
                    f"<td class='num'>{'' if took is None else _e(took)}</td></tr>")
    return "\n".join(rows) + "</table>" if len(rows) > 1 else \
        "<p class='note'>No rescale.</p>"
