"""A latency marker's age, hop by hop (docs/models.md, (L3)): the wait in each output buffer
until it is flushed, the records flushed with it that the next subtask serves first, and
the queue a varying service leaves, plus each stream's delay. Its mean, its 99th
percentile, and what every run stays under, whatever phase its flushers' timers took.

A producer's output channel is flushed every buffer timeout tau, or sooner when its buffer
(``taskmanager.memory.segment-size``, 32 KiB) fills: T = min(tau, B / (lambda_c b)) for a
channel carrying lambda_c records/s of b bytes. A marker written u after a flush waits
T - u in the buffer; the lambda_c u records written before it arrive with it, and the next
subtask serves them first, (rho / c) u of work with c channels into it (rho its busy
share). So the two together are uniform on [rho T / c, T]: T (1 + rho / c) / 2 on average.
The records come whole, though, and the tail shows it: a marker written just behind one
waits that record's whole service (``_flushed``).
The other c - 1 channels' batches, at their own phases, leave (c - 1) rho^2 T / (2 c^2)
behind on average. What is left of the queue is Kingman's, with the arrivals' own
variability taken out by the flushes (c_a^2 = 0) and the service's c_s^2 measured where
the subtasks' busy time and records give it:

    W_var = rho / (1 - rho) * c_s^2 / 2 * 1/mu

(M/M/1's W_q at c_s^2 = 2: a sleep for work has c_s^2 near 0).

rho and 1/mu are what the records bring where the window measured it: the busy time a
record typically takes (the lower quartile over the window's readings), times the records.
Work no record brings (a window's firing) is left out of them, and taken on its own: it
comes at once, D seconds of it (the longest the window's slices read,
``control/flink/window.py``), while the operator reads nothing, so the markers that meet
one wait behind it, up to D (``Hop.fired``). It also counts towards the capacity: a
consumer busy all the time, whatever with, has an unbounded queue.

A checkpoint's barrier flushes every buffer it passes, and it follows the stream: a marker
it flushed out of one buffer reaches the next just ahead of it, and is flushed out of that
one at once. So the barrier bounds the marker's waits in the buffers together, not one by
one: with b until the next barrier and r_h until each buffer's own flush, the marker
waits min(b, r_1 + ... + r_n) in them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from streamplace.control.running.grid import GRID, point, quantile_of, queue_wait, uniform

SEGMENT = 32 * 1024        # bytes: taskmanager.memory.segment-size's default, one buffer
ASSUMED_VARIABILITY = 1.0  # c_s^2 where no spread over subtasks measures it
TAIL = 12.0                # an exponential queue is cut where e^-12 of it is left


@dataclass(frozen=True)
class Hop:
    """One stream a marker crosses, and the subtask it reaches."""

    stream: tuple[str, str]
    flush: float        # T, seconds between two flushes of one channel
    filled: bool        # the buffer fills before the timeout: T is the fill time
    busy: float         # rho, the consumer subtask's busy share
    channels: int       # c, producer subtasks into one consumer subtask
    service: float      # 1/mu of the consumer, seconds
    variability: float  # c_s^2 of the consumer's service
    measured: bool      # c_s^2 measured (else ASSUMED_VARIABILITY)
    delay: float        # the stream's network delay (eq. 4)
    barrier: float = math.inf  # seconds between two checkpoints (the job's, every hop's)
    total: float | None = None  # the busy share with all its work, where rho is the records'
    firings: tuple[float, ...] = ()  # seconds each firing of the consumer's windows read took

    @property
    def buffer(self) -> float:
        """The mean wait in this output buffer until the next flush: T / 2, less where a
        barrier, at its own phase, flushes first (E[min] of two uniform residuals). Along a
        path the barrier is one and the same: ``flush_waits`` holds the hops' together."""
        short, long = sorted((self.flush, self.barrier))
        return short / 2 - short * short / (6 * long) if math.isfinite(long) else short / 2

    @property
    def batch(self) -> float:
        """The mean work found ahead that was flushed with the marker or just before it:
        the records written since the last flush (as long, on average, as the wait until
        the next), and the other channels' batches."""
        rho, c, gap = min(self.busy, 1.0), self.channels, 2 * self.buffer
        return rho * self.buffer / c + (c - 1) * rho * rho * gap / (2 * c * c)

    @property
    def queue(self) -> float:
        """Kingman's wait for a service of variability c_s^2, arrivals flushed in batches."""
        if self.saturated:
            return math.inf
        return self.busy / (1 - self.busy) * self.variability / 2 * self.service

    @property
    def firing(self) -> float:
        """D, the length of the firing a marker meets: a marker meets one in proportion to
        its length, so sum D_i^2 / sum D_i over the firings read (0 where none)."""
        total = sum(self.firings)
        return sum(d * d for d in self.firings) / total if total > 0 else 0.0

    @property
    def fired(self) -> float:
        """The share of the time a marker reaching the consumer finds a firing ahead of it:
        the firings take total - rho of the time, D at once, and the records that queue
        behind one are served after it at 1 - rho, so each holds the markers up for
        D / (1 - rho), their wait falling evenly from D to nothing."""
        if self.firing <= 0 or self.total is None or self.saturated:
            return 0.0
        return min(1.0, max(0.0, self.total - self.busy) / (1 - min(self.busy, 1.0)))

    @property
    def behind_firing(self) -> float:
        """The mean wait behind the consumer's firings: uniform on [0, D] for the markers
        that meet one."""
        return self.fired * self.firing / 2

    def behind_firings(self, quantile: float) -> float:
        """The wait behind the firings that ``quantile`` of the markers stay within: a
        marker meets firing i with probability f D_i / sum D, and then waits uniformly on
        [0, D_i], so P(W > x) = f sum (D_i - x)+ / sum D."""
        beyond, total = 1 - quantile, sum(self.firings)
        if self.fired <= beyond or total <= 0:
            return 0.0

        def tail(x: float) -> float:
            return self.fired * sum(max(0.0, d - x) for d in self.firings) / total

        low, high = 0.0, max(self.firings)
        for _ in range(60):  # tail falls from f to 0 over [0, longest]: halve to a nanosecond
            mid = (low + high) / 2
            low, high = (mid, high) if tail(mid) > beyond else (low, mid)
        return high

    def firings_pmf(self, step: float) -> np.ndarray:
        """The wait behind the firings on the grid: none with probability 1 - f, else
        uniform up to the length of the firing met, met in proportion to its length."""
        total = sum(self.firings)
        met = sum(d / total * uniform(0.0, d, step) for d in self.firings)
        return self.fired * met + (1 - self.fired) * point(0.0, step)

    @property
    def saturated(self) -> bool:
        """Busy all the time: the queue grows."""
        return max(self.busy, self.total or 0.0) >= 1

    @property
    def after_flush(self) -> float:
        """The mean of what the marker meets once flushed: the records flushed with it, the
        queue, a firing, the network (its wait in the buffer is the path's,
        ``flush_waits``)."""
        return self.batch + self.queue + self.behind_firing + self.delay


