"""`swarmstats sweep`: every run of a sweep checked, the sweep summarised by setting."""

from __future__ import annotations

import sys

from ..errors import InputError
from ..io import LOG_FORMATS
from ..sweeps import BACKENDS, RegimeRules, sweep
from ._loading import MIN_VALUES
from ._options import (
    EXIT_PASS,
    add_command,
    add_input_format_option,
    add_output_options,
    at_least,
    finite,
)
from ._output import plot_results, render


def add_parser(commands) -> None:
    parser = add_command(
        commands, "sweep",
        description="Each run (a file, a run folder, or a group of one long file) gets its "
                    "convergence verdict, regimes and description per metric, and SWARM's regime "
                    "call; runs that fail are reported and the rest analysed.  --by groups runs by "
                    "parameters (key=value path segments, params.json, constant columns) with "
                    "across-seed intervals; --phase finds where collapse begins.",
        exits={0: "the sweep ran (failed runs are reported, not fatal)"})
    parser.add_argument("paths", metavar="PATH", nargs="+", help="log files, globs or directories of runs")
    parser.add_argument("-m", "--metric", action="append", default=None, help="metric (repeatable)")
    parser.add_argument("--group", help="split one long file into runs by this column")
    parser.add_argument("--by", action="append", default=None, help="parameter to group runs by (repeatable)")
    parser.add_argument("--phase", help="numeric parameter along which to locate the collapse transition")
    parser.add_argument("--backend", choices=BACKENDS, default="local", help="local process pool or dask")
    parser.add_argument("--scheduler", help="address of a running Dask scheduler (default: a LocalCluster)")
    parser.add_argument("--workers", type=at_least(1), help="worker processes (default: the CPU count)")
    parser.add_argument("--cooperative", type=finite, default=0.85, help="acceptance for 'cooperative'")
    parser.add_argument("--collapse-acceptance", type=finite, default=0.30, help="acceptance for 'collapse'")
    parser.add_argument("--collapse-toxicity", type=finite, default=0.50, help="toxicity for 'collapse'")
    add_input_format_option(parser, LOG_FORMATS, "the run files")
    add_output_options(parser, plot="collapse share against --phase (or means by setting)")


def run(args) -> int:
    rules = RegimeRules(cooperative_acceptance=args.cooperative, collapse_acceptance=args.collapse_acceptance,
                        collapse_toxicity=args.collapse_toxicity)
    progress = sys.stderr.isatty() and args.format == "text"
    result = sweep(args.paths, metrics=args.metric, by=args.by, group=args.group, backend=args.backend,
                   workers=args.workers, scheduler=args.scheduler, phase=args.phase, regime_rules=rules,
                   format=args.input_format, progress=progress)
    _refuse_if_nothing_analysed(result)
    render(args, "sweep", [result], payload=result.to_dict, table=result.to_frame,
           text=lambda: print(result.summary()))
    if args.plot:
        plot_results([result], args.plot, (8, 4))
    return EXIT_PASS


def _refuse_if_nothing_analysed(result) -> None:
    """A sweep where no run could be analysed is an input error, not a pass: say why the first
    run failed."""
    analysed = [r for r in result.runs if r["status"] == "ok" and (
        r.get("regime") or any(entry.get("n", 0) >= MIN_VALUES for entry in r["metrics"].values()))]
    if analysed:
        return
    why = next((r["error"] for r in result.runs if r.get("error")), None)
    if why is None:
        short = any(r["metrics"] for r in result.runs)
        why = f"fewer than {MIN_VALUES} values of every metric" if short else "no numeric metric in any run"
    raise InputError(f"none of the {result.n_runs} run(s) could be analysed ({why})")
