"""Measured level and power of the clustered adverse-selection p-value (the numbers in
docs/quality.md, "Clustered interactions"), each with its binomial standard error.

    python benchmarks/calibration_quality_clusters.py [--reps 1000]

Agents with their own quality offset and, independently, their own acceptance offset (logit
scale, SD ``sd``): no selection on p, so every rejection at 5% is a false alarm.  Power: the
same agents, each interaction accepted with probability logistic(offset - 0.3 x its quality
logit).  Three p-values on the same batches: the one-way jackknife t that quality_metrics and
adverse_selection_test use, the share of cluster-bootstrap gaps at or above zero that
quality_metrics used before, and the permutation test that ignores the agents.  Last, time
blocks: p and acceptance drifting with two unrelated AR(phi) processes, 1,000 interactions,
quality_metrics's default blocks.
"""

import argparse

import numpy as np
from calibration import rate
from scipy.special import expit

import swarmstats as ss
from swarmstats._kernels.bootstrap import bootstrap_counts, jackknife_t_pvalues
from swarmstats.quality.clustered_gap import _sums_by, stratum_gap_mean

DESIGNS = [  # (agents, interactions each, offset SD, equal sizes)
    (5, 200, 1.0, True), (10, 100, 1.0, True), (20, 50, 0.0, True), (20, 50, 0.5, True),
    (20, 50, 1.0, True), (20, None, 1.0, False), (50, 20, 1.0, True)]


def batch(rng, agents, per, sd, slope=0.0):
    sizes = np.full(agents, per) if per else rng.geometric(1 / 50, agents) + 1
    agent = np.repeat(np.arange(agents), sizes)
    quality = rng.normal(0, sd, agents)[agent] + rng.normal(0, 1, agent.size)
    accepted = rng.random(agent.size) < expit(rng.normal(0, sd, agents)[agent] - slope * quality)
    return expit(quality), accepted, agent


def pvalues(rng, p, accepted, agent, with_permutation):
    totals = _sums_by(agent, int(agent.max()) + 1, np.zeros(agent.size, int), 1, p, accepted)
    t_less = float(jackknife_t_pvalues(stratum_gap_mean, totals)[0][0])
    draws = bootstrap_counts(rng, len(totals), 999).astype(float)
    gaps = stratum_gap_mean(draws @ totals)[:, 0]
    gaps = gaps[np.isfinite(gaps)]
    share = (1 + np.sum(gaps >= 0)) / (1 + len(gaps))
    shuffled = (ss.adverse_selection_test(p, accepted, n_perm=199, blocks=None, random_state=rng).pvalue
                if with_permutation else np.nan)
    return t_less, share, shuffled


def drifts(rng, n, phi):
    def drift():
        shocks = rng.normal(size=n) * np.sqrt(1 - phi * phi)
        z = np.empty(n)
        z[0] = rng.normal()
        for t in range(1, n):
            z[t] = phi * z[t - 1] + shocks[t]
        return z
    return expit(drift()), drift() + 0.5 * rng.normal(size=n) > 0


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=1000)
    reps = parser.parse_args().reps
    rng = np.random.default_rng(0)
    print(f"rejected at 5%, no selection ({reps} batches each; permutation: the first 200)")
    print("agents x each, offset SD | jackknife t | bootstrap share | permutation")
    for agents, per, sd, _ in DESIGNS:
        hits = np.zeros(3)
        for rep in range(reps):
            hits += np.array(pvalues(rng, *batch(rng, agents, per, sd), rep < 200)) < 0.05
        print(f"{agents} x {per or '~50 (geometric)'}, {sd} | {rate(hits[0], reps)} | "
              f"{rate(hits[1], reps)} | {rate(hits[2], min(reps, 200))}")
    print("\npower at 5%, acceptance falling with quality (slope 0.3 on the logit scale)")
    for agents, per, sd in ((20, 50, 1.0), (20, 50, 0.5), (50, 20, 1.0)):
        hits = np.zeros(2)
        for _ in range(reps):
            hits += np.array(pvalues(rng, *batch(rng, agents, per, sd, slope=0.3), False)[:2]) < 0.05
        print(f"{agents} x {per}, {sd} | {rate(hits[0], reps)} | {rate(hits[1], reps)}")
    print("\ntime blocks: two unrelated AR(phi) drifts, 1,000 interactions, quality_metrics's p-value")
    for phi in (0.9, 0.98):
        blocked = sum(ss.quality_metrics(*drifts(rng, 1000, phi), n_boot=999, random_state=rng)
                      .comparison["adverse_selection_pvalue"] < 0.05 for _ in range(reps // 2))
        print(f"AR({phi}) | {rate(blocked, reps // 2)}")


if __name__ == "__main__":
    main()