def flush_waits(hops: tuple[Hop, ...]) -> float:
    """A marker's mean wait in the output buffers along the path, over the timers' phases:
    E[min(b, r_1 + ... + r_n)], r_h uniform on [0, T_h] and b, the next barrier's, on
    [0, C]; the sum of T_h / 2 without checkpoints."""
    barrier = _barrier(hops)
    if not math.isfinite(barrier):
        return sum(h.flush for h in hops) / 2
    step = sum(h.flush for h in hops) / (GRID - 1)
    if step <= 0:
        return 0.0
    spectrum = np.ones(GRID + 1, dtype=complex)  # padded: the sum never wraps round
    for h in hops:
        spectrum *= np.fft.rfft(uniform(0.0, h.flush, step), 2 * GRID)
    pmf = np.clip(np.fft.irfft(spectrum, 2 * GRID)[:GRID], 0.0, None)
    s = np.arange(GRID) * step
    # E[min(b, s)] for b uniform on [0, C]
    cut = np.where(s < barrier, s - s * s / (2 * barrier), barrier / 2)
    return float(np.dot(pmf, cut) / pmf.sum())


def _barrier(hops: tuple[Hop, ...]) -> float:
    """C, the seconds between the job's checkpoints, whose barrier crosses every hop."""
    return min((h.barrier for h in hops), default=math.inf)


def channel_flush(timeout: float, rate: float, tuple_size: float, segment: float) -> tuple[
        float, bool]:
    """T for one channel carrying ``rate`` records/s of ``tuple_size`` bytes, and whether the
    buffer fills first."""
    fill = segment / (rate * tuple_size) if rate > 0 and tuple_size > 0 else math.inf
    return (fill, True) if fill < timeout else (timeout, False)


@dataclass(frozen=True)
class Distribution:
    mean: float
    p99: float
    promise: float   # every hop at its worst phase (a whole T, or C), the queues at their
    #                   p99, a firing one marker in a hundred meets at its whole length
    band: float      # one run's mean lies within this of ``mean``: the timers' offsets
    flushes: float   # the mean of the waits in the buffers together (``flush_waits``)

    def dominant(self, hops: tuple[Hop, ...]) -> str:
        """The term that makes most of the mean, in words (the waits in the buffers shared
        between timeouts and fills as each hop's own wait is)."""
        own = sum(h.buffer for h in hops)
        share = self.flushes / own if own > 0 else 0.0
        terms = {"the buffer timeouts": share * sum(h.buffer for h in hops if not h.filled),
                 "the buffers' fill": share * sum(h.buffer for h in hops if h.filled),
                 "the records flushed with it": sum(h.batch for h in hops),
                 "the queues": sum(h.queue for h in hops),
                 "the windows' firings": sum(h.behind_firing for h in hops),
                 "the network": sum(h.delay for h in hops)}
        return max(terms, key=lambda k: terms[k])


