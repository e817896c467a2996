"""Plans and reports as YAML, JSON or CSV text (written to files by
:mod:`streamplace.io.outputs`)."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import yaml

from streamplace.model.evaluate.report import Evaluation
from streamplace.model.plan import PLAN_SCHEMA, Plan

PLAN_KEYS = ("schema", "application", "infrastructure", "method", "model", "status", "objective",
             "bound", "gap", "placement", "routes", "downloads", "purchased", "metrics",
             "bounds_used", "solver")


def plan_document(plan: Plan, evaluation: Evaluation | None = None) -> dict[str, Any]:
    """The plan as a plain mapping in the file format's key order (docs/formats.md);
    metrics from ``evaluation``."""
    raw = plan.model_dump(by_alias=True, exclude_none=True)
    raw["schema"] = PLAN_SCHEMA
    raw["placement"] = {op: {n: c for n, c in reps.items() if c > 0}
                        for op, reps in plan.placement.items()}
    if evaluation is not None and evaluation.complete:
        raw["metrics"] = evaluation.metrics()
        if evaluation.utility is not None and "bounds_used" not in raw:
            raw["bounds_used"] = evaluation.utility.bounds_used
    for key in ("routes", "downloads", "purchased"):
        if not raw.get(key):
            raw.pop(key, None)
    return {k: raw[k] for k in PLAN_KEYS if k in raw}


def format_for(path: str | None, requested: str | None) -> str:
    if requested:
        return requested
    if path and Path(path).suffix.lower() == ".json":
        return "json"
    return "yaml"


def dumps(data: Any, fmt: str) -> str:
    """YAML (leaf collections in flow style, as in docs/formats.md) or JSON text."""
    clean = _plain(data)
    if fmt == "json":
        return json.dumps(_json_safe(clean), indent=2, allow_nan=False) + "\n"
    return str(yaml.safe_dump(clean, sort_keys=False, default_flow_style=None,
                              allow_unicode=True, width=100))


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set):
        return [_plain(v) for v in value]
    if hasattr(value, "value") and hasattr(value, "name") and isinstance(value.value, str):
        return value.value  # enums
    return value


def _json_safe(value: Any) -> Any:
    """JSON has no infinities: they are written as the strings "inf" / "-inf"."""
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value


def json_text(data: Any) -> str:
    return dumps(data, "json")


def csv_text(rows: list[Any]) -> str:
    """Rows (objects with a ``values`` mapping) as CSV, columns in first-row order."""
    import csv
    import io

    if not rows:
        return ""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0].values), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.values.items()})
    return out.getvalue()
