"""Base class of the input models: strict keys, source locations kept for error messages."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, PrivateAttr, ValidationInfo, field_validator

from streamplace.errors import Problem
from streamplace.model.source import SourceMap


class StrictModel(BaseModel):
    """Unknown keys are input errors (docs/formats.md), never silently ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True,
                              validate_default=False)

    @field_validator("*", mode="before")
    @classmethod
    def _no_booleans_as_numbers(cls, value: Any, info: ValidationInfo) -> Any:
        """``true`` is not a replica count of 1, nor ``false`` a rate of 0: pydantic's lax
        mode would read them so, silently."""
        if isinstance(value, bool) and info.field_name is not None:
            annotation = str(cls.model_fields[info.field_name].annotation)
            if "bool" not in annotation and ("int" in annotation or "float" in annotation):
                raise ValueError(f"{str(value).lower()} is a yes/no value, not a number")
        return value


class Document(StrictModel):
    """A whole input file; remembers where each field came from (for error messages)."""

    _source: SourceMap = PrivateAttr(default_factory=SourceMap)

    @property
    def source(self) -> SourceMap:
        return self._source

    def attach_source(self, source: SourceMap) -> None:
        self._source = source

    def problem(self, path: str, message: str, fix: str = "") -> Problem:
        """A problem located in this document at ``path`` (``operators[2].candidates``)."""
        return self._source.problem(path, message, fix)
