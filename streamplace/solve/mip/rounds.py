"""Solving a formulation that leaves rows out to stay small: solve, add the rows the plan
breaks (:meth:`.formulation.Formulation.add_violated`), solve again from that plan.

Each added row belongs to the full program, so the model solved is always a relaxation of
it: a plan that breaks no row is the full program's optimum when its round was proven, and
a round's bound is always valid. Used by the compact ODRP (stream-delay rows) and Benoit et
al.'s program (processor-link rows).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from streamplace.model.plan import Plan
from streamplace.solve.budget import Budget
from streamplace.solve.mip.formulation import Formulation
from streamplace.solve.mip.outcome import MipOutcome
from streamplace.solve.result import SolveStatus

Start = Sequence[float | None] | None


@dataclass(frozen=True)
class Rounds:
    outcome: MipOutcome  # the last round's
    plan: Plan | None    # the last round's plan, if it had one
    broken: int          # rows the last plan broke (added, but not solved with)
    rounds: int
    added: int           # rows added over all rounds
    seen: tuple[Plan, ...]  # every round's plan, in order (the last one's included)

    def stopped_status(self, budget: Budget) -> SolveStatus:
        """The status to report when the last round's plan broke rows: the last round's own
        if the solver stopped early, else why the rounds ended (``limit``: the round limit)."""
        if self.outcome.status != SolveStatus.OPTIMAL:
            return self.outcome.status
        return budget.stop_status() if budget.expired() else SolveStatus.LIMIT


def solve_in_rounds(built: Formulation, solve_once: Callable[[Start], MipOutcome],
                    start: Start, budget: Budget, max_rounds: int) -> Rounds:
    """Rounds until a plan breaks no left-out row, a round is not proven, the budget ends,
    or ``max_rounds`` have run."""
    rounds = added = 0
    seen: list[Plan] = []
    while True:
        rounds += 1
        outcome = solve_once(start)
        if outcome.values is None:
            return Rounds(outcome, None, 0, rounds, added, tuple(seen))
        plan = built.decode(outcome.values)
        seen.append(plan)
        broken = built.add_violated(outcome.values, plan)
        added += broken
        if (not broken or outcome.status != SolveStatus.OPTIMAL or rounds >= max_rounds
                or budget.expired() or budget.interrupted):
            return Rounds(outcome, plan, broken, rounds, added, tuple(seen))
        start = built.start_from(plan)
