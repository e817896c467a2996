"""Parallelism aligned to key groups or source partitions, as the Flink autoscaler aligns it
(``alignment/BuiltInAlignmentMode``, ``ParallelismAligner``, ``scaling.parallelism-alignment
.mode``). N is a source's partitions, else a vertex's key groups (its max parallelism); only
sources and keyed vertices are aligned.

- ``EVENLY_SPREAD``: a count that divides N, so every subtask takes an equal share;
- ``BALANCED`` (Flink's default): also a count that lowers the most key groups or
  partitions a subtask holds (floor(N / p) below what one subtask fewer holds);
- ``OFF``: any count.

The Flink rule (:func:`flink_align`) searches from the computed target upwards for the first
accepted count; ``odrp`` takes the accepted counts as the only replica counts an operator
may run (:func:`accepted_counts`), so the program chooses among them and stays exact.
"""

from __future__ import annotations

MODES = ("BALANCED", "EVENLY_SPREAD", "OFF")


def accepts(n: int, p: int, mode: str) -> bool:
    """Whether ``mode`` accepts ``p`` subtasks for ``n`` key groups or partitions.

    >>> [p for p in range(1, 13) if accepts(12, p, "EVENLY_SPREAD")]
    [1, 2, 3, 4, 6, 12]
    >>> [p for p in range(1, 13) if accepts(12, p, "BALANCED")]
    [1, 2, 3, 4, 5, 6, 7, 12]
    """
    if mode == "OFF":
        return True
    if n % p == 0:
        return True
    return mode == "BALANCED" and p > 1 and n // p < n // (p - 1)


def accepted_counts(n: int, upper: int, mode: str) -> list[int] | None:
    """The counts up to ``upper`` (and N) that ``mode`` accepts; None with ``OFF``."""
    if mode == "OFF":
        return None
    return [p for p in range(1, min(n, upper) + 1) if accepts(n, p, mode)]


def flink_align(current: int, target: int, n: int, upper: int, mode: str) -> int:
    """The Flink autoscaler's aligned parallelism (``firstAlignedInRegion``, then the target
    itself when nothing in the region is accepted): a scale-up searches [target, min(N,
    upper)], a scale-down [target, min(current, N, upper)], upwards.

    >>> flink_align(1, 5, 24, 24, "EVENLY_SPREAD")
    6
    >>> flink_align(1, 5, 24, 24, "BALANCED")
    6
    >>> flink_align(8, 7, 24, 24, "BALANCED")
    8
    >>> flink_align(1, 5, 24, 24, "OFF")
    5
    """
    if mode == "OFF" or target == current:
        return target
    end = min(n, upper) if target > current else min(current, n, upper)
    for p in range(target, end + 1):
        if n % p == 0 or (mode == "BALANCED" and n // p < n // target):
            return p
    return target
