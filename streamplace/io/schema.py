"""JSON Schemas of the file kinds, generated from the models (the single source).

The checked-in copies under ``schemas/`` are golden files: ``make golden`` regenerates them,
and a test says what drifted.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from streamplace.model.application import APPLICATION_SCHEMA, Application
from streamplace.model.base import Document
from streamplace.model.bundle import BUNDLE_SCHEMA, BundlePlan
from streamplace.model.decision import DECISION_SCHEMA, Decision
from streamplace.model.forecast import FORECAST_SCHEMA, ForecastFile
from streamplace.model.infrastructure import (
    CATALOG_SCHEMA,
    INFRASTRUCTURE_SCHEMA,
    CatalogFile,
    Infrastructure,
)
from streamplace.model.jobs import JOBS_SCHEMA, JobsFile
from streamplace.model.objective import OBJECTIVE_SCHEMA, ObjectiveFile
from streamplace.model.occupied import OCCUPIED_SCHEMA, OccupiedFile
from streamplace.model.plan import PLAN_SCHEMA, Plan
from streamplace.model.state import STATE_SCHEMA, StateFile
from streamplace.model.sweep import SWEEP_SCHEMA, SweepFile

KINDS: dict[str, tuple[type[Document] | type[BaseModel], str]] = {
    "application": (Application, APPLICATION_SCHEMA),
    "infrastructure": (Infrastructure, INFRASTRUCTURE_SCHEMA),
    "objective": (ObjectiveFile, OBJECTIVE_SCHEMA),
    "plan": (Plan, PLAN_SCHEMA),
    "sweep": (SweepFile, SWEEP_SCHEMA),
    "catalog": (CatalogFile, CATALOG_SCHEMA),
    "occupied": (OccupiedFile, OCCUPIED_SCHEMA),
    "bundle": (BundlePlan, BUNDLE_SCHEMA),
    "jobs": (JobsFile, JOBS_SCHEMA),
    "forecast": (ForecastFile, FORECAST_SCHEMA),
    "decision": (Decision, DECISION_SCHEMA),  # a line autoscale writes, not a file it reads
    "state": (StateFile, STATE_SCHEMA),       # what autoscale --state keeps
}


def json_schema(kind: str) -> dict[str, Any]:
    model, schema_id = KINDS[kind]
    body = model.model_json_schema(
        by_alias=True, mode="serialization" if model in (Decision, StateFile) else "validation")
    what = "autoscale decision line" if model is Decision else \
        "autoscale state file" if model is StateFile else f"{kind} file"
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": schema_id,
            **body, "title": f"streamplace {what}"}
