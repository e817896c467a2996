"""Where a step's offered load comes from: rates the user gave, the sources' lag (the
backlog to work off within catch-up.duration), or what got through (a lower bound under
backpressure)."""

from __future__ import annotations

from typing import Any

from streamplace.control.autoscale.elasticity import Elasticity
from streamplace.control.autoscale.options import AutoscaleOptions
from streamplace.control.flink.read import metered_view
from streamplace.control.running.observation import Observation
from streamplace.control.running.offered import (
    Backlog,
    catch_up_targets,
    fill_stalled,
    offer,
    read_backlog,
)
from streamplace.errors import InputError

OBSERVED = "observed (a lower bound under backpressure)"


def offered_load(obs: Observation, snapshot: Any, o: AutoscaleOptions, measured_restart: float,
                 elasticity: Elasticity) -> tuple[str, Backlog | None]:
    """Where the offered load comes from, and the backlog where the sources report their
    lag; the lag's rates are applied to ``obs`` here. ``measured_restart``: the seconds the
    last rescale took (``restart.time`` where it is given)."""
    backlog = read_backlog(obs)
    if backlog is None:
        return OBSERVED, None
    restart = o.restart_time if o.restart_time is not None else measured_restart
    # odrp plans for the larger need, the Flink rule (and DS2 beside it) for their sum
    targets = catch_up_targets(backlog, o.catch_up_duration, restart,
                               o.utilization_target, larger=o.method == "odrp")
    bent = elasticity.fitted()
    fill_stalled(obs, metered_view(snapshot, obs.address))
    try:
        offer(obs, targets, "pendingRecords", bent)
    except InputError as exc:  # a source that sent nothing: its streams keep their rate
        obs.warnings.append(f"the lag could not be applied: {exc}")
        return OBSERVED, backlog
    said = ", ".join(f"{op} {rate:.4g}/s" for op, rate in targets.items())
    if bent:  # measured, so said: a prediction downstream rests on it
        said += "; outputs measured to grow as input^e: " + ", ".join(
            f"{op} e={e:.2f}" for op, e in sorted(bent.items()))
    return (f"from the sources' pendingRecords, with the backlog worked off over "
            f"{o.catch_up_duration:g} s and a restart of {restart:.3g} s at full capacity "
            f"(planned for: {said})"), backlog
