"""Base class of the input models: strict keys, source locations kept for error messages."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, PrivateAttr

from streamplace.errors import Problem
from streamplace.model.source import SourceMap


class StrictModel(BaseModel):
    """Unknown keys are input errors (docs/formats.md), never silently ignored."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True,
                              validate_default=False)


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
