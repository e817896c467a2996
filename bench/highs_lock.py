"""HiGHS beside a busy Python thread: why a solve shortens the interpreter's switch interval.

HiGHS asks Python whether to stop at every simplex iteration (highspy's interrupt
callback), and each time waits for the interpreter lock. The root LP of the 30 x 20 program
(bench/odrp.py's instance, seed 2) is solved through ``solve_in_thread``: alone; beside a
Python loop with the interpreter's default switch interval (5 ms, what every solve had
before); and beside it with the interval a solve now sets (``SWITCH_INTERVAL``). Printed:
the LP's seconds and their ratio to the LP alone, its simplex iterations (one callback
each), and the loop's speed as a share of its speed with nothing beside it.

Run: ``python bench/highs_lock.py``.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import highspy

from streamplace.solve import Instance
from streamplace.solve.budget import Budget
from streamplace.solve.mip.highs import thread as highs_thread
from streamplace.solve.mip.highs.arrays import pass_model
from streamplace.solve.mip.model import LinearModel
from streamplace.solve.odrp.compact import build_compact
from streamplace.solve.odrp.data import prepare

sys.path.insert(0, str(Path(__file__).parent))
from odrp import balanced
from scenarios import edge_cloud_instance

DEFAULT_SWITCH = 0.005  # the interpreter's own


class Loop:
    """A Python thread that counts as fast as it can until stopped."""

    def __init__(self) -> None:
        self.count = 0
        self.running = True
        self.thread = threading.Thread(target=self._spin, daemon=True)
        self.started = time.perf_counter()
        self.thread.start()

    def _spin(self) -> None:
        while self.running:
            self.count += 1

    def rate(self) -> float:
        self.running = False
        self.thread.join()
        return self.count / (time.perf_counter() - self.started)


def root_lp(model: LinearModel, interval: float, beside: bool) -> tuple[float, int, float]:
    """Seconds and simplex iterations of the LP, and the loop's rate beside it (0 without)."""
    highs_thread.SWITCH_INTERVAL = interval
    h = highspy.Highs()
    highs_thread.own_locks(h)
    h.silent()
    pass_model(h, highspy, model)
    h.setOptionValue("solve_relaxation", True)
    h.setOptionValue("threads", 1)
    loop = Loop() if beside else None
    started = time.perf_counter()
    assert highs_thread.solve_in_thread(h, Budget(time_limit=None))
    seconds = time.perf_counter() - started
    rate = loop.rate() if loop is not None else 0.0
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return seconds, h.getInfo().simplex_iteration_count, rate


def main() -> None:
    app, infra = edge_cloud_instance(30, 20, 4, 2)
    model = build_compact(prepare(Instance(app, infra, balanced()))).model
    free = Loop()
    time.sleep(3.0)  # the loop's speed with nothing beside it
    alone_rate = free.rate()
    short = highs_thread.SWITCH_INTERVAL
    print(f"root LP of 30 x 20 seed 2 ({model.num_cols:,} columns) through solve_in_thread")
    print(f"{'run':>34} {'seconds':>8} {'x alone':>8} {'iterations':>10} {'loop speed':>10}")
    alone = None
    for label, interval, beside in (("alone", short, False),
                                    (f"beside a loop, {DEFAULT_SWITCH * 1e3:g} ms switch",
                                     DEFAULT_SWITCH, True),
                                    (f"beside a loop, {short * 1e3:g} ms switch", short, True)):
        seconds, iterations, rate = root_lp(model, interval, beside)
        alone = alone or seconds
        speed = f"{rate / alone_rate:.0%}" if beside else "-"
        print(f"{label:>34} {seconds:>8.1f} {seconds / alone:>8.2f} {iterations:>10,} "
              f"{speed:>10}", flush=True)
    highs_thread.SWITCH_INTERVAL = short


if __name__ == "__main__":
    main()
