"""Event-log extraction throughput: on Spark against a plain single-process reader.

Builds a large event log by running a real Spark application with many jobs of many tasks
(default target 200 MB uncompressed, Spark 4's default layout: rolling, zstd segments), then
also writes it decompressed as one plain file. Each reader runs in its own process, so its
peak memory is its own, and the side-by-side table prints:

- MB/s over the uncompressed size (the work of parsing) and over the bytes on disk;
- the ratio of the Spark pipeline's throughput to the single-process reader's;
- peak resident memory of the Python driver, and the JVM heap in use after the read (in
  local mode the JVM holds the executors too);
- Spark's start-up (session, first Python workers), paid once per run and shown apart.

Both readers must produce the same application document; the bench stops if they differ.
Run: ``python bench/extract.py [--size-mb 300] [--master local[*]] [--keep DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

TASKS_PER_JOB = 400       # 200 map + 200 reduce tasks per job
BYTES_PER_TASK = 4_300    # TaskStart + TaskEnd lines, measured on Spark 4.3


def build_log(folder: Path, size_mb: int) -> Path:
    """Run enough jobs that the uncompressed log reaches about ``size_mb``."""
    from pyspark.sql import SparkSession

    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    folder.mkdir(parents=True, exist_ok=True)
    jobs = max(1, int(size_mb * 1e6 / (TASKS_PER_JOB * BYTES_PER_TASK)))
    spark = (SparkSession.Builder().master("local[2]").appName("bench-extract")
             .config("spark.eventLog.enabled", "true")
             .config("spark.eventLog.dir", folder.resolve().as_uri())
             .config("spark.ui.enabled", "false").config("spark.log.level", "ERROR")
             .config("spark.ui.showConsoleProgress", "false").getOrCreate())
    jsc = spark.sparkContext._jsc
    start = time.perf_counter()
    for job in range(jobs):
        jsc.parallelize(list(range(job, job + 2000)), 200).distinct(200).count()
    spark.stop()
    print(f"wrote {jobs} jobs x {TASKS_PER_JOB} tasks in {time.perf_counter() - start:.0f} s")
    (rolling,) = folder.glob("eventlog_v2_*")
    return rolling


def to_plain(rolling: Path, target: Path) -> Path:
    from streamplace.io.eventlog.codecs import decoded_chunks
    from streamplace.io.eventlog.layout import find_event_log

    log = find_event_log([str(rolling)])
    target.mkdir(parents=True, exist_ok=True)
    plain = target / log.app_id
    with plain.open("wb") as out:
        for f in log.files:
            with open(f.path, "rb") as raw:
                for chunk in decoded_chunks(raw, f.codec, print):
                    out.write(chunk)
    return plain


def measure(engine: str, path: str, master: str) -> dict[str, Any]:
    """One extraction in this process: seconds, peak RSS, JVM heap, the document."""
    from streamplace.io.eventlog import extract
    from streamplace.io.spark import spark_session

    jvm_mb = startup = None
    if engine == "spark":
        start = time.perf_counter()
        with spark_session(master) as spark:
            # start-up (JVM, Python workers) is paid once per session, not per MB: apart
            spark.sparkContext.parallelize(range(8), 8).map(lambda x: x).count()
            startup = time.perf_counter() - start
            start = time.perf_counter()
            result = extract([path], spark=spark)
            seconds = time.perf_counter() - start
            runtime = spark.sparkContext._jvm.java.lang.Runtime.getRuntime()
            jvm_mb = (runtime.totalMemory() - runtime.freeMemory()) / 1e6
    else:
        start = time.perf_counter()
        result = extract([path], engine="python")
        seconds = time.perf_counter() - start
    rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {"seconds": seconds, "rss_mb": rss_mb, "jvm_mb": jvm_mb, "startup": startup,
            "document": result.application_document(), "lines": result.counts.get("lines")}


def _run(engine: str, path: Path, master: str) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--measure", engine, str(path),
                          "--master", master], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) if path.is_dir() \
        else path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size-mb", type=int, default=200)
    parser.add_argument("--master", default="local[*]")
    parser.add_argument("--keep", help="keep the logs in this folder (reused when present)")
    parser.add_argument("--measure", nargs=2, metavar=("ENGINE", "PATH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        print(json.dumps(measure(args.measure[0], args.measure[1], args.master)))
        return
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-extract-"))
    try:
        rolling_dir = folder / "rolling"
        found = list(rolling_dir.glob("eventlog_v2_*")) if rolling_dir.exists() else []
        rolling = found[0] if found else build_log(rolling_dir, args.size_mb)
        plain = to_plain(rolling, folder / "plain") if not (folder / "plain").exists() \
            else next((folder / "plain").iterdir())
        raw = _size(plain)
        print(f"log: {raw / 1e6:.0f} MB uncompressed, {_size(rolling) / 1e6:.0f} MB as "
              f"{len(list(rolling.glob('events_*')))} zstd segments; "
              f"{os.cpu_count()} cores, Spark master {args.master}")
        print(f"{'layout':<16}{'reader':<10}{'seconds':>9}{'MB/s raw':>10}{'MB/s disk':>11}"
              f"{'vs python':>11}{'driver RSS':>12}{'JVM heap':>10}{'start-up':>10}")
        for layout, path in (("plain file", plain), ("rolling zstd", rolling)):
            runs = {engine: _run(engine, path, args.master) for engine in ("python", "spark")}
            if runs["python"]["document"] != runs["spark"]["document"]:
                raise SystemExit(f"{layout}: the two readers disagree")
            for engine, r in runs.items():
                ratio = runs["python"]["seconds"] / r["seconds"]
                jvm = f"{r['jvm_mb']:.0f} MB" if r["jvm_mb"] is not None else "-"
                up = f"{r['startup']:.1f} s" if r["startup"] is not None else "-"
                print(f"{layout:<16}{engine:<10}{r['seconds']:>9.1f}"
                      f"{raw / 1e6 / r['seconds']:>10.1f}"
                      f"{_size(path) / 1e6 / r['seconds']:>11.1f}{ratio:>10.2f}x"
                      f"{r['rss_mb']:>9.0f} MB{jvm:>10}{up:>10}")
    finally:
        if not args.keep:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
