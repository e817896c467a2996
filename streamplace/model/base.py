"""Base class of the input models: strict keys, source locations kept for error messages."""

from __future__ import annotations

from types import UnionType
from typing import Annotated, Any, Union, get_args, get_origin

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
        if isinstance(value, bool) and info.field_name is not None and \
                _numbers_only(cls.model_fields[info.field_name].annotation):
            raise ValueError(f"{str(value).lower()} is a yes/no value, not a number")
        return value


def _numbers_only(annotation: Any) -> bool:
    """Whether every type ``annotation`` admits besides None is int or float (through
    Annotated, unions and Optional); a field that also admits bool, str or a model is not.

    >>> from typing import Annotated
    >>> _numbers_only(Annotated[int, "k"] | None), _numbers_only(int | str), _numbers_only(bool)
    (True, False, False)
    """
    if annotation in (int, float):
        return True
    if get_origin(annotation) is Annotated:
        return _numbers_only(get_args(annotation)[0])
    if get_origin(annotation) in (Union, UnionType):
        kinds = [a for a in get_args(annotation) if a is not type(None)]
        return bool(kinds) and all(_numbers_only(a) for a in kinds)
    return False


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
