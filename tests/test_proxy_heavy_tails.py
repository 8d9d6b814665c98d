"""Heavy tails within keys: the tracker's fourth-power sums, the pooled kurtosis read from them,
and wrong-side probabilities that stay honest when an agent sometimes scores far off."""

import math

import numpy as np
import pytest

from swarmstats import ProxyVarianceTracker
from swarmstats._kernels.key_kurtosis import expected_fourth, pooled_kurtosis


def _sample_m4(x: np.ndarray) -> float:
    d = x - x.mean()
    return float((d ** 4).sum())


def test_the_fourth_power_sum_streams_in_batches_as_in_a_loop_and_as_numpy_sums():
    rng = np.random.default_rng(0)
    n = 3000
    keys = [["a", "b", 7][i] for i in rng.integers(0, 3, n)]
    p = np.where(rng.random(n) < 0.1, 0.0, np.clip(0.6 + rng.normal(0, 0.1, n), 0, 1))
    loop = ProxyVarianceTracker()
    for value, key in zip(p, keys):
        loop.update(value, key=key)
    batch = ProxyVarianceTracker()
    for start in range(0, n, 700):
        batch.update_many(p[start:start + 700], keys=keys[start:start + 700])
    for key in ("a", "b", 7):
        mine = p[np.array([k == key for k in keys])]
        assert loop[key].m4 == pytest.approx(_sample_m4(mine), rel=1e-9)
        assert batch[key].m4 == pytest.approx(_sample_m4(mine), rel=1e-9)


def test_expected_fourth_sums_match_simulation():
    """The closed forms of E[M4] and E[M2^2] for n points around their own mean, against the
    averages of 200,000 samples of a distribution whose kurtosis is known (Laplace: K = 6)."""
    rng = np.random.default_rng(1)
    for n in (4, 7, 15):
        x = rng.laplace(scale=1 / math.sqrt(2), size=(200_000, n))  # unit variance
        d = x - x.mean(axis=1, keepdims=True)
        m2, m4 = (d ** 2).sum(1), (d ** 4).sum(1)
        fourth, squared = expected_fourth(6.0, n)
        assert m4.mean() == pytest.approx(float(fourth), rel=4 * m4.std() / m4.mean() / math.sqrt(len(m4)))
        assert (m2 ** 2).mean() == pytest.approx(float(squared), rel=4 * (m2 ** 2).std() / (m2 ** 2).mean()
                                                 / math.sqrt(len(m2)))


@pytest.mark.parametrize("name, kurtosis", [("normal", 3.0), ("uniform", 1.8), ("rare zero", 0.73 / 0.09)])
def test_the_pooled_kurtosis_and_its_standard_error_are_honest_on_keys_of_mixed_lengths(name, kurtosis):
    """300 populations of 150 keys of 4-30 scores: the estimate's z against the truth has mean
    ~0 and SD ~1 (the grouped jackknife's standard error)."""
    rng = np.random.default_rng(2)
    zs = []
    for _ in range(300):
        lengths = rng.integers(4, 31, 150)
        draws = {"normal": rng.normal, "uniform": rng.random,
                 "rare zero": lambda size: (rng.random(size) < 0.9) * 1.0}[name]
        fourth, squares = [], []
        for length in lengths:
            x = draws(size=int(length)) * rng.uniform(0.5, 2)  # keys differ in scale
            d = x - x.mean()
            fourth.append((d ** 4).sum())
            squares.append((d ** 2).sum())
        k, se = pooled_kurtosis(np.array(fourth), np.array(squares), lengths)
        zs.append((k - kurtosis) / se)
    zs = np.array(zs)
    assert abs(zs.mean()) < 0.25 and 0.8 < zs.std() < 1.3, (zs.mean(), zs.std())


def test_too_few_scores_say_nothing_of_the_kurtosis():
    # two or three scores: M4 / M2^2 carries no information about K (both sides of the
    # moment equation move together); nothing to estimate
    assert all(math.isnan(v) for v in pooled_kurtosis(np.array([1.0, 2.0]), np.array([1.0, 1.5]), np.array([3, 2])))


def _rare_zero_population(keys: int, obs: int, rng):
    """Agents whose score is 0 one time in ten (a failed episode) and otherwise near
    ``level / 0.9``: true means uniform on (0.3, 0.7), scores in time order by key."""
    truth = rng.uniform(0.3, 0.7, keys)
    usual = np.repeat(truth / 0.9, obs) + rng.normal(0, 0.05, keys * obs)
    scores = np.where(rng.random(keys * obs) < 0.1, 0.0, np.clip(usual, 0, 1))
    return truth, scores, np.repeat(np.arange(keys), obs)


@pytest.mark.parametrize("obs", [5, 10])
def test_keys_cleared_despite_rare_far_scores_are_wrong_no_more_often_than_they_say(obs, monkeypatch):
    """Judged as normal noise, keys of 10 such scores given under 5% were on the wrong side
    4.4 times as often as their probabilities said (3.8% against 0.86%), and keys of 5 scores
    2.7 times; with the pooled kurtosis a key's own spread counts for less, and the keys a gate
    at 5% clears are wrong no more often than said (within 3 binomial SE)."""
    import swarmstats.proxy.result as result_module

    rng = np.random.default_rng(30 + obs)
    truth, scores, keys = _rare_zero_population(4000, obs, rng)

    def cleared(result):
        table = result.table
        table = table.loc[np.arange(4000)]
        q = table["wrong_side_probability"].to_numpy()
        wrong = (table["mean"].to_numpy() >= 0.5) != (truth >= 0.5)
        inside = q < 0.05
        assert inside.sum() > 1000
        predicted = q[inside].mean()
        return wrong[inside].mean(), predicted, math.sqrt(predicted * (1 - predicted) / inside.sum())

    result = ProxyVarianceTracker().fit(scores, keys=keys)
    observed, predicted, se = cleared(result)
    assert observed <= predicted + 3 * se, (observed, predicted)
    tails = result.heavy_tails
    assert abs(tails["kurtosis"] - 0.73 / 0.09) < 4 * tails["se"] + 1.0 and tails["excess_used"] > 3
    assert any("heavy-tailed" in note for note in result.notes)
    # the same keys judged as if their noise were normal: the test above can fail
    monkeypatch.setattr(result_module, "variance_dofs", lambda dofs, excess, n: dofs)
    observed, predicted, se = cleared(ProxyVarianceTracker().fit(scores, keys=keys))
    assert observed > predicted + 3 * se and observed > 2 * predicted, (observed, predicted)


def test_normal_noise_is_not_called_heavy_tailed():
    rng = np.random.default_rng(40)
    truth = rng.uniform(0.3, 0.7, 2000)
    scores = np.clip(np.repeat(truth, 8) + rng.normal(0, 0.08, 16000), 0, 1)
    result = ProxyVarianceTracker().fit(scores, keys=np.repeat(np.arange(2000), 8))
    tails = result.heavy_tails
    assert abs(tails["kurtosis"] - 3) < 4 * tails["se"] and tails["excess_used"] < 3 * tails["se"]
    assert not any("heavy-tailed" in note for note in result.notes)
