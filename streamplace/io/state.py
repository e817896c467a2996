"""The file ``autoscale --state`` keeps (:class:`~streamplace.model.state.StateFile`): read
and checked before anything is sent, written whole through the atomic writer at every step,
and held by one process at a time (an advisory lock beside it, which the system releases
when the process ends, however it ends). A file of the first version is read and written
again as the second."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from pathlib import Path
from typing import IO, Any

from pydantic import ValidationError

from streamplace.errors import InputError
from streamplace.io.loader import load_path
from streamplace.io.outputs import write_output
from streamplace.model.state import (
    KEPT,
    STATE_SCHEMA,
    STATE_SCHEMA_V1,
    Memory,
    PendingScaleDown,
    StateFile,
)

FIX = "give the file an earlier autoscale --state wrote for this job, or a new path to " \
      "start afresh"


def _bad(path: str, why: str) -> InputError:
    return InputError.single(f"cannot resume from it: {why}", FIX, file=path, path="--state")


def read_any_state(path: str) -> StateFile:
    """A state file, whatever its job (``report`` reads several runs')."""
    doc = state_document(path)
    if doc is None:
        raise _bad(path, f"its schema is not {STATE_SCHEMA}")
    return read_state(path, str(doc.get("job")))


def runs_in(path: str) -> list[tuple[str, StateFile]]:
    """Each run a state file holds, named: one job's, or each job's of a cluster's file."""
    state = read_any_state(path)
    if not state.jobs:
        return [(path, state)]
    return [(f"{path}: {kept.memory.name or jid}", kept) for jid, kept in state.jobs.items()]


def read_state(path: str, job: str) -> StateFile:
    """The state in ``path`` (a new one where there is none); a damaged file, or one of
    another job, is bad input."""
    if not Path(path).exists():
        return StateFile(job=job)
    try:
        with open(path, "rb") as handle:
            if handle.read(1) != b"{":
                raise _bad(path, "it is not a state file (not JSON)")
        doc = load_path(path)[0]
    except (OSError, UnicodeDecodeError) as exc:
        raise _bad(path, f"it is not a state file ({type(exc).__name__})") from None
    except InputError:
        raise _bad(path, "it is not a state file (not JSON)") from None
    if not isinstance(doc, dict) or doc.get("schema") not in (STATE_SCHEMA, STATE_SCHEMA_V1):
        raise _bad(path, f"its schema is not {STATE_SCHEMA}")
    if doc.get("job") != job:
        raise _bad(path, f"it is the state of {str(doc.get('job'))[:200]!r}, not of {job!r}")
    try:
        return StateFile.model_validate(_upgraded(doc))
    except (ValidationError, ValueError, TypeError) as exc:
        where = ""
        if isinstance(exc, ValidationError) and exc.errors():
            where = " at " + ".".join(str(p) for p in exc.errors()[0]["loc"])
        raise _bad(path, f"it is damaged{where}") from None


def _upgraded(doc: dict[str, Any]) -> dict[str, Any]:
    """A first-version file (decisions, restarts and pending scale-downs at the top) as the
    second keeps it."""
    if doc.get("schema") != STATE_SCHEMA_V1:
        return doc
    pending = doc.get("pending")
    if not isinstance(pending, dict) or not all(
            isinstance(v, list) and len(v) == 2 for v in pending.values()):
        raise ValueError("pending")
    listed = doc.get("decisions")
    decisions: list[Any] = listed if isinstance(listed, list) else []
    memory = Memory(
        steps=max((d.get("step") or 0 for d in decisions if isinstance(d, dict)), default=0),
        read_once=any(isinstance(d, dict) and d.get("seen") for d in decisions),
        restarts=doc.get("restarts", []),
        pending={op: PendingScaleDown(first=v[0], most=v[1]) for op, v in pending.items()})
    return {"schema": STATE_SCHEMA, "job": doc.get("job"), "memory": memory.model_dump(),
            "decisions": decisions[-KEPT:]}


def write_state(path: str, state: StateFile) -> None:
    """The whole state, replacing the file atomically: a reader sees the old one or the
    new one, never half."""
    state.decisions = state.decisions[-KEPT:]
    text = json.dumps(state.model_dump(mode="json", by_alias=True), indent=1,
                      allow_nan=False) + "\n"
    try:
        write_output(path, text)
    except InputError as exc:
        raise InputError.single(f"cannot write the state: {exc.problems[0].message}",
                                "give --state a path in a folder autoscale may write",
                                file=path, path="--state") from None


def state_document(path: str) -> dict[str, Any] | None:
    """The document of ``path`` when it is an autoscale state file (either version), else
    None (a plan, a folder, anything else)."""
    target = Path(path)
    if not target.is_file():
        return None
    try:
        with target.open("rb") as handle:
            if handle.read(1) != b"{":  # not JSON (a YAML plan): no need to read it
                return None
        doc = load_path(path)[0]
    except (OSError, InputError):
        return None
    return doc if isinstance(doc, dict) and doc.get("schema") in (STATE_SCHEMA,
                                                                  STATE_SCHEMA_V1) else None


@contextlib.contextmanager
def state_lock(path: str) -> Any:
    """Hold ``path`` for this process: a second autoscale on the same file (a rolling
    update whose old and new pods share the volume) is refused, saying which process holds
    it, instead of the two overwriting each other's record."""
    target = Path(path)
    lock = target.with_name(f".{target.name}.lock")
    try:
        handle: IO[str] = open(lock, "a+", encoding="utf-8")  # noqa: SIM115 (held open)
    except OSError as exc:
        raise InputError.single(f"cannot write the state: {os.strerror(exc.errno or 0)}",
                                "give --state a path in a folder autoscale may write",
                                file=path, path="--state") from None
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another process"
            raise InputError.single(
                f"another autoscale ({holder}) keeps this state", "stop it first, or give "
                "this one a --state of its own", file=path, path="--state") from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"pid {os.getpid()}")
        handle.flush()
        yield
    finally:
        handle.close()
