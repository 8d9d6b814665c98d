"""Series generators shared by the calibration benchmarks and the calibration tests.

Every generator returns a (reps, n) array; stationary ones have marginal SD 1 where a
closed form gives it.  ``rng`` is a numpy Generator.
"""

import numpy as np
from scipy.signal import fftconvolve, lfilter


def ar1(phi, n, rng, reps):
    """Stationary AR(1) with marginal SD 1 (burn-in discarded)."""
    burn = 0 if phi == 0 else int(min(50 / (1 - abs(phi)), 5000))
    x = lfilter([1.0], [1.0, -phi], rng.normal(size=(reps, n + burn)), axis=-1)[:, burn:]
    return x * np.sqrt(1 - phi ** 2)


def arma11(phi, theta, n, rng, reps, burn=500):
    x = lfilter([1.0, theta], [1.0, -phi], rng.normal(size=(reps, n + burn)), axis=-1)[:, burn:]
    return x / np.sqrt((1 + 2 * phi * theta + theta ** 2) / (1 - phi ** 2))


def garch(n, rng, reps, omega=0.01, a=0.05, b=0.94, burn=2000):
    """GARCH(1,1) with unit unconditional variance when omega = 1 - a - b."""
    z = rng.normal(size=(reps, n + burn))
    x = np.empty_like(z)
    h = np.full(reps, omega / (1 - a - b))
    previous = np.zeros(reps)
    for t in range(n + burn):
        h = omega + a * previous ** 2 + b * h
        x[:, t] = np.sqrt(h) * z[:, t]
        previous = x[:, t]
    return x[:, burn:]


def arfima(d, n, rng, reps, lags=4000):
    """Fractionally integrated noise (long memory), truncated MA(infinity), SD ~ 1."""
    k = np.arange(1, lags)
    weights = np.r_[1.0, np.cumprod((k - 1 + d) / k)]
    x = fftconvolve(rng.normal(size=(reps, n + lags)), weights[None, :], axes=1)[:, lags:lags + n]
    return x / np.sqrt(np.sum(weights ** 2))


def running_mean(rows, n, rng, reps):
    """A logged running mean: each row the mean of the last ``rows`` rows' worth of white
    noise (SD 1), as SB3 logs ``rollout/ep_rew_mean`` - the mean of the last 100 episodes,
    here 100 / ``rows`` episodes per row.  Its autocorrelation time is ``rows``."""
    noise = rng.normal(size=(reps, n + rows))
    sums = np.cumsum(noise, axis=1)
    return (sums[:, rows:] - sums[:, :-rows]) / np.sqrt(rows)


def slow_plus_noise(n, rng, reps):
    """A slow AR(0.99) component (SD 0.3) under unit white noise: a skill level that wanders
    under episode noise.  Short memory, but only ARMA(1,1) describes its spectrum."""
    return 0.3 * ar1(0.99, n, rng, reps) + rng.normal(size=(reps, n))


def stationary(kind, n, rng, reps):
    """The awkward stationary series of the calibration table."""
    if kind.startswith("ar") and kind != "arma":
        return ar1(float(kind[2:]), n, rng, reps)
    if kind == "bernoulli":
        return rng.binomial(1, 0.3, size=(reps, n)).astype(float)
    if kind == "poisson":
        return rng.poisson(3.0, size=(reps, n)).astype(float)
    if kind == "t2.5":
        return rng.standard_t(2.5, size=(reps, n))
    if kind == "bounded":
        return rng.beta(0.5, 0.5, size=(reps, n))
    if kind == "arma":
        return arma11(0.7, -0.3, n, rng, reps)
    if kind == "periodic":
        t = np.arange(n)
        return np.sin(2 * np.pi * t / 50 + rng.uniform(0, 2 * np.pi, (reps, 1))) + ar1(0.5, n, rng, reps)
    if kind == "garch":
        return garch(n, rng, reps, omega=0.1, a=0.1, b=0.8)
    if kind == "garch-persistent":
        return garch(n, rng, reps)
    raise ValueError(kind)


#: skewed stationary noise, with the true mean and the side the bulk sits on (+1 above the
#: mean, -1 below): rare crashes (a crash landing), a 97% success rate, a log-normal score
SKEWED = {"crash": (-0.3, 1), "success": (0.97, 1), "lognormal": (float(np.exp(0.5)), -1)}


def skewed(kind, n, rng, reps):
    """Stationary series whose rare values sit far on one side (see ``SKEWED``)."""
    if kind == "crash":
        return rng.normal(size=(reps, n)) - 10.0 * (rng.random((reps, n)) < 0.03)
    if kind == "success":
        return (rng.random((reps, n)) < 0.97).astype(float)
    if kind == "lognormal":
        return rng.lognormal(0.0, 1.0, size=(reps, n))
    raise ValueError(kind)


STATIONARY = ("ar0", "ar0.5", "ar0.9", "ar0.97", "bernoulli", "poisson", "t2.5", "bounded",
              "arma", "periodic", "garch", "garch-persistent")


