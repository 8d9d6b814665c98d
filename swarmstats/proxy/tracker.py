"""ProxyVarianceTracker: streaming per-key noise of a proxy score p, and whether a hard
threshold decision on it would thrash.

Each key (agent, policy, checkpoint ...) keeps O(1) running statistics:
Welford's count, mean and sum of squared deviations (stable for values near
0.5 over millions of updates), optional exponentially weighted mean and
variance, an optional trailing window, the count inside the uncertain band,
the count above the threshold and the number of flips of the hard decision
between consecutive observations, the sum of lag-1 products (around the key's first
score, so that scores near 0.5 keep their digits) from which the persistence of a key's
scores is read, and the sums of third and fourth powers (around the same score) from which
their tails are.  ``update_many`` reaches the same state as a
loop of ``update`` with vectorised group sums merged by Chan's formula.
Observations with outcomes (and v_hat) are kept for calibration at report time.
"""

from __future__ import annotations

import math
import warnings
from collections import deque

import numpy as np
import pandas as pd
from scipy import signal

from .._base import OnlineEstimator
from .._input.interactions import as_accept_flags, as_probabilities, refuse_outside_unit
from .._input.series import check_nan_policy
from ..errors import InputError, check_count, check_positive, is_real, shown


class KeyState:
    """Running statistics of one key (a live view: it changes with every update)."""

    __slots__ = ("key", "n", "mean", "m2", "ew_mean", "ew_var", "window", "uncertain", "above",
                 "last_high", "flips", "v_n", "v_mean", "v_m2", "shift", "lag", "last", "cube", "fourth")

    def __init__(self, key, window: int | None):
        self.key = key
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0
        self.ew_mean = math.nan
        self.ew_var = 0.0
        self.window = deque(maxlen=window) if window else None
        self.uncertain = 0
        self.above = 0
        self.last_high = False
        self.flips = 0
        self.v_n = 0
        self.v_mean = 0.0
        self.v_m2 = 0.0
        self.shift = 0.0  # the key's first score: lag-1 products are taken around it
        self.lag = 0.0  # sum over t >= 2 of (p_t - shift) (p_(t-1) - shift)
        self.last = 0.0
        self.cube = 0.0  # sum of (p - shift)^3
        self.fourth = 0.0  # sum of (p - shift)^4

    @property
    def sd(self) -> float:
        """Sample SD of p (ddof 1); NaN below two observations."""
        return math.sqrt(self.m2 / (self.n - 1)) if self.n > 1 else math.nan

    @property
    def lagged(self) -> float:
        """Sum of lag-1 products of deviations from the key's mean, C1 = sum over t >= 2 of
        (p_t - mean)(p_(t-1) - mean); C1 / m2 is the lag-1 autocorrelation."""
        if self.n < 2:
            return 0.0
        centre, end = self.mean - self.shift, self.last - self.shift  # the first is 0 here
        return self.lag - (self.n + 1) * centre * centre + centre * end

    @property
    def m4(self) -> float:
        """Sum of fourth powers of deviations from the key's mean, M4 (M4 / M2^2 * n is the
        sample kurtosis), from the sums around the key's first score."""
        centre = self.mean - self.shift
        return self.fourth - 4 * centre * self.cube + 6 * centre * centre * self.m2 + 3 * self.n * centre ** 4

    def __repr__(self) -> str:
        return f"KeyState(key={self.key!r}, n={self.n}, mean={self.mean:.6g}, sd={self.sd:.6g})"


