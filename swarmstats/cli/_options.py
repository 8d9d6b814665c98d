"""The parser every command shares: its class and usage error, the exit codes, the table of
commands, and the option groups (log, input format, output, better, run, seed)."""

from __future__ import annotations

import argparse
import math

from ._output import say

# Nothing heavy is imported here at module level: the root parser (``swarmstats --help``) is
# built from this module alone, and the analysis modules (pandas, scipy) are imported by the
# command that runs.

EXIT_PASS, EXIT_FAIL, EXIT_ERROR = 0, 1, 2


#: every command: its module in swarmstats.cli and its one-line help (the list ``swarmstats
#: --help`` shows is built from this table alone, without importing a command)
COMMANDS = {
    "check-convergence": ("convergence", "has each metric converged? (a CI gate: exit 1 if not)"),
    "regimes": ("regimes", "where do regimes change, and how much? (offline changepoints)"),
    "quality-gap": ("quality", "is selection working? soft and hard quality-gap metrics (exit 1 if adverse)"),
    "describe": ("describe", "the distribution of each metric, with autocorrelation-aware intervals"),
    "proxy": ("proxy", "is each key's proxy score too noisy for a hard decision? (exit 1 if any is)"),
    "windows": ("windows", "adaptive evaluation windows: improving, degrading, stable or uncertain at each step "
                           "(a diagnostic rises or falls)"),
    "watch": ("watch", "follow a growing log (e.g. prime-rl metrics.jsonl) and print verdict changes"),
    "sweep": ("sweep", "analyse every run of a sweep (locally or on Dask) and summarise by setting"),
    "compare": ("compare", "is the first set of runs (seeds) better than the others? (exit 1 if not shown)"),
    "curves": ("curves", "across-seed learning curves with pointwise intervals, drawn"),
    "best-of": ("best_of", "the best of several runs, adjusted for being picked, and P(truly the best)"),
    "agents": ("agents", "multi-agent coupling: contagion, agreement, synergy gap, equilibria across runs (one line each)"),
    "divergence": ("divergence", "has the outcome stopped following the proxy? a Goodhart check (exit 1 if it has)"),
    "learning-signal": ("learning_signal", "is GRPO still learning? flat reward groups and the step they took over (exit 1 if collapsed)"),
    "report": ("report", "one self-contained HTML page (or PNG) with every metric's evidence"),
}


class Parser(argparse.ArgumentParser):
    """argparse, but usage errors are one line and exit 2."""

    def error(self, message):
        raise UsageError(f"{self.prog}: {message} (see --help)")


class UsageError(Exception):
    pass


# argparse types: a bad number is a usage error naming the option, never a traceback or a
# NaN carried into a loop (``--interval nan``) or a seed numpy refuses (``--seed -1``)
def finite(text: str) -> float:
    """A finite number (no nan, no inf)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return value


def at_least(minimum: int, why: str = ""):
    """An integer >= ``minimum`` (``why`` says what a smaller one would break)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}{why}, got {value}")
        return value

    parse.__name__ = f"integer >= {minimum}"
    return parse


seed = at_least(0, " (a random seed)")


class Renamed(argparse.Action):
    """An old option spelling that still works for one release, with a note saying the new one."""

    def __init__(self, option_strings, dest, new: str, **kwargs):
        self.new = new
        super().__init__(option_strings, dest, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        if option_string != self.new:
            say(f"{option_string} is renamed {self.new} (the old name goes in the next release)")
        setattr(namespace, self.dest, values)


def add_random_seed_option(parser, help: str) -> None:
    """``--random-seed`` (``--seed`` until the next release: it read like the run column 'seed')."""
    parser.add_argument("--random-seed", "--seed", dest="random_seed", type=seed, default=0, metavar="S",
                        action=Renamed, new="--random-seed", help=help)


# Option groups declared once: every command spells and explains them the same way.
#: what FILE may be, for every command that reads a log
LOG_FILE = "log file (CSV, TSV, JSON Lines, JSON list, any log read_log knows) or - for stdin"


USAGE_ERROR = "usage or input error (one line on stderr; --debug shows the traceback)"


def add_command(commands, name: str, *, description: str, exits: dict | None = None,
                note: str | None = None):
    """A command's parser, its exit codes listed in the epilog (after ``note``): ``exits`` says
    what 0 (and 1) mean for it; 2 is a usage or input error unless ``exits`` says more."""
    codes = {0: "success", 2: USAGE_ERROR, **(exits or {})}
    epilog = "exit codes:\n" + "\n".join(f"  {code}  {text}" for code, text in sorted(codes.items()))
    if note:
        epilog = f"{note}\n\n{epilog}"
    return commands.add_parser(name, help=COMMANDS[name][1], description=description, epilog=epilog,
                               formatter_class=argparse.RawDescriptionHelpFormatter)


def add_log_options(parser, *, file: str = LOG_FILE,
                    metric: str = "metric column (repeatable; default: every metric column)",
                    step: str = "column to use as the step axis (default: a column named like a step)",
                    runs: bool = True, group: str | None = None) -> None:
    """FILE, which metrics (``-m``), the step axis, and - for logs of several runs - ``--run``
    and (with ``group``, what a run gets) ``--group``."""
    parser.add_argument("file", metavar="FILE", help=file)
    parser.add_argument("-m", "--metric", action="append", default=None, help=metric)
    parser.add_argument("--step", help=step)
    if runs:
        add_run_option(parser)
    if group is not None:
        parser.add_argument("--group", help=f"column naming the run/seed: {group}")


def add_input_format_option(parser, formats, what: str = "FILE") -> None:
    parser.add_argument("--input-format", choices=formats,
                        help=f"format of {what} (needed for odd names and stdin)")


def add_output_options(parser, *, formats=("text", "json", "csv"), plot: str | None = None) -> None:
    """``--format`` and, with ``plot`` (what the image shows), ``--plot``."""
    parser.add_argument("--format", choices=formats, default="text", help="output format")
    if plot is not None:
        parser.add_argument("--plot", metavar="PNG",
                            help=f"also draw {plot} into this image (.png, .pdf, .svg)")


def add_exit_zero_option(parser, failing: str) -> None:
    parser.add_argument("--exit-zero", action="store_true",
                        help=f"report only: exit 0 even {failing} (still 2 on errors)")


def add_shared_options(parser) -> None:
    """What every command accepts (declared here once, added to each by the CLI)."""
    shared = parser.add_argument_group("every command")
    shared.add_argument("--no-color", action="store_true", help="no colour (NO_COLOR is honoured too)")
    shared.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    shared.add_argument("--mlflow-uri", metavar="URI",
                        help="read the logs from this MLflow tracking server (http://HOST:PORT); "
                             "each log is then experiments/NAME_OR_ID or runs/RUN_ID")


def add_better_option(parser) -> None:
    parser.add_argument("--better", choices=("auto", "higher", "lower"), default="auto",
                        help="which direction is an improvement (default auto: lower for a loss, "
                             "error, perplexity, toxicity, WER/CER, regret, cost; else higher)")


def add_run_option(parser) -> None:
    parser.add_argument("--run", help="analyse only this run of a log that holds several "
                                      "(a run/seed column, a W&B chart export, a TensorBoard directory ...)")
