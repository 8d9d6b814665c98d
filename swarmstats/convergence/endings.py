"""How a run ended, told in its verdict: a metric that diverged (its end cut off: not
converged), one that stopped being logged while the log went on, steps skipped among its
values (see :func:`swarmstats.io.select_metric`, which finds them)."""

from __future__ import annotations

import dataclasses

from .._result import fmt_step
from .reasons import count_text, diverged_text, skipped_text
from .result import MultiRunConvergenceResult, overall_verdict

__all__ = ["with_divergence"]


def with_divergence(result, diverged: dict):
    """``result`` with each run named in ``diverged`` (``{name: {"step": ..., "values": ...,
    "kind": ...}}``: its metric ended in infinite values or NaN the log wrote, which were cut
    off) called not converged, whatever the finite values before showed; the numbers still
    describe those.  A name not among the result's runs with ``"from_start": True`` is a run
    that diverged before logging a finite value (so not fitted): the result is not converged
    either.  Over several runs the overall verdict is taken again.  A run whose values stop
    while its log goes on (``{"step": ..., "rows": ..., "end": ...}``: empty cells) keeps its
    verdict and gets a reason saying so, first; one whose record holds ``"skipped"`` (inf or
    NaN between finite values, left out) keeps its verdict and gets a reason saying so, last.
    Read as an input error, a diverged run failed a CI gate as a broken log rather than as a
    failed run.

    >>> from swarmstats import check_convergence
    >>> result = check_convergence([0.5, 0.6, 0.4, 0.55] * 10, name="reward")
    >>> with_divergence(result, {"reward": {"step": 40, "values": 5}}).reasons[0]
    'diverged: from step 40 on every value is infinite (5 of them); the numbers describe the 40 finite values before'
    >>> dead = {"reward [seed=2]": {"step": 0, "values": 9, "kind": "NaN", "from_start": True}}
    >>> with_divergence(result, dead).verdict
    'not_converged'
    """
    dead = [name for name, info in diverged.items() if info.get("from_start")]
    if isinstance(result, MultiRunConvergenceResult):
        fitted = {name: info for name, info in diverged.items() if name not in dead}
        runs = [with_divergence(run, fitted) for run in result.runs]
        if not dead and all(run.verdict == before.verdict for run, before in zip(runs, result.runs)):
            return dataclasses.replace(result, runs=runs) if runs != result.runs else result
        alpha = result.runs[0].alpha * len(runs)  # each run was tested at alpha / k
        verdict, reasons = overall_verdict(runs, alpha, result.rhat, result.ess_bulk, result.ess_tail,
                                           result.rhat_threshold, rhat_across=result.rhat_across)
        gone = [run.name for run in result.runs if "values" in diverged.get(run.name, {})] + dead
        reasons.insert(0, f"{len(gone)} of {len(runs) + len(dead)} runs diverged ({', '.join(map(str, gone[:5]))})")
        return dataclasses.replace(result, runs=runs, verdict="not_converged" if dead else verdict,
                                   converged=False, reasons=reasons, diverged_at_start=dead)
    info = diverged.get(result.name)
    if info is not None and "skipped" in info:  # inf or NaN between finite values: said, not judged
        result = dataclasses.replace(result, reasons=[*result.reasons, skipped_text(info["skipped"])])
    if info is not None and "rows" in info:  # the values stop while the log goes on: said, not judged
        note = (f"no value after step {fmt_step(info['step'])} while the log goes on for {info['rows']} more rows "
                f"(to step {fmt_step(info['end'])}): it stopped being logged (empty cells, not NaN written as "
                f"such); the verdict is on the {count_text(result.n, 'values')} before")
        result = dataclasses.replace(result, reasons=[note, *result.reasons])
    elif info is not None and "values" in info:
        reason = diverged_text(info, result.n)
        result = dataclasses.replace(result, verdict="not_converged", converged=False, steps_needed=None,
                                     reasons=[reason, *result.reasons],
                                     failed_tests=[*result.failed_tests, "diverged"])
    if not dead:
        return result
    reason = (f"{len(dead)} of {len(dead) + 1} runs diverged before logging a finite value "
              f"({', '.join(map(str, dead[:5]))}): the numbers describe {result.name or 'the other run'}")
    return dataclasses.replace(result, verdict="not_converged", converged=False, steps_needed=None,
                               reasons=[reason, *result.reasons],
                               failed_tests=list(dict.fromkeys([*result.failed_tests, "diverged"])))
