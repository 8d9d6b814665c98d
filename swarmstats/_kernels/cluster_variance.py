"""How much outcomes that come in clusters widen the variance of a mean-like estimate.

A proxy's outcomes come from agents, many from each, and an agent's own bias (its p reading
high, its outcomes running above what p says) is shared by all of its outcomes.  Taken as
independent, 20 agents' 1,000 outcomes give intervals as if a thousand draws had been made,
when there were twenty: E[p] - E[y] covered 73% and the AUC 55% of the population's values
(docs/proxy.md).  The cure is the cluster-robust ("sandwich") variance: the estimate's
per-observation influence values summed within each cluster, the sums' squares added up.
Written here as a *design effect*, the ratio of that variance to the independent one, so that
an interval built for independent outcomes (a score interval, whose shape near 0 and 1 is
worth keeping) is widened by it rather than rebuilt.
"""

from __future__ import annotations

import numpy as np

from .distributions import norm_ppf, t_ppf

#: fewer clusters than this and a robust variance is too rough to lean on: the quality
#: metrics' note says so, and the proxy's calibration takes its outcomes as independent
FEW_CLUSTERS = 10


def design_effect(influence: np.ndarray, codes: np.ndarray, level: float) -> float:
    """The cluster-robust variance of an estimate over its independent variance, at least 1.

    ``influence``: each observation's influence on the estimate (for a mean, its deviation
    from the mean; centred); ``codes``: each observation's cluster, 0 .. G - 1.  The robust
    variance, G/(G - 1) times the sum of the squared cluster sums (Liang & Zeger 1986; for the
    AUC, Obuchowski 1997), rests on G clusters, not on n observations, so the ratio also
    carries (t_{G-1} / z)^2 at ``level``: the widened interval is read on G - 1 degrees of
    freedom.  Floored at 1: clustering is allowed for, never used to narrow an interval.

    >>> codes = np.repeat(np.arange(10), 5)
    >>> round(design_effect(np.tile([1.0, -1.0], 25), codes, 0.95), 2)   # no cluster effect
    1.0
    >>> shared = np.repeat(np.tile([1.0, -1.0], 5), 5)   # every cluster's 5 deviations alike
    >>> round(design_effect(shared, codes, 0.95), 2)   # 5 x 10/9 x (t_9 / z)^2
    7.4
    """
    codes = np.asarray(codes)
    clusters = int(codes.max()) + 1 if len(codes) else 0
    independent = float(np.dot(influence, influence))
    if clusters < 2 or not independent > 0:
        return 1.0
    sums = np.bincount(codes, weights=influence, minlength=clusters)
    robust = clusters / (clusters - 1) * float(np.dot(sums, sums))
    quantile = 0.5 + level / 2
    widening = (t_ppf(quantile, clusters - 1) / norm_ppf(quantile)) ** 2
    return max(1.0, robust / independent * widening)