class ProxyVarianceTracker(OnlineEstimator):
    """Track how noisy a proxy score is, per key, and whether hard decisions on it thrash.

    Parameters (keyword-only)
    -------------------------
    threshold : float, default 0.5
        The hard decision is p >= threshold.
    band : float, default 0.2
        "Uncertain" means 0.5 - band < p < 0.5 + band (SWARM's label band).
    max_wrong_side : float, default 0.1
        The wrong-side probability a hard decision may carry; above it a key is
        ``too_noisy``.  (Called ``alpha`` before 0.2, which still works for one
        release with a warning: it is a tolerance, not a significance level.)
    halflife : float, optional
        Half-life (in observations) of the exponentially weighted mean and SD.
    window : int, optional
        Length of the trailing window whose SD is reported.
    k : float, optional
        Sigmoid temperature linking v_hat to p (p = sigmoid(k v_hat)); estimated
        from the (v_hat, p) pairs when not given.
    nan_policy : {"raise", "omit"}
        A non-finite p raises, or the observation is skipped.

    Examples
    --------
    >>> tracker = ProxyVarianceTracker()
    >>> for p in [0.52, 0.47, 0.55, 0.44, 0.51, 0.49]:
    ...     state = tracker.update(p, key="agent_1")
    >>> state.n, round(state.mean, 3), state.flips
    (6, 0.497, 5)
    >>> tracker.result().table.loc["agent_1", "too_noisy"]
    np.True_
    """

    def __init__(self, *, threshold: float = 0.5, band: float = 0.2, max_wrong_side: float = 0.1,
                 halflife: float | None = None, window: int | None = None, k: float | None = None,
                 nan_policy: str = "raise", **renamed):
        max_wrong_side = _renamed_alpha(renamed, max_wrong_side)
        self.threshold = threshold
        self.band = band
        self.max_wrong_side = max_wrong_side
        self.halflife = halflife
        self.window = window
        self.k = k
        self.nan_policy = nan_policy
        self._validate()
        self._ew_weight = 1.0 - 0.5 ** (1.0 / halflife) if halflife else 0.0
        self._band_low, self._band_high = 0.5 - self.band, 0.5 + self.band
        self._start_stream()

    def _start_stream(self) -> None:
        self._keys: dict = {}
        self._last_key = _NO_KEY
        # observations with an outcome: p, outcome, key code, v_hat (NaN if absent)
        self._labelled: list = []
        self._labelled_chunks: list = []
        # (v_hat, logit p) moments for the sigmoid temperature, and the v_hat-only count
        self._k_sums = [0.0, 0.0]

    def _validate(self) -> None:
        for name in ("threshold", "band", "max_wrong_side"):
            if not is_real(getattr(self, name)):
                raise InputError(f"{name} must be a number, got {getattr(self, name)!r}")
        if not 0 < self.threshold < 1:
            raise InputError(f"threshold must lie strictly between 0 and 1, got {self.threshold}")
        if not 0 <= self.band <= 0.5:
            raise InputError(f"band must lie in [0, 0.5], got {self.band}")
        if not 0 < self.max_wrong_side < 0.5:
            raise InputError(f"max_wrong_side must lie in (0, 0.5), got {self.max_wrong_side}")
        if self.halflife is not None:
            check_positive("halflife", self.halflife)
        if self.window is not None:
            check_count("window", self.window, minimum=2)
        if self.k is not None and not (is_real(self.k) and 0 < self.k <= 100):
            raise InputError(f"k must lie in (0, 100], got {self.k!r}")
        check_nan_policy(self.nan_policy)

    @property
    def alpha(self) -> float:
        """Deprecated name of :attr:`max_wrong_side`."""
        warnings.warn("ProxyVarianceTracker.alpha is renamed max_wrong_side (a tolerated wrong-side "
                      "probability, not a significance level)", DeprecationWarning, stacklevel=2)
        return self.max_wrong_side

    # -- one observation -------------------------------------------------------------------------

    def update(self, p, key=None, outcome=None, v_hat=None) -> KeyState | None:
        """Add one score (with its outcome and raw score when known); returns the key's state.

        Returns None when ``nan_policy="omit"`` skips a non-finite p.
        """
        try:
            valid = bool(0.0 <= p <= 1.0)  # False for NaN
        except (TypeError, ValueError):  # ValueError: an array's truth value
            many = " (update_many takes many scores)" if isinstance(p, (list, tuple)) or getattr(p, "ndim", 0) else ""
            raise InputError(f"p must be a number in [0, 1], got {shown(p)}{many}") from None
        if not valid:
            if self.nan_policy == "omit" and p != p:
                return None
            raise InputError(f"p must be a finite number in [0, 1], got {shown(p)}"
                             + (" (pass nan_policy='omit' to skip NaN)" if p != p else ""))
        state = self._keys.get(key)
        if state is None:
            state = self._keys[key] = KeyState(key, self.window)
        n = state.n + 1
        state.n = n
        if n == 1:
            state.shift = p
        else:
            away = p - state.shift
            state.lag += away * (state.last - state.shift)
            squared = away * away
            state.cube += squared * away
            state.fourth += squared * squared
        state.last = p
        delta = p - state.mean
        state.mean += delta / n
        state.m2 += delta * (p - state.mean)
        high = p >= self.threshold
        if high:
            state.above += 1
        if n > 1 and high != state.last_high:
            state.flips += 1
        state.last_high = high
        if self._band_low < p < self._band_high:
            state.uncertain += 1
        if self._ew_weight:
            if n == 1:
                state.ew_mean = p
            else:
                diff = p - state.ew_mean
                step = self._ew_weight * diff
                state.ew_mean += step
                state.ew_var = (1.0 - self._ew_weight) * (state.ew_var + diff * step)
        if state.window is not None:
            state.window.append(p)
        if v_hat is not None:
            self._add_v_hat(state, p, v_hat)
        if outcome is not None:
            self._labelled.append((p, _one_outcome(outcome), key,
                                   math.nan if v_hat is None else float(v_hat)))
        self._last_key = key
        return state

    def _add_v_hat(self, state: KeyState, p: float, v_hat) -> None:
        v = float(v_hat)
        if not math.isfinite(v):
            raise InputError(f"v_hat must be finite, got {v_hat!r}")
        state.v_n += 1
        delta = v - state.v_mean
        state.v_mean += delta / state.v_n
        state.v_m2 += delta * (v - state.v_mean)
        if 0.0 < p < 1.0:
            self._k_sums[0] += v * math.log(p / (1.0 - p))
            self._k_sums[1] += v * v

    # -- many observations -----------------------------------------------------------------------

    def update_many(self, p, keys=None, outcomes=None, v_hat=None) -> KeyState | None:
        """Add many observations in order; the same state as a loop of :meth:`update`, and
        the same return value: the state of the key of the last observation kept.

        ``keys``, ``outcomes`` and ``v_hat`` are arrays of the same length as
        ``p`` (``outcomes`` may hold missing values for unlabelled observations).
        """
        values = as_probabilities(p)
        n = len(values)
        arrays = {"keys": keys, "outcomes": outcomes, "v_hat": v_hat}
        for name, array in arrays.items():
            if array is not None and len(array) != n:
                raise InputError(f"{name} has {len(array)} values but p has {n}; they must be the same length")
        # one pass for the common case; NaN and out-of-range values are told apart only if present
        finite = (values >= 0) & (values <= 1)
        if not finite.all():
            finite = np.isfinite(values)
            if not finite.all() and (self.nan_policy == "raise" or np.isinf(values).any()):
                where = int(np.flatnonzero(~finite)[0])
                raise InputError(f"p: {int((~finite).sum())} non-finite value(s) (first at position "
                                 f"{where}); pass nan_policy='omit' to skip NaN")
            refuse_outside_unit(values)  # (NaN compares False: left to the NaN policy)
        flags = None if outcomes is None else as_accept_flags(outcomes, argname="outcomes")
        v = None if v_hat is None else as_probabilities(v_hat, argname="v_hat")
        if v is not None and not np.isfinite(v[finite]).all():
            raise InputError("v_hat must be finite wherever p is")
        if not finite.all():
            values = values[finite]
            keys = None if keys is None else np.asarray(keys, dtype=object)[finite]
            flags = None if flags is None else flags[finite]
            v = None if v is None else v[finite]
        if len(values) == 0:
            return self.state
        if keys is None:
            codes, uniques = np.zeros(len(values), dtype=np.intp), [None]
        else:
            codes, uniques = _factorize(keys)
        self._merge(values, codes, uniques, v)
        if flags is not None:
            labelled = ~np.isnan(flags)
            if labelled.any():
                self._flush_singles()
                key_objects = np.empty(len(uniques), dtype=object)
                key_objects[:] = uniques
                self._labelled_chunks.append((
                    values[labelled], flags[labelled], key_objects[codes[labelled]],
                    np.full(int(labelled.sum()), np.nan) if v is None else v[labelled]))
        self._last_key = uniques[codes[-1]]
        return self.state

    def _merge(self, values, codes, uniques, v) -> None:
        """Group statistics of one batch, merged into each key's state (Chan et al.)."""
        count = len(uniques)
        # Every statistic needs each key's own order, for flips and lag-1 products at least:
        # sort by key once (numpy's stable sort of 16-bit codes is an O(n) radix sort) and
        # read each key's scores as one contiguous segment.  Factorize codes are 0..count-1,
        # all present, so after the sort group g is the g-th segment.
        order = np.argsort(codes.astype(np.uint16) if count <= 2**16 else codes, kind="stable")
        x = values[order]
        sizes = np.bincount(codes, minlength=count)
        ends = np.cumsum(sizes)
        starts = ends - sizes
        means = np.add.reduceat(x, starts) / sizes
        centred = x - np.repeat(means, sizes)
        squares = centred * centred
        m2s = np.add.reduceat(squares, starts)
        scratch = squares * centred  # one buffer for the powers and the lag-1 products below
        cubes = np.add.reduceat(scratch, starts)
        fourths = np.add.reduceat(np.multiply(squares, squares, out=scratch), starts)
        sorted_high = x >= self.threshold
        above = np.add.reduceat(sorted_high, starts, dtype=np.int64)
        uncertain = np.add.reduceat((x > self._band_low) & (x < self._band_high), starts, dtype=np.int64)
        changed = np.empty(len(values), dtype=bool)
        changed[0] = False
        np.not_equal(sorted_high[1:], sorted_high[:-1], out=changed[1:])
        changed[starts] = False  # the first of a group has no predecessor in the batch
        flips = np.add.reduceat(changed, starts, dtype=np.int64)
        # lag-1 products within each segment, around the segment's mean (moved to the key's
        # first score below)
        products = scratch
        products[0] = 0.0
        np.multiply(centred[1:], centred[:-1], out=products[1:])
        products[starts] = 0.0
        lags = np.add.reduceat(products, starts)
        sorted_v = v[order] if v is not None else None
        # new keys enter the dictionary in order of first appearance, as a loop would add them
        # (each group's numbers in that order, read as rows: ~3 us a key less than indexing
        # fifteen lists for each)
        arrival = np.argsort(order[starts], kind="stable")
        firsts, lasts = starts[arrival], ends[arrival] - 1
        rows = zip(arrival.tolist(), firsts.tolist(), (lasts + 1).tolist(), sizes[arrival].tolist(),
                   means[arrival].tolist(), m2s[arrival].tolist(), above[arrival].tolist(),
                   uncertain[arrival].tolist(), flips[arrival].tolist(), sorted_high[firsts].tolist(),
                   sorted_high[lasts].tolist(), x[firsts].tolist(), x[lasts].tolist(), lags[arrival].tolist(),
                   cubes[arrival].tolist(), fourths[arrival].tolist())
        for (g, start, end, nb, mean_b, m2_b, above_b, uncertain_b, flips_b, first, last,
             first_p, last_p, lag_b, cube_b, fourth_b) in rows:
            key = uniques[g]
            state = self._keys.get(key)
            if state is None:
                state = self._keys[key] = KeyState(key, self.window)
            na = state.n
            if na == 0:
                state.shift = first_p
            # the segment's lag sum around the key's shift (the segment's was around its own
            # mean, where its deviations sum to 0), and the pair across the boundary
            move = state.shift - mean_b
            state.lag += lag_b + move * ((first_p - mean_b) + (last_p - mean_b)) + (nb - 1) * move * move
            # the segment's power sums around the key's shift, from those around its own mean
            away = mean_b - state.shift
            state.cube += cube_b + 3 * away * m2_b + nb * away ** 3
            state.fourth += fourth_b + 4 * away * cube_b + 6 * away * away * m2_b + nb * away ** 4
            if na:
                state.lag += (first_p - state.shift) * (state.last - state.shift)
            state.last = last_p
            total = na + nb
            delta = mean_b - state.mean
            state.mean += delta * nb / total
            state.m2 += m2_b + delta * delta * na * nb / total
            state.n = total
            state.above += int(above_b)
            state.uncertain += int(uncertain_b)
            state.flips += flips_b + (na > 0 and first != state.last_high)
            state.last_high = last
            if self._ew_weight:
                self._ew_segment(state, x[start:end], na == 0)
            if state.window is not None:
                state.window.extend(x[max(start, end - self.window):end].tolist())
            if sorted_v is not None:
                self._v_segment(state, x[start:end], sorted_v[start:end])

    def _ew_segment(self, state: KeyState, x: np.ndarray, fresh: bool) -> None:
        """The EWMA recursions of :meth:`update` over one key's segment, with lfilter."""
        a = self._ew_weight
        if fresh:
            state.ew_mean, state.ew_var = float(x[0]), 0.0
            x = x[1:]
            if len(x) == 0:
                return
        keep = 1.0 - a
        means, _ = signal.lfilter([a], [1.0, -keep], x, zi=[keep * state.ew_mean])
        previous = np.r_[state.ew_mean, means[:-1]]
        diff = x - previous
        variances, _ = signal.lfilter([1.0], [1.0, -keep], keep * a * diff * diff,
                                      zi=[keep * state.ew_var])
        state.ew_mean, state.ew_var = float(means[-1]), float(variances[-1])

    def _v_segment(self, state: KeyState, p: np.ndarray, v: np.ndarray) -> None:
        nb, na = len(v), state.v_n
        mean_b = float(v.mean())
        m2_b = float(((v - mean_b) ** 2).sum())
        total = na + nb
        delta = mean_b - state.v_mean
        state.v_mean += delta * nb / total
        state.v_m2 += m2_b + delta * delta * na * nb / total
        state.v_n = total
        inside = (p > 0) & (p < 1)
        self._k_sums[0] += float(np.sum(v[inside] * np.log(p[inside] / (1 - p[inside]))))
        self._k_sums[1] += float(np.sum(v[inside] ** 2))

    # -- reading ---------------------------------------------------------------------------------

    def __getitem__(self, key) -> KeyState:
        try:
            return self._keys[key]
        except KeyError:
            raise InputError(f"no key {key!r} has been seen") from None

    def __len__(self) -> int:
        return len(self._keys)

    @property
    def keys(self) -> list:
        return list(self._keys)

    def _flush_singles(self) -> None:
        """Move the labelled observations of single updates into an array chunk (keeps order)."""
        if self._labelled:
            p, y, key, v = zip(*self._labelled)
            key_objects = np.empty(len(key), dtype=object)
            key_objects[:] = key
            self._labelled_chunks.append((np.array(p, dtype=float), np.array(y, dtype=float),
                                          key_objects, np.array(v, dtype=float)))
            self._labelled = []

    def labelled(self):
        """(p, outcome, key, v_hat) arrays of every observation that came with an outcome,
        in arrival order; None when there is none."""
        self._flush_singles()
        if not self._labelled_chunks:
            return None
        return tuple(np.concatenate([part[i] for part in self._labelled_chunks]) for i in range(4))

    def temperature(self) -> float:
        """k: given, or the least-squares slope of logit(p) on v_hat through the origin."""
        if self.k is not None:
            return float(self.k)
        product, square = self._k_sums
        return product / square if square > 0 else math.nan

    @property
    def state(self) -> KeyState | None:
        """The state of the key of the latest observation (None before the first)."""
        return None if self._last_key is _NO_KEY else self._keys[self._last_key]

    def result(self):
        """The per-key table, the verdict and (with outcomes) calibration: a ProxyResult."""
        from .result import build_result

        return build_result(self)

    def report(self):
        """Deprecated name of :meth:`result`."""
        warnings.warn("ProxyVarianceTracker.report() is renamed result()", DeprecationWarning,
                      stacklevel=2)
        return self.result()

    def fit(self, p, keys=None, outcomes=None, v_hat=None):
        """The result of replaying these observations on a fresh clone (this tracker's own
        stream is left as it is)."""
        fresh = self.clone()
        fresh.update_many(p, keys=keys, outcomes=outcomes, v_hat=v_hat)
        return fresh.result()


