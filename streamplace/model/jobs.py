"""The jobs of a session cluster that ``autoscale http://JOBMANAGER:8081 --jobs FILE``
plans together: each job's weight and priority, matched by its name (docs/formats.md,
``streamplace/jobs/v1``). A running job the file does not name takes ``default``."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from streamplace.model.base import Document, StrictModel

JOBS_SCHEMA = "streamplace/jobs/v1"


class JobTerms(StrictModel):
    weight: Annotated[float, Field(gt=0.0, allow_inf_nan=False)] = Field(
        1.0, description="omega_a: the job's weight in the cluster's F (normalised to sum 1 "
                         "over the running jobs).")
    priority: int = Field(0, description="Higher first: the lexicographic bundle's levels, "
                                         "and who keeps its slots when they are short.")


class JobsFile(Document):
    schema_: Literal["streamplace/jobs/v1"] | None = Field(None, alias="schema")
    jobs: dict[str, JobTerms] = Field(default_factory=dict, description=(
        "A job's name, as Flink lists it (GET /jobs/overview) -> its terms."))
    default: JobTerms = Field(default_factory=JobTerms, description=(
        "The terms of a running job the file does not name."))

    def terms(self, name: str) -> JobTerms:
        return self.jobs.get(name, self.default)
