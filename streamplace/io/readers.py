"""Read application, infrastructure, objective and plan files into validated models.

Pipeline (style.md, practice 4): parse -> typed model -> semantic checks, every problem at
once, each as ``file:line: field.path: what is wrong — how to fix``.
"""

from __future__ import annotations

import difflib
import types
import typing
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from streamplace.errors import InputError, Problem
from streamplace.io.loader import load_path, parse
from streamplace.model.application import Application
from streamplace.model.base import Document
from streamplace.model.checks import (
    check_application,
    check_compatible,
    check_infrastructure,
    check_plan,
)
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.objective import Objective, ObjectiveFile
from streamplace.model.plan import Plan
from streamplace.model.source import SourceMap, path_to_str

D = TypeVar("D", bound=Document)


def read_document(kind: type[D], path: str, text: str | None = None) -> D:
    """Parse ``path`` (or ``text`` named ``path``) as a document of type ``kind``."""
    data, source = load_path(path) if text is None else parse(text, path)
    return build_document(kind, data, source)


def build_document(kind: type[D], data: Any, source: SourceMap) -> D:
    if not isinstance(data, dict):
        raise InputError([source.problem("", f"the top level is a {_kind_of(data)}, not a mapping",
                                         f"write the {_label(kind)} as key: value pairs")])
    try:
        doc = kind.model_validate(data)
    except ValidationError as exc:
        raise InputError(_problems(exc, kind, source)) from None
    doc.attach_source(source)
    return doc


def read_application(path: str) -> Application:
    app = read_document(Application, path)
    _raise_if(check_application(app))
    return app


def read_infrastructure(path: str) -> Infrastructure:
    infra = read_document(Infrastructure, path)
    _raise_if(check_infrastructure(infra))
    return infra


def application_from(data: Any, name: str) -> Application:
    """An application document made in memory (e.g. extracted), checked as a file would be."""
    app = build_document(Application, data, SourceMap(name))
    _raise_if(check_application(app))
    return app


def infrastructure_from(data: Any, name: str) -> Infrastructure:
    infra = build_document(Infrastructure, data, SourceMap(name))
    _raise_if(check_infrastructure(infra))
    return infra


def read_objective(path: str) -> Objective:
    return read_document(ObjectiveFile, path).objective


def read_plan(path: str) -> Plan:
    return read_document(Plan, path)


def read_instance(app_path: str, infra_path: str) -> tuple[Application, Infrastructure]:
    """Read both files and check that they fit together; all problems of both at once."""
    problems: list[Problem] = []
    app = infra = None
    try:
        app = read_application(app_path)
    except InputError as exc:
        problems += exc.problems
    try:
        infra = read_infrastructure(infra_path)
    except InputError as exc:
        problems += exc.problems
    if app is not None and infra is not None:
        problems += check_compatible(app, infra)
    _raise_if(problems)
    assert app is not None and infra is not None
    return app, infra


def read_plan_for(path: str, app: Application, infra: Infrastructure) -> Plan:
    plan = read_plan(path)
    _raise_if(check_plan(plan, app, infra))
    return plan


def _raise_if(problems: list[Problem]) -> None:
    if problems:
        raise InputError(problems)


# ---------------------------------------------------------------------------- pydantic errors

def _problems(exc: ValidationError, kind: type[BaseModel], source: SourceMap) -> list[Problem]:
    out = []
    for err in exc.errors(include_url=False):
        loc = tuple(step for step in err["loc"] if not _is_branch(step))
        message, fix = _explain(err, kind, loc)
        if err["type"] == "extra_forbidden":
            path = path_to_str(loc)
        elif err["type"] == "missing":
            path = path_to_str(loc)
            loc = loc[:-1]
        else:
            path = path_to_str(loc)
        out.append(Problem(message, fix, path=path, file=source.file, line=source.line_of(loc)))
    return out


def _is_branch(step: object) -> bool:
    # pydantic names union branches and validators in locations; they are not user fields
    return isinstance(step, str) and ("[" in step or step.startswith("function-"))


def _explain(err: Any, kind: type[BaseModel], loc: tuple[str | int, ...]) -> tuple[str, str]:
    kind_ = err["type"]
    ctx = err.get("ctx", {})
    given = err.get("input")
    if kind_ == "value_error":
        text = str(ctx.get("error", err["msg"]))
        message, _, fix = text.partition(" — ")
        return message, fix
    if kind_ == "missing":
        return f"required field {loc[-1]!r} is missing", f"add {loc[-1]}: ..."
    if kind_ == "extra_forbidden":
        allowed = _allowed_keys(kind, loc[:-1])
        close = difflib.get_close_matches(str(loc[-1]), allowed, n=1)
        fix = f"did you mean {close[0]!r}?" if close else (
            f"remove it; allowed here: {', '.join(allowed)}" if allowed else "remove it")
        return f"unknown key {loc[-1]!r}", fix
    if kind_ == "literal_error":
        return f"{given!r} is not allowed", f"use one of {ctx.get('expected', '')}"
    if kind_ in ("int_parsing", "int_from_float", "int_type"):
        return f"expected a whole number, got {given!r}", "write an integer such as 3"
    if kind_ in ("greater_than_equal", "greater_than"):
        bound = ctx.get("ge", ctx.get("gt"))
        return f"must be at least {bound}, got {given!r}", f"use a value of {bound} or more"
    if kind_ in ("too_short", "too_long"):
        return err["msg"].replace("Value", "the list").lower(), "change the number of entries"
    if kind_ in ("dict_type", "model_type", "model_attributes_type"):
        return f"expected a mapping (key: value), got {_kind_of(given)}", "write key: value pairs"
    if kind_ in ("list_type", "tuple_type"):
        return f"expected a list, got {_kind_of(given)}", "write a list such as [a, b]"
    if kind_ in ("string_type",):
        return f"expected text, got {_kind_of(given)}", "write a name or quote the value"
    if kind_ in ("bool_type", "bool_parsing"):
        return f"expected true or false, got {given!r}", "write true or false"
    if kind_ in ("float_type", "float_parsing"):
        return f"expected a number, got {given!r}", "write a number"
    return err["msg"], ""


def _kind_of(value: object) -> str:
    if value is None:
        return "nothing (null)"
    return {dict: "mapping", list: "list", str: "text", bool: "boolean", int: "number",
            float: "number"}.get(type(value), type(value).__name__)


def _label(kind: type[BaseModel]) -> str:
    return kind.__name__.replace("File", "").lower()


def _allowed_keys(kind: type[BaseModel], loc: tuple[str | int, ...]) -> list[str]:
    """Keys a mapping at ``loc`` accepts, for 'did you mean' hints."""
    current: Any = kind
    for step in loc:
        current = _model_in(current)
        if current is None:
            return []
        if isinstance(step, int):
            continue
        field = next((f for name, f in current.model_fields.items()
                      if step in (name, f.alias)), None)
        if field is None:
            return []
        current = field.annotation
    model = _model_in(current)
    if model is None:
        return []
    return sorted(f.alias or name for name, f in model.model_fields.items())


def _model_in(annotation: Any) -> type[BaseModel] | None:
    """The model class inside ``list[M]``, ``M | None``, ``Annotated[M, ...]``."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    origin = typing.get_origin(annotation)
    if origin in (list, typing.Union, types.UnionType, typing.Annotated, dict):
        for arg in typing.get_args(annotation):
            found = _model_in(arg)
            if found is not None:
                return found
    return None
