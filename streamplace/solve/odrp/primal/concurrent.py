"""The primal side of ``odrp``: better plans found beside the solver, not instead of it.

A thread improves the start plan by the local search on F (local_search.py), then by the
large-neighbourhood search (lns.py), while the main thread builds the whole program
and HiGHS solves it. A plan offered meanwhile (the relaxation's LP optimum rounded,
rounding.py) is climbed too, at the search's next turn, and the search goes on from the
better of the two (HiGHS runs in its own thread without Python's lock, so on two cores
both run at full speed). When the solver stops, the search is stopped too and its plan
competes with the solver's on the evaluator's F; the bound is the solver's alone. The
search never makes a result ``optimal``: only the solver's proof does.
"""

from __future__ import annotations

import math
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from streamplace.model.evaluate.constraints import placement_violations
from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget, StopRequest
from streamplace.solve.odrp.data import OdrpData

if TYPE_CHECKING:
    from streamplace.solve.odrp.primal.lns import LnsResult
    from streamplace.solve.odrp.primal.local_search import SearchResult

SEARCH_SHARE = 0.3  # of a time limit, for the local search
SEARCH_WORK = 300_000  # moves at most: without a time limit the search ends the same anywhere
LNS_SHARE = 0.55  # of a time limit, for the large-neighbourhood search after it
LNS_ROUNDS = 60  # sub-programs at most (per phase)
LNS_CHUNK = 10  # sub-programs between two looks at an offered plan
MIN_PHASE = 0.5  # seconds: less is not worth a sub-program
SECOND_SEED = 7919  # the second worker's seed offset (any other stream of choices)
WATCH = 0.05  # seconds between looks at the interrupt while the workers run alone


