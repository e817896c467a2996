"""Reading an event log into one :class:`Digest`: on Spark, or in this process.

On Spark (the default), executors read the files themselves: plain files in byte ranges
split at line boundaries, compressed files whole (a codec stream decodes only from its
start), decoded inside the executor since Spark's own readers know none of the event-log
stream formats. Reading in the Python worker also spares every line a trip from the JVM.
Each task yields one digest; a tree reduction merges them, so the driver receives one
digest, never log lines.

The single-process reader runs the very same digest over the files in order; it serves
small logs without a JVM and is the baseline the extraction benchmark compares against.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

from streamplace.errors import EngineError
from streamplace.io.eventlog.codecs import CHUNK, decoded_chunks, lines_of
from streamplace.io.eventlog.digest import Digest
from streamplace.io.eventlog.layout import EventLog

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

ReadProgress = Callable[[float, float], None]        # (done, total), in the reader's own unit

_SPLIT = 32 << 20                                # bytes of plain log per task, at least
_WAVES = 2                                       # tasks per core for a large plain log
_FAN_IN = 32                                     # task digests the driver merges at once


def digest_stream(stream: BinaryIO, codec: str | None, label: str,
                  digest: Digest | None = None) -> Digest:
    """Fold one (possibly compressed) file into ``digest``."""
    digest = digest if digest is not None else Digest()

    def damaged(what: str) -> None:
        digest.damage.append(f"{label}: {what}")
        digest.counts["damaged streams"] += 1

    for line in lines_of(decoded_chunks(stream, codec, damaged)):
        digest.add_line(line)
    return digest


class _Counting:
    """A read-only file wrapper that reports how many bytes were read so far."""

    def __init__(self, raw: BinaryIO, seen: Callable[[int], None]) -> None:
        self._raw, self._seen = raw, seen

    def read(self, size: int = -1) -> bytes:
        data = self._raw.read(size)
        self._seen(len(data))
        return data


def read_locally(log: EventLog, progress: ReadProgress | None = None) -> Digest:
    """One process, files in order (rolling segments in N order)."""
    digest = Digest()
    done = [0.0]

    def seen(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], float(log.size))

    for f in log.files:
        with open(f.path, "rb") as raw:
            digest_stream(_Counting(raw, seen), f.codec, Path(f.path).name,  # type: ignore[arg-type]
                          digest)
    return digest


# Spark ------------------------------------------------------------------------------------

Piece = tuple[str, str | None, int, int]         # path, codec, first byte, end byte


def pieces(log: EventLog, split: int = _SPLIT) -> list[Piece]:
    """Units of parallel work: byte ranges of plain files, whole compressed files.

    A codec stream can only be decoded from its start; a plain file splits anywhere, each
    range owning the lines that start inside it (as Hadoop's line reader does).
    """
    work: list[Piece] = []
    for f in log.files:
        if f.codec is None and f.size > split:
            work.extend((f.path, None, start, min(start + split, f.size))
                        for start in range(0, f.size, split))
        else:
            work.append((f.path, f.codec, 0, f.size))
    return work


def _split_for(log: EventLog, cores: int) -> int:
    """Bytes of plain log per task: two tasks per core, never under _SPLIT. Each task
    costs a digest shipped to the driver and merged, so fewer, larger ranges read faster
    (bench/extract.py; the README's extraction table has the measured ratios)."""
    plain = sum(f.size for f in log.files if f.codec is None)
    return max(_SPLIT, -(-plain // max(1, _WAVES * cores)))


def _range_lines(raw: BinaryIO, start: int, end: int) -> Iterator[bytes]:
    """Lines starting in [start, end): the one straddling ``start`` belongs to the range
    before, the one straddling ``end`` to this one. Read in large chunks and split in
    bulk, the way whole files are read."""
    if start > 0:
        raw.seek(start - 1)
        while (skipped := raw.readline(CHUNK)) and not skipped.endswith(b"\n"):
            pass                                 # finish the line the range before owns
    position = raw.tell()
    if position >= end:
        return

    def chunks() -> Iterator[bytes]:
        left, last = end - position, b"\n"
        while left > 0:
            chunk = raw.read(min(CHUNK, left))
            if not chunk:
                return
            left -= len(chunk)
            last = chunk[-1:]
            yield chunk
        if last != b"\n":                        # the line straddling ``end`` is ours
            yield from _rest_of_line(raw)

    yield from lines_of(chunks())


def _rest_of_line(raw: BinaryIO) -> Iterator[bytes]:
    """The line straddling a range's end, read in chunks (held whole only by lines_of,
    which drops it past MAX_LINE)."""
    while piece := raw.readline(CHUNK):
        yield piece
        if piece.endswith(b"\n"):
            return


def _digest_pieces(work: Iterable[Piece]) -> Iterator[Digest]:
    digest = Digest()
    for path, codec, start, end in work:
        name = Path(path).name
        with open(path, "rb") as raw:
            if codec is None and (start > 0 or end < Path(path).stat().st_size):
                for line in _range_lines(raw, start, end):
                    digest.add_line(line)
            else:
                digest_stream(raw, codec, name, digest)
    yield digest


def _merge(a: Digest, b: Digest) -> Digest:
    return a.merge(b)


def read_with_spark(log: EventLog, spark: SparkSession,
                    progress: ReadProgress | None = None) -> Digest:
    """Read on ``spark``'s executors; ``progress`` gets (tasks done, tasks) while it runs.

    Executors open the files themselves: the log's folder must be visible to them at the
    same path (always so in local mode; a shared or mounted file system on a cluster).
    """
    sc = spark.sparkContext
    work = pieces(log, _split_for(log, sc.defaultParallelism))
    rdd = sc.parallelize(work, len(work)).mapPartitions(_digest_pieces)
    group = f"streamplace-extract-{id(rdd)}"
    sc.setJobGroup(group, f"streamplace extract {log.app_id}")
    stop = threading.Event()
    watcher = None
    if progress is not None:
        watcher = threading.Thread(target=_watch, args=(sc, group, progress, stop), daemon=True)
        watcher.start()
    try:
        # a tree only pays off when there are many task digests for the driver to merge
        depth = 2 if len(work) > _FAN_IN else 1
        digest: Digest = rdd.treeAggregate(Digest(), _merge, _merge, depth)
    except Exception as exc:  # Py4J and PySpark raise plain exceptions for failed jobs
        raise EngineError(f"the Spark job reading {log.app_id} failed: "
                          f"{_first_line(exc)}") from None
    finally:
        stop.set()
        if watcher is not None:
            watcher.join()
    if progress is not None:
        progress(1.0, 1.0)
    return digest


def _first_line(exc: BaseException) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    errors = [line for line in lines if "Error:" in line or "Exception:" in line]
    return (errors or lines or [type(exc).__name__])[-1].strip()


def _watch(sc: Any, group: str, progress: ReadProgress, stop: threading.Event) -> None:
    tracker = sc.statusTracker()
    while not stop.wait(0.25):
        done = total = 0
        for job_id in tracker.getJobIdsForGroup(group):
            job = tracker.getJobInfo(job_id)
            for stage_id in job.stageIds if job else []:
                stage = tracker.getStageInfo(stage_id)
                if stage is not None:
                    done += stage.numCompletedTasks
                    total += stage.numTasks
        if total:
            progress(float(done), float(total))
