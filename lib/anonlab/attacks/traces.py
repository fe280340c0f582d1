"""Daily location traces dominated by home and work, and the home/work-only guess (F&W §3.2).

Xu et al. (2017) recover hourly trajectories from aggregated mobility data with 73-91 % accuracy; Francis & Wagner
argue that home and work, which the adversary knows, fill about 18 of 24 hours. Simulated per person and day: a
workday leaves home around ``leave_hour``, works about ``work_hours`` (normal, sd ``hours_sd``, rounded), then spends
what brings home time to about ``home_hours`` at other places (of ``n_places``); a day off (share ``days_off``) is
spent at home. :func:`home_work_guess_accuracy` scores "home outside working hours, work during them".

>>> tr = simulate_traces(200, seed=0)
>>> tr.locations.shape
(200, 7, 24)
>>> 0.5 < float(home_work_guess_accuracy(tr).mean()) <= 1.0
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_int, check_number, check_random_state

__all__ = ["Traces", "simulate_traces", "home_work_guess", "home_work_guess_accuracy", "home_work_share",
           "home_work_hours", "trace_summary"]

HOME, WORK = 0, 1  # location codes; other places are 2, 3, ...


def home_work_share(home_hours: float, work_hours: float, day_hours: float = 24.0) -> float:
    """F&W §3.2's arithmetic: the share of a day spent at home or work.

    >>> home_work_share(10, 8)
    0.75
    """
    check_number("home_hours", home_hours, low=0, high=day_hours)
    check_number("work_hours", work_hours, low=0, high=day_hours - home_hours)
    return (home_hours + work_hours) / day_hours


@dataclass(frozen=True)
class Traces:
    """Simulated traces: ``locations`` (people × days × 24; 0 home, 1 work, ≥ 2 other), ``workday`` (people × days)."""

    locations: np.ndarray
    workday: np.ndarray
    work_start: int
    work_hours: float


def simulate_traces(n_people: int, *, days: int = 7, home_hours: float = 10.0, work_hours: float = 8.0,
                    hours_sd: float = 1.5, leave_hour: int = 8, days_off: float = 2 / 7, n_places: int = 50,
                    seed: int | np.random.Generator | None = 0) -> Traces:
    """Draw hourly traces (see the module docstring for the model)."""
    check_int("n_people", n_people, low=1)
    check_int("days", days, low=1)
    check_number("hours_sd", hours_sd, low=0)
    check_number("days_off", days_off, low=0, high=1)
    check_int("n_places", n_places, low=1)
    home_work_share(home_hours, work_hours)
    rng = check_random_state(seed)
    shape = (n_people, days)
    workday = rng.random(shape) >= days_off
    work = np.where(workday, np.clip(np.rint(rng.normal(work_hours, hours_sd, shape)), 0, 16), 0)
    home_mean = np.where(workday, home_hours, home_hours + work_hours)  # a day off is spent at home
    home = np.clip(np.rint(rng.normal(home_mean, hours_sd, shape)), 6, 24 - work)
    other = 24 - work - home
    # awake-away hours: the day starts at home; away hours begin at leave (±1 h)
    leave = np.clip(leave_hour + rng.integers(-1, 2, shape), 0, 23)
    hour = np.arange(24)
    away_start = np.minimum(leave, 24 - work - other)
    rel = hour[None, None, :] - away_start[..., None]
    loc = np.full((n_people, days, 24), HOME, dtype=np.int64)
    at_work = (rel >= 0) & (rel < work[..., None])
    at_other = (rel >= work[..., None]) & (rel < (work + other)[..., None])
    places = 2 + rng.integers(0, n_places, size=(n_people, days, 24))
    loc[at_work] = WORK
    loc[at_other] = places[at_other]
    return Traces(loc, workday, int(leave_hour), float(work_hours))


def home_work_guess(traces: Traces, assume_workdays: bool = True) -> np.ndarray:
    """The guess: work from ``work_start`` for ``work_hours`` hours, home otherwise.

    Every day, or (``assume_workdays=False``) only on the person's workdays.
    """
    n, d, _ = traces.locations.shape
    hour = np.arange(24)
    at_work = (hour >= traces.work_start) & (hour < traces.work_start + round(traces.work_hours))
    guess = np.where(at_work, WORK, HOME)[None, None, :].repeat(n, 0).repeat(d, 1)
    if not assume_workdays:
        guess[~traces.workday] = HOME
    return guess


def home_work_guess_accuracy(traces: Traces, assume_workdays: bool = True) -> np.ndarray:
    """Per person: the share of hours whose location the home/work guess gets right (Xu et al.'s accuracy)."""
    guess = home_work_guess(traces, assume_workdays)
    return (guess == traces.locations).mean(axis=(1, 2))


def home_work_hours(traces: Traces) -> np.ndarray:
    """Per person: the share of hours spent at home or work.

    The accuracy of a recovered trace that gets every home and work hour right and every other place wrong: the part
    of Xu et al.'s accuracy that needs nothing the adversary did not already know (F&W §3.2).
    """
    return np.isin(traces.locations, (HOME, WORK)).mean(axis=(1, 2))


def trace_summary(n_people: int, home_hours: float, work_hours: float, seed: int) -> dict[str, float]:
    """F&W §3.2 on simulated traces: share of hours at home/work, and the fixed-schedule guess's accuracy.

    ``home_work_hours_low`` / ``_high``: the 95 % interval of the mean share over the simulated people (normal
    approximation, people independent).
    """
    tr = simulate_traces(n_people, home_hours=home_hours, work_hours=work_hours, seed=seed)
    share = home_work_hours(tr)
    half = 1.959964 * float(share.std(ddof=1)) / np.sqrt(len(share)) if len(share) > 1 else np.inf
    return {"arithmetic": home_work_share(home_hours, work_hours),
            "home_work_hours": float(share.mean()),
            "home_work_hours_low": float(share.mean() - half), "home_work_hours_high": float(share.mean() + half),
            "guess_accuracy": float(home_work_guess_accuracy(tr).mean()),
            "guess_accuracy_knowing_days_off": float(home_work_guess_accuracy(tr, assume_workdays=False).mean())}
