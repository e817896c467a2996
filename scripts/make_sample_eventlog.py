"""Write the sample event log, samples/eventlog/: a small Spark SQL job (orders aggregated
per customer, joined with the customers' regions, aggregated per region) on a local
PySpark session, with Spark 4's default event-log layout (rolling, zstd).

Run: ``python scripts/make_sample_eventlog.py`` (about 20 s; needs Java 17+). The log it
writes replaces the one in the folder; its application id is new each run.
"""

from __future__ import annotations

import shutil
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent / "samples" / "eventlog"


def main() -> None:
    from pyspark.sql import SparkSession

    for old in HERE.glob("eventlog_v2_*"):
        shutil.rmtree(old)
    HERE.mkdir(parents=True, exist_ok=True)
    spark = (SparkSession.Builder().master("local[4]").appName("orders-by-region")
             .config("spark.eventLog.enabled", "true")
             .config("spark.eventLog.dir", HERE.as_uri())
             .config("spark.eventLog.rolling.enabled", "true")
             .config("spark.eventLog.compress", "true")
             .config("spark.eventLog.compression.codec", "zstd")
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.log.level", "ERROR")
             .getOrCreate())
    spark.range(0, 200_000, 1, 4).createOrReplaceTempView("orders")
    spark.range(0, 1000, 1, 2).createOrReplaceTempView("customers")
    regions = spark.sql("""
        SELECT /*+ BROADCAST(c) */ c.id % 5 AS region, SUM(o.total) AS total
        FROM (SELECT id % 1000 AS customer, SUM(id % 7) AS total FROM orders
              GROUP BY id % 1000) o
        JOIN customers c ON o.customer = c.id
        GROUP BY c.id % 5""").collect()
    spark.stop()
    for checksum in HERE.glob("eventlog_v2_*/.*.crc"):  # Hadoop's local checksums
        checksum.unlink()
    print(f"{len(regions)} regions; event log in {next(HERE.glob('eventlog_v2_*'))}")


if __name__ == "__main__":
    main()
