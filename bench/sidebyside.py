"""Runs side by side on clusters of their own: each of a bench's runs takes a free cluster
from a pool, so that the runs of one bench share the machine but never a cluster."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from pathlib import Path
from typing import TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.flink_cluster import SETTINGS, FlinkCluster, flink_cluster

T = TypeVar("T")
R = TypeVar("R")


def side_by_side(version: str, work: Path, workers: int, todo: Sequence[T],
                 one: Callable[[FlinkCluster, T], R]) -> list[R]:
    """``one(cluster, item)`` for every item, on ``workers`` Flink clusters (two
    TaskManagers each) started for the bench; the results in the items' order."""
    with ExitStack() as stack:
        clusters = [stack.enter_context(flink_cluster(version, work / f"cluster-{k}",
                                                      SETTINGS, taskmanagers=2))
                    for k in range(workers)]
        free = list(clusters)
        lock = threading.Lock()

        def go(item: T) -> R:
            with lock:
                cluster = free.pop()
            try:
                return one(cluster, item)
            finally:
                with lock:
                    free.append(cluster)

        with ThreadPoolExecutor(workers) as pool:
            return list(pool.map(go, todo))