def seeds_case(n, phi, rng, reps):
    """The seeds' run: reward 0.49 rising 0.11 per 100 steps, noise SD 0.08 (AR(1) phi)."""
    return 0.49 + 0.0011 * np.arange(n) + 0.08 * ar1(phi, n, rng, reps)


def learning_curve(tau, phi, n, rng, reps, amplitude=3.0):
    """amplitude * (1 - exp(-t / tau)) + AR(1) noise of marginal SD 1."""
    return amplitude * (1 - np.exp(-np.arange(n) / tau)) + ar1(phi, n, rng, reps)


def late_drop(n, rng, reps, phi=0.5, fraction=0.1, size=1.0):
    x = ar1(phi, n, rng, reps)
    x[:, n - int(fraction * n):] -= size
    return x


def tuning_curve(design, x, steps, sd, rng, phi=0.5):
    """One trial of a simulated hyperparameter search: ``(reports, true final value)``.

    ``design="learning_rate"``: x = log10(learning rate) in [-4, -1]; time constant 0.2 / lr
    (1e-4 barely learns in 200 steps), asymptote 3 - 2 max(0, x + 2.5)^2 (too large a rate
    settles low, or diverges below zero).  ``design="crossing"``: x in [0, 1]; asymptote
    3 - 4 (x - 0.7)^2 and time constant 5 + 40 x, so the best configurations are the slow
    starters and the curves cross.  Noise: AR(1) with marginal SD ``sd``.
    """
    t = np.arange(1, steps + 1)
    if design == "learning_rate":
        tau, asymptote = 0.2 / 10.0 ** x, 3.0 - 2.0 * max(0.0, x + 2.5) ** 2
    elif design == "crossing":
        tau, asymptote = 5.0 + 40.0 * x, 3.0 - 4.0 * (x - 0.7) ** 2
    else:
        raise ValueError(design)
    mean = asymptote * (1.0 - np.exp(-t / tau))
    return mean + sd * ar1(phi, steps, rng, 1)[0], float(mean[-1])


TUNING_RANGES = {"learning_rate": (-4.0, -1.0), "crossing": (0.0, 1.0)}


def proxy_outcome_pair(rng, *, shape="flat", gap=15.0, proxy_share=0.5, steps=1000, every=10, onset=0.5,
                       time_constant=1000.0, phi=0.5, outcome_noise="normal"):
    """A dense proxy and a sparse outcome (``swarmstats.divergence``): ``(proxy, outcome,
    onset step)`` as Series indexed by step.

    The proxy's mean rises as 1 - exp(-t / time_constant) (still rising at the end with the
    default; a straight line t / steps with ``time_constant=inf``), with AR(``phi``) noise; the outcome is evaluated every ``every`` steps and equals
    the proxy's mean until ``onset`` x steps, then stays ``"flat"``, ``"falls"`` as fast as the
    proxy rises, or (``"none"``) keeps following it.  ``gap``: the final gap in SDs of the
    outcome's prediction from the proxy - the outcome's own noise and the proxy's noise averaged
    over one evaluation's window, the latter a ``proxy_share`` of the variance.  With
    ``shape="none"`` the noise is set as for a divergence of that size.  ``outcome_noise``:
    "normal", "t3" (Student-t, 3 dof, unit variance) or "ar0.3" (autocorrelated evaluations).
    """
    import pandas as pd

    t = np.arange(1, steps + 1, dtype=float)
    at = t[every - 1::every]
    def mean(step):
        return step / steps if np.isinf(time_constant) else 1.0 - np.exp(-step / time_constant)

    level = mean(at)
    start = onset * steps
    at_start = mean(start)
    final_gap = (level[-1] - at_start) * (2.0 if shape == "falls" else 1.0)
    prediction_sd = final_gap / gap
    # the variance of a mean of ``every`` consecutive AR(phi) values of marginal variance 1
    lags = np.arange(1, every)
    window_var = (every + 2.0 * np.sum((every - lags) * phi ** lags)) / every ** 2
    proxy_sd = prediction_sd * np.sqrt(proxy_share / window_var)
    outcome_sd = prediction_sd * np.sqrt(1.0 - proxy_share)
    proxy = mean(t) + proxy_sd * ar1(phi, steps, rng, 1)[0]
    truth = level.copy()
    after = at > start
    if shape == "flat":
        truth[after] = at_start
    elif shape == "falls":
        truth[after] = at_start - (level[after] - at_start)
    elif shape != "none":
        raise ValueError(shape)
    if outcome_noise == "normal":
        noise = rng.normal(size=len(at))
    elif outcome_noise == "t3":
        noise = rng.standard_t(3, size=len(at)) / np.sqrt(3.0)
    elif outcome_noise == "ar0.3":
        noise = ar1(0.3, len(at), rng, 1)[0]
    else:
        raise ValueError(outcome_noise)
    return pd.Series(proxy, index=t), pd.Series(truth + outcome_sd * noise, index=at), start


