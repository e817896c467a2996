"""One scenario, run the way ``streamplace solve`` runs it; its rows and plans. Never
raises: a scenario that fails is a row with its error, so a sweep always finishes.

This is the function Spark tasks call; it takes and returns plain data only.
"""

from __future__ import annotations

import time
import traceback

from streamplace.errors import InfeasibleError, InputError, StreamplaceError
from streamplace.solve.result import SolveStatus
from streamplace.sweep.analyses import max_rate, pareto_front
from streamplace.sweep.rows import (
    Outcome,
    Settings,
    bundle_outcome,
    failed,
    outcome,
    place_scenario_bundle,
    solve,
)
from streamplace.sweep.scenarios import Inputs, Scenario, bundle_of, instance_of


def run_scenario(inputs: Inputs, settings: Settings, scenario: Scenario) -> list[Outcome]:
    """The scenario's rows (one, or one per point of a front), errors included."""
    started = time.perf_counter()
    try:
        if settings.analysis == "max-rate":
            return [max_rate(inputs, settings, scenario)]
        if settings.analysis == "pareto":
            return pareto_front(inputs, settings, scenario)
        if scenario.arrivals:
            bundle = bundle_of(inputs, scenario)
            placed = place_scenario_bundle(bundle, scenario, settings)
            return [bundle_outcome(scenario, placed, bundle, settings)]
        instance = instance_of(inputs, scenario)
        result = solve(instance, scenario, settings.time_limit)
        return [outcome(scenario, result, settings)]
    except InfeasibleError as exc:
        return [failed(scenario, settings, SolveStatus.INFEASIBLE, str(exc), started)]
    except InputError as exc:
        return [failed(scenario, settings, SolveStatus.ERROR, str(exc), started)]
    except StreamplaceError as exc:
        return [failed(scenario, settings, SolveStatus.ERROR, str(exc), started)]
    except Exception as exc:  # a bug must not end the sweep: the row says where
        where = traceback.extract_tb(exc.__traceback__)[-1]
        return [failed(scenario, settings, SolveStatus.ERROR,
                       f"{type(exc).__name__}: {exc} ({where.filename}:{where.lineno})",
                       started)]