class _NoneKey:
    """Stands in for the key None while factorizing (pandas would turn None into NaN)."""


_NONE = _NoneKey()


def _factorize(keys):
    """Integer codes 0..count-1 (every one present) and the key of each code; None stays None.

    Small non-negative integer keys (agent ids) are their own hash: codes come from a lookup
    table in value order, three times faster than hashing.  The caller restores the order of
    first appearance.
    """
    array = keys.to_numpy() if isinstance(keys, pd.Series) else np.asarray(keys)
    if array.dtype.kind in "US" and not isinstance(keys, np.ndarray):
        # a list of keys of several types (["a", 7]): numpy would make the 7 a "7", another key
        # than update(p, key=7) adds to
        array = np.array(keys, dtype=object)
    if array.ndim != 1:
        raise InputError(f"keys: expected a 1-D array, got shape {array.shape}")
    if np.issubdtype(array.dtype, np.integer) and len(array) and array.dtype != np.uint64:
        low, high = int(array.min()), int(array.max())
        if low >= 0 and high < max(4 * len(array), 1024):
            present = np.bincount(array, minlength=high + 1) > 0
            lookup = np.cumsum(present) - 1
            return lookup[array], np.flatnonzero(present).tolist()
    # pandas reads None as missing, like NaN: only when it finds a missing key are the Nones
    # looked for (scanning a million keys for them cost more than the factorization itself,
    # and factorizing with missing keys as keys costs 1.6 times factorizing without)
    codes, uniques = pd.factorize(array)
    if len(codes) and codes.min() < 0:
        missing = np.flatnonzero(codes < 0)
        nones = [i for i in missing.tolist() if array[i] is None]
        if nones:
            array = array.copy()
            array[nones] = _NONE
        codes, uniques = pd.factorize(array, use_na_sentinel=False)
    return codes, [None if key is _NONE else key for key in uniques.tolist()]


def _one_outcome(outcome) -> float:
    if outcome is True or outcome is False:
        return float(outcome)
    try:
        value = float(outcome)
    except (TypeError, ValueError):
        raise InputError(f"outcome must be 0 or 1 (or a boolean), got {outcome!r}") from None
    if value not in (0.0, 1.0):
        hint = "; SWARM's ground_truth is +1/-1: pass (ground_truth + 1) / 2" if value == -1.0 else ""
        raise InputError(f"outcome must be 0 or 1 (or a boolean), got {outcome!r}{hint}")
    return value


_NO_KEY = object()  # no observation yet (None is a valid key)


def _renamed_alpha(renamed: dict, max_wrong_side: float) -> float:
    """``alpha=`` still sets max_wrong_side for one release; any other unknown name is an error."""
    alpha = renamed.pop("alpha", None)
    if renamed:
        raise InputError(f"ProxyVarianceTracker has no parameter {sorted(renamed)[0]!r}")
    if alpha is None:
        return max_wrong_side
    warnings.warn("ProxyVarianceTracker(alpha=...) is renamed max_wrong_side=... (a tolerated "
                  "wrong-side probability, not a significance level); alpha will be removed in the "
                  "next release", DeprecationWarning, stacklevel=3)
    return alpha
