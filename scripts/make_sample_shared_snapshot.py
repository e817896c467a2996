"""Write samples/flink/shared-snapshot.json: what a real Flink 2.2.1 session cluster (two
TaskManagers of 4 slots) answered about a job beside another one.

The paced job of tests/support/flink_job runs at parallelism 3 and holds 3 slots; the loaded job
(events offered at 200/s, work that sleeps 10 ms per record, a tally, a sink) runs at
parallelism 1, back-pressured. After its meters' 60 s window has filled, ``streamplace
observe`` saves what the cluster answered about the loaded job, with what every job holds
(``--occupied-out``), so that ``observe`` can read both offline.

Run: ``python scripts/make_sample_shared_snapshot.py`` (about 3 minutes; needs Java 17+ and
the network once, to fetch Flink from PyPI into ~/.cache/streamplace-e2e).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "samples" / "flink" / "shared-snapshot.json"
METERS_FILLED = 80  # seconds: Flink's meters average 60 s, fetched every few seconds


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from tests.support.flink_cluster import SETTINGS, flink_cluster

    with tempfile.TemporaryDirectory() as work, \
            flink_cluster("2.2.1", Path(work), SETTINGS, taskmanagers=2) as cluster:
        other = cluster.run("-p", "3")
        loaded = cluster.run(job="LoadedJob", args=("200", "10000", "1000", ""))
        time.sleep(METERS_FILLED)  # a sample to write, not a test: the meters need the time
        done = subprocess.run(
            [sys.executable, "-m", "streamplace", "observe", f"{cluster.rest}/jobs/{loaded}",
             "--save", str(OUT), "--occupied-out", str(Path(work) / "held.yaml"), "-q"],
            capture_output=True, text=True, check=False)
        print(done.stderr, end="")
        print((Path(work) / "held.yaml").read_text())
        cluster.cancel(loaded)
        cluster.cancel(other)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
