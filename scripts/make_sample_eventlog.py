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
    from pyspark.sql import functions as F

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
    orders = spark.range(0, 200_000, 1, 4).select((F.col("id") % 1000).alias("customer"),
                                                  (F.col("id") % 7).alias("amount"))
    customers = spark.range(0, 1000, 1, 2).select(F.col("id").alias("customer"),
                                                  (F.col("id") % 5).alias("region"))
    per_customer = orders.groupBy("customer").agg(F.sum("amount").alias("total"))
    regions = (per_customer.join(F.broadcast(customers), "customer").groupBy("region")
               .agg(F.sum("total").alias("total")).collect())
    spark.stop()
    for checksum in HERE.glob("eventlog_v2_*/.*.crc"):  # Hadoop's local checksums
        checksum.unlink()
    print(f"{len(regions)} regions; event log in {next(HERE.glob('eventlog_v2_*'))}")


if __name__ == "__main__":
    main()
