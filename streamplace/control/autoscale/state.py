"""What ``autoscale --state FILE`` keeps between runs: every decision, every rescale with
the restart it measured, and what the delayed scale-down remembers, so that a restarted
loop (a redeployed container, a crashed node) goes on where the last one stopped.

The file is JSON, rewritten whole at each step through a temporary file and a rename
(never half written). Times are wall-clock seconds (Unix time): a restarted process has a
monotonic clock of its own.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from streamplace.errors import InputError
from streamplace.io.loader import load_path

STATE_SCHEMA = "streamplace/autoscale-state/v1"
KEPT = 1000  # decisions kept in the file: a loop that runs for months stays a small file


@dataclass
class State:
    path: Path
    job: str                                        # the job's address, without credentials
    decisions: list[dict[str, Any]] = field(default_factory=list)
    restarts: list[float] = field(default_factory=list)   # seconds each rescale took
    pending: dict[str, tuple[float, int]] = field(default_factory=dict)
    """operator: (wall-clock time a scale-down was first recommended, the largest since)"""

    @classmethod
    def open(cls, path: str, job: str) -> State:
        """The state in ``path`` (a new one where there is none), checked to be writable
        before anything is sent; a damaged file, or one of another job, is bad input."""
        target = Path(path)
        state = cls(target, job)
        if target.exists():
            state = cls._read(target, job)
        state.save()  # unwritable: said now, with nothing sent
        return state

    @classmethod
    def _read(cls, target: Path, job: str) -> State:
        def bad(why: str) -> InputError:
            return InputError.single(f"cannot resume from it: {why}", "give the file an "
                                     "earlier autoscale --state wrote for this job, or a new "
                                     "path to start afresh", file=str(target), path="--state")
        try:
            doc = json.loads(target.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as exc:
            raise bad(f"it is not a state file ({type(exc).__name__})") from None
        if not isinstance(doc, dict) or doc.get("schema") != STATE_SCHEMA:
            raise bad(f"its schema is not {STATE_SCHEMA}")
        if doc.get("job") != job:
            raise bad(f"it is the state of {str(doc.get('job'))[:200]!r}, not of {job!r}")
        decisions, restarts, pending = (doc.get("decisions"), doc.get("restarts"),
                                        doc.get("pending"))
        if not (isinstance(decisions, list) and all(isinstance(d, dict) for d in decisions)
                and isinstance(restarts, list) and all(_seconds(r) for r in restarts)
                and isinstance(pending, dict) and all(
                    isinstance(v, list) and len(v) == 2 and _seconds(v[0])
                    and isinstance(v[1], int) and v[1] >= 1 for v in pending.values())):
            raise bad("its decisions, restarts or pending scale-downs are damaged")
        return cls(target, job, decisions, [float(r) for r in restarts],
                   {op: (float(v[0]), int(v[1])) for op, v in pending.items()})

    def record(self, decision: dict[str, Any], restart: float | None) -> None:
        self.decisions = [*self.decisions, decision][-KEPT:]
        if restart is not None:
            self.restarts = [*self.restarts, restart][-KEPT:]
        self.save()

    def save(self) -> None:
        doc = {"schema": STATE_SCHEMA, "job": self.job, "decisions": self.decisions,
               "restarts": self.restarts,
               "pending": {op: list(v) for op, v in self.pending.items()}}
        text = json.dumps(doc, indent=1, allow_nan=False) + "\n"
        folder = self.path.parent if str(self.path.parent) else Path(".")
        temporary = None
        try:
            fd, temporary = tempfile.mkstemp(dir=folder, prefix=f".{self.path.name}.")
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                out.write(text)
                out.flush()
                os.fsync(out.fileno())
            os.replace(temporary, self.path)
        except OSError as exc:
            if temporary is not None:
                Path(temporary).unlink(missing_ok=True)
            raise InputError.single(f"cannot write the state: {os.strerror(exc.errno or 0)}",
                                    "give --state a path in a folder autoscale may write",
                                    file=str(self.path), path="--state") from None


def _seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and \
        math.isfinite(value) and value >= 0


def state_document(path: str) -> dict[str, Any] | None:
    """The document of ``path`` when it is an autoscale state file (JSON of
    :data:`STATE_SCHEMA`), else None (a plan, a folder, anything else)."""
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
    return doc if isinstance(doc, dict) and doc.get("schema") == STATE_SCHEMA else None
