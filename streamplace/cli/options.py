"""Reading command-line values, each checked before any work starts: objectives from flags,
thresholds with units, solver settings, and method parameters (docs/cli.md).

Errors name the flag and say how to fix it; the library reports parameters by name, and
:func:`as_flags` turns those names into the flags a user typed.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from typing import get_args

from streamplace.errors import InputError, Problem
from streamplace.io.readers import read_objective, read_plan_for
from streamplace.model.application import Application
from streamplace.model.infrastructure import Infrastructure
from streamplace.model.metrics import Metric, MetricLimits, Term, term_named
from streamplace.model.objective import NetworkMetric, Objective, Weights
from streamplace.model.plan import Plan
from streamplace.model.reconfiguration import Current
from streamplace.model.units import Dimension, UnitError, parse_quantity
from streamplace.model.validation import foreign_names
from streamplace.solve.method import Method, Setting, Value
from streamplace.solve.registry import model_of, read_options
from streamplace.solve.result import HighsValue, MipSolver

FLAGS = {Setting.TIME_LIMIT: "--time-limit", Setting.GAP: "--gap", Setting.SEED: "--seed",
         Setting.THREADS: "--threads", Setting.FORMULATION: "--formulation",
         Setting.SOLVER: "--solver", Setting.START: "--start",
         Setting.CURRENT: "--current", Setting.LIMITS: "--max-*/--min-availability"}
MAX_SEED = 2**31 - 1  # HiGHS's random_seed range
MAX_THREADS = 256


def parse_weights(text: str) -> Weights:
    """``r=0.5,c=0.5`` (or full term names) -> Weights; unnamed terms weigh 0.

    >>> parse_weights("r=1").response_time
    1.0
    """
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        term = term_named(key.strip())
        if not sep or term is None:
            raise InputError.single(f"cannot read weight {part!r}",
                                    "write r=..,a=..,c=..,z=..,m=.. (response time, "
                                    "availability, cost, network, reconfiguration)",
                                    path="--weights")
        if term in values:
            raise InputError.single(f"the {term} weight is given twice",
                                    "give each term once", path="--weights")
        try:
            values[term] = parse_quantity(raw.strip(), "plain")
        except UnitError as exc:
            raise InputError.single(str(exc), "write a non-negative number",
                                    path="--weights") from None
        if not math.isfinite(values[term]) or values[term] < 0:
            raise InputError.single(f"weight {key} is {values[term]:g}",
                                    "use finite weights >= 0", path="--weights")
    if sum(v for t, v in values.items() if t != Term.RECONFIGURATION) <= 0:
        raise InputError.single("every weight of r, a, c and z is 0",
                                "give one of them a positive weight", path="--weights")
    return Weights(**values)


def build_objective(path: str | None, weights: str | None,
                    network_metric: str | None) -> Objective:
    """The objective file's, or one from ``--weights`` / ``--network-metric``."""
    if path and weights:
        raise InputError.single("--weights and --objective both give weights",
                                "put the weights in the objective file, or drop --objective",
                                path="--weights")
    objective = read_objective(path) if path else Objective()
    updates: dict[str, object] = {}
    if weights:
        updates["weights"] = parse_weights(weights)
    if network_metric:
        allowed = get_args(NetworkMetric)
        if network_metric not in allowed:
            raise InputError.single(f"unknown network metric {network_metric!r}",
                                    f"use one of {', '.join(allowed)}", path="--network-metric")
        updates["network_metric"] = network_metric
    return objective.model_copy(update=updates)


def parse_limit(text: str | None, option: str, dimension: Dimension,
                high: float | None = None) -> float | None:
    """A threshold: a finite number >= 0 (at most ``high``), optionally with a unit."""
    if text is None:
        return None
    try:
        value = parse_quantity(text, dimension)
    except UnitError as exc:
        raise InputError.single(str(exc), "write a number, optionally with a unit",
                                path=option) from None
    if not math.isfinite(value) or value < 0 or (high is not None and value > high):
        span = f"between 0 and {high:g}" if high is not None else "a finite number >= 0"
        raise InputError.single(f"{text!r} is out of range", f"write {span}", path=option)
    return value


