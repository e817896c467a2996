"""Where a sweep's scenarios run: Spark (``local[*]`` by default, any master), or this
process one after another (the baseline the sweep benchmark compares against).

On Spark, the scenarios are cut into chunks, the partitions of one RDD; one driver thread
per core of the cluster runs one partition after another as a job of its own, and the
calling thread (the one owner of the store and the count) saves each chunk's rows the
moment its job returns: every core stays busy, finished scenarios are on disk while
others run (so an interrupted sweep resumes where it stopped), and the driver holds the
rows of one chunk per thread, never the sweep's. A job costs the JVM about a tenth of a
second of CPU however little it does, and a task tens of milliseconds, so a chunk holds
many scenarios while the queue is long and one each at the end, where the last scenarios
must spread over every core.
"""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from queue import Empty, SimpleQueue
from typing import TYPE_CHECKING

from streamplace.solve.budget import StopRequest
from streamplace.sweep.rows import Outcome, Settings
from streamplace.sweep.run import run_scenario
from streamplace.sweep.scenarios import Inputs, Scenario

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

Done = Callable[[Scenario, list[Outcome]], None]
MAX_CHUNK = 32
THREADS_PER_CORE = 1
CHUNKS_PER_THREAD = 2  # chunks left per thread before they shrink to one scenario


def run_locally(inputs: Inputs, settings: Settings, todo: Sequence[Scenario], done: Done,
                stop: StopRequest) -> None:
    for scenario in todo:
        if stop:
            return
        done(scenario, run_scenario(inputs, settings, scenario))


def run_on_spark(spark: SparkSession, inputs: Inputs, settings: Settings,
                 todo: Sequence[Scenario], done: Done, stop: StopRequest) -> None:
    sc = spark.sparkContext
    cores = max(1, sc.defaultParallelism)
    threads = cores * THREADS_PER_CORE
    chunks = plan_chunks(list(todo), threads)
    if not chunks:
        return
    shared = sc.broadcast((inputs, settings))
    # one RDD, built once: each job runs one of its partitions (one chunk), so a job ships
    # no data and the scheduler's work per job stays small
    rdd = sc.parallelize(chunks, len(chunks))
    queue = deque(range(len(chunks)))
    lock = threading.Lock()  # guards the queue
    # finished chunks go to this thread, the one owner of saving and counting (``done``)
    finished: SimpleQueue[list[tuple[Scenario, list[Outcome]]]] = SimpleQueue()
    failures: list[BaseException] = []
    halt = threading.Event()  # the cluster failed: no new chunks

    def stopping() -> bool:
        return bool(stop) or halt.is_set()

    def task(part: Iterable[list[Scenario]]) -> Iterator[tuple[Scenario, list[Outcome]]]:
        base, common = shared.value
        for chunk in part:
            for scenario in chunk:
                yield scenario, run_scenario(base, common, scenario)

    def worker() -> None:
        while not stopping():
            with lock:
                if not queue:
                    return
                index = queue.popleft()
            try:
                results = sc.runJob(rdd, task, [index])
            except Exception as exc:  # a cancelled job (stop), or the cluster failing
                if not stopping():
                    failures.append(exc)
                    halt.set()
                return
            finished.put(results)

    pool = [threading.Thread(target=worker, name=f"sweep-{i}", daemon=True)
            for i in range(min(threads, len(chunks)))]
    for thread in pool:
        thread.start()

    def save(results: list[tuple[Scenario, list[Outcome]]]) -> None:
        for scenario, outcomes in results:
            done(scenario, outcomes)

    try:
        while any(t.is_alive() for t in pool):
            # wait for a chunk, or look at the threads and the stop request again
            with contextlib.suppress(Empty):
                save(finished.get(timeout=0.2))
            if stopping():
                sc.cancelAllJobs()
        while not finished.empty():  # chunks handed over as the last threads ended
            save(finished.get())
    finally:
        shared.unpersist()
    if failures:
        raise failures[0]


def plan_chunks(todo: list[Scenario], threads: int) -> list[list[Scenario]]:
    """Chunks in the order they run: up to MAX_CHUNK scenarios while the queue is long,
    shrinking to one as it empties, so the last ones spread over every core."""
    chunks, left = [], list(todo)
    while left:
        size = max(1, min(MAX_CHUNK, len(left) // (threads * CHUNKS_PER_THREAD)))
        chunks.append(left[:size])
        left = left[size:]
    return chunks
