"""Start-up cost: `import swarmstats` against `import pandas, numpy`, `swarmstats --help`
against a bare interpreter, and a whole `swarmstats check-convergence` of the bundled 600-row
log against `python -c "import pandas"`, each a fresh process (issue 19's targets: <= 1.3x,
<= 0.5 s over the bare start, <= 1.5x).  Medians of fresh processes; the machine is shared, so the ratios are what counts.

    python benchmarks/bench_startup.py [--repeats 15]
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _timing import machine


def bytecode_env(cache: str) -> dict:
    """The environment with bytecode written and read under ``cache``.  An installed package
    has its modules compiled at install time, as pandas has here; an editable checkout run
    with PYTHONDONTWRITEBYTECODE (these machines set it) would compile ~60 modules of ours
    in every process (~60 ms) and time the compiler, not the package."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPYCACHEPREFIX"] = cache
    return env


def process_times(codes: dict, repeats: int, env: dict) -> dict:
    """Median wall time of a fresh ``python`` running each of ``codes``, the commands taken in
    turn so that a busy spell of the shared machine falls on all of them (after one warm-up run
    each, which also writes the bytecode)."""
    commands = {name: [sys.executable, *code] for name, code in codes.items()}
    for command in commands.values():
        subprocess.run(command, check=True, capture_output=True, env=env)
    times = {name: [] for name in commands}
    for _ in range(repeats):
        for name, command in commands.items():
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, env=env)
            times[name].append(time.perf_counter() - start)
    return {name: statistics.median(values) for name, values in times.items()}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(machine())
    log = str(Path(__file__).resolve().parents[1] / "examples" / "data" / "reward_log.csv")
    codes = {
        "bare": ["-c", "pass"],
        "pandas": ["-c", "import pandas, numpy"],
        "ours": ["-c", "import swarmstats"],
        "first_use": ["-c", "import swarmstats; swarmstats.check_convergence"],
        "cli_help": ["-m", "swarmstats.cli", "--help"],
        "pandas_alone": ["-c", "import pandas"],
        # exit 1 (not every metric converged) is the answer, not a failure: run through a wrapper
        "check": ["-c", "import sys; from swarmstats.cli import main\n"
                  f"sys.argv = ['swarmstats', 'check-convergence', {log!r}]\n"
                  "try:\n    main()\nexcept SystemExit:\n    pass"],
    }
    with tempfile.TemporaryDirectory() as cache:
        medians = process_times(codes, args.repeats, bytecode_env(cache))
    bare, pandas, ours, first_use, cli_help, pandas_alone, check = (medians[name] for name in codes)
    print(f"import swarmstats {ours:.3f} s, import pandas, numpy {pandas:.3f} s (medians) -> "
          f"{ours / pandas:.2f}x  [target: <= 1.3x]")
    print(f"import swarmstats and touch check_convergence (loads its modules) {first_use:.3f} s -> "
          f"{first_use / pandas:.2f}x pandas, numpy")
    print(f"swarmstats --help {cli_help:.3f} s, bare interpreter {bare:.3f} s -> "
          f"{cli_help - bare:.3f} s over the bare start  [target: <= 0.5 s]")
    print(f"swarmstats check-convergence on the 600-row example log {check:.3f} s, python -c 'import "
          f"pandas' {pandas_alone:.3f} s -> {check / pandas_alone:.2f}x  [target: <= 1.5x]")


if __name__ == "__main__":
    main()
