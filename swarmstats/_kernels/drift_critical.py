"""Critical values of the drift scan (:mod:`.drift_scan`): the (1 - alpha) quantiles of its
maximum over every onset and look, for n independent N(0, 1) recursive residuals.

Simulated with 20,000 series per row (``python -m swarmstats._kernels.drift_critical`` redoes
it); each column is made non-decreasing in n, as the true quantiles are (a longer series has
every onset and look of a shorter one).  The clip makes the maximum's distribution lumpy for
very short series (one clipped residual gives exactly CLIP); a quantile on such a lump is
conservative, since the scan alarms only above the critical value.  Between rows and columns the value is interpolated
linearly in (log n, log alpha).  numpy in, numpy out.
"""

from __future__ import annotations

import math

import numpy as np

#: false-alarm rates over a whole run (columns)
ALPHAS = (0.005, 0.01, 0.02, 0.05, 0.1, 0.2)

#: residual counts (rows)
COUNTS = (11, 12, 14, 16, 20, 25, 32, 40, 50, 64, 80, 100, 128, 160, 200, 256, 320, 400)

#: 20,000 simulated series per row, seed 20261127 + row
CRITICAL = np.array([
    (2.500, 2.500, 2.328, 1.759, 1.359, 0.870),   # 11
    (2.834, 2.546, 2.500, 2.281, 1.845, 1.376),   # 12
    (3.226, 2.980, 2.728, 2.500, 2.311, 1.852),   # 14
    (3.354, 3.219, 2.947, 2.598, 2.500, 2.122),   # 16
    (3.700, 3.455, 3.212, 2.853, 2.547, 2.422),   # 20
    (3.858, 3.593, 3.354, 3.025, 2.714, 2.500),   # 25
    (4.017, 3.750, 3.520, 3.184, 2.877, 2.546),   # 32
    (4.151, 3.922, 3.641, 3.291, 3.007, 2.684),   # 40
    (4.248, 4.007, 3.746, 3.374, 3.106, 2.796),   # 50
    (4.277, 4.051, 3.804, 3.451, 3.192, 2.897),   # 64
    (4.405, 4.137, 3.869, 3.517, 3.273, 2.992),   # 80
    (4.492, 4.198, 3.924, 3.587, 3.345, 3.069),   # 100
    (4.564, 4.299, 4.005, 3.658, 3.399, 3.143),   # 128
    (4.689, 4.376, 4.102, 3.740, 3.480, 3.222),   # 160
    (4.695, 4.395, 4.102, 3.764, 3.515, 3.273),   # 200
    (4.714, 4.421, 4.168, 3.832, 3.589, 3.341),   # 256
    (4.714, 4.434, 4.186, 3.882, 3.636, 3.391),   # 320
    (4.723, 4.451, 4.244, 3.913, 3.687, 3.447),   # 400
])

#: the rows' random seeds start here
SEED = 20261127


def critical_value(n: int, alpha: float) -> float:
    """The drift scan's critical value for ``n`` residuals (COUNTS[0] <= n <= COUNTS[-1]) at
    false-alarm rate ``alpha`` (ALPHAS[0] <= alpha <= ALPHAS[-1]).

    >>> round(critical_value(100, 0.05), 2)
    3.59
    """
    if not COUNTS[0] <= n <= COUNTS[-1]:
        raise ValueError(f"critical values are tabulated for {COUNTS[0]} to {COUNTS[-1]} residuals, not {n}")
    log_alpha = np.log(ALPHAS)
    by_count = [np.interp(math.log(alpha), log_alpha, row) for row in CRITICAL]
    return float(np.interp(math.log(n), np.log(COUNTS), by_count))


def _simulate_table(reps: int = 20_000) -> np.ndarray:
    from .drift_scan import simulate_critical

    rows = [simulate_critical(n, ALPHAS, reps, SEED + i) for i, n in enumerate(COUNTS)]
    return np.maximum.accumulate(np.array(rows), axis=0)


if __name__ == "__main__":  # pragma: no cover - regenerates the table above (about a minute)
    for count, row in zip(COUNTS, _simulate_table()):
        print(f"    ({', '.join(f'{v:.3f}' for v in row)}),   # {count}")
