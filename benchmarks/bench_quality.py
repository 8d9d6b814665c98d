"""quality_metrics vs SWARM's MetricsReporter.summary: same figures, ratio of times.

SWARM computes point estimates from a list of pydantic interaction objects; we
compute them from arrays (like for like: n_boot=0), and then the same call
with 2,000 bootstrap resamples and permutation shuffles (the default).  Building
SWARM's objects is not timed.

    python benchmarks/bench_quality.py [--n 100000]
"""

import argparse

import numpy as np
from _timing import machine, median_time, report

import swarmstats as ss


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--n", type=int, default=100_000)
    args = parser.parse_args()
    from swarm.metrics.reporters import MetricsReporter
    from swarm.models.interaction import SoftInteraction

    print(machine())
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, args.n)
    accepted = rng.uniform(size=args.n) < p
    interactions = [SoftInteraction(p=float(a), accepted=bool(b)) for a, b in zip(p, accepted)]
    reporter = MetricsReporter()
    theirs = reporter.summary(interactions).to_dict()
    ours = ss.quality_metrics(p, accepted, n_boot=0, swarm_compatible=True)
    assert np.isclose(ours.quality_gap, theirs["soft_metrics"]["quality_gap"], rtol=1e-9)
    assert np.isclose(ours.toxicity, theirs["soft_metrics"]["toxicity"], rtol=1e-9)
    anchor = median_time(lambda: reporter.summary(interactions), repeats=3)
    report(f"batch metrics, n = {args.n}, point estimates",
           median_time(lambda: ss.quality_metrics(p, accepted, n_boot=0), repeats=7), anchor,
           "swarm MetricsReporter.summary", "(for information)")
    report(f"batch metrics, n = {args.n}, with 2,000 bootstrap resamples and shuffles",
           median_time(lambda: ss.quality_metrics(p, accepted, random_state=0), repeats=3), anchor,
           "swarm MetricsReporter.summary (no intervals)", "(for information)")


if __name__ == "__main__":
    main()
