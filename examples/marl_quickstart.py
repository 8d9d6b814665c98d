"""Multi-agent runs as pymarl (sacred) and Mava (marl-eval) keep them: the runs, what each ran,
and one verdict per configuration over its seeds.  Reads the real logs in tests/fixtures/real.

    python examples/marl_quickstart.py [--plot out.png]
"""

import sys
from pathlib import Path

import swarmstats

REAL = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "real"

# A pymarl user's results/sacred: one run per folder; each run's config.json says what it ran,
# and runs that differ only in their seeds are replicates whatever their folders are called.
runs = swarmstats.read_log(REAL / "pymarl" / "sacred", wide=True)
configs = runs.attrs["run_configs"]
print("runs and their configurations:", configs)
for note in runs.attrs["notes"][:2]:
    print("  note:", note)

# The test win rate, run by run: a seed still climbing, one that never won, a plateau near 0.94
# (the index named after what a step is - pymarl's t_env - so slopes read "per 100 timesteps").
unit = runs.attrs["step_unit"]
win_rates = {run: rows.set_index("step")["test_battle_won_mean"].dropna().rename_axis(unit)
             for run, rows in runs.groupby("run")}
for run, series in win_rates.items():
    result = swarmstats.check_convergence(series, name=f"test win rate [{run}]")
    print(result.summary().splitlines()[0])

# The two MMM2 seeds together: each run's verdict, and whether they agree (R-hat).
mmm2 = [series.to_numpy() for run, series in win_rates.items() if configs[run] == "env_args.map_name=MMM2"]
print(swarmstats.check_convergence(mmm2).summary().splitlines()[0], end="\n\n")

# Mava's evaluations in marl-eval's JSON: each seed a run, the seeds of an algorithm replicates.
# IPPO on the Climbing game settles at the suboptimal equilibrium (150) in two of four seeds:
# each run is flat within a point of return, and the seeds disagree.
evaluations = swarmstats.read_log(REAL / "marl-eval", wide=True)
ippo = [rows["mean_episode_return"].to_numpy() for run, rows in evaluations.groupby("run") if run.startswith("ff_ippo")]
print({run: round(float(rows["mean_episode_return"].iloc[-1]), 1) for run, rows in evaluations.groupby("run")})
print(swarmstats.check_convergence(ippo, tolerance=1.0).summary().splitlines()[0])

if "--plot" in sys.argv:
    import matplotlib

    matplotlib.use("Agg")
    ax = swarmstats.check_convergence(win_rates["3_3s5z"], name="test win rate [3_3s5z]").plot()
    ax.figure.savefig(sys.argv[sys.argv.index("--plot") + 1], dpi=110)
