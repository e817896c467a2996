"""Each source's offered load over the next windows: the seasonal pattern found in its
history (or the season ``--season`` gives), its trend, and the band of uncertainty around
them, fitted by statsmodels (STL to take the season out, then an exponential-smoothing model
with a damped trend: its prediction interval is the upper band); then what the team knows
(``--forecast FILE``: rates from a time on, events that multiply them). statsmodels is loaded
here only, when a loop plans ahead.

How good a forecast is, is measured, not assumed: each window read is set against what the
last forecast said of it, and the loop plans ahead only while the recent error stays within
``--forecast-max-error`` (it falls back to the reactive rule otherwise, and says so).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass, field

import numpy as np

from streamplace.control.autoscale.history import series
from streamplace.model.forecast import ForecastFile
from streamplace.model.state import ERRORS_KEPT, Forecasted, Memory

LEAST = 8          # windows of history before a source is forecast at all
MOST = 4000        # the most windows a model is fitted on
BAND = 0.2         # two-sided: the upper band is the 90th percentile
SEASONAL = 0.3     # the autocorrelation a season must show to be taken as one
TRUSTED_OVER = 12  # windows the forecast's record is judged over, and the share of them
OFF_ALLOWED = 1 / 6  # that may be off: a load that changes unforeseen every few windows is
# forecast well between its changes, and not trusted; one noisy reading is outlived
HELD = 24          # forecasts held per source, each of a horizon's windows


@dataclass(frozen=True)
class SourceForecast:
    mean: list[float]
    upper: list[float]
    how: str


@dataclass(frozen=True)
class Forecast:
    """The next ``len(mean)`` windows of every source, from ``start`` (Unix time) on."""

    start: float
    step: float
    sources: dict[str, SourceForecast]
    said: list[str] = field(default_factory=list)

    @property
    def windows(self) -> int:
        return min((len(f.mean) for f in self.sources.values()), default=0)


def forecast(memory: Memory, sources: list[str], now: float, step: float, horizon: int,
             season: float | None, known: ForecastFile | None) -> Forecast | str:
    """The forecast of ``sources`` for ``horizon`` windows of ``step`` seconds from ``now``;
    or why there is none."""
    out: dict[str, SourceForecast] = {}
    said: list[str] = []
    for op in sources:
        y = _without_events(series(memory.history.get(op, []), step, now, MOST), known, op,
                            now, step)
        if len(y) < LEAST and known is None:
            return (f"{op}: {len(y)} window(s) of history, {LEAST} needed before its load is "
                    "forecast")
        try:
            mean, upper, how = _statistical(y, step, horizon, season) if len(y) >= LEAST \
                else (np.full(horizon, y[-1] if len(y) else 0.0), np.full(horizon, 0.0),
                      "no history")
        except (ValueError, ArithmeticError, np.linalg.LinAlgError) as exc:
            return f"{op}: its forecast could not be fitted ({type(exc).__name__}: {exc})"
        mean, upper, told = _known(known, op, now, step, mean, upper)
        how += told
        out[op] = SourceForecast([float(m) for m in mean],
                                 [float(max(u, m)) for u, m in zip(upper, mean, strict=True)],
                                 how)
        said.append(f"{op}: {how}")
    return Forecast(now, step, out, said)


def _statistical(y: np.ndarray, step: float, horizon: int, season: float | None,
                 ) -> tuple[np.ndarray, np.ndarray, str]:
    import pandas as pd
    from statsmodels.tsa.exponential_smoothing.ets import ETSModel
    from statsmodels.tsa.forecasting.stl import STLForecast

    period, found = _period(y, step, season)
    series_ = pd.Series(y, index=pd.RangeIndex(len(y)))
    settings = {"error": "add", "trend": "add", "damped_trend": True}
    with warnings.catch_warnings():  # convergence chatter of small samples
        warnings.simplefilter("ignore")
        if period:
            result = STLForecast(series_, ETSModel, model_kwargs=settings, period=period,
                                 robust=True).fit(fit_kwargs={"disp": False})
        else:
            result = ETSModel(series_, **settings).fit(disp=False)
        frame = result.get_prediction(start=len(y), end=len(y) + horizon - 1
                                      ).summary_frame(alpha=BAND)
    upper = frame[[c for c in frame.columns if c.endswith("_upper")][-1]].to_numpy()
    mean = np.maximum(frame["mean"].to_numpy(), 0.0)
    return mean, np.maximum(upper, mean), found


def _period(y: np.ndarray, step: float, season: float | None) -> tuple[int, str]:
    """The season in windows, and how it was found; 0 where there is none to use."""
    if season is not None:
        period = max(2, round(season / step))
        if len(y) < 2 * period:
            return 0, (f"damped trend: the season given ({season:g} s, {period} windows) "
                       f"needs {2 * period} windows of history, {len(y)} held")
        return period, f"season given ({period} windows) with a damped trend"
    if len(y) < 3 * LEAST or float(np.std(y)) == 0.0:
        return 0, "damped trend (no season found yet)"
    from statsmodels.tsa.stattools import acf

    lags = acf(y, nlags=len(y) // 2, fft=True)
    peaks = [k for k in range(2, len(lags) - 1)
             if lags[k] >= SEASONAL and lags[k] >= lags[k - 1] and lags[k] >= lags[k + 1]]
    if not peaks:
        return 0, "damped trend (no season found)"
    period = max(peaks, key=lambda k: lags[k])
    return period, (f"season found in the history ({period} windows, autocorrelation "
                    f"{lags[period]:.2f}) with a damped trend")


def _without_events(y: np.ndarray, known: ForecastFile | None, op: str, now: float,
                    step: float) -> np.ndarray:
    """The history with the file's events divided out of the windows they ran in: the
    model forecasts the load without them and :func:`_known` multiplies them back in (else
    an event under way would be counted twice: in the trend it lifts, and as itself)."""
    if known is None or not len(y):
        return y
    ends = now - step * np.arange(len(y))[::-1]  # each reading at its window's end
    factors = np.array([max(known.factor(op, at) for at in (end - step, end - step / 2,
                                                            end - 1e-6)) for end in ends])
    return y / np.where(factors > 0, factors, 1.0)


def _known(known: ForecastFile | None, op: str, now: float, step: float, mean: np.ndarray,
           upper: np.ndarray) -> tuple[np.ndarray, np.ndarray, str]:
    """What the forecast file says of each window: its rate where it gives one, times the
    events that run in the window (its largest factor over the window)."""
    if known is None:
        return mean, upper, ""
    mean, upper = mean.copy(), upper.copy()
    told: set[str] = set()
    for t in range(len(mean)):
        begins = now + t * step
        rate = known.rate(op, begins)
        if rate is not None:
            spread = upper[t] - mean[t]
            mean[t], upper[t] = rate, rate + spread
            told.add("its rates")
        times = (begins, begins + step / 2, begins + step - 1e-6)
        factor = max(known.factor(op, at) for at in times)
        if factor != 1.0:
            mean[t], upper[t] = mean[t] * factor, upper[t] * factor
            told.update(e for at in times for e in known.said(op, at))
    return mean, upper, (f"; the forecast file: {', '.join(sorted(told))}" if told else "")


def measure(memory: Memory, offered: dict[str, float], now: float, step: float) -> None:
    """Set the window just read against what every forecast still held said of it (the one
    made a window before as the one made a horizon before: a plan rests on them all): the
    worst source's mean error joins the memory's."""
    worst = None
    for op, rate in offered.items():
        kept = memory.forecasts.get(op, [])
        due = [f for f in kept if abs(f.at - now) <= step / 2]
        if due:
            error = sum(abs(rate - f.mean) / max(rate, f.mean, 1e-9) for f in due) / len(due)
            worst = error if worst is None else max(worst, error)
        memory.forecasts[op] = [f for f in kept if f.at > now + step / 2]
    if worst is not None:
        memory.errors = [*memory.errors, float(f"{worst:.4g}")][-ERRORS_KEPT:]


def keep(memory: Memory, made: Forecast) -> None:
    """The forecast, held beside the earlier ones until its windows are read."""
    for op, f in made.sources.items():
        new = [Forecasted(at=made.start + (t + 1) * made.step, ahead=t + 1,
                          mean=float(f"{m:.6g}"), upper=float(f"{u:.6g}"))
               for t, (m, u) in enumerate(zip(f.mean, f.upper, strict=True))]
        memory.forecasts[op] = [*memory.forecasts.get(op, []), *new][-HELD * len(new):]


def recent_error(memory: Memory) -> float | None:
    """The mean error over the last windows measured; None before any."""
    last = memory.errors[-TRUSTED_OVER:]
    return sum(last) / len(last) if last else None


def trusted(memory: Memory, most: float) -> tuple[bool, str]:
    """Whether the forecast may be planned on: the last TRUSTED_OVER windows were read
    against it, and no more than one in six of them was forecast more than ``most`` off;
    and what its record says."""
    last = memory.errors[-TRUSTED_OVER:]
    if len(last) < TRUSTED_OVER:  # a record of a flat start says nothing of the changes
        return False, (f"{len(last)} window(s) read against their forecast, {TRUSTED_OVER} "
                       "needed before it is planned on")
    off = sum(1 for e in last if not (math.isfinite(e) and e <= most))
    mean = sum(last) / len(last)
    said = (f"the last {len(last)} window(s) were forecast {mean:.0%} off (every forecast "
            f"made of them), {off} of them more than --forecast-max-error {most:g}")
    if off <= int(len(last) * OFF_ALLOWED):
        return True, said
    return False, f"{said}: more than one in six"
