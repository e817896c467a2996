"""How many markers a latency histogram holds. Flink's REST answers a histogram's
statistics but not its count, so the count is what the job can have sent it: each source
subtask emits a marker every ``metrics.latency.interval``, each marker goes on to one
subtask of the next vertex at random, and a histogram keeps the last
``metrics.latency.history-size`` (128 by default). A vertex that has run for t seconds holds

    min(history, t / interval * p_source / p_operator)

markers at each of its subtasks. A mean of fewer than MIN_MARKERS is no latency to hold a
bound to; a p99 of fewer than a hundred is the largest of them."""

from __future__ import annotations

import math
from typing import Any

from streamplace.control.durations import duration
from streamplace.control.flink.answers import as_number
from streamplace.control.running.latency import Measured, PathLatency
from streamplace.errors import InputError

HISTORY = 128       # metrics.latency.history-size's default
MIN_MARKERS = 10    # fewer, and one GC pause is a tenth of the mean
SPANNED = 10        # firing periods markers span beyond which one more moves them little
WHOLE = 0.15        # periods off a whole number within which a span counts as whole
MOVES = 0.05        # a share of a path's mean one firing more or less must move to be said


def interval(config: dict[str, str]) -> float | None:
    """The cluster's marker interval in seconds; None where the cluster does not set it (a
    job may: its count is then not known here) or turns markers off."""
    text = config.get("metrics.latency.interval", "").strip()
    try:
        seconds = duration(text) if text else 0.0
    except ValueError:
        return None
    return seconds if seconds > 0 else None


def history(config: dict[str, str]) -> int:
    number = as_number(config.get("metrics.latency.history-size", ""))
    return int(number) if number is not None and number >= 1 else HISTORY


def held(config: dict[str, str], job: Any, source: str, op: str,
         ) -> tuple[float, float] | None:
    """The markers each subtask of vertex ``op`` holds from vertex ``source`` (ids), and
    how many more a second it receives, from the job's details; None where the interval or
    a vertex's running time is not known."""
    every = interval(config)
    vertices = {v.get("id"): v for v in job.get("vertices", []) if isinstance(v, dict)} \
        if isinstance(job, dict) else {}
    if every is None or source not in vertices or op not in vertices:
        return None
    ran = as_number(vertices[op].get("duration"))
    p_source = as_number(vertices[source].get("parallelism"))
    p_op = as_number(vertices[op].get("parallelism"))
    if ran is None or ran < 0 or not p_source or not p_op:
        return None
    arriving = p_source / p_op / every
    return min(float(history(config)), ran / 1000 * arriving), arriving


def check_held(config: dict[str, str], job: Any, pairs: dict[tuple[str, str], tuple[str, str]],
               ) -> dict[tuple[str, str], tuple[float, float]]:
    """Each pair's markers held and the seconds they arrived over (``pairs``: (source,
    operator) -> their vertex ids); bad input naming the first pair with fewer than
    MIN_MARKERS, and when to read again."""
    counts = {}
    for pair, (source, op) in pairs.items():
        found = held(config, job, source, op)
        if found is None:
            continue
        count, arriving = found
        counts[pair] = (count, count / arriving)
        if count < MIN_MARKERS:
            every = interval(config) or 1.0
            short = history(config) < MIN_MARKERS
            raise InputError.single(
                f"the latency markers of {pair[0]} -> {pair[1]} rest on about "
                f"{math.floor(count)} markers (a histogram keeps "
                f"metrics.latency.history-size {history(config)}; the vertex receives one "
                f"every {every * 1000:g} ms per source subtask): too few for a mean",
                f"set metrics.latency.history-size to at least {MIN_MARKERS}" if short else
                f"read again in {math.ceil((MIN_MARKERS - count) / arriving):d} s, "
                "or lower metrics.latency.interval", path="metrics.latency.history-size"
                if short else "metrics.latency.interval")
    return counts


def short_spans(measured: dict[tuple[str, str], Measured], window: float,
                config: dict[str, str]) -> list[str]:
    """A note for each pair whose full histograms span less than the ``window`` the model
    read (the seconds their markers arrived over): a window's firing, or most phases of a
    slow flush timer, may fall outside them, and the two then describe different times (10
    markers at one per 97 ms span 1 s: the end-to-end tier's history against a 10 s
    window). A histogram still filling spans the time its vertex ran, which waiting mends."""
    out, size = [], history(config)
    for (source, op), m in measured.items():
        if m.span is not None and m.markers is not None and m.markers >= size \
                and m.span < window:
            out.append(f"the latency markers of {source} -> {op} arrived over the last "
                       f"{m.span:.1f} s (metrics.latency.history-size {size}), less than "
                       f"the {window:g} s window read: a window's firing or a flush "
                       "timer's phase may be missed; set metrics.latency.history-size to at "
                       f"least {math.ceil(size * window / m.span)}")
    return out


def part_periods(paths: list[PathLatency], periods: dict[str, float],
                 config: dict[str, str]) -> list[str]:
    """A note for each operator whose windows fire every T seconds (``periods``) on a path
    whose full histograms span from one to SPANNED of its periods, not a whole number: a
    read holds one firing more or less as it falls in the period, and the markers' mean
    moves with it by D^2 / (2 (1 - rho) S) over a span of S seconds (the markers that meet
    a firing of D, over D / (1 - rho), wait D / 2 on average). Said where that is MOVES of
    the path's predicted mean or more: q8's join, 4.6 s firings every 10 s, 372 markers
    over 36 s, 0.29 s of about 1.06 (read 0.88 and 0.95, each pooled over three runs read
    at the same time after the job started, and 1.18 then 0.91 in two reads of one job 30 s
    apart). A history spanning a whole number of periods holds as many firings wherever it
    is read."""
    size = history(config)
    read: dict[str, list[tuple[float, str, float]]] = {}
    for path in paths:
        m = path.measured
        if m.span is None or m.markers is None or m.markers < size:
            continue  # still filling: its span grows
        for hop in path.predicted.path:
            op, rho = hop.stream[1], min(hop.busy, 0.99)
            moved = hop.firing ** 2 / (2 * (1 - rho) * m.span)
            if op in periods and moved >= MOVES * path.predicted.expected.mean:
                read.setdefault(op, []).append((m.span, path.name, moved))
    out = []
    for op, spans in read.items():
        span, _, moved = min(spans)
        held = span / periods[op]
        whole = math.ceil(held)
        if not 1 <= held < SPANNED or abs(held - round(held)) <= WHOLE:
            continue  # under one period short_spans says, with the window read
        names = " and ".join(dict.fromkeys(name for _, name, _ in spans))
        out.append(f"{op}'s windows fire about every {periods[op]:.1f} s, and the latency "
                   f"markers of {names} arrived over the last {span:.1f} s, {held:.1f} of "
                   f"its periods: a read holds {math.floor(held)} or {whole} of its firings "
                   "as it falls in the period, and the markers' mean moves by up to "
                   f"{moved * 1000:.0f} ms with them; set metrics.latency.history-size to "
                   f"{round(size * whole * periods[op] / span)} to span {whole}")
    return out
