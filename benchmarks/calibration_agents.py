"""The multi-agent estimators (``swarmstats.contagion`` ...) on simulated agents with a known truth.

Agreement: how often stationary agreement is called a trend, and how often an escalation is
found (``scenarios.agent_actions``).  Synergy gap: coverage of the gap to the best member and the trend test's size
(``scenarios.team_evaluations``).  Equilibria: how often the count of distinct equilibria is right for sweeps with one to three
equilibria (``scenarios.seeds_at_equilibria``).  Contagion: how often independent agents are linked (a pair's rotation test, the population
test) and how often a transfer - the follower copying the leader's work/idle state L steps
later - is found with the right leader and lag, by noise level and series length
(``scenarios.agent_behaviour``).

    python benchmarks/calibration_agents.py [runs per row]
"""

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from scenarios import (  # noqa: E402
    agent_actions,
    agent_behaviour,
    seeds_at_equilibria,
    team_evaluations,
)

from swarmstats import agreement, contagion, equilibria, synergy_gap  # noqa: E402


def contagion_size(runs, kind, agents=2, steps=200):
    rng = np.random.default_rng(1)
    results = [contagion(agent_behaviour(rng, kind=kind, agents=agents, steps=steps), n_perm=199, random_state=rng)
               for _ in range(runs)]
    return (np.mean([np.mean(r.pairs["p"] <= 0.05) for r in results]),
            np.mean([r.population_p <= 0.05 for r in results]))


def contagion_power(runs, lag, noise, steps, seed=2):
    """(share found with the right leader, share found with the right leader and lag)."""
    rng = np.random.default_rng(seed)
    found = right_lag = 0
    for _ in range(runs):
        result = contagion(agent_behaviour(rng, follow_lag=lag, noise=noise, steps=steps), n_perm=199,
                           random_state=rng)
        top = result.pairs.iloc[0]
        shown = top.p <= 0.05 and top.leader == "agent_0"
        found += shown
        right_lag += shown and top.lag == lag
    return found / runs, right_lag / runs


def equilibria_accuracy(runs, levels, seed=3, **design):
    """The share of sweeps whose count of equilibria is right."""
    rng = np.random.default_rng(seed)
    right = 0
    for _ in range(runs):
        seeds, picks = seeds_at_equilibria(rng, levels, **design)
        right += equilibria(seeds).n_equilibria == len(set(picks))
    return right / runs


def synergy_calibration(runs, seed=4, **design):
    """(coverage of the gap to the best member over every team size, trend test rejections at
    5% among the runs where it was measured, runs where it was measured)."""
    rng = np.random.default_rng(seed)
    covered, rejected, measured = [], 0, 0
    for _ in range(runs):
        frame, truth = team_evaluations(rng, **design)
        result = synergy_gap(frame)
        covered += [row.gap_best_low <= truth[row.team_size] <= row.gap_best_high for row in result.by_size.itertuples()]
        if np.isfinite(result.slope_p):
            measured += 1
            rejected += result.slope_p < 0.05
    return np.mean(covered), rejected / max(measured, 1), measured


def agreement_calls(runs, seed=5, **design):
    """(share called escalating, diversifying, insufficient_data)."""
    rng = np.random.default_rng(seed)
    verdicts = [agreement(agent_actions(rng, **design)).verdict for _ in range(runs)]
    return tuple(verdicts.count(v) / runs for v in ("escalating", "diversifying", "insufficient_data"))


def main(runs=200):
    print("agreement: called escalating / diversifying at 5% / insufficient_data (8 agents, 3 strategies, "
          "persistence 0.9)")
    for label, design in [("stationary, conformity 0.2, 300 steps", {}),
                          ("stationary, conformity 0.5", {"conform": (0.5, 0.5)}),
                          ("stationary, 4 agents", {"agents": 4}), ("stationary, persistence 0.5", {"persistence": 0.5}),
                          ("stationary, persistence 0.97", {"persistence": 0.97}),
                          ("stationary, 100 steps", {"steps": 100}), ("stationary, 1,000 steps", {"steps": 1000}),
                          ("escalation: conformity 0 -> 0.6, 300 steps", {"conform": (0.0, 0.6)}),
                          ("escalation: conformity 0 -> 0.6, 1,000 steps", {"conform": (0.0, 0.6), "steps": 1000}),
                          ("escalation: conformity 0.1 -> 0.4, 1,000 steps", {"conform": (0.1, 0.4), "steps": 1000})]:
        up, down, short = agreement_calls(runs, **design)
        print(f"  {label:48s} {up:.3f} / {down:.3f} / {short:.3f}")
    print()
    print("synergy gap: coverage of team - best member (teams of 2, 3, 4; 30 units) / trend test at 5% (measured in)")
    for label, design in [("copies of one agent", {"members_layout": False}),
                          ("copies, 10 units", {"members_layout": False, "units": 10}),
                          ("members, skills SD 0.05 (noise 0.1)", {}), ("members, skills SD 0.2", {"skill_sd": 0.2}),
                          ("members, equal skills", {"skill_sd": 0.0}), ("members, 10 units", {"units": 10})]:
        coverage, rejected, measured = synergy_calibration(runs, **design)
        print(f"  {label:40s} {coverage:.3f} / {rejected:.3f} ({measured} of {runs})")
    print()
    print("equilibria: the right count (1, 2, 3 equilibria 3 within-run SDs apart)")
    for label, design in [("10 seeds x 600 steps, AR(0.5), seeds 0.25 SD apart", {}),
                          ("AR(0.9) noise", {"phi": 0.9}), ("5 seeds x 200 steps", {"seeds": 5, "steps": 200}),
                          ("seeds 0.5 SD apart", {"heterogeneity": 0.5})]:
        cells = [equilibria_accuracy(runs, levels, **design) for levels in ([0.0], [0.0, 3.0], [0.0, 3.0, 6.0])]
        print(f"  {label:52s} " + " / ".join(f"{cell:.3f}" for cell in cells))
    print()
    print("contagion: independent agents linked at alpha = 5% (pair test / population test)")
    for kind in ("switching", "ar", "walk"):
        for agents in (2, 6):
            pair, population = contagion_size(runs, kind, agents)
            print(f"  {kind:9s} {agents} agents: {pair:.3f} / {population:.3f}")
    print("\ncontagion: a transfer found with the right leader (and lag)")
    for steps in (200, 400):
        for noise in (0.1, 0.2, 0.3):
            cells = [contagion_power(runs, lag, noise, steps) for lag in (1, 3, 5)]
            print(f"  {steps} steps, noise {noise}: " + "  ".join(f"lag {lag}: {a:.2f} ({b:.2f})"
                                                                   for lag, (a, b) in zip((1, 3, 5), cells)))


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 200)
