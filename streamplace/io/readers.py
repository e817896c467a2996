"""Read application, infrastructure, objective and plan files into validated models.

Pipeline: parse -> typed model -> semantic checks, every problem at
once, each as ``file:line: field.path: what is wrong — how to fix``.
"""

from __future__ import annotations

import copy
import difflib
import types
import typing
from collections.abc import Callable
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from streamplace.errors import InputError, Problem
from streamplace.io.bundle_entry import bundle_entry
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
    doc, problems = _build(kind, data, source)
    _raise_if(problems)
    assert doc is not None
    return doc


def _build(kind: type[D], data: Any, source: SourceMap) -> tuple[D | None, list[Problem]]:
    """The document and the problems of its values. When some values are wrong, the
    document is built once more without them (their fields at their defaults), so that the
    checks of references can run too and report everything at once; None when even that
    fails (a required field is missing, say)."""
    if not isinstance(data, dict):
        return None, [source.problem("", f"the top level is a {_kind_of(data)}, not a mapping",
                                     f"write the {_label(kind)} as key: value pairs")]
    try:
        doc = kind.model_validate(data)
    except ValidationError as exc:
        return _without_bad_values(kind, data, exc), _problems(exc, kind, source)
    doc.attach_source(source)
    return doc, []


def _without_bad_values(kind: type[D], data: dict[str, Any], exc: ValidationError,
                        ) -> D | None:
    trimmed = copy.deepcopy(data)
    for _ in range(3):  # a removed value may uncover another (a validator after the fields)
        for err in exc.errors(include_url=False):
            loc = tuple(step for step in err["loc"] if not _is_branch(step))
            if err["type"] == "missing" or not _remove(trimmed, loc):
                return None
        try:
            return kind.model_validate(trimmed)
        except ValidationError as again:
            exc = again
    return None


def _remove(data: Any, loc: tuple[str | int, ...]) -> bool:
    """Delete the mapping entry at ``loc``; False where that is not possible (a list item,
    whose removal would renumber the rest)."""
    if not loc or not isinstance(loc[-1], str):
        return False
    parent = data
    for step in loc[:-1]:
        try:
            parent = parent[step]
        except (KeyError, IndexError, TypeError):
            return False
    if isinstance(parent, dict) and loc[-1] in parent:
        del parent[loc[-1]]
        return True
    return False


def _checked(kind: type[D], path: str, check: Callable[[D], list[Problem]],
             ) -> tuple[D | None, list[Problem]]:
    """Read ``path``; every problem of its values and, where it can still be built, of its
    references."""
    data, source = load_path(path)
    return _checked_data(kind, data, source, check)


def _checked_data(kind: type[D], data: Any, source: SourceMap,
                  check: Callable[[D], list[Problem]]) -> tuple[D | None, list[Problem]]:
    doc, problems = _build(kind, data, source)
    if doc is not None:
        doc.attach_source(source)
        # a value already reported was left out to build the document: what its absence
        # causes (a rate that "cannot be derived") is not news
        reported = {p.path for p in problems}
        problems += [p for p in check(doc) if p.path not in reported]
    return doc, problems


def read_application(path: str) -> Application:
    app, problems = _checked(Application, path, check_application)
    _raise_if(problems)
    assert app is not None
    return app


def read_infrastructure(path: str) -> Infrastructure:
    infra, problems = _checked(Infrastructure, path, check_infrastructure)
    _raise_if(problems)
    assert infra is not None
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
    app, problems = _checked(Application, app_path, check_application)
    infra, more = _checked(Infrastructure, infra_path, check_infrastructure)
    problems += more
    if app is not None and infra is not None:
        problems += check_compatible(app, infra)
    _raise_if(problems)
    assert app is not None and infra is not None
    return app, infra


def read_plan_for(path: str, app: Application, infra: Infrastructure) -> Plan:
    """The plan in ``path`` for ``app``: the file itself, or from a bundle plan
    (``streamplace/bundle/v1``) the entry of ``plans`` that places ``app``."""
    data, source = load_path(path)
    data, source = bundle_entry(data, source, app.name)
    plan, problems = _checked_data(Plan, data, source, lambda p: check_plan(p, app, infra))
    _raise_if(problems)
    assert plan is not None
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
    if kind_ == "greater_than_equal":
        bound = ctx.get("ge")
        return f"must be at least {bound}, got {given!r}", f"use a value of {bound} or more"
    if kind_ == "greater_than":  # strictly: the bound itself is refused too
        bound = ctx.get("gt")
        return f"must be more than {bound}, got {given!r}", f"use a value above {bound}"
    if kind_ == "too_short":
        least, has = ctx.get("min_length", 1), ctx.get("actual_length", 0)
        what = str(loc[-1]) if loc else "the list"
        if has == 0:
            return f"{what} is empty", f"list at least {least} entr{'y' if least == 1 else 'ies'}"
        return (f"{what} has {has} entries, needs at least {least}",
                f"list at least {least} entries")
    if kind_ == "too_long":
        most, has = ctx.get("max_length", 0), ctx.get("actual_length", 0)
        return (f"{loc[-1] if loc else 'the list'} has {has} entries, at most {most} allowed",
                f"list at most {most}")
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
    if kind_ == "less_than_equal":
        bound = ctx.get("le")
        return f"must be at most {bound}, got {given!r}", f"use a value of {bound} or less"
    if kind_ == "less_than":
        bound = ctx.get("lt")
        return f"must be less than {bound}, got {given!r}", f"use a value below {bound}"
    # anything else: say it plainly, without the validation library's own phrasing
    return f"{given!r} is not a valid value here", "see this field in docs/formats.md"


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


def plan_from(data: Any, name: str, app: Application, infra: Infrastructure) -> Plan:
    """A plan document made in memory (e.g. observed), checked as a file would be."""
    plan = build_document(Plan, data, SourceMap(name))
    _raise_if(check_plan(plan, app, infra))
    return plan
