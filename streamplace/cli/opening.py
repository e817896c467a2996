"""What every command that looks at a plan opens the same way: the application (held to
``--target-utilization``), the infrastructure, the objective and the plan that runs now."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from streamplace.cli import options as opts
from streamplace.io.occupied import read_occupied
from streamplace.io.readers import read_instance
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.objective import Objective
from streamplace.model.occupied import beside
from streamplace.model.reconfiguration import Current


@dataclass(frozen=True)
class Opened:
    app: Application
    infra: Infrastructure
    objective: Objective
    current: Current | None = None

    @property
    def heading(self) -> str:
        """``app on infra``, and beside which occupied load: what every table is about."""
        held = self.infra.holds.names
        beside_ = f" beside {', '.join(held)}" if held else ""
        return f"{self.app.name} on {self.infra.name}{beside_}"


def open_inputs(application: str, infrastructure: str, *, objective: str | None = None,
                weights: str | None = None, network_metric: str | None = None,
                target_utilization: float | None = None, current: str | None = None,
                max_moves: float | None = None, ignore_names: bool = False,
                occupied: Sequence[str] | None = None) -> Opened:
    """Read and check the shared inputs. The flags' values are checked before the
    application and infrastructure are read, so a typo in a flag fails at once. With
    ``occupied``, the infrastructure is the free one: what the other applications hold is
    taken out of it (exit 1 where they already overfill a node or link)."""
    opts.check_target_utilization(target_utilization)
    goal = opts.build_objective(objective, weights, network_metric)
    app, infra = read_instance(application, infrastructure)
    app = app.with_target_utilization(target_utilization)
    infra = beside(infra, read_occupied(occupied, infra, app.name))
    return Opened(app, infra, goal,
                  opts.read_current(current, max_moves, app, infra, not ignore_names))
