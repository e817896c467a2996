"""What the slices of a window tell of one service: each (busy seconds, records read) of a
subtask over a slice of the window (``window.py`` reads them), a record's typical service,
its variability, and the firings of its windows ((L3) of docs/models.md)."""

from __future__ import annotations

import statistics

SLICES = 5  # readings of a window held to latency markers: a lone subtask's c_s^2
SLICE = 2.0  # seconds: a window longer than SLICES of them is read in more slices
NO_TIME = 1e-9  # seconds a record takes below which no clock Flink reads tells them apart


def slices_over(window: float) -> int:
    """How many slices a window of ``window`` seconds held to latency markers is read in:
    SLICES, or one every SLICE seconds where that is more. A window read over several of a
    job's window periods, to average its firings (q8's join fires every 10 s), keeps
    slices as short as a 10 s window's, so a firing still reads as a run of them and the
    records' typical service as the quiet slices between.

    >>> slices_over(10.0), slices_over(5.0), slices_over(30.0)
    (5, 5, 15)
    """
    return max(SLICES, round(window / SLICE))


def record_service(served: list[tuple[float, float]]) -> float | None:
    """The busy seconds one record takes, typically: the lower quartile over the readings
    (each subtask, or each slice of a window) of busy time per record read. A reading that
    holds a window's firing (work no record read in it brought) lies above it, and does not
    move it while a quarter of the readings hold none: a firing of 3.5 s every 10 s spans
    three of a 10 s window's five slices, which would move the median. None with fewer than
    two readings of records.

    >>> record_service([(0.1, 100), (0.1, 100), (3.0, 10), (2.0, 20), (2.5, 30)])
    0.001
    """
    read = [b / n for b, n in served if n > 0]
    if len(read) < 2:
        return None
    typical = min(read) if len(read) < 4 else statistics.quantiles(read, n=4)[0]
    return typical if typical > NO_TIME else 0.0


CHI2_MEDIAN = 0.4549  # the median of a chi-squared variable of one degree of freedom
FIRED = 2.0  # a reading holding more than twice its records' typical work holds a firing
FULL = 0.9  # a slice inside one firing is busy (or back-pressured) this share of its time


def service_variability(served: list[tuple[float, float]]) -> float | None:
    """The squared coefficient of variation c_s^2 of one record's service, from (busy
    seconds, records read) of each subtask, or each slice of a window: busy time less the
    typical service times the records is the sum of those records' deviations, of variance
    n sigma^2 whatever the keys sent them. A reading whose busy time per record is more
    than FIRED times a record's typical (``record_service``) holds work no record read in
    it brought, a window's firing, and is left out: a firing that spans most slices would
    otherwise be read as every record's variability (q8's join at 19 events/s a topic,
    Flink 2.2.1: c_s^2 168 for records of 1.4 ms typically). Medians, not
    means, over the rest. None with fewer than two readings of records left.

    >>> service_variability([(1.0, 100), (1.0, 100)])
    0.0
    >>> service_variability([(1.0, 100)]) is None
    True
    >>> service_variability([(0.1, 100), (0.1, 100), (2.0, 90), (1.5, 80), (0.1, 100)])
    0.0
    >>> service_variability([(0.0, 100), (0.0, 100), (0.1, 100), *[(1.0, 100)] * 5]) is None
    True
    """
    record = record_service(served)
    if record is None or record <= 0:
        return None
    read = [(b, n) for b, n in served if n > 0 and b / n <= FIRED * record]
    if len(read) < 2:
        return None
    typical = statistics.median(b / n for b, n in read)
    if typical <= NO_TIME:  # busy under a millisecond a slice (a sink's): nothing to scale
        return None
    spread = statistics.median((b - typical * n) ** 2 / n for b, n in read) / CHI2_MEDIAN
    return spread / typical ** 2


