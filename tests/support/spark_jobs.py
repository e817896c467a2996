"""Real Spark applications whose event logs the extraction tests read.

Every job runs on a local PySpark session in this process; one JVM serves them all (a new
SparkContext per log, since the event-log settings are fixed when a context starts), and the
extraction session comes last. What each job did is recorded next to its log, from the job's
own side (its data sizes, the streaming query's progress reports), for the tests to compare.
"""

from __future__ import annotations

import json
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# 8 task slots on any machine: the skeleton's cores must hold one replica per operator
MASTER = "local[8]"
CLUSTER = "local-cluster[2,1,1024]"


@dataclass
class Logs:
    root: Path
    sql: Path = field(init=False)
    rdd: Path = field(init=False)
    stream: Path = field(init=False)
    many: Path = field(init=False)
    cluster: Path = field(init=False)
    shuffle: Path = field(init=False)
    truth: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for name in ("sql", "rdd", "stream", "many", "cluster", "shuffle"):
            folder = self.root / name
            folder.mkdir(parents=True, exist_ok=True)
            setattr(self, name, folder)


# The first context's settings become JVM system properties that later contexts inherit:
# every context states every event-log setting it relies on.
_SPARK4_DEFAULTS = {"spark.eventLog.rolling.enabled": "true", "spark.eventLog.compress": "true",
                    "spark.eventLog.compression.codec": "zstd"}


def _session(app: str, folder: Path, master: str = MASTER, **conf: str) -> Any:
    from pyspark.sql import SparkSession

    conf = {**_SPARK4_DEFAULTS, **conf}
    builder = (SparkSession.Builder().master(master).appName(app)
               .config("spark.eventLog.enabled", "true")
               .config("spark.eventLog.dir", folder.resolve().as_uri())
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.log.level", "ERROR"))
    for key, value in conf.items():
        builder = builder.config(key, value)
    return builder.getOrCreate()


def shuffle_heavy(spark: Any) -> dict[str, Any]:
    """400,000 records of 200 bytes grouped into 5,000 keys over 16 reducers: on executors in
    JVMs of their own, reducers fetch shuffle blocks over the network and wait for them."""
    pairs = spark.sparkContext.parallelize(range(400_000), 8).map(
        lambda i: (i % 5000, "x" * 200))
    groups = pairs.groupByKey(16).mapValues(len).count()
    return {"records": 400_000, "groups": groups}


def rdd_chain(spark: Any) -> dict[str, Any]:
    """10,000 numbers with 1,000 distinct values -> distinct -> repartition(2) -> count.

    The chain runs on JVM RDDs so that Spark's record counts are the job's own (PySpark RDDs
    ship pickled batches, one record per batch).
    """
    data = [i % 1000 for i in range(10_000)]
    count = spark.sparkContext._jsc.parallelize(data, 4).distinct(4).repartition(2).count()
    # each slice holds 2,500 consecutive numbers, every value mod 1000 at least twice
    return {"count": count, "distinct_written": 4 * 1000, "repartition_written": 1000}


def sql_join(spark: Any) -> dict[str, Any]:
    """Aggregate, broadcast join, aggregate again, under adaptive query execution."""
    from pyspark.sql import functions as F

    orders = spark.range(0, 20_000, 1, 4).select((F.col("id") % 100).alias("cust"),
                                                 (F.col("id") % 7).alias("amount"))
    custs = spark.range(0, 100, 1, 2).select(F.col("id").alias("cust"),
                                             (F.col("id") % 5).alias("region"))
    per_cust = orders.groupBy("cust").agg(F.sum("amount").alias("total"))
    rows = (per_cust.join(F.broadcast(custs), "cust").groupBy("region")
            .agg(F.sum("total").alias("t")).collect())
    return {"regions": len(rows), "orders": 20_000, "customers": 100,
            "partial_aggregates": 4 * 100}


def rate_stream(spark: Any, batches: int = 5, patience: float = 300.0) -> dict[str, Any]:
    """A rate source at 200 rows/s, counted per key in 1-second micro-batches, until
    ``batches`` micro-batches have read rows: a count, not a duration, so a busy machine
    gives as many progress intervals as an idle one (``patience`` only ends a stuck run)."""
    from pyspark.sql import functions as F

    query = (spark.readStream.format("rate").option("rowsPerSecond", 200).load()
             .withColumn("k", F.col("value") % 10).groupBy("k").count()
             .writeStream.outputMode("complete").format("memory").queryName("counts")
             .trigger(processingTime="1 second").start())
    deadline = time.monotonic() + patience
    while sum(1 for p in query.recentProgress if p.numInputRows) < batches:
        assert time.monotonic() < deadline, "the rate stream made no progress"
        query.awaitTermination(0.2)
    query.stop()
    progress = [json.loads(p.json) for p in query.recentProgress]
    return {"progress": [{"timestamp": p["timestamp"], "rows": p["numInputRows"]}
                         for p in progress]}


def failing_once(spark: Any, marker: Path) -> dict[str, Any]:
    """A Python RDD job whose first task attempt fails once (retried: local[N, 2])."""
    def fail_once(index: int, rows: Any) -> Any:
        if index == 0 and not marker.exists():
            marker.write_text("failed once")
            raise RuntimeError("planned failure")
        return rows

    total = spark.sparkContext.parallelize(range(1000), 4).mapPartitionsWithIndex(
        fail_once).map(lambda x: (x % 10, x)).reduceByKey(lambda a, b: a + b).count()
    return {"keys": total}


def write_logs(root: Path) -> Logs:
    """Run every job, each with its own event-log layout and codec."""
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    logs = Logs(root)
    plain = {"spark.eventLog.rolling.enabled": "false", "spark.eventLog.compress": "false"}

    spark = _session("rdd-chain", logs.rdd, **plain)
    logs.truth["rdd"] = rdd_chain(spark)
    spark.stop()

    spark = _session("sql-join", logs.sql)            # Spark 4 defaults: rolling, zstd
    logs.truth["sql"] = sql_join(spark)
    spark.stop()

    spark = _session("rate-stream", logs.stream, **{
        "spark.eventLog.rolling.enabled": "false",
        "spark.eventLog.compression.codec": "lz4", "spark.sql.shuffle.partitions": "4"})
    logs.truth["stream"] = rate_stream(spark)
    spark.stop()

    for codec in ("lzf", "snappy"):
        spark = _session(f"rdd-{codec}", logs.many, **{
            "spark.eventLog.rolling.enabled": "false",
            "spark.eventLog.compression.codec": codec})
        logs.truth[codec] = rdd_chain(spark)
        spark.stop()

    spark = _session("failing-once", logs.many, master="local[4,2]", **plain)
    logs.truth["failing"] = failing_once(spark, root / "failed-once")
    spark.stop()

    # executors in their own JVMs, as on a cluster: two executors of one core each
    spark = _session("rdd-cluster", logs.cluster, master=CLUSTER)
    logs.truth["cluster"] = rdd_chain(spark)
    spark.stop()

    spark = _session("shuffle-heavy", logs.shuffle, master=CLUSTER, **plain)
    logs.truth["shuffle"] = shuffle_heavy(spark)
    spark.stop()
    return logs
