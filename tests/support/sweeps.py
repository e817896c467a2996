"""Shared by several test modules (no test module imports another)."""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import pytest
import yaml

from streamplace.sweep import run_sweep

from ..conftest import sample


def write_sweep(folder: Path, body: dict[str, Any], app: dict[str, Any] | None = None,
                infra: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "app.yaml").write_text(DEBS_APP.read_text() if app is None
                                     else yaml.safe_dump(app))
    (folder / "infra.yaml").write_text(DEBS_INFRA.read_text() if infra is None
                                       else yaml.safe_dump(infra))
    path = folder / "sweep.yaml"
    path.write_text(yaml.safe_dump({"schema": "streamplace/sweep/v1", "application": "app.yaml",
                                    "infrastructure": "infra.yaml", **body}))
    return path


def assert_rows_of_one_process(sweep: Path, written: Path, local: Path) -> None:
    """The rows a sweep wrote to ``written`` are those of ``--engine python``."""
    done = run_sweep(str(sweep), str(local), engine="python", plots=False)
    rows = read_rows(written)
    assert [r["scenario_id"] for r in rows] == [r["scenario_id"] for r in done.rows]
    for a, b in zip(rows, done.rows, strict=True):
        assert a["status"] == b["status"]
        if b["objective"] is not None:
            assert float(a["objective"]) == pytest.approx(b["objective"], rel=1e-9)


DEBS_APP = Path(sample("debs2015", "application.yaml"))


DEBS_INFRA = Path(sample("debs2015", "infrastructure.yaml"))


def read_rows(folder: Path) -> list[dict[str, str]]:
    with (folder / "results.csv").open() as f:
        return list(csv.DictReader(f))