def limit_flags(max_response_time: str | None, min_availability: str | None,
                max_cost: str | None, max_traffic: str | None, max_network_usage: str | None,
                max_elastic_energy: str | None) -> MetricLimits:
    """Hard limits on metrics from the limit flags, in the order commands declare them."""
    return read_limits(limit_values(max_response_time, min_availability, max_cost, max_traffic,
                                    max_network_usage, max_elastic_energy))


def limit_values(max_response_time: str | None, min_availability: str | None,
                 max_cost: str | None, max_traffic: str | None, max_network_usage: str | None,
                 max_elastic_energy: str | None) -> dict[Metric, str | None]:
    """The limit flags' texts by metric, not yet read."""
    return {Metric.RESPONSE_TIME: max_response_time, Metric.AVAILABILITY: min_availability,
            Metric.COST: max_cost, Metric.TRAFFIC: max_traffic,
            Metric.NETWORK_USAGE: max_network_usage, Metric.ELASTIC_ENERGY: max_elastic_energy}


def read_limits(given: Mapping[Metric, str | None]) -> MetricLimits:
    """Hard limits on metrics from the limit flags (``--max-cost`` ...), each read in its
    metric's units; availability is a probability."""
    bounds = {}
    for metric, text in given.items():
        value = parse_limit(text, metric.flag, metric.dimension,
                            high=1.0 if metric.higher_is_better else None)
        if value is not None:
            bounds[metric] = value
    return MetricLimits(bounds)


def check_target_utilization(rho: float | None) -> None:
    if rho is not None and not (math.isfinite(rho) and 0 < rho <= 1):
        raise InputError.single(f"--utilization-target {rho:g} is not in (0, 1]",
                                "write e.g. --utilization-target 0.7 (Flink's autoscaler "
                                "default)", path="--utilization-target")


def check_settings(time_limit: float | None, gap: float | None, threads: int | None,
                   seed: int | None) -> None:
    """The general solver settings, each within its range."""
    if time_limit is not None and not (math.isfinite(time_limit) and time_limit > 0):
        raise InputError.single(f"time limit {time_limit:g} is not a positive number of "
                                "seconds", "write e.g. --time-limit 60", path="--time-limit")
    if gap is not None and not (math.isfinite(gap) and 0 <= gap < 1):
        raise InputError.single(f"gap {gap:g} is not a relative gap in [0, 1)",
                                "write e.g. --gap 0.01 for 1%", path="--gap")
    if threads is not None and threads < 1:
        raise InputError.single(f"threads {threads} is below 1", "write --threads 1 or more",
                                path="--threads")
    if threads is not None and threads > MAX_THREADS:
        # HiGHS starts every thread asked for, and aborts in C++ past what the system allows
        raise InputError.single(f"threads {threads} is above {MAX_THREADS}",
                                f"write --threads {os.cpu_count() or 1} (this machine's "
                                f"cores), at most {MAX_THREADS}", path="--threads")
    if seed is not None and not 0 <= seed <= MAX_SEED:
        raise InputError.single(f"seed {seed} is out of range",
                                f"use a seed between 0 and {MAX_SEED}", path="--seed")


def check_applies(method: Method, given: Mapping[Setting, object]) -> None:
    """Every setting the user gave explicitly must be one the method honours."""
    for setting, value in given.items():
        if value is not None and setting not in method.settings:
            takes = ", ".join(FLAGS[s] for s in Setting if s in method.settings) or "nothing"
            raise InputError.single(f"{FLAGS[setting]} does not apply to {method.name}",
                                    f"drop it; {method.name} takes {takes}",
                                    path=FLAGS[setting])


