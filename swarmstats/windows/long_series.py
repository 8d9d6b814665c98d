"""What a window follows of a long series: the series itself, or the means of its blocks."""

from __future__ import annotations

import pandas as pd

from .._kernels.autocorr import block_means

#: a window is replayed at every point up to this many (~150 us each) by the report and the
#: ``windows`` command; longer series are followed through the means of consecutive blocks
WINDOW_POINTS = 20_000


def window_input(series: pd.Series, points: int = WINDOW_POINTS) -> tuple:
    """(what a window follows, block length): the series itself up to ``points`` (0: any
    length); beyond, the means of consecutive blocks of ceil(n / points) steps, each at its
    last step (a short remainder at the start is dropped: the end of a run is what the window
    is about).  Replayed step by step, 10^6 steps would take ~3 minutes.

    >>> followed, block = window_input(pd.Series(range(50_000), dtype=float))
    >>> block, len(followed), int(followed.index[-1]), float(followed.iloc[-1])
    (3, 16666, 49999, 49998.0)
    """
    n = len(series)
    if not points or n <= points:
        return series, 1
    block = -(-n // points)
    means = block_means(series.to_numpy(), block)  # a remainder dropped at the start
    steps = series.index[n - len(means) * block + block - 1::block]
    return pd.Series(means, index=steps, name=series.name), block
