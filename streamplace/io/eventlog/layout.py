"""Where an application's event log lives: the layouts Spark writes (docs/models.md sec. 8).

- a single file ``<app-id>[.codec][.inprogress]``;
- a rolling directory ``eventlog_v2_<app-id>/`` of segments ``events_<N>_<app-id>[.codec]``
  (and ``.compact`` files after compaction), joined in N order; an ``appstatus_*.inprogress``
  marker means the application was still running;
- a folder holding many applications in either layout, from which ``--app-id`` picks one.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from streamplace.errors import InputError
from streamplace.io.eventlog.codecs import CODECS

_ROLLING_DIR = re.compile(r"^eventlog_v2_(?P<app>.+)$")
_SEGMENT = re.compile(r"^events_(?P<n>\d+)_(?P<app>.+)$")


@dataclass(frozen=True)
class LogFile:
    """One file of an event log: a whole log, or one segment of a rolling log."""

    path: str
    codec: str | None
    size: int
    segment: int = 0
    in_progress: bool = False
    compacted: bool = False


@dataclass(frozen=True)
class EventLog:
    """Every file of one application's event log, in reading order."""

    app_id: str
    files: tuple[LogFile, ...]
    in_progress: bool

    @property
    def size(self) -> int:
        return sum(f.size for f in self.files)


def split_name(name: str) -> tuple[str, str | None, bool, bool]:
    """``(stem, codec, in_progress, compacted)`` of a log file name.

    >>> split_name("local-17.lz4.inprogress")
    ('local-17', 'lz4', True, False)
    >>> split_name("events_2_app-1.zstd.compact")
    ('events_2_app-1', 'zstd', False, True)
    """
    in_progress = name.endswith(".inprogress")
    if in_progress:
        name = name[: -len(".inprogress")]
    compacted = name.endswith(".compact")
    if compacted:
        name = name[: -len(".compact")]
    stem, dot, ext = name.rpartition(".")
    if dot and ext in CODECS:
        return stem, ext, in_progress, compacted
    return name, None, in_progress, compacted


def _ignored(path: Path) -> bool:
    return path.name.startswith(".") or path.name.endswith(".crc")


def _rolling(folder: Path) -> tuple[str, EventLog]:
    match = _ROLLING_DIR.match(folder.name)
    app = match.group("app") if match else folder.name
    files, running = [], False
    for entry in sorted(folder.iterdir()):
        if _ignored(entry) or not entry.is_file():
            continue
        if entry.name.startswith("appstatus_"):
            running = running or entry.name.endswith(".inprogress")
            continue
        stem, codec, in_progress, compacted = split_name(entry.name)
        seg = _SEGMENT.match(stem)
        if seg is None:
            continue
        files.append(LogFile(str(entry), codec, entry.stat().st_size, int(seg.group("n")),
                             in_progress, compacted))
    files.sort(key=lambda f: f.segment)
    return app, EventLog(app, tuple(files), running or any(f.in_progress for f in files))


def _single(path: Path) -> tuple[str, EventLog]:
    stem, codec, in_progress, compacted = split_name(path.name)
    seg = _SEGMENT.match(stem)
    if seg is not None:                  # one segment handed over on its own
        if _ROLLING_DIR.match(path.parent.name):
            return _rolling(path.parent)
        stem = seg.group("app")
    log = LogFile(str(path), codec, path.stat().st_size, 0, in_progress, compacted)
    return stem, EventLog(stem, (log,), in_progress)


def _logs_under(path: Path) -> list[tuple[str, EventLog]]:
    if path.is_file():
        return [_single(path)]
    if _ROLLING_DIR.match(path.name):
        return [_rolling(path)]
    found = []
    for entry in sorted(path.iterdir()):
        if _ignored(entry):
            continue
        if entry.is_dir() and _ROLLING_DIR.match(entry.name):
            found.append(_rolling(entry))
        elif entry.is_file():
            found.append(_single(entry))
    return found


def find_event_log(paths: list[str], app_id: str | None = None) -> EventLog:
    """The one application's event log that ``paths`` (and ``app_id``) designate.

    Raises :class:`InputError` naming the choices when the paths hold no log, several
    applications and no ``app_id``, or not the application asked for.
    """
    by_app: dict[str, list[LogFile]] = defaultdict(list)
    running: dict[str, bool] = defaultdict(bool)
    for text in paths:
        # absolute: executors in other processes resolve paths from their own directories
        path = Path(text).resolve()
        if not path.exists():
            raise InputError.single("no such file or directory",
                                    "give an event log file, a rolling eventlog_v2_* "
                                    "directory or a folder of logs", file=text)
        for app, log in _logs_under(path):
            by_app[app].extend(f for f in log.files if f not in by_app[app])
            running[app] = running[app] or log.in_progress
    by_app = {app: files for app, files in by_app.items() if files}
    if not by_app:
        raise InputError.single("no event log found", "point at the directory set as "
                                "spark.eventLog.dir, or at one log in it", file=paths[0])
    if app_id is None:
        if len(by_app) > 1:
            raise InputError.single(
                f"{len(by_app)} applications found: {', '.join(sorted(by_app))}",
                "pick one with --app-id", file=paths[0])
        app_id = next(iter(by_app))
    if app_id not in by_app:
        raise InputError.single(f"no event log of application {app_id!r} here",
                                f"--app-id is one of: {', '.join(sorted(by_app))}",
                                file=paths[0], path="--app-id")
    files = sorted(by_app[app_id], key=lambda f: (f.segment, f.path))
    return EventLog(app_id, tuple(files), running[app_id])
