"""One metric of every run behind a set of paths (globs, run folders, files): what `compare`
and `curves` read."""

from __future__ import annotations

import pandas as pd

from .._result import fmt_step
from ..errors import DivergedAtStart, InputError
from ..io import classify_columns, read_log, select_metric
from ..io.formats._sweep import require_series
from ..io.runs import name_list
from ..sweeps.runs import (
    ENVIRONMENT,
    RunSpec,
    discover,
    environments_of,
    settings_of,
    worker_notes,
)
from ._loading import say_left_out


def metric_runs_at(paths, metric: str, input_format: str | None) -> list[tuple[RunSpec, pd.Series]]:
    """(run, its ``metric`` as a Series on its step axis) for each run behind ``paths``; a run
    without the metric is an error naming it.  A run whose metric ends in infinite values or in
    NaN the log wrote keeps its values before them, with ``attrs["diverged"]`` (an empty series
    when it diverged before logging a finite value): see :func:`refuse_diverged` and
    :func:`note_diverged`."""
    found = []
    for spec in discover(paths, format=input_format, metrics=[metric]):
        frame = spec.frame if spec.frame is not None else require_series(
            read_log(spec.path, format=spec.format, wide=True))
        try:
            series = select_metric(frame, metric, step=classify_columns(frame).step, diverged=True)
        except DivergedAtStart as exc:
            series = pd.Series([], dtype=float, name=metric)
            series.attrs["diverged"] = exc.divergence
        except InputError as exc:
            raise InputError(f"{spec.name}: {exc}") from None
        if series.empty and "diverged" not in series.attrs:
            raise InputError(f"{spec.name}: no value of {metric!r}")
        say_left_out(f"{metric} [{spec.name}]", series, divergence=False)
        found.append((spec, series))
    return found


def _diverged(found: list) -> list:
    """'NAME (from step S on, every value NaN)' for each run of ``found`` that diverged."""
    return [f"{spec.name} (from step {fmt_step(info['step'])} on, every value {info['kind']})"
            for spec, series in found if (info := series.attrs.get("diverged")) is not None]


def refuse_diverged(found: list, metric: str, why: str) -> None:
    """An error naming the runs whose ``metric`` diverged, for a command that scores each run
    by its last values (``why``): a diverged run's last values were never logged, and its
    values before are not its score.  Taken silently, a run whose loss turned NaN at 80% was
    scored by the values before."""
    gone = _diverged(found)
    if gone:
        raise InputError(f"{len(gone)} of {len(found)} runs diverged - {metric} of {name_list(gone)}: {why}; "
                         "leave them out of the paths, and count them as failed runs")


def note_diverged(found: list, metric: str) -> None:
    """Say on stderr which runs' ``metric`` diverged (their curves end where they did)."""
    from ._output import say

    gone = _diverged(found)
    if gone:
        say(f"{len(gone)} of {len(found)} runs diverged - {metric} of {name_list(gone)}: each is drawn up to "
            "where it did, and the band after that step is of the others")


def note_pooled(specs, *, environments: str | None, workers: str) -> None:
    """Say on stderr what the runs given are not, and what that does to the command's answer
    (they are still analysed as given): runs of several environments (an SB3 monitor header's
    ``env_id``; None: not said, the command handles them), and files that look like the
    workers of one vectorised run."""
    from ._output import say

    names = environments_of(specs)
    if environments is not None and len(names) > 1:
        say(f"the runs are of {len(names)} environments ({', '.join(names)}; {ENVIRONMENT} from their "
            f"monitor headers): {environments}")
    for note in worker_notes(specs, workers):
        say(note)


def note_settings(specs, consequence: str, *, where: str = "") -> None:
    """Say on stderr when the runs' names say they are of several settings (``a2c-CartPole-v1``
    and ``dqn-CartPole-v1``; a run number at a name's end marks a seed): the command pools them
    as seeds, and ``consequence`` says what that does to its answer."""
    from ._output import say

    settings, told_by = settings_of(specs, told_by=True)
    if settings is not None:
        shown = list(dict.fromkeys(settings.values()))
        how = ("a run number at a name's end marks a seed" if told_by == "names"
               else "seed parameters aside")
        say(f"the runs{where} are of {len(shown)} settings by their {told_by} ({name_list(shown)}; {how}): "
            f"{consequence}")


def add_last_option(parser) -> None:
    """``--last FRACTION``: a run's score is the mean of its last part (one noisy last value
    is not a score)."""
    from ._options import finite

    parser.add_argument("--last", type=finite, default=0.1, metavar="FRACTION",
                        help="each run's score is the mean of its last FRACTION of values (default 0.1)")


def check_last(last: float) -> None:
    if not 0 < last <= 1:
        raise InputError(f"--last must be a fraction in (0, 1], got {last}")


def tail(values, last: float):
    """The last ``last`` of ``values`` (at least one value): what a run's score averages."""
    return values[len(values) - max(1, int(round(last * len(values)))):]