def agent_behaviour(rng, *, agents=2, steps=200, kind="switching", switch=0.03, noise=0.3, follow_lag=None,
                    phi=0.9):
    """Behaviour series of ``agents`` agents (``swarmstats.contagion``): a dict of arrays.

    ``kind="switching"``: each agent works (1) or idles (0), switching with probability
    ``switch`` per step, observed with Gaussian ``noise``; ``"ar"``: AR(``phi``) levels (slowly
    wandering, marginal SD 1); ``"walk"``: random walks.  With ``follow_lag`` L, agent 1 copies
    agent 0's state L steps later (its own switching replaced): the transfer to detect.
    """
    from scipy.signal import lfilter

    if kind == "switching":
        flips = rng.random((agents, steps + 50)) < switch
        states = (np.cumsum(flips, axis=1) + rng.integers(0, 2, (agents, 1))) % 2
        states = states[:, 50:].astype(float)
        if follow_lag is not None:
            states[1] = np.r_[states[1, :follow_lag], states[0, :steps - follow_lag]]
        values = states + noise * rng.normal(size=(agents, steps))
    elif kind == "ar":
        values = lfilter([1.0], [1.0, -phi], rng.normal(size=(agents, steps + 200)), axis=1)[:, 200:]
        values *= np.sqrt(1 - phi ** 2)
    elif kind == "walk":
        values = np.cumsum(rng.normal(size=(agents, steps)), axis=1)
    else:
        raise ValueError(kind)
    return {f"agent_{i}": values[i] for i in range(agents)}


def seeds_at_equilibria(rng, levels, *, seeds=10, steps=600, phi=0.5, transient=30.0, heterogeneity=0.25,
                        start=0.0):
    """Runs of one setting that settle at one of ``levels`` (``swarmstats.equilibria``): a dict
    of arrays, and each run's true level index.

    Each seed picks a level uniformly, approaches it from ``start`` with time constant
    ``transient``, and wanders around it with AR(``phi``) noise of marginal SD 1; its own level
    is off by ``heterogeneity`` SDs (seeds of one equilibrium are alike, not identical).
    """
    t = np.arange(steps)
    picks = rng.integers(0, len(levels), seeds)
    noise = ar1(phi, steps, rng, seeds)
    runs = {}
    for i, pick in enumerate(picks):
        level = levels[pick] + heterogeneity * rng.normal()
        runs[f"seed{i}"] = level + (start - level) * np.exp(-t / transient) + noise[i]
    return runs, picks


def team_evaluations(rng, *, units=30, sizes=(2, 3, 4), gap=-0.1, per_member=0.0, skill_sd=0.05, noise=0.1,
                     unit_sd=0.1, members_layout=True):
    """Team and solo outcomes (``swarmstats.synergy_gap``): a frame with one row per unit and
    team size, and the true gap to the best member per size.

    A pool of max(sizes) agents with skills 0.6 + ``skill_sd`` N(0, 1); a team of size s is the
    first s of them, and its outcome is its best member's skill + ``gap`` + ``per_member`` (s - 2);
    every outcome on a unit shares that unit's effect (SD ``unit_sd``) and has its own ``noise``.
    ``members_layout``: the members' solo outcomes in ``solo_<agent>`` columns; otherwise teams
    are copies of agent 0 and size-1 rows carry the solo outcome.
    """
    import pandas as pd

    pool = max(sizes)
    skills = 0.6 + skill_sd * rng.normal(size=pool)
    if not members_layout:
        skills[:] = skills[0]
    truth, rows = {}, []
    for unit in range(units):
        effect = unit_sd * rng.normal()
        solo = skills + effect + noise * rng.normal(size=pool)
        if not members_layout:
            rows.append({"unit": unit, "team_size": 1, "outcome": solo[0]})
        for size in sizes:
            truth[size] = gap + per_member * (size - 2)
            row = {"unit": unit, "team_size": size,
                   "outcome": skills[:size].max() + truth[size] + effect + noise * rng.normal()}
            if members_layout:
                row.update({f"solo_{i}": (solo[i] if i < size else np.nan) for i in range(pool)})
            rows.append(row)
    return pd.DataFrame(rows), truth


def agent_actions(rng, *, agents=8, steps=300, strategies=3, persistence=0.9, conform=(0.2, 0.2)):
    """Each agent's strategy per step (``swarmstats.agreement``): a steps x agents array.

    At every step an agent keeps its strategy with probability ``persistence``; otherwise it
    adopts the previous step's most common strategy with probability c(t), rising linearly from
    ``conform[0]`` to ``conform[1]`` (constant: a stationary agreement rate; rising: escalation),
    or picks one of ``strategies`` at random.
    """
    conformity = np.linspace(conform[0], conform[1], steps)
    state = rng.integers(0, strategies, agents)
    out = np.empty((steps, agents), dtype=int)
    for t in range(steps):
        majority = np.bincount(state, minlength=strategies).argmax()
        move = rng.random(agents) >= persistence
        follow = rng.random(agents) < conformity[t]
        state = np.where(move, np.where(follow, majority, rng.integers(0, strategies, agents)), state)
        out[t] = state
    return out
