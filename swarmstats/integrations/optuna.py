"""Optuna: a pruner that stops a trial only when its own curve shows it cannot win.

Optuna's ``MedianPruner`` stops a trial as soon as its best report is worse than the median of
the completed trials at the same step.  One low report of a jittery objective is enough
(optuna#1447), and so is a slow start: a trial that learns slowly but ends highest is behind
the median for most of its run.  In the simulated studies of ``docs/integrations.md`` (noisy
curves that cross) it pruned the trial that would have ended best in about half the studies.

:func:`pruner` compares where a trial *can still end* with where the completed trials *did*
end.  At each look it fits saturating curves a + b exp(-t / tau) to all the trial's reports,
from a jump to a straight line, and takes the end of the profile likelihood interval of the
curve's value at ``total_steps`` (or as far ahead again as the trial has run, when the end is
not given; :mod:`swarmstats._kernels.saturation`).  A curve that has levelled off gets a bound
near its level; a curve still climbing in a line keeps a bound that climbs with it, so a slow
starter is not pruned for being slow.  The noise's autocorrelation time is taken from the
completed trials' long curves when the running trial's few reports show less.  The trial is
pruned when that reach is

**beaten**: below the lower confidence bound of the best completed trial's final level (a
Bonferroni bound over the completed trials).  ``median_rule=True`` adds MedianPruner's
comparison at the same step, made with an interval (**behind**); it saves more steps and, like
MedianPruner, prunes slow starters, so it is off by default.

The k-th look at a trial spends alpha * k^-1.5 / zeta(1.5) of ``alpha`` (the streaming
monitor's rule, :func:`swarmstats.streaming.convergence_monitor.spent_alpha`), and the looks
come when the trial has ``growth`` more reports than at the previous one, so checking after
every report keeps the chance of pruning a trial whose curve would have ended above the
reference below ``alpha``.  No look comes before ``min_reports`` reports: one noisy report
never prunes.  A curve that speeds up later (a sigmoid, a delayed take-off) is outside the
family and can beat the bound; give such studies a larger ``min_reports`` or no pruner.

    import optuna
    from swarmstats.integrations.optuna import pruner

    study = optuna.create_study(direction="maximize", pruner=pruner(total_steps=200))
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._kernels.distributions import t_ppf
from .._kernels.precision import mean_precision
from .._kernels.saturation import Reach, saturation_reach
from .._kernels.verdict_tests import series_tau
from ..errors import InputError, check_count, check_level, check_positive
from ..streaming.convergence_monitor import spent_alpha
from . import require

__all__ = ["Decision", "PruneRule", "pruner"]


@dataclass(frozen=True)
class Decision:
    """One look at one trial: prune or not, by which rule, and why in words."""

    prune: bool
    rule: str        # "beaten", "behind", or "" when the trial goes on
    reason: str
    look: int        # the look's number for this trial (1-based; 0 before the first)
    reports: int     # how many reports the trial had


class PruneRule:
    """The pruning decision, free of Optuna: feed each trial's reports with :meth:`judge`.

    Parameters (keyword-only)
    -------------------------
    alpha : float, default 0.05
        Chance, over all looks at one trial, that its reach is wrongly put below a reference.
    n_startup_trials : int, default 5
        No pruning until this many trials have completed (they are the reference).
    min_reports : int, default 20
        No look before a trial has reported this many values.
    growth : float, default 0.25
        The next look comes when the trial has this fraction more reports.
    total_steps : float, optional
        The step a trial that is not pruned reaches; by default a trial is judged on where
        it can be after as many steps again as it has run.
    median_rule : bool, default False
        Also prune, as Optuna's MedianPruner does, a trial behind the completed trials' median
        at the same steps, but only when shown behind: the upper bound of its mean over its
        last half of reports (autocorrelation-aware) below their median over those steps.
        Off by default: it prunes slow starters that would have ended best (measured in
        docs/integrations.md).

    >>> rng = np.random.default_rng(0)
    >>> rule = PruneRule(n_startup_trials=1)
    >>> steps = np.arange(200.0)
    >>> done = {0: (steps, 3 + rng.normal(0, 1, 200))}          # a completed trial at 3
    >>> decision = rule.judge(1, steps[:60], rng.normal(0, 1, 60), done, better="higher")
    >>> decision.prune, decision.rule
    (True, 'beaten')
    """

    def __init__(self, *, alpha: float = 0.05, n_startup_trials: int = 5, min_reports: int = 20,
                 growth: float = 0.25, total_steps: float | None = None, median_rule: bool = False):
        check_level(alpha, "alpha")
        check_count("n_startup_trials", n_startup_trials)
        check_count("min_reports", min_reports)
        check_positive("growth", growth)
        if total_steps is not None:
            check_positive("total_steps", total_steps)
        if not isinstance(median_rule, bool):
            raise InputError(f"median_rule must be True or False, got {median_rule!r}")
        if min_reports < 10:
            raise InputError(f"min_reports must be at least 10 (a curve is fitted to them), "
                             f"got {min_reports}")
        self.alpha = alpha
        self.n_startup_trials = n_startup_trials
        self.min_reports = int(min_reports)
        self.growth = growth
        self.total_steps = total_steps
        self.median_rule = median_rule
        self._looks: dict = {}       # trial id -> (looks so far, reports at which the next comes)
        self._finals: list = []      # the completed trials' final levels (Reach)
        self._finals_key = None
        self._curves: list = []      # the completed trials' (steps, values), finite and in order
        self.decisions: dict = {}    # trial id -> the latest Decision

    def judge(self, trial, steps, values, completed: dict, *, better: str) -> Decision:
        """The decision for ``trial`` (any hashable id) with reports ``values`` at ``steps``;
        ``completed`` maps each completed trial's id to its (steps, values)."""
        if better not in ("higher", "lower"):
            raise InputError(f"better must be 'higher' or 'lower', got {better!r}")
        steps, values = _finite_reports(steps, values)
        looks, due = self._looks.get(trial, (0, self.min_reports))
        if len(values) < due:  # judged at scheduled looks only: each look spends alpha
            return Decision(False, "", "", looks, len(values))
        looks += 1
        self._looks[trial] = (looks, max(len(values) + 1, math.ceil(len(values) * (1 + self.growth))))
        finals = self._finals_of(completed, better)
        decision = None
        if len(finals) >= self.n_startup_trials:
            decision = self._decide(steps, values, finals, better, looks)
        decision = decision or Decision(False, "", "", looks, len(values))
        self.decisions[trial] = decision
        return decision

    def due(self, trial, reports: int) -> bool:
        """Whether ``reports`` reports would bring ``trial``'s next look (without taking it)."""
        return reports >= self._looks.get(trial, (0, self.min_reports))[1]

    def forget(self, trial) -> None:
        """Drop a finished trial's schedule (its last decision stays in ``decisions``)."""
        self._looks.pop(trial, None)

    def _decide(self, steps, values, finals: list, better: str, looks: int) -> Decision | None:
        higher = better == "higher"
        level = spent_alpha(self.alpha, looks)
        first, last = float(steps[0]), float(steps[-1])
        end = self.total_steps if self.total_steps is not None else last + (last - first)
        # a running trial's few reports underestimate how long its noise remembers; the
        # completed trials' long curves of the same objective know better
        memory = float(np.median([final.autocorr_time for final in finals]))
        at_end = saturation_reach(steps, values, max(end, last), level, upper=higher,
                                  min_autocorr_time=memory)
        now = saturation_reach(steps, values, last, level, upper=higher, min_autocorr_time=memory)
        reach = max(at_end.bound, now.bound) if higher else min(at_end.bound, now.bound)
        sign = 1.0 if higher else -1.0
        best = max(final.bound for final in finals) if higher else min(final.bound for final in finals)
        words = "below" if higher else "above"
        head = (f"after {len(values)} reports its curve can reach at most {reach:.4g} by step "
                f"{max(end, last):g}" if higher else
                f"after {len(values)} reports its curve can fall no lower than {reach:.4g} by step "
                f"{max(end, last):g}") + f" (a saturating curve's bound at level {level:.2g})"
        if sign * (best - reach) > 0:
            return Decision(True, "beaten", f"{head}, {words} the best completed trial's final level "
                            f"(at {'least' if higher else 'most'} {best:.4g})", looks, len(values))
        if self.median_rule:
            return self._behind(steps, values, level, memory, higher, looks)
        return None

    def _behind(self, steps, values, level, memory, higher, looks) -> Decision | None:
        """MedianPruner's comparison made with an interval: the trial's mean over its last half
        of reports against the median of the completed trials' means over the same steps."""
        half = len(values) // 2
        recent, first, last = values[half:], float(steps[half]), float(steps[-1])
        others = []
        for curve_steps, curve_values in self._curves:
            inside = (curve_steps >= first) & (curve_steps <= last)
            if inside.any():
                others.append(float(curve_values[inside].mean()))
        if len(others) < self.n_startup_trials or np.ptp(recent) == 0:
            return None
        median = float(np.median(others))
        precision = mean_precision(recent, max(series_tau(recent), memory))
        margin = t_ppf(1.0 - level, max(precision.dof, 1)) * precision.mcse
        mean = float(recent.mean())
        bound = mean + margin if higher else mean - margin
        if (bound < median) if higher else (bound > median):
            return Decision(True, "behind", f"over steps {first:g}-{last:g} its mean is {mean:.4g} "
                            f"(at {'most' if higher else 'least'} {bound:.4g} at level {level:.2g}), "
                            f"{'below' if higher else 'above'} the median of the {len(others)} completed "
                            f"trials over the same steps ({median:.4g})", looks, len(values))
        return None

    def _finals_of(self, completed: dict, better: str) -> list[Reach]:
        """Each completed trial's level at its last report, bounded towards worse at
        alpha / (their number): cached until another trial completes."""
        key = (frozenset(completed), better)
        if self._finals_key != key:
            curves = [_finite_reports(*curve) for curve in completed.values()]
            curves = [curve for curve in curves if len(curve[1]) >= self.min_reports]
            share = self.alpha / max(len(curves), 1)
            self._curves = curves
            self._finals = [saturation_reach(steps, values, float(steps[-1]), share,
                                             upper=better != "higher") for steps, values in curves]
            self._finals_key = key
        return self._finals