def firings(slices: list[tuple[float, float, float]], record: float,
            ) -> list[tuple[float, bool]]:
    """The firings one subtask's slices (busy seconds, records read, share of the slice busy
    or back-pressured; in the order read) hold, each as its seconds and whether it lies
    whole inside the window: the busy seconds no record brought (busy time less its records'
    typical work), summed over a run of slices that each hold some (more than FIRED times
    their records' work, or busy with none read). A firing the window's ends cut is read as
    the part inside; the parts at the two ends are not joined, since a window a little
    longer than the firings' period holds a whole firing at one end and the next one's start
    at the other (q8's join, 10 s windows read over 10-12 s: 3.7 s joined, for firings of
    1.8).

    A subtask is busy throughout a firing, so a slice after a run's first that was busy (or
    back-pressured) less than FULL of its time ends the run: it holds a firing's end, and
    may hold the next one's start too where the JobManager answered the readings between
    them from its cache (q8's join, 4.6 s firings every 10 s, read once in six as one of
    about 9 s).

    >>> [(round(d, 3), whole) for d, whole in firings([(0.1, 100, 0.05), (1.9, 5, 0.95),
    ...     (2.0, 0, 1.0), (0.6, 60, 0.3), (0.1, 100, 0.05)], 0.001)]
    [(4.435, True)]
    >>> [(round(d, 3), whole) for d, whole in firings([(1.5, 0, 0.75), (0.1, 100, 0.05),
    ...     (0.1, 100, 0.05), (0.1, 100, 0.05), (0.5, 0, 0.25)], 0.001)]
    [(1.5, False), (0.5, False)]
    >>> firings([(0.1, 100, 0.05), (0.1, 100, 0.05)], 0.001)
    []
    >>> two = [(0.1, 100), (1.0, 0), (2.0, 0), (1.9, 100), (2.0, 0), (0.7, 50), (0.1, 100)]
    >>> [(round(d, 3), whole) for d, whole in firings(
    ...     [(b, n, 1.0) for b, n in two], 0.001)]  # were every slice busy throughout
    [(7.45, True)]
    >>> [(round(d, 3), whole) for d, whole in firings([(b, n, h) for (b, n), h in zip(
    ...     two, [0.05, 0.5, 1.0, 0.32, 1.0, 0.35, 0.05])], 0.001)]
    [(4.8, True), (2.65, True)]
    """
    runs: list[tuple[float, bool]] = []
    run, first, length = 0.0, True, 0
    for i, (b, n, held) in enumerate(slices):
        if (b > FIRED * n * record) if n > 0 else b > 0:
            first = first if run > 0 else i == 0
            run, length = run + max(0.0, b - n * record), length + 1
            if held < FULL and length > 1 and i < len(slices) - 1:
                runs, run, length = [*runs, (run, not first)], 0.0, 0
        elif run > 0:
            runs, run, length = [*runs, (run, not first)], 0.0, 0
    return [*runs, (run, False)] if run > 0 else runs


def firing_lengths(runs: list[list[tuple[float, bool]]]) -> tuple[float, ...]:
    """The firings (L3) waits behind, from each subtask's: the ones whole inside the
    window, since a marker meets each in proportion to its length and the longest of
    several lies above the rest (q8's join, whose firings' work follows the matches each
    window holds); where none lies whole inside it, the longest part read.

    >>> firing_lengths([[(2.0, True), (1.0, False)], [(1.0, True)]])
    (2.0, 1.0)
    >>> firing_lengths([[(1.5, False), (0.5, False)]]), firing_lengths([[]])
    ((1.5,), ())
    """
    whole = tuple(d for r in runs for d, inside in r if inside)
    if whole:
        return whole
    cut = [d for r in runs for d, _ in r]
    return (max(cut),) if cut else ()


def firing_period(runs: list[list[tuple[float, bool]]], seconds: float) -> float | None:
    """The seconds from one firing to the next, read over a window of ``seconds`` from each
    subtask's firings (``firings``): the window over how many firings the firing time of
    the subtask that read the most makes, each as long as its whole ones (the parts the
    window's ends cut count as their share of one). None where none lies whole inside it.

    >>> firing_period([[(1.0, False), (4.0, True), (3.0, False)]], 20.0)
    10.0
    >>> firing_period([[(1.5, False), (0.5, False)]], 10.0) is None
    True
    """
    read = [r for r in runs if any(whole for _, whole in r)]
    if not read:
        return None
    most = max(read, key=lambda r: sum(d for d, _ in r))
    length = statistics.fmean(d for d, whole in most if whole)
    return seconds * length / sum(d for d, _ in most)