@dataclass
class PrimalSearch:
    data: OdrpData
    given: Plan
    budget: Budget
    seed: int
    halt: StopRequest = field(default_factory=StopRequest)
    plan: Plan | None = None
    counters: dict[str, object] = field(default_factory=dict)
    failure: BaseException | None = None
    thread: threading.Thread | None = None
    alone: bool = False  # no solver beside it: the last phase takes what is left
    climbed: threading.Event = field(default_factory=threading.Event)  # local search done
    value: float = -math.inf  # F of ``plan``
    second: LnsResult | None = None  # the second worker's, when it ran
    offered: Plan | None = None  # a plan to climb from too, taken once
    _offer_lock: threading.Lock = field(default_factory=threading.Lock)

    @classmethod
    def start(cls, data: OdrpData, given: Plan, budget: Budget, seed: int) -> PrimalSearch:
        search = cls(data, given, budget, seed)
        search.thread = threading.Thread(target=search._run, name="odrp-primal", daemon=True)
        search.thread.start()
        return search

    def offer(self, plan: Plan) -> None:
        """A plan found elsewhere: a worker climbs from it at its next turn (after the
        local search, between rounds of the large-neighbourhood search, or as the second
        worker's start), and the search goes on from the better plan."""
        with self._offer_lock:
            self.offered = plan

    def _take_offer(self) -> Plan | None:
        with self._offer_lock:
            plan, self.offered = self.offered, None
        return plan

    def _climb_offer(self) -> SearchResult | None:
        """The local search from the offered plan, when there is one."""
        from streamplace.solve.odrp.primal.local_search import improve

        plan = self._take_offer()
        if plan is None or self.halt:
            return None
        found = improve(self.data, plan, self._phase(SEARCH_SHARE, SEARCH_WORK), self.seed)
        self.counters.update(offered_F=found.start_value, offered_search_F=found.value)
        return found  # checked where it is adopted (_adopt)

    @staticmethod
    def finish(search: PrimalSearch | None, plan: Plan | None, alone: bool = False,
               ) -> tuple[Plan | None, dict[str, object]]:
        """Stop the search and wait for it: its plan (``plan`` without a search, or when
        it found nothing feasible) and its counters. ``alone``: no solver runs beside it,
        so its last phase may take all that is left of the time, and it ends by itself."""
        if search is None:
            return plan, {}
        if alone and search.thread is not None:
            search.alone = True
            search._both_workers()
        PrimalSearch.stop(search)
        if search.failure is not None:
            raise search.failure
        return search.plan or plan, search.counters

    def _both_workers(self) -> None:
        """With no solver beside it, a second large-neighbourhood search from the local
        search's plan, seeded apart, takes the core HiGHS would have had; the better plan
        of the two is the search's. This thread only watches for an interrupt, which the
        workers' own stop request does not see."""
        helper = threading.Thread(target=self._second_worker, name="odrp-primal-2",
                                  daemon=True)
        helper.start()
        for worker in (helper, self.thread):
            while worker is not None and worker.is_alive():
                worker.join(WATCH)
                if self.budget.interrupted:
                    self.halt.set()
        self._adopt(self.second)

    def _second_worker(self) -> None:
        from streamplace.solve.odrp.primal.lns import LnsResult, lns

        try:
            self.climbed.wait()
            start, value = self.plan, self.value
            offered = self._climb_offer()
            if offered is not None and offered.value > value:
                start, value = offered.plan, offered.value
                # it competes as the second worker's plan even where no round follows
                self.second = LnsResult(start, value, 0, 0)
            phase = self._phase(1.0)
            if start is None or self.halt or (
                    phase.time_limit is not None and phase.time_limit <= MIN_PHASE):
                return
            self.second = found = lns(self.data, start, phase, self.seed + SECOND_SEED, None)
            self.counters.update(lns2_rounds=found.rounds, lns2_improved=found.improved,
                                 lns2_F=found.value)
        except BaseException as exc:  # handed to the caller's thread by finish()
            self.failure = self.failure or exc

    @staticmethod
    def stop(search: PrimalSearch | None) -> None:
        """Stop the search and wait for it (again: it is already done)."""
        if search is not None and search.thread is not None:
            search.halt.set()
            search.thread.join()

    def _phase(self, share: float, work: int | None = None) -> Budget:
        limit = self.budget.time_limit
        left = None if limit is None else max(0.0, min(
            share * limit, self.budget.deadline - time.perf_counter()))
        return Budget(left, self.halt, work_limit=work)

    def _run(self) -> None:
        try:
            self._search()
        except BaseException as exc:  # handed to the caller's thread by finish()
            self.failure = exc
        finally:
            self.climbed.set()  # never leave a second worker waiting

    def _adopt(self, found: SearchResult | LnsResult | None) -> None:
        """Go on from ``found`` where it is better and breaks no constraint."""
        if found is not None and found.value > self.value and not placement_violations(
                self.data.graph, self.data.network, found.plan):
            self.plan, self.value = found.plan, found.value

    def _search(self) -> None:
        from streamplace.solve.odrp.primal.lns import lns
        from streamplace.solve.odrp.primal.local_search import improve

        data = self.data
        searching = self._phase(SEARCH_SHARE, SEARCH_WORK)
        found = improve(data, self.given, searching, self.seed)
        self.counters.update(
            search_moves=found.moves_tried, search_local_optima=found.local_optima,
            search_seconds=round(searching.elapsed(), 3), search_start_F=found.start_value,
            search_F=found.value)
        if found.value == -math.inf or placement_violations(data.graph, data.network,
                                                             found.plan):
            return  # no feasible plan met on the way (the start breaks a limit)
        self.plan, self.value = found.plan, found.value
        self.climbed.set()
        if self.halt:
            return
        rounds = improved = 0
        seconds = 0.0
        given = self._phase(LNS_SHARE)  # the phase's end, when a solver runs beside
        while not self.halt:  # chunk by chunk, to take an offered plan between them
            self._adopt(self._climb_offer())
            phase = self._phase(1.0) if self.alone else given
            left = phase.remaining()
            most = LNS_CHUNK if self.alone else min(LNS_CHUNK, LNS_ROUNDS - rounds)
            if (left is not None and left <= MIN_PHASE) or most <= 0:
                break
            began = time.perf_counter()
            deeper = lns(data, self.plan, phase, self.seed + rounds, most)
            rounds, improved = rounds + deeper.rounds, improved + deeper.improved
            seconds += time.perf_counter() - began
            self._adopt(deeper)
            if deeper.rounds == 0:
                break
        self.counters.update(lns_rounds=rounds, lns_improved=improved,
                             lns_seconds=round(seconds, 3), lns_F=self.value)
