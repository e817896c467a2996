"""Charts (matplotlib, PNG and SVG) of a sweep: each metric against the rate scale, the
impact of each failure, the methods side by side, the largest feasible rate, the Pareto
front. A plot is drawn only where the sweep varies what it shows."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from streamplace.model.metrics import Metric

PLANNED = ("optimal", "feasible", "time_limit", "interrupted", "limit")


def draw(rows: Sequence[dict[str, Any]], folder: Path, analysis: str) -> list[Path]:
    """Every plot that says something about these rows; the files written."""
    import matplotlib

    matplotlib.use("Agg")
    folder.mkdir(parents=True, exist_ok=True)
    planned = [r for r in rows if r.get("status") in PLANNED and _finite(r.get(Metric.COST))]
    out: list[Path] = []
    if analysis == "pareto":
        out += _pareto(planned, folder)
    elif analysis == "max-rate":
        out += _max_rate(rows, folder)
    else:
        if len({r["rate_scale"] for r in rows}) > 1 and planned:
            out += _against_rate(planned, folder)
        if len({r["failure"] for r in rows}) > 1:
            out += _failure_impact(rows, folder)
        if len({r["method"] for r in rows}) > 1 and planned:
            out += _methods(planned, folder)
    return out


def _against_rate(rows: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 3, figsize=(13, 3.8))
    intact = [r for r in rows if r["failure"] == "none"] or list(rows)
    for ax, metric, label in zip(axes, (Metric.RESPONSE_TIME, Metric.COST, "objective"),
                                 ("response time R (s)", "cost C", "utility F"), strict=True):
        for method, points in _by(intact, "method").items():
            series = _mean_by(points, "rate_scale", metric)
            ax.plot(list(series), list(series.values()), marker="o", label=method)
        ax.set_xlabel("rate scale")
        ax.set_ylabel(label)
        ax.grid(alpha=0.3)
    axes[0].legend()
    fig.suptitle("Metrics against the input rate (no failure; mean over the other axes)")
    return _save(fig, folder / "metrics-vs-rate")


def _failure_impact(rows: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    failures = sorted({r["failure"] for r in rows}, key=lambda f: (f != "none", f))
    methods = sorted({r["method"] for r in rows})
    fig, ax = plt.subplots(figsize=(max(6.0, 0.8 * len(failures) * len(methods)), 4))
    width = 0.8 / len(methods)
    for k, method in enumerate(methods):
        values = []
        for failure in failures:
            hits = [r for r in rows if r["method"] == method and r["failure"] == failure]
            ok = [r["objective"] for r in hits if r.get("status") in PLANNED and
                  _finite(r.get("objective"))]
            values.append(sum(ok) / len(ok) if ok else 0.0)
        xs = [i + k * width for i in range(len(failures))]
        ax.bar(xs, values, width, label=method)
        for x, value in zip(xs, values, strict=True):
            if value == 0:
                ax.text(x, 0.01, "no plan", rotation=90, ha="center", va="bottom",
                        fontsize="small")
    ax.set_xticks([i + 0.4 - width / 2 for i in range(len(failures))], failures,
                  rotation=45, ha="right")
    ax.set_ylabel("utility F (0: no plan)")
    ax.set_title("Impact of each failure (mean over the other axes)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0))
    return _save(fig, folder / "failure-impact")


def _methods(rows: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    groups = _by([r for r in rows if _finite(r.get("objective"))], "method")
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    names = sorted(groups)
    axes[0].boxplot([[r["objective"] for r in groups[n]] for n in names])
    axes[0].set_ylabel("utility F")
    axes[1].boxplot([[r["seconds"] for r in groups[n]] for n in names])
    axes[1].set_ylabel("seconds per scenario")
    for ax in axes:
        ax.set_xticks(range(1, len(names) + 1), names)
    axes[1].set_yscale("log")
    fig.suptitle("Methods across the sweep's scenarios")
    return _save(fig, folder / "methods")


def _max_rate(rows: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(rows)), 4))
    labels = [f"{r['method']} / {r['failure']}" for r in rows]
    values = [r.get("max_rate_scale") or 0.0 for r in rows]
    ax.bar(range(len(rows)), values, color=["tab:blue" if r.get("max_rate_proven") else
                                            "tab:gray" for r in rows])
    ax.set_xticks(range(len(rows)), labels, rotation=45, ha="right")
    ax.set_ylabel("largest feasible rate scale")
    ax.set_title("Largest feasible rate (blue: proven by the solver)")
    return _save(fig, folder / "max-rate")


def _pareto(rows: Sequence[dict[str, Any]], folder: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    if not rows:
        return []
    first, second = rows[0]["pareto_first"], rows[0]["pareto_second"]
    fig, ax = plt.subplots(figsize=(6, 4.5))
    for key, points in _by(rows, "scenario_id").items():
        ordered = sorted(points, key=lambda r: r[first])
        label = f"{points[0]['method']} {points[0]['failure']} x{points[0]['rate_scale']:g}"
        ax.step([r[first] for r in ordered], [r[second] for r in ordered], where="post",
                marker="o", label=label if len(rows) < 200 else key)
    ax.set_xlabel(first)
    ax.set_ylabel(second)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small")
    ax.set_title(f"Pareto front: {first} against {second}")
    return _save(fig, folder / "pareto")


def _by(rows: Sequence[dict[str, Any]], key: str) -> dict[Any, list[dict[str, Any]]]:
    out: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        out[row[key]].append(row)
    return out


def _mean_by(rows: Sequence[dict[str, Any]], key: str, metric: str) -> dict[float, float]:
    sums: dict[float, list[float]] = defaultdict(list)
    for row in rows:
        if _finite(row.get(metric)):
            sums[row[key]].append(row[metric])
    return {k: sum(v) / len(v) for k, v in sorted(sums.items())}


def _finite(value: Any) -> bool:
    return isinstance(value, int | float) and math.isfinite(value)


def _save(fig: Any, stem: Path) -> list[Path]:
    import matplotlib.pyplot as plt

    fig.tight_layout()
    paths = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    for path in paths:
        save(fig, path, dpi=110)
    plt.close(fig)
    return paths


def save(fig: Any, path: Path, dpi: int) -> None:
    """Write a figure the way every file streamplace writes is written (io/outputs.py: a
    temporary file of its own, then one rename): SVG text stays text, and carries no date
    (the same drawing gives the same file)."""
    import io

    import matplotlib

    from streamplace.io.outputs import Output, write_outputs

    kind = path.suffix[1:].lower()
    drawn = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "streamplace"}):
        fig.savefig(drawn, dpi=dpi, format=kind,
                    metadata={"Date": None} if kind == "svg" else None)
    write_outputs([Output(str(path), drawn.getvalue())])
