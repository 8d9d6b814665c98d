"""Lone outlying values: a change of the trend model must pay its penalty without them.

Why: the trend model searches the whitened, winsorised series, but then places each change,
bends it and judges it (``min_effect``, the local noise) on the series itself - where a jump is
located to a point, and where a single far value outweighs everything else.  Two public logs
(tests/fixtures/real) showed it: Spinning Up's ``DeltaLossPi`` of a PPO run sits near -0.03
(noise SD 0.009) but for one epoch at +0.184; the whitened search found two weak changes, and
placing them on the series moved them to either side of that epoch - a five-epoch "regime" with
"a trend of 3.9 per 100 epochs" and two jumps of 17.6 noise SDs.  QR-DQN's Breakout episode
lengths hold two episodes stopped at the 400,000-step cap among lengths of ~10,000: one became
a five-episode regime of mean 95,000.  A reader sees one odd value, not a regime.

So after placing, each change must also pay the penalty on the series with its spikes pulled
in (:func:`merge_spike_carried`); one that pays only thanks to them is merged, the weakest first.
A value is a spike when it lies more than ``SPIKE`` robust SDs from the median of the
``2 min_size - 1`` values centred on it.  Fewer than ``min_size`` values that far out cannot move
that median, but a run of ``min_size`` or more does - so a regime the search may place (of at
least ``min_size`` points) is never touched, only what is shorter than any regime.  The robust SD
is the local one (the median absolute residual of the ``WINDOW`` values around), so a noisy
stretch is not clipped into a quiet one; and when more than ``MAX_CLIPPED`` of the values are
that far out none is a spike (a reward with two modes - episodes that fall early or run to the
end - is not one mode with outliers).  A spike is pulled to ``PULLED_TO`` robust SDs (the
search's winsorising limit), not removed.  Where half a window ties (a
reward at its cap, MountainCar's -200) no value is called far: there the rare value off the
plateau is the signal.  Pulling values in at 4 robust SDs, and placing every change on the
pulled series, was tried first: it moved the start of MountainCar's climb (F1 on the annotated
RL curves 0.813 -> 0.801) and added a change to a TCPD fertility series.  Judging only, at 8, it
leaves both benchmarks as they were (docs/regimes.md).

The regimes' tables (means, SDs, intervals) are computed on the values as they are.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from .._kernels.robust import MAX_CLIPPED
from .._result import fmt, fmt_step
from .costs import SegmentCost
from .local_noise import merge_weakest_first, saved_cost

#: robust SDs from the local median beyond which a lone value is a spike, and to which it is
#: pulled in (the search's winsorising limit): pulled to 8, a lone value at the end of a
#: five-point line still paid the penalty (its leverage there is 0.6)
SPIKE, PULLED_TO = 8.0, 3.0
#: the values whose median absolute residual is a point's robust scale (as LocalNoise.WINDOW)
WINDOW = 31
#: a spike this many robust SDs out is named in the notes, when there are at most NAMED_MAX
#: of them: more are a heavy tail of the noise (QR-DQN's Breakout episode lengths: ~520 steps,
#: and one episode in 30 twice or three times that), which the notes do not list
NAMED, NAMED_MAX = 8.0, 3
#: a first or last value named apart is also this many of the series' noise SDs from the values
#: beside it (the trend model's start note uses 3 for a start it reads as persistence)
EDGE_SDS = 5.0


def defuse_spikes(y: np.ndarray, min_size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``y`` with each lone value more than ``SPIKE`` local robust SDs from the median around it
    pulled to ``PULLED_TO`` of them (see the module); also the indices of the values pulled in and how many robust
    SDs out each was.  ``min_size`` < 2 (a one-point regime allowed) leaves ``y`` as it is.

    >>> noise = np.random.default_rng(0).normal(size=41)
    >>> pulled, where, sizes = defuse_spikes(noise + np.where(np.arange(41) == 20, 50.0, 0.0), 5)
    >>> where.tolist(), bool(pulled[20] < 5 < 40 < sizes[0])
    ([20], True)
    >>> defuse_spikes(noise + np.where(abs(np.arange(41) - 20) <= 2, 50.0, 0.0), 5)[1].tolist()  # a regime
    []
    """
    y = np.asarray(y, dtype=np.float64)
    span = 2 * int(min_size) - 1
    empty = np.array([], dtype=np.intp)
    if span < 3 or len(y) < span:
        return y, empty, np.array([])
    centre = ndimage.median_filter(y, size=span, mode="reflect")
    residuals = y - centre
    scale = 1.4826 * ndimage.median_filter(np.abs(residuals), size=min(WINDOW, len(y)), mode="reflect")
    # where half a window ties (a reward at its cap, or at its floor as MountainCar's -200) no
    # value is called far: there the rare value off the plateau is the signal (its first
    # successes), not an error
    with np.errstate(divide="ignore", invalid="ignore"):
        sizes = np.where(scale > 0, np.abs(residuals) / scale, 0.0)
    where = np.flatnonzero(sizes > SPIKE)
    if not len(where) or len(where) > MAX_CLIPPED * len(y):  # a second mode, not lone values
        return y, empty, np.array([])
    pulled = y.copy()
    pulled[where] = centre[where] + np.sign(residuals[where]) * PULLED_TO * scale[where]
    return pulled, where, sizes[where]