def distribution(hops: tuple[Hop, ...], quantile: float = 0.99) -> Distribution:
    """The marker's age over the hops, by convolution on a grid; infinite where a queue is.

    The mean is over the tasks' starts, with the waits in the buffers taken together
    (``flush_waits``). The quantile is one run's at the timers' mean offsets: only the
    first hop's wait (and the barrier's phase) is drawn afresh for each marker, since a marker
    leaves each buffer at its producer's flush and so reaches every later buffer at the same
    point of its timer's cycle, a wait fixed while the tasks run (their mean taken: a run's
    quantile lies within ``band`` of it, as its mean does); the queues are every marker's
    own."""
    flushes = flush_waits(hops)
    mean = flushes + sum(h.after_flush for h in hops)
    band = sum(h.flush for h in hops[1:]) / 2
    if not hops or not math.isfinite(mean):
        return Distribution(mean, mean, mean, band, flushes)
    # the other channels' batches and the network at their means; the later hops' records
    # flushed with the marker, and their timers' waits, at their means
    fixed = sum(h.delay + h.batch - min(h.busy, 1.0) * h.buffer / h.channels for h in hops)
    fixed += sum(min(h.busy, 1.0) * h.buffer / h.channels for h in hops[1:])
    later = sum(h.flush for h in hops[1:]) / 2
    tails = [h.queue / h.busy * TAIL if h.busy > 0 and h.queue > 0 else 0.0 for h in hops]
    top = sum(h.flush for h in hops) + hops[0].service + sum(tails) + sum(
        max(h.firings) for h in hops if h.fired > 0)
    if top <= 0:
        return Distribution(mean, mean, mean, band, flushes)
    step = top / (GRID - 1)
    x = np.arange(GRID) * step
    total = np.fft.rfft(_flushed(hops[0], step, later, _barrier(hops)))
    queues = np.fft.rfft(point(0.0, step))
    owns = queues  # the waits each marker draws afresh: the queues and the firings
    for h in hops:
        if h.queue > 0:
            q = np.fft.rfft(queue_wait(h.busy, h.queue / h.busy, step))
            total, queues, owns = total * q, queues * q, owns * q
        if h.fired > 0:
            f = np.fft.rfft(h.firings_pmf(step))
            total, owns = total * f, owns * f
    p = quantile_of(np.fft.irfft(total, GRID), x, quantile)
    # the first buffer is flushed within T or C; a later one within its T, whether or not
    # the barrier, which may be held up on its way (aligned, a snapshot taken), comes first
    worst = _first_worst(hops[0], _barrier(hops)) + sum(h.flush for h in hops[1:])
    # the queues at their quantile and a firing that the quantile's markers meet, from its
    # start: the longest's whole length; or, where fewer meet one, the quantile of the
    # queues and the firings together, which such a firing still lifts above the queues'
    met = quantile_of(np.fft.irfft(queues, GRID), x, quantile) + sum(
        max(h.firings) for h in hops if h.fired >= 1 - quantile)
    worst += max(met, quantile_of(np.fft.irfft(owns, GRID), x, quantile))
    return Distribution(mean, p + fixed, worst + fixed, band, flushes)


BARRIER_GRID = 128  # phases of the timer and of the barriers, each, where checkpoints run
TIMER_GRID = 1024   # phases of the timer alone


def _flushed(h: Hop, step: float, later: float, barrier: float) -> np.ndarray:
    """The waits until the flushes plus the records written since the first hop's last
    flush, ``later`` the later hops' waits: over a grid of the first timer's phase, and of
    the ``barrier``'s (C), which cuts the waits short together. The records are whole: the
    (rho / c) u of work written in u comes as n = (rho / c) u / S records of S each on
    average, evenly spaced, so floor(n) or floor(n) + 1 of them, with the odds that keep the
    mean n (a marker written just behind one record waits its whole service)."""
    k = min(h.busy, 1.0) / h.channels
    if math.isfinite(barrier):
        timer = (np.arange(BARRIER_GRID) + 0.5) / BARRIER_GRID * h.flush
        phases = (np.arange(BARRIER_GRID) + 0.5) / BARRIER_GRID * barrier
        since, until = np.meshgrid(timer, phases)
        waits = np.minimum(h.flush - since + later, barrier - until)
        written = k * np.minimum(since, until)
    else:
        since = (np.arange(TIMER_GRID) + 0.5) / TIMER_GRID * h.flush
        waits, written = h.flush - since + later, k * since
    if h.service > 0:
        records = written / h.service
        whole = np.floor(records)
        values = np.concatenate([waits + whole * h.service, waits + (whole + 1) * h.service])
        odds = np.concatenate([1 - (records - whole), records - whole])
    else:
        values, odds = waits + written, np.ones_like(waits)
    points = np.clip(np.rint(values.ravel() / step).astype(int), 0, GRID - 1)
    pmf: np.ndarray = np.bincount(points, weights=odds.ravel(), minlength=GRID)
    pmf /= pmf.sum()
    return pmf


def _first_worst(h: Hop, barrier: float) -> float:
    """The most a marker waits at the first hop, flushes and records written before it: a
    whole T (or C, if sooner), and one record's service where records flow (written just
    before the marker, just after the flush)."""
    return min(h.flush, barrier) + (h.service if h.busy > 0 else 0.0)
