"""A PySpark application submitted to the standalone cluster by the end-to-end tests: it
runs a small job, then prints the Master's view of itself (its ``/json/`` state) and the
settings it runs with, as one JSON line."""

from __future__ import annotations

import json
import sys
import urllib.request

from pyspark.sql import SparkSession


def main() -> None:
    web = sys.argv[1]
    spark = SparkSession.builder.appName("streamplace-e2e").getOrCreate()
    sc = spark.sparkContext
    assert sc.parallelize(range(1000), 8).map(lambda x: x * x).sum() == 332833500
    with urllib.request.urlopen(f"{web}/json/") as answer:
        state = json.load(answer)
    mine = [app for app in state["activeapps"] if app["id"] == sc.applicationId]
    print(json.dumps({"app": mine, "workers": state["workers"],
                      "conf": dict(sc.getConf().getAll())}), flush=True)
    spark.stop()


if __name__ == "__main__":
    main()