def merge_spike_carried(changepoints, cost: SegmentCost, defused: SegmentCost, penalty: float) -> tuple[list, int]:
    """The changes that still pay ``penalty`` under ``defused`` (the cost of the series with its
    spikes pulled in) or never paid it under ``cost`` (kept by the search for reasons of its
    own), and how many were merged: those that pay only with the spikes, the weakest first -
    and then a neighbour of a merged one that no longer pays without them (a change that closed
    a "regime" round a spike with it).

    >>> from swarmstats.regimes.costs import MeanCost
    >>> y = np.random.default_rng(1).normal(size=60)
    >>> y[30] = 40.0
    >>> pulled, _, _ = defuse_spikes(y, 5)
    >>> merge_spike_carried([28, 33], MeanCost(y), MeanCost(pulled), 3 * np.log(60))
    ([], 2)
    """
    points = list(changepoints)
    if not points or not penalty > 0:
        return points, 0

    exposed = set()  # changes beside a merged one

    def shortfall(i):
        """How far short of the penalty change i falls without the spikes (<= 0: it pays,
        or it did not pay with them either and was not beside a merged change)."""
        start = points[i - 1] if i else 0
        end = points[i + 1] if i + 1 < len(points) else cost.n
        if points[i] not in exposed and saved_cost(cost, start, points[i], end) < penalty:
            return 0.0
        return 1.0 - saved_cost(defused, start, points[i], end) / penalty

    return points, merge_weakest_first(points, shortfall, exposed)


def spike_note(where: np.ndarray, sizes: np.ndarray, steps: np.ndarray, values: np.ndarray,
               merged: int = 0) -> str | None:
    """A note naming the spikes more than ``NAMED`` robust SDs out when there are at most
    ``NAMED_MAX``, or when changes closing round them were ``merged``; None otherwise.

    >>> spike_note(np.array([3, 9]), np.array([5.0, 40.0]), np.arange(12.0) * 10, np.arange(12.0), 2)
    '1 lone value far from its neighbours (step 90: 9, 40 robust SDs from the median around it) is an outlier, not a regime: 2 changes that paid only with it were merged'
    """
    # the first and last values are not named: a first evaluation before training stands apart
    # as a start (an untrained model's loss, 5.74 before 1.11 after one epoch), and a last
    # value far out may be the first of a regime that has not had min_size points yet
    far = (sizes > NAMED) & (where > 0) & (where < len(values) - 1)
    count = int(far.sum())
    if not 0 < count <= NAMED_MAX:
        return None
    listed = "; ".join(f"step {fmt(steps[i])}: {fmt(values[i])}, {size:.0f} robust SDs"
                       for i, size in zip(where[far], sizes[far]))
    plural = count > 1
    said = (f"{count} lone value{'s' if plural else ''} far from {'their' if plural else 'its'} neighbours "
            f"({listed} from the median around {'each' if plural else 'it'}) "
            f"{'are outliers' if plural else 'is an outlier'}, not {'regimes' if plural else 'a regime'}")
    if merged:
        said += (f": {merged} change{'s' if merged > 1 else ''} that paid only with "
                 f"{'them' if plural else 'it'} {'were' if merged > 1 else 'was'} merged")
    return said


def edge_note(where: np.ndarray, sizes: np.ndarray, steps: np.ndarray, values: np.ndarray, sd: float,
              min_size: int) -> list:
    """Notes on a first or last value more than ``NAMED`` local robust SDs and ``EDGE_SDS`` of the
    series' noise SDs (``sd``) from the median of the ``2 min_size - 1`` values beside it, which
    :func:`spike_note` does not call outliers: said as what each may be.

    Why: verl's GSM8K validation score of a real run is 0.22 at step 0 (before training) and
    ~0.88 from step 5 on; one point is shorter than any regime, so the regimes read "one regime,
    mean 0.86" and the start was said nowhere.  Both bars: the local robust SD alone is tiny
    where the values after the start hold still (a plateau's evaluations), and the series' SD
    alone is large where the run climbs.

    >>> values = np.r_[0.22, 0.88 + 0.01 * np.sin(np.arange(42))]
    >>> edge_note(np.array([0]), np.array([440.0]), np.arange(43.0) * 5, values, 0.04, 5)[0].split(" stands")[0]
    'the first value (step 0: 0.22, 16.5 noise SDs from the median of the 9 after it)'
    """
    notes = []
    last, span = len(values) - 1, 2 * int(min_size) - 1
    for index, size in zip(where, sizes):
        if size <= NAMED or index not in (0, last) or not sd > 0 or len(values) <= span:
            continue
        beside = values[1:1 + span] if index == 0 else values[-1 - span:-1]
        apart = abs(values[index] - float(np.median(beside))) / sd
        if apart <= EDGE_SDS:
            continue
        side = "after" if index == 0 else "before"
        at = (f"(step {fmt_step(steps[index])}: {fmt(values[index])}, {apart:.1f} noise SDs from the median of "
              f"the {span} {side} it)")
        if index == 0:
            notes.append(f"the first value {at} stands apart: a start of its own - the untrained model's, "
                         "say - shorter than a regime, so the first regime's mean and SD include it")
        else:
            notes.append(f"the last value {at} stands apart: an outlier, or the first of a change not yet "
                         "long enough to be a regime - the next values will tell")
    return notes
