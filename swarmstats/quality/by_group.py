"""Quality metrics per epoch (or any grouping column), as one tidy table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .._input.interactions import as_accept_flags, as_probabilities, cluster_option
from .._input.random_state import resolve_rng
from .._input.series import check_nan_policy
from ..errors import InputError
from .metrics import quality_metrics


def quality_by(frame: pd.DataFrame, by: str = "epoch", *, p: str = "p", accepted: str = "accepted",
               clusters="auto", nan_policy: str = "raise", random_state=0, **options) -> pd.DataFrame:
    """One row per value of ``by`` with every soft and hard metric and its interval.

    Columns: ``by``, ``n``, ``n_accepted``, ``n_rejected``, then each metric
    (``toxicity``, ``quality_gap``, ``hard_toxicity`` ...) followed by
    ``<metric>_low`` and ``<metric>_high``, and ``adverse_selection_pvalue``
    (the per-epoch permutation test of "gap < 0").  Rows are sorted by ``by``.
    ``clusters``: the column(s) naming the agents behind each interaction, whose
    interactions are resampled together (:func:`quality_metrics`); "auto" (default) uses
    ``initiator_id``/``counterparty_id`` (SWARM), ``initiator``/``counterparty``,
    ``agent_id`` or ``agent`` when the table has them, None treats interactions as
    independent.  The columns used are in ``table.attrs["clusters"]``.
    The table feeds straight into :func:`swarmstats.detect_regimes` (pick a
    column) or :func:`swarmstats.early_warning`.  ``options`` are passed to
    :func:`quality_metrics` (threshold, band, payoff, ci, n_boot, alpha,
    swarm_compatible).

    >>> frame = pd.DataFrame({"epoch": [0, 0, 0, 1, 1, 1], "p": [.9, .2, .7, .8, .3, .6],
    ...                       "accepted": [1, 0, 1, 1, 0, 0]})
    >>> table = quality_by(frame, "epoch", random_state=0)
    >>> table[["epoch", "n", "quality_gap"]].round(3).to_dict("records")
    [{'epoch': 0, 'n': 3, 'quality_gap': 0.6}, {'epoch': 1, 'n': 3, 'quality_gap': 0.35}]
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"quality_by needs a pandas DataFrame, got {type(frame).__name__}")
    check_nan_policy(nan_policy)
    missing = [c for c in (by, p, accepted) if c not in frame.columns]
    if missing:
        raise InputError(f"no column {missing[0]!r}; columns are {', '.join(map(str, frame.columns))}")
    _, used = cluster_option(frame, clusters)
    values = as_probabilities(frame[p], argname=p)
    flags = as_accept_flags(frame[accepted], argname=accepted)
    keys = frame[by]
    bad = ~np.isfinite(values) | np.isnan(flags) | keys.isna().to_numpy()
    for column in used:
        bad |= frame[column].isna().to_numpy()
    if bad.any():
        if nan_policy == "raise":
            named = ", ".join([p, accepted, by, *used])
            raise InputError(f"{int(bad.sum())} row(s) have a missing value in {named} "
                             f"(first at row {int(np.flatnonzero(bad)[0])}); pass nan_policy='omit' "
                             "(command line: --nan-policy omit) to drop them")
        values, flags, keys, frame = values[~bad], flags[~bad], keys[~bad], frame[~bad]
    if len(values) == 0:
        raise InputError("no interactions to analyse (the table has no rows)")
    rng = resolve_rng(random_state)
    rows = []
    codes, uniques = pd.factorize(keys, sort=True)
    for g, key in enumerate(uniques):
        members = codes == g
        labels = [frame[column].to_numpy()[members] for column in used]
        # a group with a single agent cannot resample agents: its interactions are all it has
        grouped = (None if not labels or any(len(set(x)) < 2 for x in labels)
                   else labels[0] if len(labels) == 1 else tuple(labels))
        report = quality_metrics(values[members], flags[members].astype(bool), random_state=rng,
                                 clusters=grouped, **options)
        rows.append({by: key, **report.to_row()})
    table = pd.DataFrame(rows)
    table.attrs["by"] = by
    table.attrs["clusters"] = list(used)
    return table
