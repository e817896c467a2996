"""What every command that looks at a plan opens the same way: the application (held to
``--target-utilization``), the infrastructure, the objective and the plan that runs now."""

from __future__ import annotations

from dataclasses import dataclass

from streamplace.cli import options as opts
from streamplace.io.readers import read_instance
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.objective import Objective
from streamplace.model.reconfiguration import Current


@dataclass(frozen=True)
class Opened:
    app: Application
    infra: Infrastructure
    objective: Objective
    current: Current | None = None


def open_inputs(application: str, infrastructure: str, *, objective: str | None = None,
                weights: str | None = None, network_metric: str | None = None,
                target_utilization: float | None = None, current: str | None = None,
                max_moves: float | None = None, ignore_names: bool = False) -> Opened:
    """Read and check the shared inputs. The flags' values are checked before the
    application and infrastructure are read, so a typo in a flag fails at once."""
    opts.check_target_utilization(target_utilization)
    goal = opts.build_objective(objective, weights, network_metric)
    app, infra = read_instance(application, infrastructure)
    app = app.with_target_utilization(target_utilization)
    return Opened(app, infra, goal,
                  opts.read_current(current, max_moves, app, infra, not ignore_names))