def method_options(method: Method, pairs: list[str], solver: MipSolver,
                   ) -> tuple[dict[str, Value], dict[str, HighsValue]]:
    """``--solver-option name=value`` pairs, read by the catalog (:func:`read_options`)."""
    given: list[tuple[str, str]] = []
    for pair in pairs:
        name, sep, raw = (part.strip() for part in pair.partition("="))
        if not sep or not name:
            raise InputError.single(f"cannot read solver option {pair!r}", "write name=value",
                                    path="--solver-option")
        given.append((name, raw))
    return read_options(method, given, solver)


def model_format(path: str | None) -> str | None:
    """``mps`` or ``lp`` from a --dump-model file name."""
    if path is None:
        return None
    suffix = path.rsplit(".", 1)[-1].lower() if "." in path else ""
    if suffix not in ("mps", "lp"):
        raise InputError.single(f"cannot tell the model format of {path!r}",
                                "name the file *.mps or *.lp", path="--dump-model")
    return suffix


def check_max_moves(path: str | None, max_moves: float | None, several: bool = False) -> bool:
    """``--max-moves`` is a budget >= 0, and needs ``--current``; whether one was given."""
    if max_moves is not None and not (math.isfinite(max_moves) and max_moves >= 0):
        raise InputError.single(f"--max-moves {max_moves:g} is not a budget >= 0",
                                "write e.g. --max-moves 2", path="--max-moves")
    if path is None and max_moves is not None:
        raise InputError.single(
            f"--max-moves needs the {'plans' if several else 'plan'} that run"
            f"{'' if several else 's'} now",
            f"add --current {'BUNDLE' if several else 'PLAN'}", path="--max-moves")
    return path is not None


def read_current(path: str | None, max_moves: float | None, app: Application,
                 infra: Infrastructure, same_instance: bool) -> Current | None:
    """The plan that runs now (``--current``) and the reconfiguration budget."""
    if not check_max_moves(path, max_moves):
        return None
    assert path is not None
    plan = read_plan_for(path, app, infra)
    if same_instance:
        check_plan_names(plan, app, infra)
    return Current({op: plan.replicas(op) for op in app.operator_ids}, max_moves,
                   source=f"the current plan {path}")


def read_plan(path: str, app: Application, infra: Infrastructure,
              same_instance: bool = False) -> Plan:
    """A plan file, with the model family of the method that made it when the file names
    the method but not its model (plans written by hand, or by earlier versions).

    ``same_instance``: a plan that names another application or infrastructure is refused
    (what runs it, diffs it or re-plans from it would act on the wrong instance, its
    operators and nodes matching by accident); ``--ignore-names`` lifts this."""
    plan = read_plan_for(path, app, infra)
    if same_instance:
        check_plan_names(plan, app, infra)
    if plan.model is None and plan.method is not None:
        model = model_of(plan.method)
        if model is not None:
            plan = plan.model_copy(update={"model": model})
    return plan


def check_plan_names(plan: Plan, app: Application, infra: Infrastructure) -> None:
    """InputError at each field of ``plan`` that names another instance than ``app`` /
    ``infra`` (:func:`~streamplace.model.validation.foreign_names`)."""
    problems = [plan.problem(field, f"the plan was made for {field} {recorded!r}, not "
                             f"{actual!r}", f"give the {field} the plan was made for, "
                             f"re-solve for {actual!r}, or add --ignore-names if only the "
                             "name changed")
                for field, recorded, actual in foreign_names(plan, app, infra)]
    if problems:
        raise InputError(problems)


def as_flags(exc: InputError) -> InputError:
    """The library's problems about settings and parameters, located at their flags."""
    names = {s.value: flag for s, flag in FLAGS.items()} | {"method": "--method"}
    problems = []
    for p in exc.problems:
        if p.file is None and p.path and not p.path.startswith("-"):
            path = names.get(p.path, f"--solver-option {p.path}")
            p = Problem(p.message, p.fix, path=path, file=None, line=p.line)
        problems.append(p)
    return InputError(problems)
