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
        try:
            path = Path(text).resolve(strict=True)
        except (OSError, RuntimeError) as exc:  # RuntimeError: a loop of symbolic links
            if isinstance(exc, FileNotFoundError):
                path = Path(text)
            else:
                raise InputError.single(f"cannot read: {getattr(exc, 'strerror', None) or exc}",
                                        "give the event log itself, not a loop of links",
                                        file=text) from None
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
    return EventLog(app_id, _what_spark_reads(by_app[app_id], paths[0]), running[app_id])


def _what_spark_reads(files: list[LogFile], where: str) -> tuple[LogFile, ...]:
    """The files of one application Spark's own readers would read, in order; a log Spark
    refuses is refused here too, rather than read twice or in part.

    A rolling log (``RollingEventLogFilesFileReader``): segments by index, a compacted file
    after the segment of its index; the last compacted file and the segments after it; their
    indices one after another, each once (a segment present twice, say in two codecs, or one
    missing, is refused). A whole log: one file (the same log in two codecs is refused)."""
    segments = [f for f in files if f.segment > 0]
    if not segments:
        if len(files) > 1:
            raise InputError.single(
                f"the log is here {len(files)} times: "
                f"{', '.join(Path(f.path).name for f in files)}",
                "keep one copy (a log in two codecs, or a copy beside it, would count every "
                "event twice)", file=where)
        return tuple(files)
    ordered = sorted(segments, key=lambda f: (f.segment + (0.1 if f.compacted else 0.0),
                                              f.path))
    last_compact = max((k for k, f in enumerate(ordered) if f.compacted), default=0)
    read = ordered[last_compact:]
    indices = [f.segment for f in read]
    expected = list(range(indices[0], indices[-1] + 1))
    if indices != expected:
        twice = sorted({i for i in indices if indices.count(i) > 1})
        missing = sorted(set(expected) - set(indices))
        what = (f"segment {', '.join(map(str, twice))} is here twice: " + ", ".join(
            Path(f.path).name for f in read if f.segment in twice)) if twice else \
            f"segment {', '.join(map(str, missing))} is missing"
        raise InputError.single(
            f"the rolling log is not whole: {what} (Spark refuses it too)",
            "keep exactly one file of each segment from the last .compact on: remove "
            "copies, restore missing segments", file=str(Path(read[0].path).parent))
    return tuple(read)
