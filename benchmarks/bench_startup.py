"""Start-up cost: `import swarmstats` against `import pandas, numpy`, `swarmstats --help`
against a bare interpreter, and a whole `swarmstats check-convergence` of the bundled 600-row
log against `python -c "import pandas"`, each a fresh process (issue 19's targets: <= 1.3x,
<= 0.5 s over the bare start, <= 1.5x).  Medians of fresh processes; the machine is shared, so the ratios are what counts.

    python benchmarks/bench_startup.py [--repeats 15]
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _timing import machine


def process_time(code: list, repeats: int) -> float:
    """Median wall time of a fresh ``python`` running ``code`` (after one warm-up run)."""
    command = [sys.executable, *code]
    subprocess.run(command, check=True, capture_output=True)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        subprocess.run(command, check=True, capture_output=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    print(machine())
    bare = process_time(["-c", "pass"], args.repeats)
    pandas = process_time(["-c", "import pandas, numpy"], args.repeats)
    ours = process_time(["-c", "import swarmstats"], args.repeats)
    first_use = process_time(["-c", "import swarmstats; swarmstats.check_convergence"], args.repeats)
    cli_help = process_time(["-m", "swarmstats.cli", "--help"], args.repeats)
    pandas_alone = process_time(["-c", "import pandas"], args.repeats)
    log = str(Path(__file__).resolve().parents[1] / "examples" / "data" / "reward_log.csv")
    # exit 1 (not every metric converged) is the answer, not a failure: run through a wrapper
    check = process_time(["-c", "import sys; from swarmstats.cli import main\n"
                          f"sys.argv = ['swarmstats', 'check-convergence', {log!r}]\n"
                          "try:\n    main()\nexcept SystemExit:\n    pass"], args.repeats)
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
