"""The joint program by priority, lexicographically (docs/models.md sec. 2, (J4)): the
applications of the highest priority first, their weighted F maximised over every
application's placement; then, holding that level at the value reached, the next level; and
so on. Storm's Resource-Aware Scheduler orders topologies by priority the same way, but
places each in turn: here a lower level may still move a higher one's replicas, as long as
the higher level's F does not fall."""

from __future__ import annotations

import time
from array import array
from dataclasses import dataclass, replace
from itertools import groupby

from streamplace.solve.bundle.instance import BundleInstance
from streamplace.solve.bundle.program import JointModel
from streamplace.solve.bundle.result import BundleResult, Level
from streamplace.solve.bundle.solve import begin, conclude, without_values
from streamplace.solve.method import Method
from streamplace.solve.mip.outcome import MipOutcome
from streamplace.solve.mip.solve import solve_mip
from streamplace.solve.result import SolveOptions, SolveStatus

HOLD = 1e-7  # relative: a level is held at its value less this (the solver's tolerances)


@dataclass
class _Objective:
    """A level's share of the program's objective, swapped in and out of the model."""

    built: JointModel
    whole: array[float]
    offset: float

    def level(self, names: list[str]) -> tuple[list[int], list[float], float]:
        cols = [c for name in names for c in range(*self.built.columns[name])
                if self.whole[c] != 0.0]
        return cols, [self.whole[c] for c in cols], sum(self.built.offsets[n] for n in names)

    def use(self, cols: list[int], vals: list[float], offset: float) -> None:
        cost = array("d", bytes(8 * len(self.whole)))
        for c, v in zip(cols, vals, strict=True):
            cost[c] = v
        self.built.model.cost, self.built.model.offset = cost, offset

    @staticmethod
    def value_at(values: list[float], cols: list[int], vals: list[float],
                 offset: float) -> float:
        return offset + sum(values[c] * v for c, v in zip(cols, vals, strict=True))

    def restore(self) -> None:
        self.built.model.cost, self.built.model.offset = self.whole, self.offset


def levels_of(joint: BundleInstance) -> list[tuple[int, list[str]]]:
    """(priority, application names), highest priority first."""
    ordered = joint.in_priority_order()
    return [(p, [a.name for a in group]) for p, group in
            groupby(ordered, key=lambda app: app.priority)]


def solve_lexicographic(joint: BundleInstance, method: Method,
                        options: SolveOptions) -> BundleResult:
    begun = begin(joint, method, options, "lexicographic")
    if isinstance(begun, BundleResult):
        return begun
    built, first, budget = begun
    model = built.model
    objective = _Objective(built, array("d", model.cost), model.offset)
    start = built.start_from(first.plans) if first.plans else None
    done: list[Level] = []
    last: MipOutcome | None = None
    levels = levels_of(joint)
    try:
        for k, (priority, names) in enumerate(levels):
            cols, vals, offset = objective.level(names)
            objective.use(cols, vals, offset)
            left = budget.remaining()
            deadline = time.perf_counter() + (left / (len(levels) - k) if left is not None
                                              else float("inf"))
            outcome = solve_mip(model, options, start, budget.until(deadline))
            if outcome.values is None:
                if last is None:
                    return without_values(method, "lexicographic", outcome.status,
                                          outcome.bound, outcome.message, first, budget,
                                          joint.limited)
                break  # the levels above hold; this one and those below were not reached
            value = outcome.objective if outcome.objective is not None else \
                objective.value_at(outcome.values, cols, vals, offset)
            done.append(Level(priority, tuple(names), value, outcome.status, outcome.bound))
            model.row(cols, vals, lo=value - offset - HOLD * max(1.0, abs(value)),
                      family="lexicographic: a higher level held")
            # a level not proven best is held at what it reached all the same: the levels
            # below are still optimised, in the time left, beneath it
            start, last = list(outcome.values), outcome
    finally:
        objective.restore()
    assert last is not None and last.values is not None
    proven = len(done) == len(levels) and all(lv.status == SolveStatus.OPTIMAL for lv in done)
    status = SolveStatus.OPTIMAL if proven else (
        last.status if last.status != SolveStatus.OPTIMAL else budget.stop_status())
    said = "; ".join(f"priority {lv.priority} ({', '.join(lv.applications)}): "
                     f"{lv.value:.6g} {lv.status.value}" for lv in done)
    missing = [p for p, _names in levels[len(done):]]
    if missing:
        said += f"; priorities {', '.join(map(str, missing))} kept the last level's plans"
    result = conclude(joint, method, "lexicographic", built, last.values, status, None,
                      said, first, budget)
    return replace(result, levels=tuple(done))