def _finite_reports(steps, values) -> tuple[np.ndarray, np.ndarray]:
    """Reports in step order, NaN and infinite ones left out (Optuna accepts them)."""
    steps = np.asarray(steps, dtype=np.float64)
    values = np.asarray(values, dtype=np.float64)
    order = np.argsort(steps, kind="stable")
    steps, values = steps[order], values[order]
    keep = np.isfinite(values)
    return steps[keep], values[keep]


def pruner(**options):
    """An Optuna pruner applying :class:`PruneRule` (options as there) to the study's trials.

    The pruner's ``decisions`` map each trial's number to its latest :class:`Decision`,
    with the reason in words for the pruned ones.
    """
    optuna = require("optuna", "optuna")
    rule = PruneRule(**options)
    TrialState = optuna.trial.TrialState
    finished = (TrialState.COMPLETE, TrialState.PRUNED, TrialState.FAIL)

    class SwarmstatsPruner(optuna.pruners.BasePruner):
        """Prunes a trial only when its curve's reach is shown below the completed trials' levels."""

        def __init__(self):
            self.rule = rule
            self.decisions = rule.decisions
            self._completed: dict = {}   # completed trial number -> (steps, values), read once
            self._finished: set = set()

        def prune(self, study, trial) -> bool:
            if len(study.directions) != 1:
                raise InputError("the swarmstats pruner judges single-objective studies "
                                 "(Optuna does not prune multi-objective trials)")
            reports = trial.intermediate_values
            if not rule.due(trial.number, len(reports)):
                return False  # no look is scheduled: nothing to read
            for done in study.get_trials(deepcopy=False, states=finished):
                if done.number in self._finished:
                    continue
                self._finished.add(done.number)
                rule.forget(done.number)  # a finished trial is never looked at again
                if done.state == TrialState.COMPLETE:
                    values = done.intermediate_values
                    self._completed[done.number] = (np.fromiter(values.keys(), float, len(values)),
                                                    np.fromiter(values.values(), float, len(values)))
            better = "higher" if study.direction == optuna.study.StudyDirection.MAXIMIZE else "lower"
            return rule.judge(trial.number, list(reports.keys()), list(reports.values()),
                              self._completed, better=better).prune

    return SwarmstatsPruner()
